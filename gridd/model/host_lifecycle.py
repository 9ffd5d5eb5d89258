"""The execution host lifecycle as the master sees it: the states a host is in, the events
that move it, and the one table of where each event takes a host in each state, as
gridd.model.task_lifecycle has for tasks; what a host's state shows (qstat -f's "u",
qhost's "-"); and the times of sge_conf(5)'s max_unheard and reschedule_unknown.

A host is unknown until its execd registers or reports its load, up while it reports,
and unknown again once it has been silent longer than max_unheard (global only, and a
change takes effect at once, as in 8.1.9). Nothing is dispatched to a host that is not
up. Once it has been unknown for reschedule_unknown (0: never), the rerunnable jobs whose
master task runs there are rescheduled (gridd.master.execution); the others run on as
far as the master knows, until the host comes back or an operator acts (unless
qmaster_params say otherwise: gridd.model.master_params).
"""

from __future__ import annotations

from typing import TypeGuard

import msgspec

from gridd.model.cluster import ExecHost

UNKNOWN = "unknown"  # not heard from since the master started, or silent too long
UP = "up"  # registered or reporting, and not silent too long
STATES = (UNKNOWN, UP)

REGISTER = "register"  # its execd (re)starts, saying what runs and what ended there
REPORT = "report"  # its execd's load report
TIMEOUT = "timeout"  # silent too long (timed_out)

# state -> event -> next state. Anything missing is refused.
TABLE: dict[str, dict[str, str]] = {
    UNKNOWN: {REGISTER: UP, REPORT: UP},
    UP: {REGISTER: UP, REPORT: UP, TIMEOUT: UNKNOWN},
}

# The letter a host's state adds to its queue instances' states (qstat -f, qselect -qs).
INSTANCE_LETTERS = {UNKNOWN: "u", UP: ""}

# The master looks at its hosts four times in max_unheard, but not more often than
# CHECK_MIN nor less often than CHECK_MAX seconds.
CHECK_MIN, CHECK_MAX = 0.5, 5.0
MAX_UNHEARD = 300.0  # max_unheard's default, 00:05:00


def after(state: str, event: str) -> str | None:
    """Where `event` takes a host in `state`, or None: the table refuses it."""
    moves = TABLE.get(state)
    return None if moves is None else moves.get(event)


def timed_out(host: ExecHost, max_unheard: float, now: float) -> bool:
    """Whether the host has been silent longer than max_unheard."""
    return now - host.last_report > max_unheard


def check_interval(max_unheard: float) -> float:
    """Seconds between the master's looks at its hosts: a host goes unknown at most a
    quarter of max_unheard late."""
    return min(CHECK_MAX, max(CHECK_MIN, max_unheard / 4))


def reschedule_due(unknown_since: float, reschedule_unknown: float, now: float) -> bool:
    """Whether the jobs of a host unknown since then are to be rescheduled: it has been
    unknown for reschedule_unknown (0: never)."""
    return reschedule_unknown > 0 and now >= unknown_since + reschedule_unknown


def shown(host: ExecHost, state: str) -> ExecHost:
    """The host as qhost and qstat are told of it: one not up without its last report time
    (0), since its load values are stale."""
    if state == UP:
        return host
    return msgspec.structs.replace(host, last_report=0.0)


def shown_up(host: ExecHost | None) -> TypeGuard[ExecHost]:
    """Whether a host as told of (shown) was up (and so is a host)."""
    return host is not None and host.last_report > 0

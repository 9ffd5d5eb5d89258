"""The execution host lifecycle as the master sees it: the states a host is in, the events
that move it, and the one table of where each event takes a host in each state, as
gridd.model.task_lifecycle has for tasks; and what a host's state shows (qstat -f's "u",
qhost's "-").

A host is unknown until its execd registers or reports its load, up while it reports,
and unknown again once it has been silent past its timeout (the master's host timeout,
and three of its load report intervals). Nothing is dispatched to a host that is not up,
and its running tasks are taken as lost only when its execd registers again without them.
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


def after(state: str, event: str) -> str | None:
    """Where `event` takes a host in `state`, or None: the table refuses it."""
    moves = TABLE.get(state)
    return None if moves is None else moves.get(event)


def timed_out(host: ExecHost, timeout: float, now: float) -> bool:
    """Whether the host has been silent too long: longer than the master's host timeout
    and than three of its load report intervals."""
    return now - host.last_report > max(timeout, 3 * host.load_report_time)


def shown(host: ExecHost, state: str) -> ExecHost:
    """The host as qhost and qstat are told of it: one not up without its last report time
    (0), since its load values are stale."""
    if state == UP:
        return host
    return msgspec.structs.replace(host, last_report=0.0)


def shown_up(host: ExecHost | None) -> TypeGuard[ExecHost]:
    """Whether a host as told of (shown) was up (and so is a host)."""
    return host is not None and host.last_report > 0

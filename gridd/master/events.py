"""What the other actors are told once a burst of requests is spooled: the scheduler's
event and the accounting actor's records, assembled from the burst's effects.

The scheduler keeps a mirror of the master's state (gridd.sched.view): it gets the whole
state (SchedState) when it asks or after the spool failed, else one SchedEvent per burst
with what changed that planning depends on, numbered so that it notices a gap. The
accounting actor gets where records go when the configuration changed, each task the
burst put in the durable outbox, and the reporting records.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from gridd import protocol as p
from gridd.master import ars, reporting
from gridd.master.state import Effects

if TYPE_CHECKING:
    from gridd.master.core import Master


def for_scheduler(m: Master, fx: Effects, answered_dispatch: bool
                  ) -> p.SchedState | p.SchedEvent | None:
    """The scheduler's message for a burst, numbered after the last; None when nothing
    changed that it plans with. `answered_dispatch`: the burst applied its Dispatch, which
    the scheduler waits for before it plans again."""
    if fx.sched_resync:
        m.sched_seq += 1
        return m.sched_state()
    if not (fx.sched or fx.sched_removed or fx.sched_started or fx.sched_ended
            or fx.sched_loads or fx.hosts_changed or fx.flags_changed or fx.config_changed
            or fx.dirty_ars or fx.gone_ars or answered_dispatch or fx.sched_monitor):
        return None
    m.sched_seq += 1
    return p.SchedEvent(
        seq=m.sched_seq, jobs=fx.sched, removed=fx.sched_removed,
        started=fx.sched_started, ended=fx.sched_ended, loads=fx.sched_loads,
        hosts_up=sorted(m.host_up) if fx.hosts_changed else None,
        flags=dict(m.s.flags) if fx.flags_changed else None,
        conf=m.plan if fx.config_changed else None,
        ars=list(ars.bookings(m).values()) if fx.dirty_ars or fx.gone_ars else None,
        monitor=fx.sched_monitor,
        answers_dispatch=answered_dispatch,
    )


def for_accounting(m: Master, fx: Effects) -> list[p.Msg]:
    """The accounting actor's messages for a burst, in the order they are sent: where
    records go (a new configuration may say otherwise), the tasks the burst put in the
    outbox (those of a job since forgotten are not sent) and the reporting records."""
    out: list[p.Msg] = []
    if fx.config_changed:
        out.append(reporting.of(m))
    for seq, job_id, task_id in fx.outbox:
        job = m.s.jobs.get(job_id)
        if job is not None:
            out.append(m.account_task(seq, job, job.tasks[task_id]))
    out.extend(p.ReportRecord(seq=seq, record=record) for seq, record in fx.reports)
    return out

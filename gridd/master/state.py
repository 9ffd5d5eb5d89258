"""What the master holds and what one batch of requests changed: the master's state and
its effects.

Apart from the state machine (gridd.master.core) so that the spool, which writes the
state and narrows the effects to the objects that changed, depends on these two types
alone and not on the request handling.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from gridd import protocol as p
from gridd.model.ar import AdvanceReservation
from gridd.model.cluster import ExecHost, Queue, Running
from gridd.model.config import Configuration
from gridd.model.job import Job
from gridd.model.planning import SchedJob
from gridd.model.report import Report


@dataclass
class Effects:
    """What one batch of requests changed and must cause."""

    dirty_jobs: set[int] = field(default_factory=set)  # the job may have changed anywhere
    # (job, task): only this task changed, not its job's header (spooling compares it
    # alone: a task starting in a 10,000-task array does not look at the others)
    dirty_tasks: set[tuple[int, int]] = field(default_factory=set)
    gone_jobs: set[int] = field(default_factory=set)
    dirty_hosts: set[str] = field(default_factory=set)
    outbox: list[tuple[int, int, int]] = field(default_factory=list)  # (seq, job, task)
    outbox_done: list[int] = field(default_factory=list)
    to_execd: list[tuple[str, p.Msg]] = field(default_factory=list)
    replies: list[tuple[bytes, p.Msg]] = field(default_factory=list)
    sched: list[SchedJob] = field(default_factory=list)
    sched_removed: list[tuple[int, int]] = field(default_factory=list)
    sched_started: list[Running] = field(default_factory=list)
    sched_ended: list[tuple[int, int]] = field(default_factory=list)
    sched_loads: dict[str, dict[str, str]] = field(default_factory=dict)
    hosts_changed: bool = False
    flags_changed: bool = False
    counters_changed: bool = False
    config_changed: bool = False
    sched_resync: bool = False  # the scheduler asked for the whole state
    dirty_ars: set[int] = field(default_factory=set)  # either set: the scheduler hears of
    gone_ars: set[int] = field(default_factory=set)  # every AR again
    reports: list[tuple[int, Report]] = field(default_factory=list)  # (seq, record)
    mails: list[tuple[list[str], str]] = field(default_factory=list)  # (to, text)
    # For the master's messages log: (logging's level, text).
    notices: list[tuple[int, str]] = field(default_factory=list)
    stop_master: bool = False  # qconf -km, or a manager's Shutdown request
    sched_monitor: bool = False  # qconf -tsm


@dataclass
class MasterState:
    """The cell as the master holds it. The spool keeps all of it but `queues` (views
    made from the configuration again) and `finished` (answers for late -sync waiters)."""

    queues: dict[str, Queue] = field(default_factory=dict)
    hosts: dict[str, ExecHost] = field(default_factory=dict)
    jobs: dict[int, Job] = field(default_factory=dict)
    next_job_id: int = 1
    next_seq: int = 1
    outbox: dict[int, tuple[int, int]] = field(default_factory=dict)  # seq -> (job, task)
    finished: dict[int, p.JobExited] = field(default_factory=dict)
    config: Configuration = field(default_factory=Configuration)
    flags: dict[str, str] = field(default_factory=dict)  # queue instance -> qmod state letters
    ars: dict[int, AdvanceReservation] = field(default_factory=dict)
    next_ar_id: int = 1
    reports: dict[int, Report] = field(default_factory=dict)  # seq -> record (outbox)

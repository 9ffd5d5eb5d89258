"""The planner's input and output: the pending jobs it is given (SchedJob), the orders it
gives (Order), and the messages that carry them between the master and the scheduler
(SchedState, SchedEvent, Dispatch; gridd.protocol puts them on the wire)."""

import msgspec

from gridd.model.ar import ArBooking
from gridd.model.cluster import PlanConf, Running
from gridd.model.message import Msg
from gridd.model.rsmap import ResourceMap

# Where a task's slots are: (queue instance, slots) pairs, the first holding the master task.
Granted = list[tuple[str, int]]
# A waiting job's reservation: when it is planned to start, where, and the RSMAP ids it
# books there.
Reserved = tuple[float, Granted, ResourceMap]


class SchedJob(msgspec.Struct, kw_only=True):
    """What the scheduler needs to know of a pending job."""

    job_id: int
    pending: list[int]
    priority: int
    submit_time: float
    hard: dict[str, str] = {}  # -l, full attribute names
    soft: dict[str, str] = {}
    queues: list[str] = []  # -q
    soft_queues: list[str] = []
    master_queues: list[str] = []  # -masterq: where a parallel job's master task may go
    pe: str = ""  # name or wildcard
    pe_min: int = 0
    pe_max: int = 0
    immediate: bool = False
    owner: str = ""  # who asks, and for which project: resource quotas limit them
    group: str = ""
    project: str = ""
    reserve: bool = False  # -R y
    ar: int = 0  # the advance reservation it runs in (qsub -ar), 0 for none
    start_time: float = 0.0  # qsub -a: planned from then on, not before
    deadline: float = 0.0  # qsub -dl: its urgency grows as it nears (0: none)
    task_concurrency: int = 0  # qsub -tc: its tasks running at once at most (0: any)


class Order(msgspec.Struct, array_like=True):
    job_id: int
    task_id: int
    granted: list[tuple[str, int]]  # the first queue instance holds the master task
    pe: str = ""  # the parallel environment chosen
    resource_map: ResourceMap = []  # the RSMAP ids granted


class SchedState(Msg, tag="sched_state"):
    """The master's whole view, sent when the scheduler starts or asks to resync, and
    after every configuration change."""

    jobs: list[SchedJob]
    running: list[Running]
    conf: PlanConf
    loads: dict[str, dict[str, str]]
    hosts_up: list[str]
    flags: dict[str, str]  # queue instance -> state letters kept by the master (qmod)
    seq: int
    ars: list[ArBooking] = []


class SchedEvent(Msg, tag="sched_event"):
    """Changes since the last state or event; seq lets the scheduler spot a gap."""

    seq: int
    jobs: list[SchedJob] = []  # added or changed
    removed: list[tuple[int, int]] = []  # (job, task) no longer pending
    started: list[Running] = []
    ended: list[tuple[int, int]] = []  # (job, task) that no longer hold resources
    loads: dict[str, dict[str, str]] = {}  # host -> its latest load report
    hosts_up: list[str] | None = None
    flags: dict[str, str] | None = None
    conf: PlanConf | None = None  # the configuration as planning sees it, when it changed
    ars: list[ArBooking] | None = None  # every advance reservation, when one changed
    answers_dispatch: bool = False  # the master has applied the scheduler's last Dispatch
    monitor: bool = False  # qconf -tsm: record the next cycle in the schedd_runlog file


class Dispatch(Msg, tag="dispatch"):
    """A cycle's decisions, and the scheduling information that changed since the last."""

    orders: list[Order] = []
    unschedulable: list[int] = []  # immediate jobs that cannot start now
    # Why jobs cannot run: each distinct list of reasons once, by number, and per job the
    # number of its list (0: nothing to say any more). Jobs of one category share a list.
    reasons: dict[int, list[str]] = {}
    info: dict[int, int] = {}
    global_info: list[str] | None = None  # messages for every job; None: unchanged
    # The cycle's reservations: job -> planned start, where (queue instance, slots) and
    # the RSMAP ids booked; None: unchanged.
    reserved: dict[int, Reserved] | None = None

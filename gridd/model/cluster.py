"""Execution hosts and cluster queues as the master keeps them."""

import math

import msgspec

from gridd.model.complexes import DEFAULT_COMPLEXES, ComplexAttr
from gridd.model.pe import ParallelEnv
from gridd.model.priority import Weights
from gridd.model.rqs import RuleSet
from gridd.model.rsmap import ResourceMap


class ExecHost(msgspec.Struct):
    name: str
    load: dict[str, str] = msgspec.field(default_factory=dict)  # load_avg, np_load_avg, arch, ...
    last_report: float = 0.0  # 0 means never heard from (qhost prints "-")
    load_report_time: float = 40.0


class Queue(msgspec.Struct):
    """A cluster queue: one instance per host in its host list."""

    name: str
    hostlist: list[str] = msgspec.field(default_factory=list)
    slots: int = 1
    slots_per_host: dict[str, int] = msgspec.field(default_factory=dict)  # [host=n] overrides
    qtype: str = "BATCH INTERACTIVE"
    seq_no: int = 0
    tmpdir: str = "/tmp"
    shell: str = "/bin/sh"
    h_rt: str = "INFINITY"
    s_rt: str = "INFINITY"
    pe_list: list[str] = msgspec.field(default_factory=list)

    def instance_slots(self, host: str) -> int:
        return self.slots_per_host.get(host, self.slots)

    def instances(self) -> list[str]:
        return [f"{self.name}@{h}" for h in self.hostlist]


def split_instance(qi: str) -> tuple[str, str]:
    """'all.q@node1' -> ('all.q', 'node1')."""
    queue, _, host = qi.partition("@")
    return queue, host


class Instance(msgspec.Struct, kw_only=True):
    """One queue instance as planning sees it, its overrides resolved for its host.

    `values` holds what the queue level offers as complex attributes: its complex_values,
    its slots, qname and hostname, and its resource limits; `load_thresholds` and
    `suspend_thresholds` map an attribute to the threshold text.
    """

    name: str  # "all.q@node1"
    queue: str
    host: str
    slots: int
    seq_no: int = 0
    batch: bool = True  # qtype has BATCH
    pe_list: list[str] = msgspec.field(default_factory=list)
    values: dict[str, str] = msgspec.field(default_factory=dict)
    load_thresholds: dict[str, str] = msgspec.field(default_factory=dict)
    suspend_thresholds: dict[str, str] = msgspec.field(default_factory=dict)
    interactive: bool = True  # qtype has INTERACTIVE
    ckpt_list: list[str] = msgspec.field(default_factory=list)  # checkpointing it offers
    user_lists: list[str] = msgspec.field(default_factory=list)  # access lists let in
    xuser_lists: list[str] = msgspec.field(default_factory=list)  # and kept out
    projects: list[str] = msgspec.field(default_factory=list)  # projects let in
    xprojects: list[str] = msgspec.field(default_factory=list)  # and kept out
    owner_list: list[str] = msgspec.field(default_factory=list)  # users who may qmod it


class HostAccess(msgspec.Struct, kw_only=True):
    """Whose jobs an execution host (or `global`, for every host) takes: its access lists
    and projects, as its configuration names them."""

    user_lists: list[str] = msgspec.field(default_factory=list)
    xuser_lists: list[str] = msgspec.field(default_factory=list)
    projects: list[str] = msgspec.field(default_factory=list)
    xprojects: list[str] = msgspec.field(default_factory=list)


class PlanConf(msgspec.Struct, kw_only=True):
    """The configuration as the scheduler needs it, derived by the master after each change.

    Instances come in cluster-queue order, then host-list order: the order of `qstat -f`,
    which planning uses to break ties.
    """

    complexes: list[ComplexAttr] = msgspec.field(default_factory=lambda: list(DEFAULT_COMPLEXES))
    global_values: dict[str, str] = msgspec.field(default_factory=dict)
    host_values: dict[str, dict[str, str]] = msgspec.field(default_factory=dict)
    instances: list[Instance] = msgspec.field(default_factory=list)
    pes: dict[str, ParallelEnv] = msgspec.field(default_factory=dict)
    hostgroups: dict[str, list[str]] = msgspec.field(default_factory=dict)  # resolved members
    queue_sort_method: str = "load"  # or "seqno"
    load_formula: str = "np_load_avg"
    # job_load_adjustments (per slot of a job started, by attribute's full name, as
    # configured) and load_adjustment_decay_time in seconds: see gridd.sched.adjust.
    load_adjustments: dict[str, str] = msgspec.field(
        default_factory=lambda: {"np_load_avg": "0.50"})
    load_adjustment_decay: float = 450.0
    job_info: bool = True  # schedd_job_info: keep the reasons a job cannot run
    rqs: list[RuleSet] = msgspec.field(default_factory=list)  # enabled resource quota sets
    usersets: dict[str, list[str]] = msgspec.field(default_factory=dict)  # access list entries
    # The hosts (and `global`) that name access lists or projects, and what they name.
    host_access: dict[str, HostAccess] = msgspec.field(default_factory=dict)
    # Resource reservation (sched_conf): reservations per cycle, the duration assumed for a
    # job without h_rt or s_rt (seconds, infinite for INFINITY), and from params the
    # DURATION_OFFSET added to every duration and whether to write the schedule file.
    max_reservation: int = 0
    default_duration: float = math.inf
    duration_offset: float = 60.0
    monitor: bool = False
    # The global configuration's max_aj_instances: tasks of one array job running at once
    # (0: no limit).
    max_aj_instances: int = 0
    # Job priority (sched_conf weight_*): see gridd.model.priority.
    weight_priority: float = 0.0
    weight_urgency: float = 0.5
    weight_ticket: float = 0.5
    weight_waiting_time: float = 0.278
    weight_deadline: float = 3_600_000.0

    def weights(self) -> Weights:
        return Weights(self.weight_priority, self.weight_urgency, self.weight_ticket,
                       self.weight_waiting_time, self.weight_deadline)


class Running(msgspec.Struct, array_like=True):
    """What a started task holds: its hard requests on the queue instances it was given
    (the first holds the master task), and who holds it, for resource quotas."""

    job_id: int
    task_id: int
    hard: dict[str, str]
    granted: list[tuple[str, int]]
    pe: str = ""
    owner: str = ""
    group: str = ""
    project: str = ""
    start: float = 0.0  # when it started (epoch seconds)
    submit: float = 0.0  # when its job was submitted: its urgency kept the waiting time
    ar: int = 0  # the advance reservation it runs in: it holds the AR's, not the cell's
    resource_map: ResourceMap = []  # the RSMAP ids it holds


class Resource(msgspec.Struct, array_like=True):
    """One value `qstat -F`/`qhost -F` shows: `hl:arch=lx-amd64` is
    Resource("hl", "arch", "STRING", "lx-amd64").

    `text` is the value as configured or reported, or for a consumable the amount left
    as a number; renderers format it by type, since qstat and qhost differ.
    """

    prefix: str
    name: str
    type: str
    text: str

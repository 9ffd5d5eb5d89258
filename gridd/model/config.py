"""Cell-wide configuration: the people and hosts with rights, user sets, complexes."""

import msgspec

from gridd.model.complexes import DEFAULT_COMPLEXES, ComplexAttr
from gridd.model.objects import (
    ClusterQueue,
    ExecHostConf,
    GlobalConf,
    HostGroup,
    ParallelEnvConf,
    Project,
    SchedConf,
    User,
)
from gridd.model.rqs import RuleSet

# Access lists every cell has from the start (arusers gates qrsub; the department
# list holds users without a department of their own).
BUILTIN_USERSETS = ("arusers", "deadlineusers", "defaultdepartment")


class Userset(msgspec.Struct):
    """An access list (type ACL) or department (DEPT), as `qconf -su` shows it."""

    name: str
    type: str = "ACL"
    fshare: int = 0
    oticket: int = 0
    entries: list[str] = msgspec.field(default_factory=list)


class Configuration(msgspec.Struct):
    """What qconf edits that is not tied to one host or queue."""

    managers: list[str] = msgspec.field(default_factory=lambda: ["root"])
    operators: list[str] = msgspec.field(default_factory=list)
    admin_hosts: list[str] = msgspec.field(default_factory=list)
    submit_hosts: list[str] = msgspec.field(default_factory=list)
    usersets: dict[str, Userset] = msgspec.field(default_factory=lambda: {
        "arusers": Userset("arusers"),
        "deadlineusers": Userset("deadlineusers"),
        "defaultdepartment": Userset("defaultdepartment", type="DEPT"),
    })
    complexes: list[ComplexAttr] = msgspec.field(default_factory=lambda: list(DEFAULT_COMPLEXES))
    hostgroups: dict[str, HostGroup] = msgspec.field(default_factory=dict)
    projects: dict[str, Project] = msgspec.field(default_factory=dict)
    users: dict[str, User] = msgspec.field(default_factory=dict)
    sched: SchedConf = msgspec.field(default_factory=SchedConf)
    conf: GlobalConf = msgspec.field(default_factory=GlobalConf)
    queues: dict[str, ClusterQueue] = msgspec.field(default_factory=dict)
    pes: dict[str, ParallelEnvConf] = msgspec.field(default_factory=dict)
    exechosts: dict[str, ExecHostConf] = msgspec.field(default_factory=dict)
    # Host-local configurations (`qconf -sconf host`): the global parameters a host sets
    # for itself, in the order they were written, which is the order qconf shows them.
    host_confs: dict[str, dict[str, str]] = msgspec.field(default_factory=dict)
    # Resource quota sets in the master's order: a changed set moves to the end, which is
    # the order qconf -srqs and qquota show them in (qconf -srqsl sorts by name).
    rqs: dict[str, RuleSet] = msgspec.field(default_factory=dict)

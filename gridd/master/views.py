"""What the scheduler and qstat see of the configured queues, PEs and hosts.

qconf edits ClusterQueue, ExecHostConf and ParallelEnvConf objects as text with host and
hostgroup overrides; planning wants values per queue instance. These views are derived
from the configuration after every change, never spooled themselves.
"""

import math

from gridd.formats.overrides import queue_value
from gridd.formats.requests import parse_resource_list
from gridd.master.admin import resolve_hostgroup
from gridd.model.cluster import HostAccess, Instance, PlanConf, Queue
from gridd.model.complexes import ComplexTable, parse_value
from gridd.model.config import Configuration
from gridd.model.objects import NONE, ClusterQueue, ParallelEnvConf, words
from gridd.model.pe import ParallelEnv
from gridd.model.values import time_or

# Queue attributes offered as complex attributes on the queue level (`qstat -F` shows them
# as qf:...), besides qname, hostname, slots and complex_values.
QUEUE_OFFERS = (
    "tmpdir", "seq_no", "rerun", "calendar",
    "s_rt", "h_rt", "s_cpu", "h_cpu", "s_fsize", "h_fsize", "s_data", "h_data",
    "s_stack", "h_stack", "s_core", "h_core", "s_rss", "h_rss", "s_vmem", "h_vmem",
    "min_cpu_interval",
)


def queue_hosts(cq: ClusterQueue, cfg: Configuration) -> list[str]:
    hosts: list[str] = []
    for member in words(cq.hostlist):
        found = resolve_hostgroup(cfg, member) if member.startswith("@") else [member]
        hosts += [h for h in found if h not in hosts]
    return hosts


def queue_views(cfg: Configuration, instances: list[Instance]) -> dict[str, Queue]:
    """The cluster queues as qsub and qstat see them, from the planning instances (whose
    per-host overrides are resolved already)."""
    by_queue: dict[str, list[Instance]] = {}
    for qi in instances:
        by_queue.setdefault(qi.queue, []).append(qi)
    return {name: _queue_view(cq, by_queue.get(name, [])) for name, cq in cfg.queues.items()}


def _queue_view(cq: ClusterQueue, instances: list[Instance]) -> Queue:
    default = to_int(queue_value(cq, "slots", "", []))
    return Queue(
        name=cq.qname, hostlist=[qi.host for qi in instances], slots=default,
        slots_per_host={qi.host: qi.slots for qi in instances if qi.slots != default},
        qtype=queue_value(cq, "qtype", "", []), seq_no=to_int(queue_value(cq, "seq_no", "", [])),
        tmpdir=queue_value(cq, "tmpdir", "", []), shell=queue_value(cq, "shell", "", []),
        h_rt=queue_value(cq, "h_rt", "", []), s_rt=queue_value(cq, "s_rt", "", []),
        pe_list=words(queue_value(cq, "pe_list", "", [])),
    )


def pe_view(pe: ParallelEnvConf) -> ParallelEnv:
    return ParallelEnv(name=pe.pe_name, slots=to_int(pe.slots),
                       allocation_rule=pe.allocation_rule, user_lists=words(pe.user_lists),
                       xuser_lists=words(pe.xuser_lists))


def plan_conf(cfg: Configuration) -> PlanConf:
    """Everything planning needs of the configuration, overrides resolved per instance."""
    table = ComplexTable(cfg.complexes)
    groups = {name: resolve_hostgroup(cfg, name) for name in cfg.hostgroups}
    instances = []
    for cq in cfg.queues.values():
        for host in queue_hosts(cq, cfg):
            instances.append(_instance(cq, host, [g for g, m in groups.items() if host in m],
                                       table))
    hosts = {name: _known(_values(conf.complex_values), table)
             for name, conf in cfg.exechosts.items() if name != "global"}
    glob = cfg.exechosts.get("global")
    job_info = cfg.sched.schedd_job_info.strip().lower() != "false"
    params = {name.upper(): value for name, value in _values(cfg.sched.params).items()}
    return PlanConf(
        complexes=list(cfg.complexes),
        global_values=_known(_values(glob.complex_values), table) if glob else {},
        host_values=hosts,
        instances=instances,
        pes={n: pe_view(pe) for n, pe in cfg.pes.items()},
        hostgroups=groups,
        queue_sort_method=cfg.sched.queue_sort_method.strip().lower(),
        load_formula=cfg.sched.load_formula.strip(),
        load_adjustments=_known(_values(cfg.sched.job_load_adjustments), table),
        load_adjustment_decay=time_or(cfg.sched.load_adjustment_decay_time, 450.0),
        job_info=job_info,
        rqs=[rs for rs in cfg.rqs.values() if rs.enabled],
        usersets={name: list(us.entries) for name, us in cfg.usersets.items()},
        host_access=_host_access(cfg),
        max_reservation=max(to_int(cfg.sched.max_reservation), 0),
        default_duration=time_or(cfg.sched.default_duration, math.inf),
        duration_offset=time_or(params.get("DURATION_OFFSET", ""), 60.0),
        monitor=params.get("MONITOR", "0").lower() not in ("0", "false"),
        max_aj_instances=max(to_int(cfg.conf.max_aj_instances), 0),
        **{name: _float(getattr(cfg.sched, name), default) for name, default in (
            ("weight_priority", 0.0), ("weight_urgency", 0.5), ("weight_ticket", 0.5),
            ("weight_waiting_time", 0.278), ("weight_deadline", 3_600_000.0))},
    )


def _host_access(cfg: Configuration) -> dict[str, HostAccess]:
    out = {}
    for name, host in cfg.exechosts.items():
        access = HostAccess(user_lists=words(host.user_lists),
                            xuser_lists=words(host.xuser_lists),
                            projects=words(host.projects), xprojects=words(host.xprojects))
        if access.user_lists or access.xuser_lists or access.projects or access.xprojects:
            out[name] = access
    return out


def _instance(cq: ClusterQueue, host: str, groups: list[str], table: ComplexTable) -> Instance:
    def value(attr: str) -> str:
        return queue_value(cq, attr, host, groups)

    slots = to_int(value("slots"))
    offered = {"qname": cq.qname, "hostname": host, "slots": str(slots)}
    offered |= {attr: value(attr) for attr in QUEUE_OFFERS}
    offered |= _values(value("complex_values"))
    return Instance(
        name=f"{cq.qname}@{host}", queue=cq.qname, host=host, slots=slots,
        seq_no=to_int(value("seq_no")), batch="BATCH" in value("qtype").upper(),
        pe_list=words(value("pe_list")),
        values=_known(offered, table),
        load_thresholds=_values(value("load_thresholds")),
        suspend_thresholds=_values(value("suspend_thresholds")),
        interactive="INTERACTIVE" in value("qtype").upper(),
        ckpt_list=words(value("ckpt_list")),
        user_lists=words(value("user_lists")), xuser_lists=words(value("xuser_lists")),
        projects=words(value("projects")), xprojects=words(value("xprojects")),
        owner_list=words(value("owner_list")),
    )


def _values(text: str) -> dict[str, str]:
    """`license=5,t02=2` as a dict; NONE or text that is not such a list is empty."""
    if not text.strip() or text.strip().upper() == NONE:
        return {}
    try:
        return parse_resource_list(text)
    except ValueError:
        return {}


def _known(values: dict[str, str], table: ComplexTable) -> dict[str, str]:
    """Only attributes the table knows, with values their type holds, by full name: qconf
    refuses others, but a view must never hand the scheduler what it cannot use."""
    kept = {}
    for name, text in values.items():
        attr = table.resolve(name)
        if attr is None:
            continue
        try:
            parse_value(attr.type, text)
        except ValueError:
            continue
        kept[attr.name] = text
    return kept


def _float(text: str, default: float) -> float:
    try:
        return float(text)
    except ValueError:
        return default


def to_int(text: str | None) -> int:
    """A configured number; what is not one counts 0 (spooled values must never stop the master)."""
    try:
        return int(text or 0)
    except ValueError:
        return 0

"""What the scheduler and qstat see of the configured queues and PEs.

qconf edits ClusterQueue and ParallelEnvConf objects as text with host and hostgroup
overrides; planning wants numbers per queue instance. These views are derived from the
configuration after every change, never spooled themselves.
"""

from gridd.master.admin import resolve_hostgroup
from gridd.model.cluster import Queue
from gridd.model.config import Configuration
from gridd.model.objects import ClusterQueue, ParallelEnvConf, words
from gridd.model.pe import ParallelEnv


def queue_hosts(cq: ClusterQueue, cfg: Configuration) -> list[str]:
    hosts: list[str] = []
    for member in words(cq.hostlist):
        found = resolve_hostgroup(cfg, member) if member.startswith("@") else [member]
        hosts += [h for h in found if h not in hosts]
    return hosts


def groups_of(host: str, cfg: Configuration) -> list[str]:
    return [name for name in cfg.hostgroups if host in resolve_hostgroup(cfg, name)]


def queue_view(cq: ClusterQueue, cfg: Configuration) -> Queue:
    hosts = queue_hosts(cq, cfg)
    default = _int(cq.value_for("slots", "", []))
    per_host = {}
    for host in hosts:
        slots = _int(cq.value_for("slots", host, groups_of(host, cfg)))
        if slots != default:
            per_host[host] = slots
    return Queue(
        name=cq.qname, hostlist=hosts, slots=default, slots_per_host=per_host,
        qtype=cq.value_for("qtype", "", []), seq_no=_int(cq.value_for("seq_no", "", [])),
        tmpdir=cq.value_for("tmpdir", "", []), shell=cq.value_for("shell", "", []),
        h_rt=cq.value_for("h_rt", "", []), s_rt=cq.value_for("s_rt", "", []),
    )


def pe_view(pe: ParallelEnvConf) -> ParallelEnv:
    return ParallelEnv(name=pe.pe_name, slots=_int(pe.slots),
                       allocation_rule=pe.allocation_rule)


def _int(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        return 0

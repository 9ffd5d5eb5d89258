"""The configuration a new cell starts with, like Grid Engine's installation creates."""

from __future__ import annotations

from dataclasses import dataclass, field

from gridd.master.state import MasterState
from gridd.model.cluster import ExecHost
from gridd.model.objects import NONE, ClusterQueue, ExecHostConf, HostGroup, ParallelEnvConf
from gridd.model.pe import FILL_UP, PE_SLOTS

ALL_HOSTS = "@allhosts"  # the host group of every execution host, all.q's host list


@dataclass
class CellConfig:
    """What `gridd up` decided: execution hosts and slots per host."""

    hosts: list[str] = field(default_factory=list)
    slots: int = 1
    manager: str = "root"  # who ran gridd up: a manager besides root
    machine: str = ""  # the machine's host name: admin and submit host


PE_SLOTS_ANY = "999"  # a new cell's PEs: as many slots as its queues offer


def initial_config(state: MasterState, cell: CellConfig) -> None:
    """all.q over the host group @allhosts of every host, which hosts that register
    later join (gridd.master.execution), as Grid Engine's installation makes them; the
    two usual PEs (smp: one host, mpi: fill up) with 999 slots, as the installation's
    make PE has, so that hosts that join are not held to the cell's first size, mpi
    tightly integrated as MPI libraries want it (control_slaves TRUE: mpirun starts its
    daemons with qrsh -inherit; job_is_first_task FALSE: the job script takes no slot of
    its ranks); and the people and hosts with rights.
    Load thresholds are off: gridd has no alarm states yet.
    """
    cfg = state.config
    cfg.hostgroups[ALL_HOSTS] = HostGroup(group_name=ALL_HOSTS,
                                          hostlist=" ".join(cell.hosts) or NONE)
    cfg.queues["all.q"] = ClusterQueue(
        qname="all.q", hostlist=ALL_HOSTS, slots=str(cell.slots),
        pe_list="smp mpi", load_thresholds=NONE)
    cfg.pes["smp"] = ParallelEnvConf(pe_name="smp", slots=PE_SLOTS_ANY,
                                     allocation_rule=PE_SLOTS)
    cfg.pes["mpi"] = ParallelEnvConf(pe_name="mpi", slots=PE_SLOTS_ANY,
                                     allocation_rule=FILL_UP, control_slaves="TRUE",
                                     job_is_first_task="FALSE")
    for host in ["global", *cell.hosts]:
        cfg.exechosts[host] = ExecHostConf(hostname=host)
    for host in cell.hosts:
        state.hosts.setdefault(host, ExecHost(name=host))
    if cell.manager not in cfg.managers:
        cfg.managers.append(cell.manager)
    if cell.machine:
        cfg.admin_hosts.append(cell.machine)
        cfg.submit_hosts.append(cell.machine)

"""The configuration a new cell starts with, like Grid Engine's installation creates."""

from __future__ import annotations

from dataclasses import dataclass, field

from gridd.master.core import MasterState
from gridd.model.cluster import ExecHost, Queue
from gridd.model.pe import FILL_UP, PE_SLOTS, ParallelEnv


@dataclass
class CellConfig:
    """What `gridd up` decided: execution hosts and slots per host."""

    hosts: list[str] = field(default_factory=list)
    slots: int = 1
    manager: str = "root"  # who ran gridd up: a manager besides root
    machine: str = ""  # the machine's host name: admin and submit host


def initial_config(state: MasterState, cell: CellConfig) -> None:
    """all.q over every host, and the two usual PEs (smp: one host, mpi: fill up)."""
    state.queues["all.q"] = Queue(name="all.q", hostlist=list(cell.hosts), slots=cell.slots)
    for host in cell.hosts:
        state.hosts.setdefault(host, ExecHost(name=host))
    total = max(1, cell.slots * len(cell.hosts))
    state.pes["smp"] = ParallelEnv(name="smp", slots=total, allocation_rule=PE_SLOTS)
    state.pes["mpi"] = ParallelEnv(name="mpi", slots=total, allocation_rule=FILL_UP)
    if cell.manager not in state.config.managers:
        state.config.managers.append(cell.manager)
    if cell.machine:
        state.config.admin_hosts.append(cell.machine)
        state.config.submit_hosts.append(cell.machine)

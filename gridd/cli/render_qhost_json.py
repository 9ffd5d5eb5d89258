"""qhost -json: each host (global first) with its values, and with -q its queue
instances, -F its resources, -j the tasks holding slots on it (schemas/qhost.json).

Built from what the table and -xml show, typed, under Open Cluster Scheduler 9.2's keys
(hosts; the XML's hostvalue names on each host; resources with their dominance; queues;
jobs with id, job_name, pe_master ...); a job's slots and array task are gridd's own.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from gridd.cli.render_json import iso
from gridd.cli.render_qhost import HostSelection, host_numbers, host_queues, host_rows, walk
from gridd.cli.render_qstat import Row
from gridd.cli.render_qstat_json import resource_value
from gridd.model.cluster import ExecHost, Queue, Resource
from gridd.model.job import Job


def qhost_json(hosts: Sequence[ExecHost], queues: Sequence[Queue] = (),
               jobs: Sequence[Job] = (), *, show_queues: bool = False,
               show_jobs: bool = False, states: Mapping[str, str] | None = None,
               select: HostSelection | None = None,
               resources: Mapping[str, list[Resource]] | None = None,
               users: list[str] | None = None,
               priorities: Mapping[int, float] | None = None) -> dict[str, Any]:
    """The hosts qhost's table would show, with what -q, -F and -j add to them."""
    shown = walk(hosts, jobs, select or HostSelection(), users)
    out = []
    for name, host in shown.hosts:
        entry: dict[str, Any] = {"name": name, **host_numbers(host)}
        if resources is not None:
            entry["resources"] = _resources(resources.get(name, []))
        if host is not None and show_queues:
            entry["queues"] = [
                {"name": queue, "qtype_string": qtype, "slots_used": n, "slots": total,
                 "slots_resv": 0, "state_string": letters}
                for queue, qtype, n, total, letters in host_queues(host, queues, shown.used,
                                                                    states or {})]
        if host is not None and show_jobs:
            entry["jobs"] = [_job(row, role) for row, role in
                             host_rows(name, shown.jobs, priorities or {})]
        out.append(entry)
    return {"hosts": out}


def _resources(resources: list[Resource]) -> list[dict[str, Any]]:
    return [{"name": r.name, "value": resource_value(r), "dominance": r.prefix}
            for r in resources]


def _job(row: Row, role: str) -> dict[str, Any]:
    out = {"id": row.job.job_id, "priority": row.prior, "job_name": row.job.spec.name,
           "job_owner": row.job.spec.owner, "job_state": row.state,
           "start_time": iso(row.stamp), "queue_name": row.queue, "pe_master": role,
           "slots": row.slots}
    if row.tasks:
        out["tasks"] = row.tasks
    return out

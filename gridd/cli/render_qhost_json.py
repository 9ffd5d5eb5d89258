"""qhost -json: each host (global first) with its values, and with -q its queue
instances, -F its resources, -j the tasks holding slots on it (schemas/qhost.json).

Built from what the table and -xml show, typed; keys are the XML's names (hostvalue,
queue with qtype_string, slots_used, slots, slots_resv, state_string), resource and job
entries as in qstat -json.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from gridd.cli.render_json import iso
from gridd.cli.render_qhost import HostSelection, host_numbers, host_queues, host_rows
from gridd.cli.render_qstat import Row, used_slots
from gridd.cli.render_qstat_json import resource
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
    select = select or HostSelection()
    if users is not None:
        jobs = [j for j in jobs if j.spec.owner in users]
    used = used_slots(jobs)
    out = []
    if select.shows("global"):
        entry: dict[str, Any] = {"name": "global", "hostvalue": host_numbers(None)}
        if resources is not None:
            entry["resource"] = [resource(r) for r in resources.get("global", [])]
        out.append(entry)
    for host in sorted(hosts, key=lambda h: h.name):
        if not select.shows(host.name):
            continue
        entry = {"name": host.name, "hostvalue": host_numbers(host)}
        if resources is not None:
            entry["resource"] = [resource(r) for r in resources.get(host.name, [])]
        if show_queues:
            entry["queue"] = [
                {"name": name, "qtype_string": qtype, "slots_used": n, "slots": total,
                 "slots_resv": 0, "state_string": letters}
                for name, qtype, n, total, letters in host_queues(host, queues, used,
                                                                   states or {})]
        if show_jobs:
            entry["job"] = [_job(row, role) for row, role in
                            host_rows(host.name, jobs, priorities or {})]
        out.append(entry)
    return {"host": out}


def _job(row: Row, role: str) -> dict[str, Any]:
    out = {"JB_job_number": row.job.job_id, "JAT_prio": row.prior,
           "JB_name": row.job.spec.name, "JB_owner": row.job.spec.owner, "state": row.state,
           "JAT_start_time": iso(row.stamp), "queue_name": row.queue, "master": role,
           "slots": row.slots}
    if row.tasks:
        out["tasks"] = row.tasks
    return out

"""qstat -json: what qstat -xml shows (plain, -f, -g c, -g t|d, -pri, -urg, -ext, -r, -F,
-explain), built from the same rows, typed (schemas/qstat.json describes it).

Keys and structure are Open Cluster Scheduler 9.2's (its `-fmt json`): plain qstat has
jobs_running and jobs_pending, -f queues (each with its jobs_running) and jobs_pending,
-g c queues of cluster queue summaries. What 9.2 names nowhere we know (-r's lists but
the hard requests, -ext's share) keeps the XML's element name.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

from gridd.cli.render_json import iso, whole
from gridd.cli.render_qstat import (
    PLAIN,
    QueueInstance,
    Row,
    as_number,
    by_instance,
    job_rows,
    queue_instances,
    roles,
    rows_by_instance,
)
from gridd.cli.render_qstat_extra import (
    NO_PARTS,
    pe_span,
    predecessors,
    request_value,
    task_slots,
)
from gridd.formats.qstat_rows import Extra
from gridd.model.cluster import Resource
from gridd.model.complexes import NUMERIC_TYPES
from gridd.model.job import Job, Task, Usage
from gridd.model.task_lifecycle import SHOWN_HOLDING, ZOMBIE

if TYPE_CHECKING:
    from gridd.protocol import JobsReply, PriorityParts

_TICKETS = ("tickets", "override_tickets", "jobshare", "otickets", "ftickets", "stickets")


def qstat_json(reply: JobsReply, *, full: bool = False, users: list[str] | None = None,
               states: str | None = None, extra: Extra = PLAIN) -> dict[str, Any]:
    """qstat -json / -f -json: running jobs (or queue instances with theirs), then the
    pending jobs."""
    running, waiting = job_rows(reply, users, states, extra)
    pending = [row for row in waiting if row.state != ZOMBIE]
    finished = [row for row in waiting if row.state == ZOMBIE]  # -s z: 9.2's retained
    out: dict[str, Any]
    if full:
        placed = rows_by_instance(reply, running)
        out = {"queues": [_queue(qi, placed.get(qi.name, []), reply, extra)
                          for qi in queue_instances(reply)
                          if not extra.no_empty or qi.name in placed],
               "jobs_pending": _jobs(pending, reply, extra, with_queue=False)}
    else:
        if extra.slots_apart:
            running = by_instance(reply, running)
        out = {"jobs_running": _jobs(running, reply, extra, with_queue=True),
               "jobs_pending": _jobs(pending, reply, extra, with_queue=True)}
    if finished:
        out["jobs_finished_retained"] = _jobs(finished, reply, extra, with_queue=not full)
    return out


def _jobs(rows: list[Row], reply: JobsReply, extra: Extra, with_queue: bool) -> list[dict]:
    """A job entry per row, or with -g t one per slot."""
    if not extra.slots_apart:
        return [_job(row, reply, extra, with_queue) for row in rows]
    return [_job(row, reply, extra, with_queue, role) for row in rows for role in roles(row)]


def _job(row: Row, reply: JobsReply, extra: Extra, with_queue: bool,
         role: str | None = None) -> dict[str, Any]:
    running = row.state in SHOWN_HOLDING
    parts = reply.parts.get(row.job.job_id)
    spec = row.job.spec
    out: dict[str, Any] = {"job_number": row.job.job_id, "prio": row.prior}
    out |= _priority(extra, parts)
    out |= {"name": spec.name, "owner": spec.owner}
    if extra.ext:
        out |= {"project": spec.project, "department": spec.department}
    out["state"] = row.state
    if extra.when:
        out["start_time" if running else "submission_time"] = iso(row.stamp)
    if extra.urg and spec.deadline:
        out["deadline"] = iso(spec.deadline)
    if with_queue:
        out["queue_name"] = row.queue
    if extra.ext:
        out |= _usage(row.task)
    if role is not None:
        out["master"] = role
    out["slots"] = 1 if role else row.slots
    if row.job.is_array:
        out["tasks"] = row.tasks
    if extra.requests:
        out |= _requests(row.job, row.task, parts, reply)
    return out


def _priority(extra: Extra, parts: PriorityParts | None) -> dict[str, Any]:
    """What -pri, -urg and -ext add (render_qstat_extra.xml_priority's elements, and
    -urg's total urgency, which the text shows)."""
    x = parts or NO_PARTS
    out: dict[str, Any] = {}
    if extra.pri or extra.ext:
        out["ntckts"] = x.ntckts
    if extra.pri or extra.urg:
        out["nurg"] = x.nurg
    if extra.urg:
        out |= {"urg": x.urg, "rrcontr": x.rrcontr, "wtcontr": x.wtcontr,
                "dlcontr": x.dlcontr}
    if extra.pri:
        out |= {"nppri": x.npprior, "priority": x.ppri}
    return out


def _usage(task: Task | None) -> dict[str, Any]:
    """-ext's usage (cpu seconds, GB seconds of memory, GB of io) and tickets."""
    out: dict[str, Any] = {}
    if task is not None and task.usage != Usage():
        u = task.usage
        out = {"cpu_usage": u.utime + u.stime, "mem_usage": u.mem, "io_usage": u.io / (1 << 30)}
    return out | dict.fromkeys(_TICKETS, 0) | {"share": 0.0}


def _requests(job: Job, task: Task | None, parts: PriorityParts | None,
              reply: JobsReply) -> dict[str, Any]:
    """-r's entries (render_qstat_extra.xml_requests'), lists where XML repeats one; the
    hard requests under 9.2's name."""
    spec = job.spec
    out: dict[str, Any] = {"full_job_name": spec.name}
    if spec.pe_name:
        out["requested_pe"] = {"pe_name": spec.pe_name, "pe_range": pe_span(job)}
        if task is not None and task.queue:
            out["granted_pe"] = {"pe_name": task.pe or spec.pe_name,
                                 "slots": task_slots(job, task)}
    contribution = (parts or NO_PARTS).requests
    out["global_hard_request"] = [{"name": name, "value": request_value(name, value),
                            "resource_contribution": contribution.get(name, 0.0)}
                           for name, value in spec.hard_resources.items()]
    out["soft_request"] = [{"name": name, "value": request_value(name, value)}
                           for name, value in spec.soft_resources.items()]
    out |= {"hard_req_queue": list(spec.hard_queues), "soft_req_queue": list(spec.soft_queues),
            "master_hard_req_queue": list(spec.master_queues),
            "predecessor_jobs_req": list(spec.hold_jid),
            "predecessor_jobs": [int(n) for n in predecessors(job, reply.jobs)],
            "binding": spec.binding or "NONE"}
    return out


def _queue(qi: QueueInstance, rows: list[Row], reply: JobsReply, extra: Extra) -> dict:
    """A queue instance of -f: its load only when known, -explain's reasons a line each
    (load_alarm_reason, suspend_alarm_reason), -F's values by name."""
    out: dict[str, Any] = {"name": qi.name, "qtype": qi.qtype, "slots_used": qi.used,
                           "slots_resv": qi.reserved, "slots_total": qi.total}
    if qi.load is not None:
        out["load_avg"] = qi.load
    if qi.arch is not None:
        out["arch"] = qi.arch
    out["state"] = qi.states
    reasons: dict[str, list[str]] = {}
    for kind, line in reply.alarms.get(qi.name, ()):
        reasons.setdefault(f"{kind}_alarm_reason", []).append(line)
    out |= {key: "\n".join(lines) for key, lines in reasons.items()}
    resources = reply.instance_resources.get(qi.name, [])
    if resources:
        out["queue_resources"] = {r.name: resource_value(r) for r in resources}
    out["jobs_running"] = _jobs(rows, reply, extra, with_queue=False)
    return out


def resource_value(r: Resource) -> Any:
    """A -F value: numeric types as numbers (memory in bytes, time in seconds), BOOL as a
    boolean, the others and an infinite limit as text."""
    if r.type == "BOOL" and r.text.lower() in ("true", "false", "1", "0"):
        return r.text.lower() in ("true", "1")
    if r.type in NUMERIC_TYPES:
        found = as_number(r.text, r.type)
        if found is not None:
            return "infinity" if math.isinf(found) else whole(found)
    return r.text


def cluster_summary_json(reply: JobsReply) -> dict[str, Any]:
    """qstat -g c -json: a summary per cluster queue (9.2's queues)."""
    from gridd.cli.render_qstat_summary import summaries

    out = []
    for s in summaries(reply):
        entry: dict[str, Any] = {"name": s.name}
        if s.load is not None:
            entry["load"] = s.load
        entry |= {"used": s.used, "resv": s.resv, "available": s.available, "total": s.total,
                  "temp_disabled": s.temp_disabled,
                  "manual_intervention": s.manual_intervention}
        out.append(entry)
    return {"queues": out}

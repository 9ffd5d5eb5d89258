"""`/jobs`: job control with qstat's columns, its filters (user, state, queue) and the
actions of qdel, qmod -sj/-usj, qhold and qrls; `/jobs/ID`: a job as qstat -j shows it.
Live. The lines and rows are the commands' own renderers', so the page shows what they
print."""

from __future__ import annotations

import re
import socket
from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any
from urllib.parse import urlencode

from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import Route

from gridd import protocol as p
from gridd.cli import render_qstat
from gridd.cli.queue_select import BadSelection, Selection
from gridd.client import JOB_ACTIONS, GriddError
from gridd.formats.requests import first_invalid_job_task
from gridd.formats.shown import stamp
from gridd.model import job_rows
from gridd.model.values import is_unsigned
from gridd.web.context import call, login_of, render, wants_fragment


@dataclass(frozen=True)
class Filters:
    """The page's filters as qstat's options: -u (empty: every user), -s, -q."""

    user: str = ""
    state: str = ""
    queue: str = ""

    @classmethod
    def of(cls, given: Mapping[str, Any]) -> Filters:
        """The filters a page's query or its action's form gives (those missing empty)."""
        return cls(*(str(given.get(f.name, "")).strip() for f in fields(cls)))

    def query(self, **more: str) -> str:
        """The filters (and `more`) as the query string that asks for them again."""
        return urlencode({**{k: v for k, v in vars(self).items() if v}, **more})


@dataclass(frozen=True)
class JobRow:
    """A line of qstat, as the page shows it: `targets` names what it stands for to the
    job actions (a job; an array's tasks of the line, each task range apart)."""

    row_id: str
    job_id: int
    prior: str
    name: str
    user: str
    state: str
    at: str
    queue: str
    slots: int
    tasks: str
    ar: int
    targets: str


def _job_row(row: render_qstat.Row) -> JobRow:
    job = row.job
    if job.is_array:
        row_id = f"job-{job.job_id}.{row.task_id}"
        targets = ",".join(f"{job.job_id}.{part}" for part in row.tasks.split(","))
    else:
        row_id, targets = f"job-{job.job_id}", str(job.job_id)
    return JobRow(row_id, job.job_id, f"{row.prior:7.5f}", job.spec.name, job.spec.owner,
                  row.state, stamp(row.stamp), row.queue, row.slots, row.tasks,
                  job.spec.ar, targets)


def _selection(filters: Filters) -> Selection:
    """qstat -q's selection of the queue filter (none without one); BadSelection with
    qstat's words for one it refuses."""
    selection = Selection()
    if filters.queue:
        selection.take("-q", filters.queue)
    return selection


async def _listing(request: Request, filters: Filters) -> dict[str, Any]:
    """The rows qstat prints with these filters as its options, or the error it prints."""
    try:
        job_rows.state_filter(filters.state)
        selection = _selection(filters)
    except ValueError:
        return {"rows": [], "error": "ERROR! wrong argument to -s option"}
    except BadSelection as exc:
        return {"rows": [], "error": str(exc)}
    select = selection.select if selection.given else None
    try:
        reply: p.JobsReply = await call(request, lambda client: client.jobs(
            select=select, finished="z" in filters.state))
    except GriddError as exc:
        return {"rows": [], "error": exc.text}
    users = [u for u in filters.user.split(",") if u] or None
    running, pending = render_qstat.job_rows(reply, users, filters.state or None)
    return {"rows": [_job_row(row) for row in running + pending], "error": ""}


async def _page(request: Request, filters: Filters, status: int = 200,
                message: str = "") -> Response:
    listing = await _listing(request, filters)
    template = "jobs_live.html" if wants_fragment(request) else "jobs.html"
    return render(request, template, status, filters=filters, query=filters.query(),
                  message=message, **listing)


async def jobs(request: Request) -> Response:
    return await _page(request, Filters.of(request.query_params))


async def action(request: Request) -> Response:
    """One of the job actions on the jobs ticked, asked as its command asks it; the
    master's answer lines shown, a refusal's on the page again with the same filters."""
    form = await request.form()
    filters = Filters.of(form)
    name = str(form.get("action", ""))
    targets = [t for value in form.getlist("ids") for t in str(value).split(",") if t]
    if name not in JOB_ACTIONS:
        return await _page(request, filters, 400, f"error: no such job action: {name!r}")
    if not targets:
        return await _page(request, filters, 400, "error: no job ticked")
    why = first_invalid_job_task(targets)
    if why:
        return await _page(request, filters, 400, f"error: {why}")
    user, host = login_of(request).user, socket.gethostname()
    try:
        reply = await call(request, lambda client: client.job_action(name, targets, user, host))
    except GriddError as exc:
        return await _page(request, filters, 400, exc.text)
    text = "\n".join(reply.lines)
    if reply.code:
        return await _page(request, filters, 400, text)
    return RedirectResponse(f"/jobs?{filters.query(done=text or f'{name}: done')}",
                            status_code=303)


# A line of qstat -j: its label up to the first colon followed by blanks, then the value;
# a line of scheduling info that goes on under the one before has no label.
_FIELD = re.compile(r"^(\S[^:]*?):\s+(.*)$")


def detail_fields(text: str) -> list[tuple[str, str]]:
    """(label, value) of each line of a qstat -j block; '' for a continued value."""
    fields = []
    for line in text.splitlines():
        if not line or line.startswith("="):
            continue
        match = _FIELD.match(line)
        fields.append((match[1], match[2]) if match else ("", line.strip()))
    return fields


async def job(request: Request) -> Response:
    """The job as qstat -j JOB shows it, its scheduling reasons apart; unknown (or not a
    job number): qstat's words, 404."""
    ref = request.path_params["id"]
    reply: p.JobsReply | None = None
    if is_unsigned(ref):
        reply = await call(request, lambda client: client.jobs(details=True))
    found = next((j for j in reply.jobs if j.job_id == int(ref)), None) if reply else None
    if reply is None or found is None:
        error = render_qstat.qstat_job(reply or _NO_JOBS, [ref]).stderr.strip()
        return render(request, "job.html", 404, ref=ref, error=error, fields=[], reasons=[])
    fields = detail_fields("".join(render_qstat.detail_lines(found, reply)))
    return render(request, "job.html", ref=ref, job=found, error="", fields=fields,
                  reasons=reply.reasons.get(found.job_id, []))


_NO_JOBS = p.JobsReply(jobs=[], queues=[], hosts=[], now=0.0)


ROUTES = [
    Route("/jobs", jobs, methods=["GET"]),
    Route("/jobs/action", action, methods=["POST"]),
    Route("/jobs/{id}", job, methods=["GET"]),
]

"""`/`: the cell at a glance (hosts with their load and slots used, queue instances with
their states, jobs per state, advance reservations); live. The figures are those qhost,
qstat -f, qstat and qrstat show."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from gridd.cli import render_qstat
from gridd.cli.render_qhost import host_values
from gridd.cli.render_qstat_extra import Extra
from gridd.cli.render_text import stamp
from gridd.model.cluster import split_instance
from gridd.protocol import ArsReply, JobsReply
from gridd.web.context import call, render, wants_fragment


@dataclass(frozen=True)
class HostLine:
    name: str
    load: str  # qhost's LOAD column
    used: int  # slots taken on the host's queue instances
    total: int


def host_lines(reply: JobsReply) -> list[HostLine]:
    """Every execution host with qhost's load and the slots its queue instances hold."""
    used: Counter[str] = Counter()
    total: Counter[str] = Counter()
    for qi in render_qstat.queue_instances(reply):
        host = split_instance(qi.name)[1]
        used[host] += qi.used
        total[host] += qi.total
    return [HostLine(h.name, dict(host_values(h))["load_avg"], used[h.name], total[h.name])
            for h in sorted(reply.hosts, key=lambda h: h.name)]


def job_counts(reply: JobsReply) -> list[tuple[str, int]]:
    """How many lines of each state `qstat -u '*' -g d` shows (a task a line), by state."""
    running, pending = render_qstat.job_rows(reply, None, None, Extra(tasks_apart=True))
    counts = Counter(row.state for row in running + pending)
    return sorted(counts.items())


async def overview(request: Request) -> Response:
    def ask(client) -> tuple[JobsReply, ArsReply]:
        return client.jobs(), client.query_ars(users=["*"])

    jobs, ars = await call(request, ask)
    template = "overview_live.html" if wants_fragment(request) else "overview.html"
    return render(request, template, hosts=host_lines(jobs),
                  queues=render_qstat.queue_instances(jobs), counts=job_counts(jobs),
                  ars=sorted(ars.ars, key=lambda ar: ar.ar_id), stamp=stamp)


ROUTES = [Route("/", overview, methods=["GET"])]

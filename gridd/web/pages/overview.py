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
from gridd.cli.render_qrstat import by_id, columns
from gridd.cli.render_qstat import QueueInstance
from gridd.formats.qstat_rows import Extra
from gridd.model.cluster import split_instance
from gridd.protocol import ArsReply, JobsReply
from gridd.web.context import call, render, wants_fragment


@dataclass(frozen=True)
class HostLine:
    name: str
    load: str  # qhost's LOAD column
    used: int  # slots taken on the host's queue instances
    total: int


def host_lines(reply: JobsReply, queues: list[QueueInstance]) -> list[HostLine]:
    """Every execution host with qhost's load and the slots its queue instances
    (`queues`, qstat -f's of the reply) hold."""
    used: Counter[str] = Counter()
    total: Counter[str] = Counter()
    for qi in queues:
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
    queues = render_qstat.queue_instances(jobs)
    return render(request, template, hosts=host_lines(jobs, queues), queues=queues,
                  counts=job_counts(jobs), ars=[columns(ar) for ar in by_id(ars.ars)])


ROUTES = [Route("/", overview, methods=["GET"])]

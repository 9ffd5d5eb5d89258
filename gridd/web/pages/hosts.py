"""`/hosts`: the execution hosts with qhost's columns (the global line first); live."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from gridd.cli.render_qhost import HEADER, host_values
from gridd.web.context import call, render, wants_fragment

COLUMNS = HEADER.split()  # HOSTNAME, ARCH, ... as qhost heads them


async def hosts(request: Request) -> Response:
    reply = await call(request, lambda client: client.jobs())
    lines = [("global", host_values(None))] + [
        (host.name, host_values(host)) for host in sorted(reply.hosts, key=lambda h: h.name)]
    template = "hosts_live.html" if wants_fragment(request) else "hosts.html"
    return render(request, template, columns=COLUMNS,
                  lines=[(name, [text for _, text in values]) for name, values in lines])


ROUTES = [Route("/hosts", hosts, methods=["GET"])]

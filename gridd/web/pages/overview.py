"""`/`: the cell at a glance (hosts, queues, jobs per state, reservations); live."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from gridd.web.context import call, render, wants_fragment


async def overview(request: Request) -> Response:
    reply = await call(request, lambda client: client.jobs())
    template = "overview_live.html" if wants_fragment(request) else "overview.html"
    return render(request, template, reply=reply)


ROUTES = [Route("/", overview, methods=["GET"])]

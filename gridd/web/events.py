"""Live pages: one Watch loop asks the master for its next change, and every open page's
event stream (/events, server-sent events) says `changed` when it comes; the page's
script then fetches its live parts again (static/gridd.js)."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from functools import partial

import anyio
from starlette.requests import Request
from starlette.responses import StreamingResponse
from starlette.routing import Route

from gridd.client import Client, GriddError
from gridd.web.context import state_of
from gridd.web.state import WebState

log = logging.getLogger("gridd.web")

WATCH_TIMEOUT = 120.0  # the master answers a Watch at its host-check tick at the latest
RETRY_AFTER = 1.0  # seconds before asking again after the master could not be reached
KEEPALIVE = 20.0  # a comment line this often tells a page (and proxies) the stream lives


async def watch(state: WebState) -> None:
    """Run for the server's life: publish each change number the master answers with."""
    seen = 0
    while True:
        try:
            version = await anyio.to_thread.run_sync(
                state.pool.run, None, partial(_watch_once, since=seen),
                abandon_on_cancel=True)
        except GriddError:
            await anyio.sleep(RETRY_AFTER)
            continue
        except Exception:  # a bug must not end the server: the pages just stop updating
            log.exception("the watch of the master's changes failed")
            await anyio.sleep(RETRY_AFTER)
            continue
        if version != seen:
            seen = version
            state.changes.publish(version)


def _watch_once(client: Client, since: int) -> int:
    return client.watch(since, WATCH_TIMEOUT)


def _since(request: Request, now: int) -> int:
    """The change the page has seen: the last event's id when the browser connects again
    (Last-Event-ID), else the one the page was made at (?since=N), else `now`. A change
    between the page's making and its stream's start is then sent at once, not missed."""
    for text in (request.headers.get("last-event-id"), request.query_params.get("since")):
        if text and text.isdigit():
            return int(text)
    return now


async def events(request: Request) -> StreamingResponse:
    """GET /events: `event: changed` with the master's change number, for as long as the
    page is open."""
    changes = state_of(request).changes

    seen = _since(request, changes.version)

    async def stream() -> AsyncIterator[str]:
        nonlocal seen
        yield "retry: 2000\n\n"
        while True:
            with anyio.move_on_after(KEEPALIVE):
                seen = await changes.after(seen)
                yield f"id: {seen}\nevent: changed\ndata: {seen}\n\n"
                continue
            yield ": alive\n\n"

    return StreamingResponse(stream(), media_type="text/event-stream",
                             headers={"Cache-Control": "no-store"})


ROUTES = [Route("/events", events, methods=["GET"])]

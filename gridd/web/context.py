"""What every page's handler uses: the login of the request, the master asked as that
login's user, and templates rendered with what every page shows."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import anyio
from starlette.requests import Request
from starlette.responses import HTMLResponse
from starlette.templating import Jinja2Templates

from gridd import protocol as p
from gridd.client import Client, Refused
from gridd.master.web_sessions import ENDED
from gridd.web.state import Login, WebState

T = TypeVar("T")

HERE = Path(__file__).resolve().parent  # templates/ and static/ ship inside the package
TEMPLATES = Jinja2Templates(directory=str(HERE / "templates"))

# The pages in the navigation bar, in its order: (path, label).
NAVIGATION = [("/", "Overview"), ("/jobs", "Jobs"), ("/submit", "Submit"),
              ("/reservations", "Reservations"), ("/quotas", "Quotas"),
              ("/complexes", "Complexes"), ("/hosts", "Hosts"), ("/reports", "Reports")]

class LoginEnded(Exception):
    """The master no longer knows the login's session: the browser is to log in again."""


def state_of(request: Request) -> WebState:
    return request.app.state.web


def login_of(request: Request) -> Login:
    """The request's login, which the auth middleware made sure of."""
    return request.scope["state"]["login"]


async def call(request: Request, fn: Callable[[Client], T]) -> T:
    """`fn(client)` in a worker thread, every request it makes the master's request of
    the login's user. A refusal comes out as the client's Refused, its text for the page;
    a session the master has ended comes out as LoginEnded."""
    state, login = state_of(request), login_of(request)
    try:
        return await anyio.to_thread.run_sync(state.pool.run, login.session, fn)
    except Refused as exc:
        if exc.text == ENDED:  # the master's answer to a session it no longer knows
            state.logins.pop(request.cookies.get("gridd_session", ""), None)
            raise LoginEnded from None
        raise


async def qconf(request: Request, argv: list[str], files: dict[str, str] | None = None
                ) -> p.QconfReply:
    """A qconf command line sent as the login's user (`files`: those -A*/-M* name)."""
    msg = p.Qconf(argv=argv, user="", host="", files=files or {})
    return await call(request, lambda client: client.request(msg))


def wants_fragment(request: Request) -> bool:
    """The live part of the page alone, as static/gridd.js asks for it again."""
    return request.headers.get("x-fragment") == "1"


def render(request: Request, template: str, status: int = 200, **ctx: Any) -> HTMLResponse:
    """A template with what every page has: the login, its CSRF token, the navigation,
    and the master's change number as the request came (its data is that new at least)."""
    state = request.scope.get("state", {})
    login = state.get("login")
    ctx.update(login=login, version=state.get("version", 0),
               csrf=login.csrf if login else "", navigation=NAVIGATION,
               path=request.url.path)
    return TEMPLATES.TemplateResponse(request, template, ctx, status_code=status)

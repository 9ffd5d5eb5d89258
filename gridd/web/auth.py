"""Who a browser is: nobody until it opens the URL `gridd web login` printed, whose token
the master opens (WebLogin); from then on its cookie names that login.

Nothing but the login page and the static files is served without a login: a GET gets
401 and a page saying how to log in, anything else 403, and nothing is asked of the
master. Every request but GET and HEAD must carry the login's CSRF token (the form field
`csrf`, or the header X-CSRF-Token), else it is refused with 403 unread. The cookie is
HttpOnly and SameSite=Strict: scripts cannot read it and other sites cannot send it.
"""

from __future__ import annotations

import hmac
import secrets
import time
from urllib.parse import parse_qs

import anyio
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import Route
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from gridd.client import GriddError
from gridd.web.context import login_of, render, state_of
from gridd.web.state import COOKIE, Login, WebState

OPEN = ("/login", "/static/")  # what is served without a login
SAFE = ("GET", "HEAD")
MAX_FORM = 1 << 20  # a form larger than this is refused unread (a script is well below)


class RequireLogin:
    """ASGI middleware: the login rule above, for every route there is or will be."""

    def __init__(self, app: ASGIApp, state: WebState) -> None:
        self.app = app
        self.state = state

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["path"].startswith(OPEN):
            await self.app(scope, receive, send)
            return
        request = Request(scope)
        login = self.state.logins.get(request.cookies.get(COOKIE, ""))
        if login is None:
            await _not_logged_in(request, scope["method"])(scope, receive, send)
            return
        if scope["method"] not in SAFE:
            body = await _body(receive)
            if body is None or not _csrf_ok(request, body, login):
                await render(request, "refused.html", 403, text="error: the form was not "
                             "sent from this login's page (CSRF token missing or wrong): "
                             "reload the page and try again")(scope, receive, send)
                return
            receive = _replay(body)
        scope.setdefault("state", {}).update(login=login, version=self.state.changes.version)
        await self.app(scope, receive, send)


def _not_logged_in(request: Request, method: str) -> Response:
    response = render(request, "login_needed.html", 401 if method in SAFE else 403)
    response.delete_cookie(COOKIE)
    return response


async def _body(receive: Receive) -> bytes | None:
    """The request's whole body; None when it is larger than MAX_FORM."""
    chunks, size = [], 0
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            return None
        chunk = message.get("body", b"")
        size += len(chunk)
        if size > MAX_FORM:
            return None
        chunks.append(chunk)
        if not message.get("more_body"):
            return b"".join(chunks)


def _replay(body: bytes) -> Receive:
    """A receive that hands the application the body read already."""
    sent = False

    async def receive() -> Message:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        await anyio.sleep_forever()  # as a client that keeps the connection open
        raise AssertionError

    return receive


def _csrf_ok(request: Request, body: bytes, login: Login) -> bool:
    """The login's token in the header X-CSRF-Token or the form field `csrf` (the pages'
    forms are url-encoded; a multipart body carries none that is read)."""
    token = request.headers.get("x-csrf-token")
    if token is None and request.headers.get("content-type", "").startswith(
            "application/x-www-form-urlencoded"):
        token = parse_qs(body.decode("latin-1")).get("csrf", [None])[0]
    return token is not None and hmac.compare_digest(token, login.csrf)


async def login(request: Request) -> Response:
    """GET /login?token=T: the master opens the token; the browser is its user now."""
    state = state_of(request)
    token = request.query_params.get("token", "")
    try:
        granted = await anyio.to_thread.run_sync(
            state.pool.run, None, lambda client: client.login(token))
    except GriddError as exc:
        return render(request, "login_needed.html", 403, text=exc.text)
    cookie = secrets.token_urlsafe(32)
    now = time.time()
    for ended in [key for key, login in state.logins.items() if login.expires <= now]:
        del state.logins[ended]  # the master has ended these sessions too: forget them
    state.logins[cookie] = Login(granted.user, granted.session, granted.expires)
    response = RedirectResponse("/", status_code=303)
    response.set_cookie(COOKIE, cookie, httponly=True, samesite="strict", path="/")
    return response


async def logout(request: Request) -> Response:
    """POST /logout: the master ends the session, the browser forgets its cookie."""
    state, login = state_of(request), login_of(request)
    state.logins.pop(request.cookies.get(COOKIE, ""), None)
    try:
        await anyio.to_thread.run_sync(state.pool.run, None,
                                       lambda client: client.logout(login.session))
    except GriddError:
        pass  # ended or unknown there already: the browser is logged out all the same
    del request.scope["state"]["login"]
    response = render(request, "login_needed.html", text="You are logged out.")
    response.delete_cookie(COOKIE)
    return response


ROUTES = [Route("/login", login, methods=["GET"]), Route("/logout", logout, methods=["POST"])]

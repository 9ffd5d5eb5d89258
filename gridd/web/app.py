"""The web application: every page module's routes behind the login rule (auth)."""

from __future__ import annotations

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Mount
from starlette.staticfiles import StaticFiles

from gridd.web import auth, events
from gridd.web.context import HERE, LoginEnded, render
from gridd.web.pages import PAGES
from gridd.web.state import COOKIE, WebState


async def _login_ended(request: Request, exc: Exception) -> Response:
    request.scope.get("state", {}).pop("login", None)
    response = render(request, "login_needed.html", 401,
                      text="Your login has ended: log in again.")
    response.delete_cookie(COOKIE)
    return response


def make_app(state: WebState) -> Starlette:
    routes = [*auth.ROUTES, *events.ROUTES]
    for page in PAGES:
        routes += page.ROUTES
    routes.append(Mount("/static", StaticFiles(directory=HERE / "static"), name="static"))
    app = Starlette(routes=routes, middleware=[Middleware(auth.RequireLogin, state=state)],
                    exception_handlers={LoginEnded: _login_ended})
    app.state.web = state
    return app

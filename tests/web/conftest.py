"""Web fixtures: the application on a real cell, driven in-process by Starlette's
TestClient (the browser tests run a real `gridd web` beside Chromium instead)."""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest
from starlette.testclient import TestClient

from gridd import keys, login_token
from gridd.client import Client
from gridd.web.app import make_app
from gridd.web.state import COOKIE, Login, WebState
from tests.e2e.conftest import Cell, make_cell


@pytest.fixture(scope="module")
def web_cell(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cell]:
    """One cell for a module's tests that leave it as they found it."""
    yield from make_cell(tmp_path_factory.mktemp("web"), hosts=1, slots=2)


@pytest.fixture
def web(web_cell: Cell) -> Iterator[TestClient]:
    """A browser without a login, on the application of a fresh server."""
    with TestClient(make_app(WebState(web_cell.root)), backend="trio",
                    follow_redirects=False) as client:
        yield client


def log_in(web: TestClient, user: str) -> Login:
    """Make `web` a browser logged in as `user` (a key pair is made for a user without
    one), through /login with a token made with the user's key as `gridd web login`
    makes it; its login (its CSRF token for forms)."""
    state: WebState = web.app.state.web
    base = state.base
    if keys.ensure(base, keys.USERS, user):
        with Client(base) as client:  # a new connection: the master reads the new key
            client.ping()
    pair = keys.read_secret(keys.secret_file(base, keys.USERS, user))
    master = keys.read_public(keys.key_file(base, keys.MASTER))
    token = login_token.make(user, pair.secret, master, time.time())
    answer = web.get("/login", params={"token": token})
    assert answer.status_code == 303, answer.text
    return state.logins[web.cookies[COOKIE]]


def routes(web: TestClient) -> list[tuple[str, set[str]]]:
    """Every route of the application but the open ones (its path with 1 for each
    parameter, and its methods)."""
    out = []
    for route in web.app.routes:
        path = getattr(route, "path", "")
        if path in ("/login",) or path.startswith("/static") or not hasattr(route, "methods"):
            continue
        out.append((path.replace("{id}", "1").replace("{name}", "x"), set(route.methods)))
    return out

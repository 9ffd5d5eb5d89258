"""Nothing without a login: every route, every method; CSRF on every change."""

from __future__ import annotations

import time

from starlette.testclient import TestClient

from gridd import login_token
from gridd.client import Client
from tests.e2e.conftest import Cell
from tests.web.conftest import log_in, routes


def test_every_route_without_a_login_says_how_to_log_in_and_shows_nothing(web: TestClient):
    for path, methods in routes(web):
        for method in sorted(methods - {"HEAD"}):
            answer = web.request(method, path)
            assert answer.status_code == (401 if method == "GET" else 403), (method, path)
            assert "gridd web login" in answer.text
            assert "node1" not in answer.text  # no host, job or queue shown


def snapshot(cell: Cell) -> list[str]:
    """What a change through the web could touch, as the commands show it."""
    shown = [cell.run(*command) for command in (
        ("qstat", "-u", "*"), ("qconf", "-sc"), ("qconf", "-srqs"), ("qrstat", "-u", "*"),
        ("qconf", "-sql"), ("qconf", "-sel"))]
    return [f"{res.returncode}\n{res.stdout}{res.stderr}" for res in shown]


def test_no_change_is_made_for_a_browser_without_a_login_or_without_its_token(
        web: TestClient, web_cell: Cell):
    """Every POST route, with fields that would change something if it were taken:
    anonymous, and logged in with a wrong CSRF token."""
    job = web_cell.ok("qsub", "-terse", "-h", "-b", "y", "true").strip()
    try:
        before = snapshot(web_cell)
        fields = {"ids": job, "id": job, "action": "delete", "name": "arch",
                  "original": "arch", "command": "true", "type": "INT", "relop": "<=",
                  "consumable": "YES", "text": "{\n name x\n enabled true\n limit to "
                  "slots=1\n}\n", "start": "01010000", "duration": "1:0:0"}
        posts = [path for path, methods in routes(web) if "POST" in methods]
        assert posts
        for path in posts:
            assert web.post(path, data=fields).status_code == 403, path
        log_in(web, "root")
        for path in posts:
            assert web.post(path, data={**fields, "csrf": "wrong"}).status_code == 403, path
        assert snapshot(web_cell) == before
    finally:
        web_cell.ok("qdel", job)


def test_a_change_without_the_login_csrf_token_is_refused(web: TestClient):
    log_in(web, "root")
    for path, methods in routes(web):
        if "POST" in methods:
            answer = web.post(path, data={"csrf": "not-it"})
            assert answer.status_code == 403 and "CSRF" in answer.text, path


def test_a_logged_in_browser_sees_the_overview(web: TestClient):
    log_in(web, "root")
    answer = web.get("/")
    assert answer.status_code == 200 and "node1" in answer.text
    fragment = web.get("/", headers={"X-Fragment": "1"})
    assert "<html" not in fragment.text and "node1" in fragment.text


def test_a_bad_token_logs_nobody_in(web: TestClient):
    answer = web.get("/login?token=nobody.AAAA")
    assert answer.status_code == 403 and "gridd_session" not in answer.headers.get(
        "set-cookie", "")


def test_a_login_url_logs_its_user_in_once(web: TestClient):
    login = log_in(web, "alice")
    assert login.user == "alice" and "alice" in web.get("/").text
    token = login_token.for_current_user(web.app.state.web.base, time.time())
    assert web.get("/login", params={"token": token}).status_code == 303
    web.cookies.clear()
    again = web.get("/login", params={"token": token})
    assert again.status_code == 403 and "gridd_session" not in again.headers.get(
        "set-cookie", "")


def test_a_session_the_master_ended_sends_the_browser_to_log_in_again(web: TestClient):
    login = log_in(web, "root")
    with Client(web.app.state.web.base) as client:
        client.logout(login.session)
    answer = web.get("/")
    assert answer.status_code == 401 and "Your login has ended" in answer.text
    assert web.get("/").status_code == 401  # the server forgot the login too


def test_a_new_login_makes_the_server_forget_the_logins_that_have_ended(web: TestClient):
    old = log_in(web, "alice")
    old.expires = 0.0  # as the master's session would have, 12 hours on
    log_in(web, "root")
    assert old not in web.app.state.web.logins.values()

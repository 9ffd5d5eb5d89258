"""/quotas against qconf and qquota: the sets as qconf -srqs prints them, usage as qquota
counts it, the grammar's error at its line before anything is sent, and changes with the
master's permissions."""

from __future__ import annotations

import re

from starlette.testclient import TestClient

from tests.e2e.conftest import Cell, wait_for
from tests.web.conftest import log_in

SET = ("{\n   name         webquota\n   description  NONE\n   enabled      TRUE\n"
       "   limit        users {*} to slots=1\n}\n")


def test_the_check_answers_the_grammars_error_with_its_line(web: TestClient):
    login = log_in(web, "root")
    headers = {"X-CSRF-Token": login.csrf}
    good = web.post("/quotas/check", data={"text": SET}, headers=headers)
    assert good.json() == {"ok": True}
    bad = web.post("/quotas/check", headers=headers,
                   data={"text": SET.replace("limit        users", "limit        usrs")})
    verdict = bad.json()
    assert verdict["ok"] is False and verdict["line"] == 5 and verdict["message"]


def test_a_manager_adds_changes_and_deletes_a_set_as_qconf_shows_it(web: TestClient,
                                                                     web_cell: Cell):
    login = log_in(web, "root")
    assert 'id="rqs-edit"' in web.get("/quotas").text
    added = web.post("/quotas", data={"text": SET, "csrf": login.csrf})
    assert added.status_code == 303, added.text
    assert "limit        users {*} to slots=1" in web_cell.ok("qconf", "-srqs", "webquota")
    page = web.get("/quotas?edit=webquota").text
    assert 'name="original" value="webquota"' in page and "to slots=1" in page
    changed = web.post("/quotas", data={"text": SET.replace("slots=1", "slots=2"),
                                        "original": "webquota", "csrf": login.csrf})
    assert changed.status_code == 303, changed.text
    assert "to slots=2" in web_cell.ok("qconf", "-srqs", "webquota")
    gone = web.post("/quotas/delete", data={"name": "webquota", "csrf": login.csrf})
    assert gone.status_code == 303
    assert web_cell.run("qconf", "-srqs", "webquota").returncode != 0


def test_a_syntax_error_is_shown_at_its_line_and_nothing_is_sent(web: TestClient,
                                                                 web_cell: Cell):
    login = log_in(web, "root")
    answer = web.post("/quotas", data={"text": SET.replace("to slots", "too slots"),
                                       "csrf": login.csrf})
    assert answer.status_code == 400 and re.search(r'class="error">line 5: ', answer.text)
    assert "too slots" in answer.text  # the text as it was
    assert web_cell.run("qconf", "-srqs", "webquota").returncode != 0


def test_usage_is_qquotas(web: TestClient, web_cell: Cell):
    login = log_in(web, "root")
    web.post("/quotas", data={"text": SET, "csrf": login.csrf})
    job = web_cell.ok("qsub", "-terse", "-b", "y", "-o", "/dev/null", "-j", "y",
                      "sleep", "60").strip()
    try:
        wait_for(lambda: "webquota" in web_cell.ok("qquota", "-u", "*"), what="qquota")
        usage = web.get("/quotas", headers={"X-Fragment": "1"}).text
        assert "<html" not in usage and "webquota/1" in usage and "slots=1/1" in usage
    finally:
        web_cell.ok("qdel", job)
        web.post("/quotas/delete", data={"name": "webquota", "csrf": login.csrf})


def test_a_user_who_is_no_manager_is_refused_by_the_master(web: TestClient, web_cell: Cell):
    login = log_in(web, "alice")
    answer = web.post("/quotas", data={"text": SET, "csrf": login.csrf})
    assert answer.status_code == 400 and "alice" in answer.text
    assert web_cell.run("qconf", "-srqs", "webquota").returncode != 0


def test_a_user_who_is_no_manager_neither_changes_nor_deletes_a_set(web: TestClient,
                                                                    web_cell: Cell):
    path = web_cell.root / "webquota.rqs"
    path.write_text(SET)
    web_cell.ok("qconf", "-Arqs", str(path))
    try:
        before = web_cell.ok("qconf", "-srqs")
        login = log_in(web, "alice")
        for answer in (
                web.post("/quotas", data={"text": SET.replace("slots=1", "slots=9"),
                                          "original": "webquota", "csrf": login.csrf}),
                web.post("/quotas/delete", data={"name": "webquota", "csrf": login.csrf})):
            assert answer.status_code == 400
            assert re.search(r'class="error">[^<]*alice[^<]*must be manager', answer.text)
        assert web_cell.ok("qconf", "-srqs") == before
    finally:
        web_cell.ok("qconf", "-drqs", "webquota")

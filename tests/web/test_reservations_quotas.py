"""The pages of advance reservations and resource quotas (/reservations, /quotas) against
the commands: the AR table is qrstat's, an AR reserved through the form is qrstat's, and
deleting it is qrdel's; the quota sets are qconf -srqs's, the editor's saves and deletes
are qconf's with the master's permissions (a manager may, another user is refused with
the master's text and nothing changes); /quotas/check names the grammar's error line.

The cell is this module's own (the tests change it), readable by the users the browsers
log in as: daemon owns ARs, nobody is another user, root is a manager.
"""

from __future__ import annotations

import html
import re
import time
from collections.abc import Iterator
from datetime import datetime
from urllib.parse import parse_qs, urlsplit

import pytest
from starlette.testclient import TestClient

from gridd.cli.render_text import stamp
from gridd.web.pages.reservations import qrsub_argv, qrsub_time
from tests.e2e.conftest import Cell
from tests.e2e.test_advance_reservation import qrsub
from tests.e2e.test_ar_users import readable_cell
from tests.web.test_jobs import browser, form

RQS = """{
   name         web_limit
   description  NONE
   enabled      TRUE
   limit        users {*} to slots=%d
}
"""


@pytest.fixture(scope="module")
def web_cell() -> Iterator[Cell]:
    for cell in readable_cell(hosts=1, slots=2):
        cell.ok("qconf", "-au", "daemon", "arusers")  # daemon may reserve
        yield cell


@pytest.fixture
def as_daemon(web_cell: Cell) -> Iterator[TestClient]:
    web = browser(web_cell, "daemon")
    yield web
    web.__exit__(None, None, None)


@pytest.fixture
def as_nobody(web_cell: Cell) -> Iterator[TestClient]:
    web = browser(web_cell, "nobody")
    yield web
    web.__exit__(None, None, None)


@pytest.fixture
def as_root(web_cell: Cell) -> Iterator[TestClient]:
    web = browser(web_cell, "root")
    yield web
    web.__exit__(None, None, None)


@pytest.fixture
def clean(web_cell: Cell) -> Iterator[Cell]:
    """The cell, every AR and quota set deleted after the test."""
    yield web_cell
    web_cell.run("qrdel", "-f", "-u", "*")
    for name in web_cell.run("qconf", "-srqsl").stdout.split():
        web_cell.ok("qconf", "-drqs", name)


def done(answer) -> str:
    assert answer.status_code == 303, answer.text
    return parse_qs(urlsplit(answer.headers["location"]).query)["done"][0]


def message(answer) -> str:
    found = re.search(r'<p id="message" class="error">(.*?)</p>', answer.text, re.S)
    assert found, answer.text
    return html.unescape(found[1])


def ar_ids(cell: Cell) -> list[str]:
    return [line.split()[0] for line in cell.ok("qrstat", "-u", "*").splitlines()[2:]]


# ---- the form's words -------------------------------------------------------------------

def test_a_datetime_local_value_is_qrsub_s_time_and_the_fields_its_options():
    assert qrsub_time("2026-11-28T10:30") == "202611281030"
    assert qrsub_time("2026-11-28T10:30:05") == "202611281030.05"
    assert qrsub_time("11281030") == "11281030"  # qrsub's own format as it is
    assert qrsub_argv({"name": "x", "start": "2026-11-28T10:30", "duration": "600",
                       "pe": "mpi 2", "acl": "a,b", "queues": ""}) == [
        "-N", "x", "-a", "202611281030", "-d", "600", "-pe", "mpi", "2", "-u", "a,b"]


# ---- advance reservations ---------------------------------------------------------------

def test_the_table_is_qrstat_s(clean: Cell, as_nobody: TestClient):
    ar = qrsub(clean, "-N", "shown", "-d", "1:0:0")
    line = clean.ok("qrstat", "-u", "*").splitlines()[2].split()
    page = as_nobody.get("/reservations")
    assert page.status_code == 200
    row = re.search(rf'<tr id="ar-{ar}" data-state="(\w+)">(.*?)</tr>', page.text, re.S)
    assert row, page.text
    cells = [html.unescape(c) for c in re.findall(r"<td[^>]*>([^<]*)</td>", row[2])]
    assert " ".join(cells).split() == line
    fragment = as_nobody.get("/reservations", headers={"X-Fragment": "1"}).text
    assert '<table id="ars">' in fragment
    assert "<h1>" not in fragment


def test_an_ar_through_the_form_shows_in_qrstat_and_its_owner_deletes_it(
        clean: Cell, as_daemon: TestClient):
    start = datetime.fromtimestamp(time.time() + 3600).strftime("%Y-%m-%dT%H:%M")
    text = done(as_daemon.post("/reservations", data=form(
        as_daemon, name="web_ar", start=start, duration="600", queues="all.q")))
    ar = re.fullmatch(r"Your advance reservation (\d+) has been granted", text)[1]
    assert ar_ids(clean) == [ar]
    shown = clean.ok("qrstat", "-ar", ar)
    assert re.search(r"owner\s+daemon", shown) and re.search(r"name\s+web_ar", shown)
    begins = datetime.strptime(start, "%Y-%m-%dT%H:%M").timestamp()
    assert re.search(rf"start_time\s+{re.escape(stamp(begins))}", shown), shown
    assert f'<tr id="ar-{ar}"' in as_daemon.get("/reservations").text
    done(as_daemon.post("/reservations/delete", data=form(as_daemon, id=ar)))
    assert ar_ids(clean) == []


def test_qrsub_s_complaint_is_shown_with_the_input_kept(clean: Cell, as_daemon: TestClient):
    answer = as_daemon.post("/reservations", data=form(as_daemon, name="x", start="tomorrow",
                                                       duration="600"))
    assert answer.status_code == 400
    assert 'Wrong date/time format "tomorrow" specified to -a option' in message(answer)
    assert 'value="tomorrow"' in answer.text
    assert ar_ids(clean) == []


def test_another_user_is_refused_and_a_manager_deletes(clean: Cell, as_nobody: TestClient,
                                                       as_root: TestClient):
    ar = str(qrsub(clean, "-d", "1:0:0"))
    refused = as_nobody.post("/reservations/delete", data=form(as_nobody, id=ar))
    assert refused.status_code == 400
    assert message(refused) == 'denied: "nobody" must be manager or in userset "arusers"'
    assert ar_ids(clean) == [ar]
    done(as_root.post("/reservations/delete", data=form(as_root, id=ar)))
    assert ar_ids(clean) == []


# ---- resource quotas --------------------------------------------------------------------

def test_the_sets_are_qconf_srqs_s_and_the_usage_qquota_s(clean: Cell, as_nobody: TestClient):
    path = clean.root / "rqs"
    path.write_text(RQS % 5)
    clean.ok("qconf", "-Arqs", str(path))
    page = as_nobody.get("/quotas")
    assert page.status_code == 200
    sets = re.findall(r'<div class="rqs" id="rqs-([^"]+)">\s*<pre>(.*?)</pre>', page.text, re.S)
    assert [(name, html.unescape(text)) for name, text in sets] == [
        ("web_limit", clean.ok("qconf", "-srqs"))]
    assert '<table id="usage">' in page.text
    assert 'name="text"' in page.text and "template" in page.text  # qconf -arqs's template


def test_a_manager_adds_changes_and_deletes_a_set(clean: Cell, as_root: TestClient):
    assert "added" in done(as_root.post("/quotas", data=form(as_root, text=RQS % 3)))
    assert "slots=3" in clean.ok("qconf", "-srqs", "web_limit")
    editing = as_root.get("/quotas", params={"name": "web_limit"}).text
    assert 'name="name" value="web_limit"' in editing and "slots=3" in editing
    assert "modified" in done(as_root.post("/quotas", data=form(
        as_root, name="web_limit", text=(RQS % 4).replace("\n", "\r\n"))))
    assert "slots=4" in clean.ok("qconf", "-srqs", "web_limit")
    assert "removed" in done(as_root.post("/quotas/delete", data=form(as_root,
                                                                       name="web_limit")))
    assert clean.run("qconf", "-srqsl").returncode != 0


def test_another_user_is_refused_with_the_master_s_text_and_nothing_changes(
        clean: Cell, as_nobody: TestClient):
    path = clean.root / "rqs"
    path.write_text(RQS % 5)
    clean.ok("qconf", "-Arqs", str(path))
    before = clean.ok("qconf", "-srqs")
    for answer in (
            as_nobody.post("/quotas", data=form(as_nobody, name="web_limit", text=RQS % 1)),
            as_nobody.post("/quotas", data=form(as_nobody, text=(RQS % 1).replace(
                "web_limit", "other"))),
            as_nobody.post("/quotas/delete", data=form(as_nobody, name="web_limit"))):
        assert answer.status_code == 400
        assert "must be manager" in message(answer), message(answer)
    assert clean.ok("qconf", "-srqs") == before


def test_check_names_the_line_of_a_syntax_error(as_nobody: TestClient):
    csrf = {"X-CSRF-Token": as_nobody.login.csrf}  # type: ignore[attr-defined]
    good = as_nobody.post("/quotas/check", data={"text": RQS % 1}, headers=csrf)
    assert good.json() == {"ok": True}
    bad = as_nobody.post("/quotas/check", headers=csrf, data={
        "text": (RQS % 1).replace("users {*} to", "users {*} too")})
    verdict = bad.json()
    assert verdict["ok"] is False and verdict["line"] == 5 and verdict["column"] > 1
    assert '"too"' in verdict["message"]
    assert as_nobody.post("/quotas/check", data={"text": "x"}).status_code == 403  # no CSRF


def test_a_set_with_an_error_saved_anyway_is_the_master_s_refusal(clean: Cell,
                                                                   as_root: TestClient):
    text = (RQS % 1).replace("enabled", "enabledd")
    answer = as_root.post("/quotas", data=form(as_root, text=text))
    assert answer.status_code == 400
    assert "enabledd" in message(answer)
    assert "enabledd" in answer.text  # the input kept
    assert clean.run("qconf", "-srqsl").returncode != 0

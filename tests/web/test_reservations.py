"""/reservations against qrsub, qrstat and qrdel: the form builds qrsub's AR, the table
shows qrstat's columns, delete is qrdel's, with the master's permissions."""

from __future__ import annotations

import html
import re
import time

from starlette.testclient import TestClient

from gridd.formats.shown import stamp
from gridd.web.pages.reservations import qrsub_time
from tests.e2e.conftest import Cell
from tests.web.conftest import log_in

GRANTED = re.compile(r"Your advance reservation (\d+) has been granted")


def test_an_html_local_time_is_qrsubs_and_other_text_is_left_to_qrsub():
    assert qrsub_time("2026-11-28T10:30") == "202611281030"
    assert qrsub_time("2026-11-28T10:30:15") == "202611281030.15"
    assert qrsub_time(" 11281030 ") == "11281030"
    assert qrsub_time("tomorrow") == "tomorrow"


def later(seconds: float) -> str:
    return time.strftime("%Y-%m-%dT%H:%M", time.localtime(time.time() + seconds))


def test_an_ar_submitted_in_the_form_is_qrstats_and_goes_with_delete(web: TestClient,
                                                                      web_cell: Cell):
    login = log_in(web, "root")
    answer = web.post("/reservations", data={
        "name": "webar", "start": later(7200), "duration": "1:0:0", "csrf": login.csrf})
    assert answer.status_code == 303, answer.text
    ar = GRANTED.search(web.get(answer.headers["location"]).text).group(1)
    shown = web_cell.ok("qrstat", "-u", "*")
    assert re.search(rf"^\s*{ar} webar\s+root\s", shown, re.M)
    page = web.get("/reservations").text
    row = re.search(rf'<tr id="ar-{ar}".*?</tr>', page, re.S).group(0)
    assert ">webar<" in row and ">01:00:00<" in row
    assert f'id="ar-{ar}"' in web.get("/reservations", headers={"X-Fragment": "1"}).text
    gone = web.post("/reservations/delete", data={"id": ar, "csrf": login.csrf})
    assert gone.status_code == 303
    assert f"ar-{ar}" not in web.get("/reservations").text
    assert web_cell.ok("qrstat", "-u", "*") == ""


def test_what_qrsub_or_the_master_refuses_is_shown_and_nothing_changes(web: TestClient,
                                                                       web_cell: Cell):
    root = log_in(web, "root")
    answer = web.post("/reservations", data={"start": later(7200), "duration": "soon",
                                             "csrf": root.csrf})
    assert answer.status_code == 400 and "qrsub:" in answer.text
    assert 'value="soon"' in answer.text  # the form as it was filled in
    too_big = web.post("/reservations", data={"duration": "1:0:0", "pe": "mpi 99",
                                              "csrf": root.csrf})
    assert too_big.status_code == 400 and "error" in too_big.text.lower()
    assert web_cell.ok("qrstat", "-u", "*") == ""


def test_another_user_cannot_delete_an_ar_of_roots(web: TestClient, web_cell: Cell):
    ar = GRANTED.search(web_cell.ok("qrsub", "-a", qrsub_time(later(7200)), "-d", "600")
                        ).group(1)
    try:
        alice = log_in(web, "alice")
        answer = web.post("/reservations/delete", data={"id": ar, "csrf": alice.csrf})
        assert answer.status_code == 400 and "alice" in answer.text
        assert f" {ar} " in f" {web_cell.ok('qrstat', '-u', '*')} "
    finally:
        web_cell.ok("qrdel", ar)


def test_a_row_is_qrstat_s_line_cell_for_cell(web: TestClient, web_cell: Cell):
    ar = GRANTED.search(web_cell.ok("qrsub", "-N", "row", "-a", qrsub_time(later(7200)),
                                    "-d", "600")).group(1)
    try:
        log_in(web, "root")
        line = web_cell.ok("qrstat", "-u", "*").splitlines()[2].split()
        row = re.search(rf'<tr id="ar-{ar}".*?</tr>', web.get("/reservations").text, re.S)
        cells = re.findall(r"<td[^>]*>([^<]*)</td>", row.group(0))
        assert " ".join(html.unescape(c) for c in cells).split() == line
    finally:
        web_cell.ok("qrdel", ar)


def test_a_user_of_arusers_reserves_through_the_form_and_deletes_their_own(
        web: TestClient, web_cell: Cell):
    web_cell.ok("qconf", "-au", "alice", "arusers")
    try:
        alice = log_in(web, "alice")
        start = later(7200)
        answer = web.post("/reservations", data={"name": "mine", "start": start,
                                                 "duration": "600", "csrf": alice.csrf})
        assert answer.status_code == 303, answer.text
        ar = GRANTED.search(web.get(answer.headers["location"]).text).group(1)
        shown = web_cell.ok("qrstat", "-ar", ar)
        assert re.search(r"^owner\s+alice$", shown, re.M), shown
        begins = time.mktime(time.strptime(start, "%Y-%m-%dT%H:%M"))
        assert re.search(rf"^start_time\s+{re.escape(stamp(begins))}$", shown, re.M), shown
        gone = web.post("/reservations/delete", data={"id": ar, "csrf": alice.csrf})
        assert gone.status_code == 303, gone.text
        assert web_cell.ok("qrstat", "-u", "*") == ""
    finally:
        web_cell.run("qrdel", "-u", "alice")
        web_cell.ok("qconf", "-du", "alice", "arusers")


def test_a_delete_the_master_refuses_in_its_answer_is_shown_as_a_refusal(web: TestClient,
                                                                         web_cell: Cell):
    """qrdel's refusals come as an answer with code 1 (an AR not found, another owner's
    AR for a user of arusers): the page says them as errors, 400, and nothing changes."""
    ar = GRANTED.search(web_cell.ok("qrsub", "-a", qrsub_time(later(7200)), "-d", "600")
                        ).group(1)
    web_cell.ok("qconf", "-au", "alice", "arusers")
    try:
        alice = log_in(web, "alice")
        for target, said in (
                ("999", 'denied: advance_reservation "999" does not exist'),
                (ar, "alice - you do not have the necessary privileges to delete the "
                     f'advance_reservation "{ar}"')):
            answer = web.post("/reservations/delete", data={"id": target, "csrf": alice.csrf})
            assert answer.status_code == 400, answer.headers
            shown = re.search(r'<p id="message" class="error">([^<]*)</p>', answer.text)
            assert shown and html.unescape(shown.group(1)) == said, answer.text
        assert f" {ar} " in f" {web_cell.ok('qrstat', '-u', '*')} "
    finally:
        web_cell.ok("qconf", "-du", "alice", "arusers")
        web_cell.ok("qrdel", ar)

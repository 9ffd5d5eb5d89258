"""The pages of jobs and hosts (/, /jobs, /jobs/ID, /submit, /hosts) against the commands:
what a logged-in browser sees is what qstat, qstat -j and qhost print for the same cell,
and the job actions and the submit form do what qdel, qmod, qhold, qrls and qsub do, with
the master's permissions: the owner may, another user is refused and nothing changes, a
manager may.

The cell is this module's own, readable by the users the browsers log in as (daemon owns
jobs, nobody is another user, root is a manager), and its sge_request sends jobs' output
to /dev/null, which qsub's parser reads for the web's submissions as for qsub's.
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterator
from urllib.parse import parse_qs, urlsplit

import pytest
from starlette.testclient import TestClient

from gridd.web.app import make_app
from gridd.web.state import WebState
from tests.e2e.conftest import Cell, wait_for
from tests.e2e.test_advance_reservation import qrsub
from tests.e2e.test_ar_users import readable_cell
from tests.web.conftest import log_in

SLEEP = ("-b", "y", "-o", "/dev/null", "-j", "y", "sleep", "300")
UNSATISFIABLE = "arch=nowhere"  # a pending job that never starts


@pytest.fixture(scope="module")
def web_cell() -> Iterator[Cell]:
    for cell in readable_cell(hosts=1, slots=2):
        (cell.root / "common" / "sge_request").write_text("-o /dev/null -j y\n")
        yield cell


def browser(cell: Cell, user: str) -> TestClient:
    """A logged-in browser of `user` on a fresh server (close it after use)."""
    web = TestClient(make_app(WebState(cell.root)), backend="trio", follow_redirects=False)
    web.__enter__()
    web.login = log_in(web, user)  # type: ignore[attr-defined]
    return web


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
    """The cell, every job deleted after the test."""
    yield web_cell
    web_cell.run("qdel", "-f", "-u", "*")
    wait_for(lambda: not web_cell.ok("qstat", "-u", "*"), what="every job gone")


def qsub(cell: Cell, *args: str) -> int:
    out = cell.ok("qsub", *args)
    return int(out.split()[2].partition(".")[0])


def qstat_rows(cell: Cell, *args: str) -> list[tuple[str, str, str]]:
    """(job id, state, ja-task-ID) of each line qstat prints."""
    lines = cell.ok("qstat", "-u", "*", *args).splitlines()
    if not lines:
        return []
    tasks_at = lines[0].index("ja-task-ID")
    return [(line.split()[0], line.split()[4], line[tasks_at:].strip()) for line in lines[2:]]


_ROW = re.compile(r'<tr id="job-(\d+)[^"]*" data-job="\d+" data-state="([^"]*)">'
                  r'.*?<td class="tasks">([^<]*)</td>', re.S)


def page_rows(text: str) -> list[tuple[str, str, str]]:
    return [(job, state, html.unescape(tasks)) for job, state, tasks in _ROW.findall(text)]


def form(web: TestClient, **fields: object) -> dict[str, object]:
    return {"csrf": web.login.csrf, **fields}  # type: ignore[attr-defined]


def submitted(answer) -> int:
    """The job number of a submission the form took (303 to /jobs?done=...)."""
    assert answer.status_code == 303, answer.text
    done = parse_qs(urlsplit(answer.headers["location"]).query)["done"][0]
    return int(re.search(r"Your job(?:-array)? (\d+)", done)[1])


def act(web: TestClient, action: str, *ids: object):
    return web.post("/jobs/action", data=form(web, action=action, ids=[str(i) for i in ids]))


def state(cell: Cell, job: int) -> str | None:
    return next((s for j, s, _ in qstat_rows(cell) if j == str(job)), None)


# ---- reading -----------------------------------------------------------------------------

def test_jobs_shows_qstat_s_lines_and_its_filters(clean: Cell, as_nobody: TestClient):
    running = qsub(clean, *SLEEP)
    held = qsub(clean, "-h", "-N", "held", *SLEEP)
    array = qsub(clean, "-h", "-t", "1-3", "-l", UNSATISFIABLE, *SLEEP)
    wait_for(lambda: state(clean, running) == "r", what="the job running")
    clean.ok("qrls", f"{array}.2")
    page = as_nobody.get("/jobs")
    assert page.status_code == 200
    assert page_rows(page.text) == qstat_rows(clean)
    assert {row[0] for row in page_rows(page.text)} == {str(running), str(held), str(array)}
    for query, options in (("state=h", ("-s", "h")), ("state=r", ("-s", "r")),
                           ("user=root", ()), ("user=daemon", ("-u", "daemon")),
                           ("queue=all.q", ("-q", "all.q"))):
        shown = page_rows(as_nobody.get(f"/jobs?{query}").text)
        assert shown == qstat_rows(clean, *options), query
    live = as_nobody.get("/jobs?state=h", headers={"X-Fragment": "1"})
    assert "<html" not in live.text and page_rows(live.text) == qstat_rows(clean, "-s", "h")
    assert 'data-live="/jobs?state=h"' in as_nobody.get("/jobs?state=h").text
    wrong = as_nobody.get("/jobs?state=Q")
    assert "ERROR! wrong argument to -s option" in wrong.text and not page_rows(wrong.text)


def test_a_job_page_is_qstat_j(clean: Cell, as_nobody: TestClient):
    ar = qrsub(clean, "-d", "1:0:0")
    job = qsub(clean, "-h", "-ar", str(ar), "-N", "in_ar", "-l", "h_rt=0:1:0", *SLEEP)
    page = as_nobody.get(f"/jobs/{job}")
    assert page.status_code == 200
    text = html.unescape(page.text)
    for line in clean.ok("qstat", "-j", str(job)).splitlines()[1:]:
        if line.startswith("scheduling info"):
            break
        label, _, value = line.partition(":")
        if value.strip():
            assert f"<th>{label.strip()}</th><td>{value.strip()}</td>" in text, line
    assert f"<th>ar_id</th><td>{ar}</td>" in text
    assert re.search(r'<ul id="reasons">', page.text)
    row = as_nobody.get("/jobs").text
    assert re.search(rf'<tr id="job-{job}".*?<td class="num">{ar}</td>', row, re.S)
    clean.ok("qrdel", str(ar))


def test_a_job_page_shows_the_scheduling_info_qstat_j_shows(clean: Cell,
                                                            as_nobody: TestClient):
    job = qsub(clean, "-l", UNSATISFIABLE, *SLEEP)

    def reasons() -> list[str]:
        out = clean.ok("qstat", "-j", str(job))
        block = out[out.find("scheduling info:"):].removeprefix("scheduling info:")
        return [line.strip() for line in block.splitlines()] if "scheduling info" in out else []

    shown = wait_for(reasons, what="scheduling info")
    page = as_nobody.get(f"/jobs/{job}").text
    items = re.search(r'<ul id="reasons">(.*?)</ul>', page, re.S)[1]
    assert [html.unescape(i) for i in re.findall(r"<li>([^<]*)</li>", items)] == shown


def test_an_unknown_job_is_qstat_s_not_found(as_nobody: TestClient):
    for ref in ("99999", "nosuch"):
        page = as_nobody.get(f"/jobs/{ref}")
        assert page.status_code == 404 and "Following jobs do not exist" in page.text, ref


def test_the_overview_and_hosts_are_qhost_and_qstat_f(clean: Cell, as_nobody: TestClient):
    job = qsub(clean, *SLEEP)
    qsub(clean, "-h", *SLEEP)
    wait_for(lambda: state(clean, job) == "r", what="the job running")
    page = as_nobody.get("/").text
    assert re.search(r'<tr id="host-node1"><td>node1</td><td class="num">[-\d.]+</td>'
                     r'<td class="num">1/2</td>', page)
    assert re.search(r"<td>all.q@node1</td><td>BIP</td><td class=\"num\">0/1/2</td>", page)
    assert re.search(r'data-state="hqw"><b>1</b> hqw</span>, <span class="count" '
                     r'data-state="r"><b>1</b> r</span>', page)
    assert 'id="ars"' in page

    def same_rows() -> bool:
        """qhost's lines and the hosts page's rows, each read once: equal unless a load
        report came between the two reads (then they are read again)."""
        qhost = [line.split() for line in clean.ok("qhost").splitlines()[2:]]
        hosts = as_nobody.get("/hosts").text
        return qhost == [
            re.findall(r"<td[^>]*>([^<]*)</td>",
                       re.search(rf'<tr id="host-{name}">(.*?)</tr>', hosts)[1])
            for name, *_ in qhost]

    wait_for(same_rows, timeout=10.0, what="the hosts page showing qhost's rows")


# ---- submitting ----------------------------------------------------------------------------

def test_the_submit_form_builds_qsub_s_job(clean: Cell, as_daemon: TestClient):
    assert 'id="submit"' in as_daemon.get("/submit").text
    answer = as_daemon.post("/submit", data=form(as_daemon, command="sleep 300", name="web1",
                                                 hold="y", array="1-2", priority="-5",
                                                 resources="h_rt=0:5:0"))
    job = submitted(answer)
    assert "has been submitted" in parse_qs(urlsplit(answer.headers["location"]).query)[
        "done"][0]
    detail = clean.ok("qstat", "-j", str(job))
    for line in ("owner:                      daemon", "job_name:                   web1",
                 "hard resource_list:         h_rt=300", "priority:                   -5",
                 "job-array tasks:            1-2:1", "job_args:                   300",
                 "stdout_path_list:           NONE:NONE:/dev/null"):
        assert line in detail, line
    assert state(clean, job) == "hqw"
    script = "#!/bin/sh\r\n#$ -N scripted\r\nsleep 300\r\n"
    job = submitted(as_daemon.post("/submit", data=form(as_daemon, script=script, hold="y")))
    assert "job_name:                   scripted" in clean.ok("qstat", "-j", str(job))


def test_a_job_submitted_into_an_ar_shows_its_id(clean: Cell, as_root: TestClient):
    ar = qrsub(clean, "-d", "1:0:0")
    job = submitted(as_root.post("/submit", data=form(as_root, command="sleep 300",
                                                      ar=str(ar), hold="y")))
    assert f"ar_id:                      {ar}" in clean.ok("qstat", "-j", str(job))
    assert re.search(rf'<tr id="job-{job}".*?<td class="num">{ar}</td>',
                     as_root.get("/jobs").text, re.S)
    clean.ok("qrdel", str(ar))


def test_a_refused_submission_is_shown_with_the_input_kept(clean: Cell, as_daemon: TestClient):
    for fields, said in (
        ({"command": "sleep 1", "resources": "nosuch=1"}, "Unable to run job"),
        ({"command": "sleep 1", "array": "x"}, "Numerical value invalid"),
        ({"command": "sleep 1", "priority": "1"}, "Unable to run job"),  # operators only
        ({}, "give either a command or a script"),
        ({"command": "sleep 1", "script": "sleep 1"}, "give either a command or a script"),
    ):
        answer = as_daemon.post("/submit", data=form(as_daemon, **fields))
        assert answer.status_code == 400, fields
        assert re.search(r'<p id="message" class="error">[^<]*' + re.escape(said),
                         answer.text), (fields, answer.text)
        for value in fields.values():
            assert f'value="{value}"' in answer.text or f">{value}</textarea>" in answer.text
    assert not clean.ok("qstat", "-u", "*")


# ---- job actions ---------------------------------------------------------------------------

def test_the_owner_holds_releases_and_deletes_another_user_is_refused(
        clean: Cell, as_daemon: TestClient, as_nobody: TestClient):
    job = submitted(as_daemon.post("/submit", data=form(
        as_daemon, command="sleep 300", hold="y", resources=UNSATISFIABLE)))
    for action in ("release", "hold", "delete"):
        before = state(clean, job)
        answer = act(as_nobody, action, job)
        assert answer.status_code == 400, action
        assert re.search(r'<p id="message" class="error">[^<]*nobody', answer.text), answer.text
        assert state(clean, job) == before
    answer = act(as_daemon, "release", job)
    assert answer.status_code == 303 and state(clean, job) == "qw"
    done = parse_qs(urlsplit(answer.headers["location"]).query)["done"][0]
    assert done == f"modified hold of job {job}"  # the master's answer, as qrls prints it
    assert act(as_daemon, "hold", job).status_code == 303 and state(clean, job) == "hqw"
    answer = act(as_daemon, "delete", job)
    assert answer.status_code == 303 and state(clean, job) is None
    done = parse_qs(urlsplit(answer.headers["location"]).query)["done"][0]
    assert done == f"daemon has deleted job {job}"


def test_the_owner_suspends_and_resumes_a_manager_may_too(
        clean: Cell, as_daemon: TestClient, as_nobody: TestClient, as_root: TestClient):
    job = submitted(as_daemon.post("/submit", data=form(as_daemon, command="sleep 300")))
    wait_for(lambda: state(clean, job) == "r", what="daemon's job running")
    refused = act(as_nobody, "suspend", job)
    assert refused.status_code == 400 and "nobody" in refused.text
    assert state(clean, job) == "r"
    assert act(as_daemon, "suspend", job).status_code == 303
    assert state(clean, job) == "s"
    assert act(as_root, "resume", job).status_code == 303
    assert state(clean, job) == "r"
    array = submitted(as_daemon.post("/submit", data=form(
        as_daemon, command="sleep 300", hold="y", array="1-4", resources=UNSATISFIABLE)))
    assert act(as_root, "release", f"{array}.1-2:1").status_code == 303
    assert qstat_rows(clean, "-s", "p") == [(str(array), "qw", "1,2"),
                                            (str(array), "hqw", "3,4")]
    rows = page_rows(as_daemon.get("/jobs?state=p").text)
    assert rows == qstat_rows(clean, "-s", "p")
    assert f'value="{array}.3,{array}.4"' in as_daemon.get("/jobs?state=p").text
    assert act(as_root, "delete", job, array).status_code == 303
    assert state(clean, job) is None and state(clean, array) is None


def test_a_bad_action_or_target_is_refused_before_the_master(as_daemon: TestClient):
    for action, ids, said in (("explode", ["1"], "no such job action"),
                              ("delete", [], "no job ticked"),
                              ("delete", ["1.x"], "error: ")):
        answer = as_daemon.post("/jobs/action", data=form(as_daemon, action=action, ids=ids))
        assert answer.status_code == 400 and said in answer.text, (action, ids)


def test_a_refused_action_shows_the_page_with_the_forms_filters(as_daemon: TestClient):
    """The filters come from the action's form as from the page's query (Filters.of)."""
    answer = as_daemon.post("/jobs/action", data=form(
        as_daemon, action="delete", ids=[], user=" daemon ", state="h", queue="all.q"))
    assert answer.status_code == 400 and "no job ticked" in answer.text
    assert 'data-live="/jobs?user=daemon&amp;state=h&amp;queue=all.q"' in answer.text

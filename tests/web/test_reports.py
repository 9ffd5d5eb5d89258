"""/reports: the named reports and their charts, queried as the login's user."""

from __future__ import annotations

from starlette.testclient import TestClient

from gridd.accounting import report_catalog
from tests.e2e.conftest import Cell, wait_for
from tests.web.conftest import log_in


def test_the_reports_page_shows_every_named_report_with_its_answer(web: TestClient,
                                                                   web_cell: Cell):
    log_in(web, "alice")
    job = web_cell.ok("qsub", "-terse", "-b", "y", "-o", "/dev/null", "-j", "y",
                      "true").strip()
    wait_for(lambda: web_cell.run("qacct", "-j", job).returncode == 0, what="the job accounted")
    frame = web.get("/reports")
    assert frame.status_code == 200 and 'src="/reports/page"' in frame.text
    page = web.get("/reports/page")
    assert page.status_code == 200
    for report in report_catalog.load().values():
        assert report.title in page.text.replace("&#x27;", "'"), report.name


def test_a_parameter_no_report_takes_is_refused(web: TestClient):
    log_in(web, "alice")
    answer = web.get("/reports/page?colour=blue")
    assert answer.status_code == 400 and "no report takes the parameter colour" in answer.text

"""/reports: the named reports and their charts, queried as the login's user."""

from __future__ import annotations

import re
import subprocess
import sys

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


def test_the_form_offers_every_parameter_and_an_empty_field_gives_none(web: TestClient):
    log_in(web, "alice")
    declared = {param.name for report in report_catalog.load().values()
                for param in report.params}
    form = web.get("/reports").text.split('<form id="report-params"')[1].split("</form>")[0]
    assert set(re.findall(r'<input name="([^"]+)"', form)) == declared
    chosen = web.get("/reports?ar_owner=alice&since=&period=week")
    assert 'src="/reports/page?ar_owner=alice&amp;period=week"' in chosen.text
    assert 'name="ar_owner" value="alice"' in chosen.text
    page = web.get("/reports/page?since=&period=")  # the defaults, not empty values
    assert page.status_code == 200


def test_a_parameter_no_report_takes_is_refused(web: TestClient):
    log_in(web, "alice")
    answer = web.get("/reports/page?colour=blue")
    assert answer.status_code == 400 and "no report takes the parameter colour" in answer.text


def test_a_report_that_needs_a_value_runs_once_the_url_gives_it(web: TestClient):
    log_in(web, "alice")
    without = web.get("/reports/page").text
    section = '<details id="r-ar_by_user"'
    assert "Not run" in without.split(section)[1].split("</details>")[0]
    given = web.get("/reports/page?ar_owner=alice").text
    assert "0 rows" in given.split(section)[1].split("</details>")[0]


def test_a_value_the_database_refuses_names_its_report(web: TestClient):
    log_in(web, "alice")
    taking = {name for name, report in report_catalog.load().items()
              if "since" in {param.name for param in report.params}}
    answer = web.get("/reports/page?since=not-a-time")
    # Which report the database refuses it in first depends on its rows: a filter over
    # no rows may never read the value.
    named = re.search(r'class="error">(\w+): error:', answer.text)
    assert answer.status_code == 400 and named and named.group(1) in taking, answer.text
    assert "not-a-time" in answer.text


def test_the_web_server_loads_no_duckdb_even_for_the_reports_page():
    """The master's accounting actor runs the queries; the page only reads the answers."""
    shown = subprocess.run(
        [sys.executable, "-c", "import sys; from gridd.web.app import make_app; "
         "from gridd.web.state import WebState; make_app(WebState('.')); "
         "from gridd.accounting import report_catalog, report_html, query; "
         "report_catalog.load(); print('duckdb' in sys.modules)"],
        capture_output=True, text=True, check=True)
    assert shown.stdout == "False\n"

"""/complexes against qconf: the table as qconf -sc shows it, the editor's choices as the
core's rules give them, and changes with the master's permissions and checks."""

from __future__ import annotations

import json
import re

from starlette.testclient import TestClient

from gridd.model.complexes import editor_choices
from tests.e2e.conftest import Cell
from tests.web.browser import launch, needs_browser
from tests.web.conftest import log_in

ROW = {"name": "webtest", "shortcut": "wt", "type": "INT", "relop": "<=",
       "requestable": "YES", "consumable": "YES", "default": "0", "urgency": "0"}


def names(cell: Cell) -> list[str]:
    return [line.split()[0] for line in cell.ok("qconf", "-sc").splitlines()
            if line and line[0] not in "#-"]


def test_the_table_is_qconfs_and_the_editor_offers_the_cores_choices(web: TestClient,
                                                                        web_cell: Cell):
    log_in(web, "root")
    page = web.get("/complexes").text
    assert re.findall(r'<tr id="complex-([^"]+)">', page) == names(web_cell)
    shown = re.search(r'id="complex-choices">(.*?)</script>', page, re.S).group(1)
    assert json.loads(shown) == editor_choices()
    edit = web.get("/complexes?edit=arch").text  # a STRING: no consumable, == or !=
    assert re.search(r'<option disabled>YES</option>', edit)
    relops = re.search(r'<select name="relop">(.*?)</select>', edit, re.S).group(1)
    assert re.findall(r"<option[^>]*>([^<]+)</option>", relops) == ["==", "!="]


def test_a_manager_adds_changes_and_deletes_an_attribute(web: TestClient, web_cell: Cell):
    login = log_in(web, "root")
    added = web.post("/complexes", data={**ROW, "csrf": login.csrf})
    assert added.status_code == 303, added.text
    line = next(x for x in web_cell.ok("qconf", "-sc").splitlines() if x.startswith("webtest"))
    assert line.split() == ["webtest", "wt", "INT", "<=", "YES", "YES", "0", "0"]
    changed = web.post("/complexes", data={**ROW, "urgency": "5", "original": "webtest",
                                           "csrf": login.csrf})
    assert changed.status_code == 303
    line = next(x for x in web_cell.ok("qconf", "-sc").splitlines() if x.startswith("webtest"))
    assert line.split()[-1] == "5"
    gone = web.post("/complexes/delete", data={"name": "webtest", "csrf": login.csrf})
    assert gone.status_code == 303 and "webtest" not in names(web_cell)


def test_what_the_master_refuses_is_shown_with_the_row_and_changes_nothing(
        web: TestClient, web_cell: Cell):
    login = log_in(web, "root")
    before = web_cell.ok("qconf", "-sc")
    answer = web.post("/complexes", data={**ROW, "type": "STRING", "relop": "==",
                                          "default": "x", "csrf": login.csrf})
    assert answer.status_code == 400
    assert 'Complex &#34;webtest&#34; of type &#34;STRING&#34; cannot be a consumable' in (
        answer.text)
    assert 'value="webtest"' in answer.text  # the row as it was filled in
    assert web_cell.ok("qconf", "-sc") == before


def test_a_field_the_table_cannot_hold_is_named_and_nothing_is_sent(web: TestClient,
                                                                    web_cell: Cell):
    login = log_in(web, "root")
    before = web_cell.ok("qconf", "-sc")
    empty = web.post("/complexes", data={**ROW, "default": "", "csrf": login.csrf})
    assert empty.status_code == 400
    assert "complex attribute &#34;webtest&#34;: the default column is empty" in empty.text
    blank = web.post("/complexes", data={**ROW, "name": "web test", "csrf": login.csrf})
    assert blank.status_code == 400 and "is not one word" in blank.text
    assert 'value="web test"' in blank.text
    assert web_cell.ok("qconf", "-sc") == before


def test_a_user_who_is_no_manager_is_refused_by_the_master(web: TestClient, web_cell: Cell):
    login = log_in(web, "alice")
    before = web_cell.ok("qconf", "-sc")
    answer = web.post("/complexes", data={**ROW, "csrf": login.csrf})
    assert answer.status_code == 400 and "alice" in answer.text
    deleted = web.post("/complexes/delete", data={"name": "arch", "csrf": login.csrf})
    assert deleted.status_code == 400
    assert web_cell.ok("qconf", "-sc") == before


@needs_browser
def test_in_chromium_the_editor_offers_only_the_choices_of_the_type(web: TestClient):
    """static/complexes.js filters the selects by the choices the page carries: the page
    is served by the application itself, to Chromium through a route of its own."""
    from playwright.sync_api import Route, sync_playwright

    log_in(web, "root")

    def serve(route: Route) -> None:
        answer = web.get(route.request.url.removeprefix("http://gridd.test"))
        route.fulfill(status=answer.status_code, body=answer.content,
                      content_type=answer.headers["content-type"])

    with sync_playwright() as driver:
        browser = launch(driver)
        try:
            page = browser.new_page()
            page.route("http://gridd.test/**", serve)
            page.goto("http://gridd.test/complexes")
            form = page.locator("form#complex-edit")

            def offered(name: str) -> list[str]:
                return form.locator(f"select[name={name}] option:not([disabled])"
                                    ).all_inner_texts()

            form.locator("select[name=type]").select_option("STRING")
            assert offered("consumable") == ["NO"] and offered("relop") == ["==", "!="]
            assert form.locator("input[name=default]").is_disabled()
            form.locator("select[name=type]").select_option("MEMORY")
            form.locator("select[name=consumable]").select_option("YES")
            assert offered("relop") == ["<="]
            assert form.locator("input[name=default]").is_enabled()
            form.locator("select[name=type]").select_option("BOOL")
            assert offered("relop") == ["EXCL"]
            form.locator("select[name=consumable]").select_option("NO")
            assert offered("relop") == ["=="]
            form.locator("select[name=type]").select_option("RSMAP")  # always a consumable
            assert offered("consumable") == ["YES", "JOB", "HOST"]
            assert form.locator("select[name=consumable]").input_value() == "YES"
            assert offered("relop") == ["<="]
        finally:
            browser.close()

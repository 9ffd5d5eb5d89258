"""The web interface in real Chromium: logging in through the URL `gridd web login`
prints (its cookie out of scripts' reach) and out again; a job and an advance
reservation submitted through the forms, seen in pages that stay open (live, no reload)
and deleted through them; a resource quota set whose syntax error the editor shows at
its line before anything is sent.

With GRIDD_SCREENSHOTS=DIR, a PNG of every page goes there (docs/screenshots/ has them).
"""

from __future__ import annotations

import re
import time

import pytest

from tests.e2e.conftest import BIN, wait_for
from tests.web.browser import (  # noqa: F401  (the fixtures this module uses)
    WebServer,
    browser_cell_fixture,
    browser_fixture,
    needs_browser,
    new_page,
    page_fixture,
    send,
    shot,
    web_server_fixture,
)

pytestmark = needs_browser

STILL_LOADED = "window.griddStillLoaded"  # set on an open page: a reload would drop it


def keep_open(page) -> None:
    """Mark the page, so that a test can tell it was never loaded again."""
    page.evaluate(f"{STILL_LOADED} = true")


def was_not_reloaded(page) -> bool:
    return page.evaluate(f"{STILL_LOADED} === true")


def test_the_printed_url_logs_in_once_and_shows_the_overview(browser, web_server: WebServer):
    from playwright.sync_api import expect

    url = web_server.login_url()
    context = browser.new_context()
    try:
        anonymous = new_page(context)
        answer = anonymous.goto(web_server.url)
        assert answer.status == 401
        expect(anonymous.locator("body")).to_contain_text("gridd web login")
        expect(anonymous.locator("table#hosts")).to_have_count(0)

        anonymous.goto(url)
        assert anonymous.url == web_server.url
        expect(anonymous.locator("table#hosts")).to_contain_text("node1")
        expect(anonymous.locator("header .user")).to_have_text(web_server.user)
        cookie, = context.cookies()
        assert (cookie["httpOnly"], cookie["sameSite"]) == (True, "Strict")
        assert anonymous.evaluate("document.cookie") == ""  # no script of the page reads it
    finally:
        context.close()
    again = browser.new_context()
    try:
        answer = new_page(again).goto(url)
        assert answer.status == 403  # a login URL is good for one login
    finally:
        again.close()


def test_logging_out_ends_the_login(page, web_server: WebServer):
    from playwright.sync_api import expect

    send(page.locator("header form.logout"))
    expect(page.locator("body")).to_contain_text("gridd web login")
    assert page.context.cookies() == []
    answer = page.goto(f"{web_server.url}jobs")
    assert answer.status == 401
    expect(page.locator("table#jobs")).to_have_count(0)


def test_a_job_submitted_in_the_form_appears_starts_and_goes_in_an_open_jobs_page(
        page, web_server: WebServer):
    from playwright.sync_api import expect

    watcher = page  # /jobs, open from start to end
    watcher.goto(f"{web_server.url}jobs")
    keep_open(watcher)

    form = new_page(watcher.context)
    form.goto(f"{web_server.url}submit")
    submit = form.locator("form#submit")
    submit.locator("[name=command]").fill("sleep 600")
    submit.locator("[name=name]").fill("from_browser")
    submit.locator("[name=hold]").check()
    send(submit)
    expect(form.locator("#message")).to_contain_text("has been submitted")
    job_id = re.search(r"Your job (\d+)", form.locator("#message").inner_text()).group(1)

    row = watcher.locator(f"tr#job-{job_id}")
    expect(row).to_have_attribute("data-state", "hqw")
    expect(row).to_contain_text("from_brows")  # qstat's name column is 10 wide

    form.goto(f"{web_server.url}jobs")
    actions = form.locator("form#actions")
    actions.locator(f"input[name=ids][value='{job_id}']").check()
    actions.locator("button[name=action][value=release]").click()
    expect(row).to_have_attribute("data-state", "r")

    actions = form.locator("form#actions")
    actions.locator(f"input[name=ids][value='{job_id}']").check()
    actions.locator("button[name=action][value=delete]").click()
    expect(form.locator("#message")).to_contain_text(job_id)
    expect(row).to_have_count(0)
    assert was_not_reloaded(watcher)
    assert not re.search(rf"^ *{job_id} ", web_server.cell.ok("qstat"), re.M)


def test_an_ar_submitted_in_the_form_appears_in_an_open_overview_and_is_deleted(
        page, web_server: WebServer):
    from playwright.sync_api import expect

    watcher = page  # the overview, open from start to end
    keep_open(watcher)
    granted = watcher.locator("table#ars")

    form = new_page(watcher.context)
    form.goto(f"{web_server.url}reservations")
    submit = form.locator("form#ar-submit")
    submit.locator("[name=name]").fill("browser_ar")
    submit.locator("[name=duration]").fill("1:00:00")
    send(submit)
    expect(form.locator("#message")).to_contain_text("granted")
    ar_id = re.search(r"(\d+)", form.locator("#message").inner_text()).group(1)
    row = form.locator(f"table#ars tr#ar-{ar_id}")
    expect(row).to_contain_text("browser_ar")
    expect(granted).to_contain_text("browser_ar")

    send(row.locator("form"))
    expect(form.locator(f"table#ars tr#ar-{ar_id}")).to_have_count(0)
    expect(granted).not_to_contain_text("browser_ar")
    assert was_not_reloaded(watcher)
    assert "browser_ar" not in web_server.cell.ok("qrstat")


RULE_SET = """{
   name         browser_rqs
   description  "made in the browser"
   enabled      TRUE
   limit        users {*} to slots=1
}
"""


def test_a_quota_set_with_a_syntax_error_shows_the_line_before_anything_is_sent(
        page, web_server: WebServer):
    from playwright.sync_api import expect

    sent: list[str] = []
    page.on("request", lambda request: sent.append(f"{request.method} {request.url}"))
    page.goto(f"{web_server.url}quotas")
    editor = page.locator("form#rqs-edit")
    text = editor.locator("textarea[name=text]")
    text.fill(RULE_SET.replace("to slots=1", "too slots=1"))
    text.dispatch_event("input")
    expect(page.locator("#rqs-error")).to_contain_text("line 5")
    assert f"POST {web_server.url}quotas/check" in sent  # checked by the server's grammar,
    assert f"POST {web_server.url}quotas" not in sent  # not saved
    assert "browser_rqs" not in web_server.cell.run("qconf", "-srqsl").stdout

    text.fill(RULE_SET)
    text.dispatch_event("input")
    expect(page.locator("#rqs-error")).not_to_contain_text("line")
    send(editor)
    expect(page.locator("body")).to_contain_text("browser_rqs")
    try:
        assert "users {*} to slots=1" in web_server.cell.ok("qconf", "-srqs", "browser_rqs")
    finally:
        web_server.cell.run("qconf", "-drqs", "browser_rqs")


PAGES = {"overview": "", "jobs": "jobs", "submit": "submit",
         "reservations": "reservations", "quotas": "quotas", "complexes": "complexes",
         "hosts": "hosts", "reports": "reports"}


@pytest.mark.parametrize("name", [*PAGES, "job"])
def test_every_page_shows_in_chromium_without_a_script_error(page, web_server: WebServer,
                                                             name: str):
    """And its screenshot, with something in it: a running job, a held array, an AR, a
    quota set."""
    from playwright.sync_api import expect

    cell = web_server.cell
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    plain = dict(cell.env, PATH=f"{BIN}:/usr/bin:/bin")  # what qstat -j shows of it
    running = re.search(r"\d+", cell.ok("qsub", "-b", "y", "-N", "analysis", "-l",
                                         "h_rt=0:10:0", "sleep", "600", env=plain)).group()
    held = re.search(r"\d+", cell.ok("qsub", "-h", "-b", "y", "-N", "render", "-t", "1-4",
                                      "sleep", "600", env=plain)).group()
    in_an_hour = time.strftime("%Y%m%d%H%M", time.localtime(time.time() + 3600))
    ar = re.search(r"\d+", cell.ok("qrsub", "-N", "maintenance", "-a", in_an_hour, "-d",
                                    "2:0:0")).group()
    quota = cell.root / "per_user.rqs"
    quota.write_text(RULE_SET.replace("browser_rqs", "per_user").replace(
        '"made in the browser"', "at most 8 slots for each user").replace("=1", "=8"))
    cell.ok("qconf", "-Arqs", str(quota))
    try:
        wait_for(lambda: re.search(rf"^ *{running} .* r ", cell.ok("qstat"), re.M),
                 what=f"job {running} to run")
        answer = page.goto(f"{web_server.url}{f'jobs/{held}' if name == 'job' else PAGES[name]}")
        assert answer.status == 200, answer.status
        if name == "job":
            expect(page.locator("#reasons")).to_be_attached()
        shot(page, name)
        assert errors == []
    finally:
        cell.run("qdel", running, held)
        cell.run("qrdel", ar)
        cell.run("qconf", "-drqs", "per_user")

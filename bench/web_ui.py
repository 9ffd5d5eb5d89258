"""The web interface in Debian's Chromium (headless, driven by Playwright): how long `/jobs`
takes to render with 1,000 jobs, and how long after a job starts its row changes in an
open `/jobs` page.

A 1-host x 1-slot cell gets 1,000 held jobs (Client.submit_many); `gridd web` runs beside
it and the browser logs in through the URL `gridd web login` prints.

- Render: navigations to `/jobs`, timed by the browser itself (the navigation entry's
  loadEventEnd: from the request to the page loaded, its table of 1,000 rows there) and
  by the caller (from page.goto to the last row found); warm-ups not counted.
- Live: held jobs are released one at a time while `/jobs` is open, once showing all
  1,000 jobs and once only the running ones (`?state=r`: the row appears). A
  MutationObserver in the page stamps (Date.now()) the moment the job's row first shows
  state `r`. Two figures: from the release (before the request leaves) and from the
  task's start_time as the master records it. Each job is deleted, and gone, before the
  next; the first of each page is not counted (its event stream may still be opening).
"""

from __future__ import annotations

import getpass
import os
import re
import shutil
import signal
import subprocess
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from _cell import BIN, SMOKE, Cell, cell, median_p90

from gridd import protocol as p
from gridd.client import Client

JOBS = 20 if SMOKE else 1_000
RENDERS = 1 if SMOKE else 7
WARMUP = 0 if SMOKE else 2
STARTS = 2 if SMOKE else 20
TIMEOUT = 30.0
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"

# Stamps, in window.griddStarted[ID], the first moment job ID's row shows state r; the
# live part's HTML is replaced on each change, so the whole page is observed.
OBSERVE = """(id) => {
  window.griddStarted = window.griddStarted || {};
  const seen = () => {
    const row = document.querySelector(`tr#job-${id}`);
    if (row && row.dataset.state === "r" && !window.griddStarted[id]) {
      window.griddStarted[id] = Date.now();
      observer.disconnect();
    }
  };
  const observer = new MutationObserver(seen);
  observer.observe(document.body, {subtree: true, childList: true, attributes: true});
  seen();
}"""


def wait_until(predicate: Callable[[], object], what: str) -> None:
    deadline = time.monotonic() + TIMEOUT
    while not predicate():
        if time.monotonic() > deadline:
            raise TimeoutError(f"timed out waiting for {what}")
        time.sleep(0.01)


@contextmanager
def web(c: Cell) -> Iterator[str]:
    """`gridd web` on the cell, its URL; stopped by its PID at the end."""
    server = subprocess.Popen([str(BIN / "gridd"), "web"], env=c.env, cwd=c.root,
                              stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                              start_new_session=True)
    try:
        first = server.stdout.readline()
        found = re.match(r"gridd: web interface at (\S+) ", first)
        if not found:
            raise RuntimeError(f"gridd web printed {first!r}")
        yield found.group(1)
    finally:
        os.kill(server.pid, signal.SIGTERM)
        try:
            server.wait(timeout=10)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()


def login_url(c: Cell) -> str:
    done = subprocess.run([str(BIN / "gridd"), "web", "login"], env=c.env,
                          capture_output=True, text=True, timeout=30)
    if done.returncode != 0:
        raise RuntimeError(f"gridd web login: {done.stderr.strip()}")
    return done.stdout.strip()


def render(page, url: str) -> tuple[list[float], list[float], list[float]]:
    """Seconds to load `/jobs` with its 1,000 rows: the browser's, the caller's, and of
    the browser's the part until the server's answer had arrived (responseEnd)."""
    browser_s, wall_s, served_s = [], [], []
    for i in range(WARMUP + RENDERS):
        t0 = time.perf_counter()
        page.goto(f"{url}jobs", wait_until="load")
        page.wait_for_selector(f"table#jobs tr#job-{JOBS}", state="attached")
        wall = time.perf_counter() - t0
        rows = page.locator("table#jobs tr[id^=job-]").count()
        if rows != JOBS:
            raise RuntimeError(f"/jobs shows {rows} rows, not {JOBS}")
        loaded, served = page.evaluate(
            "[performance.getEntriesByType('navigation')[0].loadEventEnd, "
            "performance.getEntriesByType('navigation')[0].responseEnd]")
        if i >= WARMUP:
            browser_s.append(loaded / 1000)
            wall_s.append(wall)
            served_s.append(served / 1000)
    return browser_s, wall_s, served_s


def live(page, client: Client, jobs: range) -> tuple[list[float], list[float]]:
    """Seconds from each release, and from each recorded start, to the row showing r, for
    the held jobs `jobs` released in turn."""
    from_release, from_start = [], []
    user = getpass.getuser()
    for job_id in jobs:
        page.evaluate(OBSERVE, job_id)
        released = time.time()
        client.hold(p.Hold(targets=[str(job_id)], user=user, hold=False))
        page.wait_for_function(f"window.griddStarted[{job_id}]", timeout=TIMEOUT * 1000)
        seen = page.evaluate(f"window.griddStarted[{job_id}]") / 1000
        job = client.jobs([str(job_id)]).jobs[0]
        started = next(iter(job.tasks.values())).start_time
        if job_id > jobs.start:  # the first while the page's event stream opens
            from_release.append(seen - released)
            from_start.append(seen - started)
        client.delete([str(job_id)], user=user)
        wait_until(lambda j=job_id: not client.jobs([str(j)]).jobs, f"job {job_id} to go")
    return from_release, from_start


def main() -> dict[str, float | None]:
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        print("skipped: Playwright is not installed (pip install -e '.[test]')")
        return {}
    if not os.access(CHROMIUM, os.X_OK):
        print("skipped: Debian's chromium is not installed (apt-get install chromium)")
        return {}
    with cell(hosts=1, slots=1) as c, Client(c.root) as client:
        client.submit_many(c.spec("sleep", "600", hold=True) for _ in range(JOBS))
        with web(c) as url, sync_playwright() as playwright:
            args = ["--no-sandbox"] if os.geteuid() == 0 else []
            browser = playwright.chromium.launch(executable_path=CHROMIUM, headless=True,
                                                 args=args)
            try:
                page = browser.new_page(viewport={"width": 1280, "height": 900})
                page.goto(login_url(c))
                browser_s, wall_s, served_s = render(page, url)
                b_med, b_p90 = median_p90(browser_s)
                w_med, _ = median_p90(wall_s)
                s_med, _ = median_p90(served_s)
                print(f"/jobs with {JOBS:,} jobs, Chromium's navigation to load: median "
                      f"{b_med * 1000:6.1f} ms   p90 {b_p90 * 1000:6.1f} ms   (the page "
                      f"received: {s_med * 1000:.1f} ms; goto to last row: "
                      f"{w_med * 1000:.1f} ms; {RENDERS} loads)", flush=True)
                page.goto(f"{url}jobs")
                whole = live(page, client, range(1, STARTS + 2))
                page.goto(f"{url}jobs?state=r")
                running = live(page, client, range(STARTS + 2, 2 * STARTS + 3))
            finally:
                browser.close()
    figures = {"render_ms": b_med * 1000, "render_wall_ms": w_med * 1000}
    for (from_release, from_start), shown, key in (
            (whole, f"{JOBS:,} jobs", ""), (running, "its running jobs (-s r)", "_running")):
        r_med, r_p90 = median_p90(from_release)
        t_med, t_p90 = median_p90(from_start)
        print(f"/jobs showing {shown}: release -> row shows r: median {r_med * 1000:6.1f} ms"
              f"   p90 {r_p90 * 1000:6.1f} ms;  recorded start -> row shows r: median "
              f"{t_med * 1000:6.1f} ms   p90 {t_p90 * 1000:6.1f} ms   ({STARTS} jobs)")
        figures |= {f"release_to_row{key}_ms": r_med * 1000,
                    f"start_to_row{key}_ms": t_med * 1000}
    return figures


if __name__ == "__main__":
    main()

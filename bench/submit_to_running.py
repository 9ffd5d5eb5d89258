"""From submission to running on an idle 1-host cell, 50 times.

Two figures per job: the wall time until `jobs()` shows the task in state "r" (polled
every POLL seconds), and the master's own record: the task's start_time minus the job's
submit_time. Each job is deleted, and gone, before the next is submitted.
"""

from __future__ import annotations

import getpass
import time
from collections.abc import Callable

from _cell import SMOKE, cell, median_p90

from gridd.client import Client
from gridd.model.job import Task

RUNS = 3 if SMOKE else 50
POLL = 0.002
TIMEOUT = 30.0


def wait_until(predicate: Callable[[], bool], what: str) -> None:
    deadline = time.monotonic() + TIMEOUT
    while not predicate():
        if time.monotonic() > deadline:
            raise TimeoutError(f"timed out waiting for {what}")
        time.sleep(POLL)


def main() -> dict[str, float]:
    seen, recorded = [], []
    with cell(hosts=1, slots=1) as c, Client(c.root) as client:
        def task(job_id: int) -> Task | None:
            jobs = client.jobs([str(job_id)]).jobs
            return next(iter(jobs[0].tasks.values())) if jobs and jobs[0].tasks else None

        def running(job_id: int) -> bool:
            t = task(job_id)
            return t is not None and t.state == "r"

        for _ in range(RUNS):
            t0 = time.perf_counter()
            job_id = client.submit(c.spec("sleep", "5")).job_id
            wait_until(lambda j=job_id: running(j), f"job {job_id} to run")
            seen.append(time.perf_counter() - t0)
            job = client.jobs([str(job_id)]).jobs[0]
            recorded.append(next(iter(job.tasks.values())).start_time - job.submit_time)
            client.delete([str(job_id)], user=getpass.getuser())
            wait_until(lambda j=job_id: task(j) is None, f"job {job_id} to go")
    s_med, s_p90 = median_p90(seen)
    r_med, r_p90 = median_p90(recorded)
    print(f"submit -> jobs() shows 'r' (wall, {POLL * 1000:g} ms polls): "
          f"median {s_med * 1000:6.1f} ms   p90 {s_p90 * 1000:6.1f} ms")
    print(f"start_time - submit_time (master):        "
          f"median {r_med * 1000:6.1f} ms   p90 {r_p90 * 1000:6.1f} ms   ({RUNS} jobs)")
    return {"seen_ms": s_med * 1000, "recorded_ms": r_med * 1000}


if __name__ == "__main__":
    main()

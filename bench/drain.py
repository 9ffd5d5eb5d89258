"""Drain rate: 2,000 `sleep 0` jobs through a 4-host x 4-slot cell until all are accounted.

Progress is the number of records in $GRIDD_ROOT/common/accounting, polled every POLL
seconds, so the end time is known to within POLL.
"""

from __future__ import annotations

import time

from _cell import SMOKE, cell

from gridd.client import Client

JOBS = 20 if SMOKE else 2000
POLL = 0.2
TIMEOUT = 120.0


def main() -> dict[str, float]:
    with cell(hosts=4, slots=4) as c, Client(c.root) as client:
        specs = [c.spec("sleep", "0") for _ in range(JOBS)]
        t0 = time.perf_counter()
        client.submit_many(specs)
        t_submitted = time.perf_counter()
        done, progress = 0, []
        while done < JOBS and time.perf_counter() - t0 < TIMEOUT:
            time.sleep(POLL)
            done = c.accounted()
            progress.append((time.perf_counter() - t0, done))
        t_end = time.perf_counter()
        time.sleep(1.0)  # anything written twice would show up now
        final = c.accounted()
    total, after = t_end - t0, t_end - t_submitted
    print(f"submitted {JOBS} in {t_submitted - t0:.2f} s; {done} accounted after {total:.2f} s")
    if done < JOBS:
        print(f"INCOMPLETE: gave up after {TIMEOUT:g} s; rates below count only {done} jobs")
    print(f"drain from first submission: {done / total:6.0f} jobs/s")
    print(f"drain from end of submission: {done / after:6.0f} jobs/s")
    for secs, n in progress[4::5]:  # every second or so
        print(f"  t={secs:5.1f} s  accounted {n}")
    status = "ok" if final == JOBS else f"WRONG: expected {JOBS}"
    print(f"accounting records: {final} ({status})")
    return {"from_first_per_s": done / total, "from_end_per_s": done / after,
            "records": float(final)}


if __name__ == "__main__":
    main()

"""Jobs/s through the Python API: pipelined submit_many, then one-at-a-time submit.

The jobs are held (hold=True), so nothing runs and the cell stays idle: `gridd up
--hosts 0` still starts one host, so a cell without hosts is not available.
"""

from __future__ import annotations

import time

from _cell import SMOKE, cell

from gridd.client import Client

MANY = 50 if SMOKE else 5000
SEQUENTIAL = 20 if SMOKE else 1000


def main() -> dict[str, float]:
    with cell(hosts=1, slots=1) as c, Client(c.root) as client:
        specs = [c.spec("sleep", "0", hold=True) for _ in range(MANY)]
        t0 = time.perf_counter()
        replies = client.submit_many(specs)
        many_s = time.perf_counter() - t0
        assert len({r.job_id for r in replies}) == MANY, "duplicate or missing job ids"

        specs = [c.spec("sleep", "0", hold=True) for _ in range(SEQUENTIAL)]
        t0 = time.perf_counter()
        for spec in specs:
            client.submit(spec)
        seq_s = time.perf_counter() - t0
        held = sum(1 for j in client.jobs().jobs for t in j.tasks.values() if t.state == "hqw")
    print(f"submit_many of {MANY}: {many_s:6.2f} s = {MANY / many_s:7.0f} jobs/s")
    print(f"submit x {SEQUENTIAL}:     {seq_s:6.2f} s = {SEQUENTIAL / seq_s:7.0f} jobs/s "
          f"({seq_s / SEQUENTIAL * 1000:.2f} ms per round trip)")
    print(f"held jobs in the cell afterwards: {held} (expected {MANY + SEQUENTIAL})")
    return {"many_per_s": MANY / many_s, "sequential_per_s": SEQUENTIAL / seq_s}


if __name__ == "__main__":
    main()

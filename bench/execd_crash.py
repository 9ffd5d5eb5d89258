"""The long form of tests/e2e/test_execd_restart.py: execds killed with SIGKILL at random
moments while jobs run, and started again; afterwards every job must be accounted exactly
once, with its own exit status.

    .venv/bin/python bench/execd_crash.py [--jobs 200] [--kills 20] [--hosts 2] [--seed N]

Jobs run 0.5 to 4 s and exit with a status of their own (their number mod 7), on hosts of
8 slots. A kill picks a host at random, waits a random moment, kills its execd and starts
it again with `gridd up`. Exit status 1 when anything is wrong.
"""

from __future__ import annotations

import argparse
import os
import random
import signal
import subprocess
import sys
import time
from collections.abc import Callable

from _cell import BIN, Cell, cell

from gridd.client import Client
from gridd.pidfile import alive, read_pid

SLOTS = 8


def wait_for(condition: Callable[[], object], timeout: float, what: str) -> object:
    deadline = time.monotonic() + timeout
    while not (value := condition()):
        if time.monotonic() > deadline:
            raise SystemExit(f"timed out waiting for {what}")
        time.sleep(0.05)
    return value


def execd_pid(c: Cell, host: str) -> int:
    return read_pid(c.root / "spool" / host / "execd.pid")


def accounting(c: Cell) -> list[list[str]]:
    path = c.root / "common" / "accounting"
    if not path.exists():
        return []
    return [line.split(":") for line in path.read_text().splitlines()
            if line and not line.startswith("#")]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=200)
    parser.add_argument("--kills", type=int, default=20)
    parser.add_argument("--hosts", type=int, default=2)
    parser.add_argument("--seed", type=int, default=None)
    parser.add_argument("--smoke", action="store_true", help="6 jobs, 1 kill")
    args = parser.parse_args()
    if args.smoke:
        args.jobs, args.kills = 6, 1
    seed = args.seed if args.seed is not None else random.randrange(1 << 30)
    rng = random.Random(seed)
    hosts = [f"node{i}" for i in range(1, args.hosts + 1)]
    with cell(hosts=args.hosts, slots=SLOTS) as c:
        expected: dict[int, int] = {}
        t0 = time.monotonic()
        with Client(c.root) as client:
            for n in range(args.jobs):
                seconds = rng.uniform(0.5, 4.0)
                status = n % 7
                spec = c.spec("sleep", f"{seconds:.2f};", "exit", str(status))
                expected[client.submit(spec).job_id] = status
        # the kills spread over the time the jobs take to run
        span = args.jobs * 2.25 / (SLOTS * args.hosts)
        for _ in range(args.kills):
            time.sleep(rng.uniform(0, 2 * span / args.kills))
            host = rng.choice(hosts)
            pid = execd_pid(c, host)
            if alive(pid):
                os.kill(pid, signal.SIGKILL)
                wait_for(lambda p=pid: not alive(p), 10, "an execd to die")
            subprocess.run([str(BIN / "gridd"), "up", "--load-report-time", "1"], env=c.env,
                           capture_output=True, timeout=60, check=True)
            wait_for(lambda h=host: alive(execd_pid(c, h)), 20, "the execd again")
        wait_for(lambda: c.accounted() >= len(expected), 120 + span,
                 "every job accounted")
        wait_for(lambda: not any(any((c.root / "spool" / h / "active_jobs").glob("*"))
                                 for h in hosts), 30, "the execds' spools emptied")
        seconds = time.monotonic() - t0
        lines = accounting(c)
        by_job: dict[int, list[list[str]]] = {}
        for fields in lines:
            by_job.setdefault(int(fields[5]), []).append(fields)
        twice = sorted(job for job, found in by_job.items() if len(found) > 1)
        missing = sorted(set(expected) - set(by_job))
        wrong = sorted(job for job, found in by_job.items()
                       if (found[0][11], int(found[0][12])) != ("0", expected.get(job)))
    print(f"{len(expected)} jobs on {args.hosts} hosts x {SLOTS} slots, {args.kills} execd "
          f"SIGKILLs (seed {seed}), all accounted in {seconds:.1f} s")
    print(f"accounted twice: {len(twice)} {twice[:10]}; missing: {len(missing)} "
          f"{missing[:10]}; wrong status or failed: {len(wrong)} {wrong[:10]}")
    ok = not (twice or missing or wrong) and len(lines) == len(expected)
    print("every job accounted exactly once with its own exit status" if ok else "FAILED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())

"""CPU per trivial job, process by process, and the drain rate on this machine's slots.

JOBS `true` jobs (binary, so `/bin/sh -c true`) go to a cell of one host; the daemons'
CPU (utime+stime from /proc/<pid>/stat) is read before the submission and again once
every job is accounted and the master has gone quiet (the reporting database loads
its batch after the accounting line). The shepherds are execd's children, so their CPU
is execd's cutime+cstime less that of the jobs they waited for, which the accounting
records carry (ru_utime, ru_stime). The master's figure holds its actor and any process
of its own it waited for; its two children have figures of their own: the scheduler
process, and the accounting process that writes the accounting file and the database.

    python bench/job_cost.py [--jobs N] [--slots S] [--smoke]
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

from _cell import Cell, cell

from gridd.client import Client

TICK = os.sysconf("SC_CLK_TCK")
POLL = 0.05
QUIET = 0.5  # the master counts as quiet after this long without a clock tick of CPU
TIMEOUT = 300.0


def cpu(pid: int) -> tuple[float, float]:
    """(own, waited-for children's) CPU seconds of a process."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    utime, stime, cutime, cstime = (int(x) for x in fields[11:15])
    return (utime + stime) / TICK, (cutime + cstime) / TICK


CHILDREN = ("scheduler", "accounting")  # the master's child processes, by their module


def daemons(c: Cell) -> dict[str, int]:
    """The master, its children and execd by pid (the first of Cell.pids is the
    master's)."""
    pids = c.pids()
    return {"master": pids[0], **{name: c.master_child(name) for name in CHILDREN},
            **{f"execd{i}": pid for i, pid in enumerate(pids[1:])}}


def snapshot(pids: dict[str, int]) -> dict[str, tuple[float, float]]:
    return {name: cpu(pid) for name, pid in pids.items()}


def jobs_cpu(root: Path) -> float:
    """The jobs' own CPU seconds, as the accounting records have them."""
    total = 0.0
    with open(root / "common" / "accounting") as f:
        for line in f:
            if line.strip() and not line.startswith("#"):
                fields = line.split(":")
                total += float(fields[14]) + float(fields[15])
    return total


def wait_quiet(pid: int, deadline: float) -> None:
    last, since = cpu(pid)[0], time.monotonic()
    while time.monotonic() < deadline:
        time.sleep(POLL)
        now = cpu(pid)[0]
        if now != last:
            last, since = now, time.monotonic()
        elif time.monotonic() - since >= QUIET:
            return


def measure(jobs: int, slots: int) -> dict[str, float]:
    with cell(hosts=1, slots=slots, load_report_time=1.0) as c, Client(c.root) as client:
        pids = daemons(c)
        wait_quiet(pids["master"], time.monotonic() + 10)
        before = snapshot(pids)
        t0 = time.perf_counter()
        client.submit_many([c.spec("true") for _ in range(jobs)])
        done = 0
        deadline = time.monotonic() + TIMEOUT
        while done < jobs and time.monotonic() < deadline:
            time.sleep(POLL)
            done = c.accounted()
        elapsed = time.perf_counter() - t0
        wait_quiet(pids["master"], time.monotonic() + 10)
        after = snapshot(pids)
        job_s = jobs_cpu(c.root)
    if done < jobs:
        raise RuntimeError(f"only {done} of {jobs} jobs accounted within {TIMEOUT:g} s")
    master, scheduler, accounting = ((after[n][0] - before[n][0])
                                     for n in ("master", *CHILDREN))
    execds = [n for n in pids if n.startswith("execd")]
    execd = sum(after[n][0] - before[n][0] for n in execds)
    children = sum(after[n][1] - before[n][1] for n in execds)
    figures = {"shepherd": children - job_s, "job": job_s, "execd": execd, "master": master,
               "scheduler": scheduler, "accounting": accounting}
    per_job = {name: 1000 * secs / jobs for name, secs in figures.items()}
    per_job["total (no job)"] = sum(ms for name, ms in per_job.items() if name != "job")
    print(f"{jobs} `true` jobs on 1 host x {slots} slots, {os.cpu_count()} CPUs: drained in "
          f"{elapsed:.2f} s, {jobs / elapsed:.0f} jobs/s")
    for name, ms in per_job.items():
        print(f"  {name:15} {ms:6.1f} ms CPU per job")
    return {**{f"{name}_ms": ms for name, ms in per_job.items()},
            "per_s": jobs / elapsed}


def main(smoke: bool = False) -> dict[str, float]:
    return measure(20, 2) if smoke else measure(1000, 4)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=1000)
    parser.add_argument("--slots", type=int, default=4)
    parser.add_argument("--smoke", action="store_true", help="20 jobs on 2 slots, a check")
    args = parser.parse_args()
    if args.smoke:
        main(smoke=True)
    else:
        measure(args.jobs, args.slots)

"""A synthetic accounting(5) file of a busy cell, for benchmarks of ingest, qacct and reports.

The file looks like two years of a mid-sized site ending now: 200 users in 20 Unix groups
and 10 departments working on about 20 projects, 10 cluster queues on 100 hosts, serial
jobs mostly, array jobs (one line per task), parallel jobs (with a line per slave task
for some tightly integrated ones), about 1% of jobs inside advance reservations, and a
few per cent failures. Lines are in end-time order, as a master appends them.

    python bench/synthetic_accounting.py OUT [--jobs N] [--seed S] [--db DB]

With --db the file is also loaded into a reporting database (build_database).
"""

from __future__ import annotations

import argparse
import heapq
import random
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

from gridd.accounting.record import FILE_HEADER

USERS = 200
GROUPS = 20
PROJECTS = 20
DEPARTMENTS = 10
QUEUES = ("all.q", "short.q", "long.q", "big.q", "gpu.q", "smp.q", "mpi.q", "test.q",
          "night.q", "interactive.q")
HOSTS = 100
SPAN = 2 * 365 * 86400  # seconds of history
CHUNK = 20_000  # lines joined before one write

# The line, in accounting(5) field order. Integer counters and rusage use the same
# textual forms GE 8.1.9 writes (floats with six decimals where it prints them so).
_LINE = (
    "%s:%s:%s:%s:%s:%d:sge:%d:%d:%d:%d:%d:%d:%d:%.6f:%.6f:%.6f:0:0:0:0:%d:%d:0:%.6f:%d:"
    "0:0:0:%d:%d:%s:%s:%s:%d:%d:%.6f:%.6f:%.6f:%s:0.000000:%s:%.6f:%d:%d\n"
)


class _Site:
    """Who and where: users with their group, department and projects; queue instances."""

    def __init__(self, rng: random.Random) -> None:
        self.users = []
        for n in range(1, USERS + 1):
            projects = ["NONE"] + [f"proj{rng.randrange(1, PROJECTS + 1):02d}"
                                   for _ in range(rng.randrange(1, 4))]
            self.users.append((f"user{n:03d}", f"grp{n % GROUPS + 1:02d}",
                               f"dept{n % DEPARTMENTS + 1:02d}", projects))
        # activity is skewed: a few users submit most jobs
        self.weights = [1.0 / (rank + 1) ** 0.8 for rank in range(USERS)]
        self.hosts = [f"node{n:03d}" for n in range(1, HOSTS + 1)]


def _lines(jobs: int, seed: int, now: int) -> Iterator[tuple[int, str]]:
    """Yield (end_time, line) for `jobs` records in submission order."""
    rng = random.Random(seed)
    site = _Site(rng)
    users = rng.choices(site.users, site.weights, k=jobs)
    rand, randrange, expo = rng.random, rng.randrange, rng.expovariate
    first = now - SPAN
    job_number, ar_number, written = 0, 0, 0
    while written < jobs:
        owner, group, dept, projects = users[written]
        job_number += 1
        submit = first + int(SPAN * written / jobs)
        project = projects[randrange(len(projects))]
        queue = QUEUES[randrange(len(QUEUES))]
        roll = rand()
        tasks, pe, slots, slaves = 1, "NONE", 1, 0
        if roll < 0.10:  # array job
            tasks = randrange(2, 51)
        elif roll < 0.15:  # parallel job
            pe = "mpi" if rand() < 0.6 else "smp"
            slots = 2 ** randrange(1, 7)
            slaves = min(randrange(1, 4), slots - 1) if pe == "mpi" and rand() < 0.3 else 0
        arid = ar_submit = 0
        if rand() < 0.01:
            ar_number += 1
            arid, ar_submit = ar_number, submit - randrange(60, 86400)
        h_rt = (600, 3600, 14400, 86400, 604800)[randrange(5)]
        parts = [f"-l h_rt={h_rt}" + (",mem_free=4G" if rand() < 0.3 else "")]
        if queue != "all.q" and rand() < 0.5:
            parts.append(f"-q {queue}")
        if pe != "NONE":
            parts.append(f"-pe {pe} {slots}")
        if project != "NONE":
            parts.append(f"-P {project}")
        if arid:
            parts.append(f"-ar {arid}")
        category = " ".join(parts)
        name = f"job{randrange(1, 500)}" if rand() < 0.7 else "STDIN"
        priority = 0 if rand() < 0.9 else -randrange(1, 1024)
        for task in range(1, tasks + 1):
            if written >= jobs:
                break
            host = site.hosts[randrange(HOSTS)]
            start = min(submit + int(expo(1 / 900.0)) + randrange(0, 60), now)
            wall = min(int(expo(1 / 3000.0)), h_rt, now - start)  # nothing ends after now
            failed, status = 0, 0
            fate = rand()
            if fate < 0.002:  # never started: the execd could not set the job up
                failed, status, start, wall = 26, 1, 0, 0
            elif fate < 0.03:
                failed, status = (100, 137) if fate < 0.02 else (37, 137)
            elif fate < 0.08:
                status = (1, 2, 127, 255)[randrange(4)]
            end = start + wall if start else 0
            utime = wall * slots * (0.5 + rand() * 0.5)
            stime = utime * 0.05
            cpu = utime + stime
            maxvmem = rand() * 8 * 2**30
            mem = cpu * maxvmem / 2**30 * 0.5
            io = rand() * 2.0
            record = (queue, host, group, owner, name, job_number, priority, submit,
                      start, end, failed, status, wall, utime, stime, maxvmem / 1024,
                      randrange(500, 50000), randrange(0, 10), rand() * 1e4,
                      randrange(0, 20000), randrange(10, 5000), randrange(0, 500),
                      project, dept, pe, slots, task if tasks > 1 else 0, cpu, mem, io,
                      category, "NONE", maxvmem, arid, ar_submit)
            yield end or submit, _LINE % record
            written += 1
            for n in range(1, slaves + 1):
                if written >= jobs:
                    break
                peer = site.hosts[randrange(HOSTS)]
                slave = (queue, peer, group, owner, name, job_number, priority, submit,
                         start, end, failed, status, wall, utime / slots, stime / slots,
                         maxvmem / 2048, 0, 0, 0.0, 0, 1, 0, project, dept, pe, 1, 0,
                         cpu / slots, mem / slots, io / slots, category, f"{n}.{peer}",
                         maxvmem / 2, arid, ar_submit)
                yield end or submit, _LINE % slave
                written += 1


def write_accounting(path: str | Path, jobs: int = 1_000_000, seed: int = 1,
                     now: int | None = None) -> Path:
    """Write an accounting file of `jobs` records (lines); the same seed gives the same file
    for the same `now` (default: the current time)."""
    now = int(time.time()) if now is None else now
    path = Path(path)
    with path.open("w", encoding="utf-8") as out:
        out.write("".join(f"{line}\n" for line in FILE_HEADER))
        for chunk in _by_end_time(_lines(jobs, seed, now)):
            out.write("".join(chunk))
    return path


def _by_end_time(records: Iterator[tuple[int, str]]) -> Iterator[list[str]]:
    """Reorder submission-ordered records by end time, holding only the running ones.

    A record can be written once a later job was submitted after it ended; the heap holds
    the jobs still running at the current submission time, a small set.
    """
    running: list[tuple[int, int, str]] = []
    ready: list[str] = []
    for n, (end, line) in enumerate(records):
        submit = int(line.split(":", 9)[8])
        while running and running[0][0] <= submit:
            ready.append(heapq.heappop(running)[2])
        heapq.heappush(running, (end, n, line))
        if len(ready) >= CHUNK:
            yield ready
            ready = []
    ready += [line for _, _, line in sorted(running)]
    yield ready


def build_database(db_path: str | Path, acct_path: str | Path) -> int:
    """Load an accounting file into a reporting database (created if need be), as
    `gridd dbwriter` does; returns the accounting records added."""
    from gridd.accounting import db

    con = db.open_db(db_path)
    try:
        return db.ingest_file(con, acct_path).accounting
    finally:
        con.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", nargs="?", help="the accounting file to write")
    parser.add_argument("--jobs", type=int, default=1_000_000, help="records to write")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--db", help="also load the file into this reporting database")
    parser.add_argument("--smoke", action="store_true",
                        help="1,000 records into a file that is removed afterwards")
    args = parser.parse_args(argv)
    if args.smoke:
        with tempfile.TemporaryDirectory() as tmp:
            return main([str(Path(tmp) / "accounting"), "--jobs", "1000",
                         "--db", str(Path(tmp) / "reporting.duckdb")])
    if args.out is None:
        parser.error("the accounting file to write is missing")
    t0 = time.perf_counter()
    write_accounting(args.out, args.jobs, args.seed)
    took = time.perf_counter() - t0
    print(f"{args.jobs:,} records written to {args.out} in {took:.1f} s", file=sys.stderr)
    if args.db:
        t0 = time.perf_counter()
        added = build_database(args.db, args.out)
        took = time.perf_counter() - t0
        print(f"{added:,} records loaded into {args.db} in {took:.1f} s", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())

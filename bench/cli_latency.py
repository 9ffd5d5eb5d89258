"""Wall time of the q* commands a person or a script runs: gridd's on an idle 1-host cell,
Grid Engine's C binaries of the same commands, and `python -c pass` (the interpreter's floor).

Timed: `qstat` on an empty queue; then, with a few held jobs queued, `qsub -h -b y true`,
`qstat`, `qdel N` (the job just submitted) and `qacct -j N` (a job that ran, once it is in
the cell's database as it is in a cell at rest). Jobs are submitted held so that neither
system runs anything while the next command is timed.
Every command is a fresh process timed around subprocess.run; each round runs every
command once on each system in turn, so the machine's drift touches them all alike, and
the ratios are of medians from the same run. `--smoke` is a short run without Grid Engine.
"""

from __future__ import annotations

import re
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from _cell import BIN, SMOKE, cell, median_p90
from _sge import binary, sge_env

from gridd.accounting.query import run_query

RUNS = 20
WARMUP = 2
QUEUED = 5  # held jobs in the queue while qsub, qstat and qdel are timed
ACCOUNTED_WITHIN = 120.0  # seconds for a job to run and be written to accounting


@dataclass
class System:
    name: str
    command: Callable[[str], str]  # q* command -> executable
    env: dict[str, str]
    cwd: Path
    held: list[int]  # its held jobs, deleted at the end
    settled: Callable[[], bool] = lambda: True  # qacct reads what it reads in a cell at rest

    def run(self, *argv: str) -> tuple[float, str]:
        """Seconds and output of one command; a failure stops the bench."""
        t0 = time.perf_counter()
        res = subprocess.run([self.command(argv[0]), *argv[1:]], env=self.env, cwd=self.cwd,
                             capture_output=True, text=True)
        elapsed = time.perf_counter() - t0
        if res.returncode != 0:
            raise RuntimeError(f"{self.name} {' '.join(argv)}: rc={res.returncode}: "
                               f"{res.stderr.strip()}")
        return elapsed, res.stdout

    def submit(self, *argv: str) -> int:
        return int(re.search(r"job (\d+)", self.run("qsub", *argv)[1]).group(1))

    def accounted_job(self) -> int:
        """A job that ran and is in the accounting, for qacct -j N."""
        job = self.submit("-b", "y", "-o", "/dev/null", "-j", "y", "true")
        deadline = time.monotonic() + ACCOUNTED_WITHIN
        while subprocess.run([self.command("qacct"), "-j", str(job)], env=self.env,
                             capture_output=True).returncode != 0:
            if time.monotonic() > deadline:
                raise TimeoutError(f"{self.name}: job {job} not accounted in "
                                   f"{ACCOUNTED_WITHIN:.0f} s")
            time.sleep(0.2)
        while not self.settled():
            if time.monotonic() > deadline:
                raise TimeoutError(f"{self.name}: job {job}'s record not settled in "
                                   f"{ACCOUNTED_WITHIN:.0f} s")
            time.sleep(0.2)
        return job


def python_pass() -> float:
    t0 = time.perf_counter()
    subprocess.run([sys.executable, "-c", "pass"], check=True)
    return time.perf_counter() - t0


def measure(systems: list[System], runs: int, warmup: int) -> dict[str, list[float]]:
    """Seconds per run of each command on each system ("gridd qsub", "sge qsub", ...) and
    of `python -c pass`, warm-ups left out."""
    times: dict[str, list[float]] = {}

    def note(key: str, seconds: float, i: int) -> None:
        if i >= warmup:
            times.setdefault(key, []).append(seconds)

    done = {s.name: str(s.accounted_job()) for s in systems}
    for i in range(warmup + runs):  # the queue is empty: the job above has left it
        note("python -c pass", python_pass(), i)
        for s in systems:
            note(f"{s.name} qstat (empty)", s.run("qstat")[0], i)
    for s in systems:
        s.held += [s.submit("-h", "-b", "y", "true") for _ in range(QUEUED)]
    for i in range(warmup + runs):
        note("python -c pass", python_pass(), i)
        for s in systems:
            t0 = time.perf_counter()
            job = s.submit("-h", "-b", "y", "true")
            note(f"{s.name} qsub -h -b y true", time.perf_counter() - t0, i)
            note(f"{s.name} qstat ({QUEUED + 1} jobs)", s.run("qstat")[0], i)
            note(f"{s.name} qdel N", s.run("qdel", str(job))[0], i)
            note(f"{s.name} qacct -j N", s.run("qacct", "-j", done[s.name])[0], i)
    return times


def report(times: dict[str, list[float]]) -> dict[str, float | None]:
    """Print medians and ratios; return them as figures (ms, ratios)."""
    floor = median_p90(times["python -c pass"])[0]
    print(f"{'command':<24} {'gridd ms':>9} {'p90':>7} {'C GE ms':>8} {'p90':>7} "
          f"{'gridd/GE':>8} {'gridd/py':>8}")
    figures: dict[str, float | None] = {"python_ms": floor * 1000}
    for key in times:
        if not key.startswith("gridd "):
            continue
        what = key.removeprefix("gridd ")
        g, g90 = median_p90(times[key])
        ge = times.get(f"sge {what}")
        s, s90 = median_p90(ge) if ge else (None, None)
        ratio = g / s if s else None
        slug = what.split(" (")[0].split()[0] + ("_empty" if "empty" in what else "")
        figures[f"{slug}_ms"] = g * 1000
        figures[f"ge_{slug}_ms"] = s * 1000 if s else None
        figures[f"{slug}_ratio"] = ratio
        shown = (f"{s * 1000:8.1f} {s90 * 1000:7.1f} {ratio:8.2f}" if s
                 else f"{'-':>8} {'-':>7} {'-':>8}")
        print(f"{what:<24} {g * 1000:9.1f} {g90 * 1000:7.1f} {shown} {g / floor:8.2f}")
    print(f"{'python -c pass':<24} {floor * 1000:9.1f}")
    return figures


def main() -> dict[str, float | None]:
    runs, warmup = (2, 0) if SMOKE else (RUNS, WARMUP)
    env = None if SMOKE else sge_env()
    with cell(hosts=1, slots=1) as c:
        # A new cell's database is opened by the first query (or flush_time, 15 s, after
        # its first record); until then qacct reads the accounting file itself, with
        # DuckDB. In a cell at rest, as here, it asks the master.
        def settled() -> bool:
            run_query("SELECT 1", base=c.root)
            return (c.root / "common" / "reporting.duckdb").exists()

        systems = [System("gridd", lambda q: str(BIN / q), c.env, c.root, [], settled)]
        if env is not None:
            systems.append(System("sge", binary, env, Path.home(), []))
        try:
            times = measure(systems, runs, warmup)
        finally:
            for s in systems[1:]:
                if s.held:
                    subprocess.run([s.command("qdel"), *map(str, s.held)], env=s.env,
                                   capture_output=True)
    print(f"{runs} runs each, {warmup} warm-ups, interleaved"
          + ("" if env else "; real Grid Engine not measured"))
    return report(times)


if __name__ == "__main__":
    main()

"""Wall time of `qstat` and `qstat -xml` over a big queue: 5,000 pending jobs (`--big`:
100,000), each a job of its own as a user's queue holds them, beside Grid Engine's C
qstat with as many jobs (not with --big: submitting to it is slow, 7 ms a job).

gridd's jobs go in through the Python API (`submit_many`) with the cell's queue disabled,
so they wait as `qw` (the master works out each one's priority for qstat) and none runs.
Grid Engine's are submitted held (`qsub -h`, a few processes at a time) to the cell the
reference script started, so that nothing runs there either, and deleted at the end.
Every command is a fresh process; each round runs qstat and qstat -xml once on each
system in turn, and the ratios are of medians from the same run. `--smoke` is a short
run without Grid Engine. `--before DIR` times, in the same cell and rounds, the qstat of
another checkout of gridd too (its client with this master), e.g. of the commit before a
change to qstat's path.

`--rows` times instead the master's part alone, in-process: `Master.query_rows` of a
plain qstat over as many waiting jobs (as many runs, after a warm-up), in a worker
process of this checkout and, with `--before DIR`, one of DIR's, asked in turn; both
must give the same answer, byte for byte.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from _cell import BIN, SMOKE, cell, median_p90
from _sge import binary, sge_env

BIG = "--big" in sys.argv[1:]
BEFORE = sys.argv[sys.argv.index("--before") + 1] if "--before" in sys.argv[1:-1] else None
JOBS = 50 if SMOKE else 100_000 if BIG else 5_000
RUNS = 2 if SMOKE else 5 if BIG else 15
WARMUP = 0 if SMOKE else 1
COMMANDS = (("qstat",), ("qstat", "-xml"))


def timed(argv: list[str], env: dict[str, str], cwd: Path) -> tuple[float, bytes]:
    """Seconds and output of one command; a failure stops the bench."""
    t0 = time.perf_counter()
    res = subprocess.run(argv, env=env, cwd=cwd, capture_output=True)
    elapsed = time.perf_counter() - t0
    if res.returncode != 0:
        raise RuntimeError(f"{' '.join(argv)}: rc={res.returncode}: {res.stderr.decode()}")
    return elapsed, res.stdout


def fill_gridd(c, jobs: int) -> None:
    """`jobs` jobs waiting as qw: the only queue disabled, then submitted through the API."""
    subprocess.run([str(BIN / "qmod"), "-d", "all.q"], env=c.env, check=True,
                   capture_output=True)
    c.submit_many(c.spec("sleep", str(60 + n % 600)) for n in range(jobs))


def fill_sge(env: dict[str, str], jobs: int) -> list[str]:
    """`jobs` held jobs in real Grid Engine's cell; their numbers, to delete them."""
    def one(_: int) -> str:
        out = subprocess.run([binary("qsub"), "-h", "-b", "y", "-o", "/dev/null", "-j", "y",
                              "true"], env=env, capture_output=True, text=True, check=True)
        return out.stdout.split()[2]

    with ThreadPoolExecutor(4) as pool:
        return list(pool.map(one, range(jobs)))


def rows_worker(jobs: int) -> None:
    """A master of `jobs` waiting jobs, in this process: for each line read, one plain
    qstat's rows are worked out and their seconds written; at the end, the answer's hash.
    The jobs are like the cell's (JobSpec as _cell makes them), submitted a millisecond
    apart; no scheduler runs, so they wait."""
    import msgspec

    from gridd import protocol as p
    from gridd.master.bootstrap import CellConfig, initial_config
    from gridd.master.core import Master
    from gridd.master.state import Effects, MasterState
    from gridd.model.job import JobSpec

    state = MasterState()
    initial_config(state, CellConfig(hosts=["node1"], slots=1, machine="node1"))
    master = Master(state)
    fx = Effects()
    start = 1_800_000_000.0
    for n in range(jobs):
        master.submit(JobSpec(name="sleep", owner="gridd", binary=True,
                              command=["sleep", str(60 + n % 600)], submit_host="node1",
                              o_home="/tmp", cwd="/tmp"), start + n / 1000, fx)
    print("ready", flush=True)
    reply = None
    for n, _ in enumerate(sys.stdin):
        t0 = time.perf_counter()
        reply = master.query_rows(p.QueryRows(), start + jobs / 1000 + 60 + n)
        print(time.perf_counter() - t0, flush=True)
    print(hashlib.sha256(msgspec.msgpack.encode(reply)).hexdigest(), flush=True)


def rows_main() -> dict[str, float | None]:
    """The master's rows in-process, this checkout's beside --before's, interleaved."""
    checkouts = [("gridd", None)] + ([("before", BEFORE)] if BEFORE else [])
    workers = []
    for name, path in checkouts:
        env = dict(os.environ, PYTHONPATH=path) if path else None
        workers.append((name, subprocess.Popen(
            [sys.executable, __file__, "--rows-worker", str(JOBS)], env=env, text=True,
            stdin=subprocess.PIPE, stdout=subprocess.PIPE)))
    for name, w in workers:
        assert w.stdout is not None and w.stdout.readline() == "ready\n", name
    times: dict[str, list[float]] = {}
    for i in range(WARMUP + RUNS):
        for name, w in workers:
            assert w.stdin is not None and w.stdout is not None
            w.stdin.write("\n")
            w.stdin.flush()
            seconds = float(w.stdout.readline())
            if i >= WARMUP:
                times.setdefault(name, []).append(seconds)
    hashes = {}
    for name, w in workers:
        out, _ = w.communicate("")
        hashes[name] = out.strip()
        if w.returncode != 0:
            raise RuntimeError(f"{name}'s worker: rc={w.returncode}")
    if len(set(hashes.values())) != 1:
        raise RuntimeError(f"the answers differ: {hashes}")
    print(f"Master.query_rows in-process, {JOBS} waiting jobs, {RUNS} runs each, "
          f"{WARMUP} warm-up(s), interleaved")
    figures: dict[str, float | None] = {}
    for name, _ in workers:
        median, p90 = median_p90(times[name])
        figures[f"{name}_rows_ms"] = median * 1000
        print(f"{name:<7} median {median * 1000:8.1f} ms  p90 {p90 * 1000:8.1f} ms")
    return figures


def main() -> dict[str, float | None]:
    env = None if SMOKE or BIG else sge_env()
    systems: list[tuple[str, dict[str, str], Path, str]] = []
    times: dict[str, list[float]] = {}
    outputs: dict[str, bytes] = {}
    ge_ids: list[str] = []
    with cell(hosts=1, slots=1) as c:
        t0 = time.perf_counter()
        fill_gridd(c, JOBS)
        print(f"gridd: {JOBS} jobs submitted in {time.perf_counter() - t0:.1f} s")
        systems.append(("gridd", c.env, c.root, str(BIN)))
        if BEFORE:
            systems.append(("before", dict(c.env, PYTHONPATH=BEFORE), c.root, str(BIN)))
        try:
            if env is not None:
                t0 = time.perf_counter()
                ge_ids = fill_sge(env, JOBS)
                print(f"sge: {JOBS} held jobs submitted in {time.perf_counter() - t0:.1f} s")
                systems.append(("sge", env, Path.home(), str(Path(binary("qstat")).parent)))
            for i in range(WARMUP + RUNS):
                for name, env_, cwd, bindir in systems:
                    for argv in COMMANDS:
                        seconds, out = timed([f"{bindir}/{argv[0]}", *argv[1:]], env_, cwd)
                        key = f"{name} {' '.join(argv)}"
                        outputs[key] = out
                        if i >= WARMUP:
                            times.setdefault(key, []).append(seconds)
        finally:
            for start in range(0, len(ge_ids), 1000):
                subprocess.run([binary("qdel"), *ge_ids[start:start + 1000]], env=env,
                               capture_output=True)
    print(f"{RUNS} runs each, {WARMUP} warm-up(s), interleaved; gridd {JOBS} jobs (qw)"
          + (f", Grid Engine {JOBS} jobs (hqw)" if env else
             "; real Grid Engine not measured"))
    print(f"{'command':<12} {'gridd ms':>9} {'p90':>7} {'bytes':>9} {'before':>8} "
          f"{'C GE ms':>8} {'p90':>7} {'gridd/GE':>8}")
    figures: dict[str, float | None] = {}
    for argv in COMMANDS:
        what = " ".join(argv)
        if BEFORE and outputs[f"before {what}"] != outputs[f"gridd {what}"]:
            raise RuntimeError(f"{what}: the output differs from the one before")
        g, g90 = median_p90(times[f"gridd {what}"])
        ge = times.get(f"sge {what}")
        s, s90 = median_p90(ge) if ge else (None, None)
        slug = "_".join(a.lstrip("-") for a in argv)
        figures[f"{slug}_ms"] = g * 1000
        figures[f"ge_{slug}_ms"] = s * 1000 if s else None
        shown = (f"{s * 1000:8.1f} {s90 * 1000:7.1f} {g / s:8.2f}" if s
                 else f"{'-':>8} {'-':>7} {'-':>8}")
        before = times.get(f"before {what}")
        b = median_p90(before)[0] * 1000 if before else None
        figures[f"before_{slug}_ms"] = b
        print(f"{what:<12} {g * 1000:9.1f} {g90 * 1000:7.1f} {len(outputs[f'gridd {what}']):9d} "
              f"{f'{b:8.1f}' if b else '-':>8} {shown}")
    return figures


if __name__ == "__main__":
    if "--rows-worker" in sys.argv[1:]:
        rows_worker(int(sys.argv[sys.argv.index("--rows-worker") + 1]))
    elif "--rows" in sys.argv[1:] or SMOKE:
        rows_main()
        if SMOKE:
            main()
    else:
        main()

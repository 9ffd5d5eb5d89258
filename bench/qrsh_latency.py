"""Wall time of `qrsh -now y true` on an idle cell: gridd's, and real Grid Engine's in the
same run (the issue's target: no slower than real GE's qrsh).

Each run is a fresh process with stdin from /dev/null, timed with perf_counter around
subprocess.run, from the command's start to its exit (submission, scheduling, the
session to the execution host, the command's end and its exit code back); a couple of
warm-up runs are not counted, and the two commands take turns. Real Grid Engine is
started with the reference script (shared/reference/sge-8.1.9/start.sh, found above this
checkout) when it is not up; when it cannot be, gridd's figure is printed alone.
"""

from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path

from _cell import BIN, SMOKE, cell, median_p90
from _sge import sge_env

RUNS = 2 if SMOKE else 20
WARMUP = 0 if SMOKE else 2
SLOTS = 4  # as real GE's all.q of the reference: a run's slot may still be held by the last
START_SCRIPT = Path("shared", "reference", "sge-8.1.9", "start.sh")
GE_QRSH = "/usr/bin/qrsh"

Run = tuple[list[str], dict[str, str], Path]  # command, environment, working directory


def time_runs(runs: list[Run]) -> list[list[float]]:
    """For each (command, env, cwd): seconds per run, warm-ups excluded, the commands
    taking turns run by run. A run that fails (exit status not 0) stops the benchmark
    with what it printed: `-now y` refused means the cell was not idle."""
    results: list[list[float]] = [[] for _ in runs]
    for i in range(WARMUP + RUNS):
        for (cmd, env, cwd), times in zip(runs, results, strict=True):
            t0 = time.perf_counter()
            res = subprocess.run(cmd, env=env, cwd=cwd, stdin=subprocess.DEVNULL,
                                 capture_output=True, text=True, timeout=60)
            elapsed = time.perf_counter() - t0
            if res.returncode != 0:
                raise RuntimeError(f"{' '.join(cmd)}: rc={res.returncode}: "
                                   f"{(res.stdout + res.stderr).strip()}")
            if i >= WARMUP:
                times.append(elapsed)
    return results


def start_script() -> Path | None:
    """The reference's start.sh in a directory above this checkout, if there is one."""
    for parent in Path(__file__).resolve().parents:
        if (parent / START_SCRIPT).is_file():
            return parent / START_SCRIPT
    return None


def real_grid_engine() -> tuple[dict[str, str] | None, str]:
    """Real GE's client environment, started with the reference script if it is not up;
    or None and why not."""
    env = sge_env()
    if env is not None:
        return env, "running"
    script = start_script()
    if script is None:
        return None, f"no {START_SCRIPT} above this checkout"
    if os.geteuid() != 0:
        return None, f"not up, and {script} needs root"
    try:
        res = subprocess.run(["bash", str(script)], capture_output=True, text=True,
                             timeout=900)
    except subprocess.TimeoutExpired:
        return None, f"{script} did not finish within 900 s"
    env = sge_env()
    if env is None:
        return None, f"{script} did not bring it up (rc={res.returncode}): {res.stdout[-200:]}"
    return env, f"started with {script}"


def main() -> dict[str, float | None]:
    if not (BIN / "qrsh").exists():
        print(f"gridd has no qrsh ({BIN / 'qrsh'} is missing): nothing to measure")
        return {"gridd_ms": None, "sge_ms": None, "ratio": None}
    sge, how = (None, "--smoke") if SMOKE else real_grid_engine()
    with cell(hosts=1, slots=SLOTS) as c:
        runs = [([str(BIN / "qrsh"), "-now", "y", "true"], c.env, c.root)]
        if sge is not None:
            runs.append(([GE_QRSH, "-now", "y", "true"], sge, Path.home()))
        results = time_runs(runs)
    g_med, g_p90 = median_p90(results[0])
    print(f"gridd qrsh -now y true:   median {g_med * 1000:7.1f} ms   p90 {g_p90 * 1000:7.1f} ms"
          f"   ({RUNS} runs)")
    if sge is None:
        print(f"real Grid Engine is not available: {how}")
        return {"gridd_ms": g_med * 1000, "sge_ms": None, "ratio": None}
    s_med, s_p90 = median_p90(results[1])
    print(f"real GE qrsh -now y true: median {s_med * 1000:7.1f} ms   p90 {s_p90 * 1000:7.1f} ms"
          f"   ({RUNS} runs, taking turns with gridd's; GE {how})")
    print(f"ratio gridd / real GE (medians): {g_med / s_med:.2f}")
    return {"gridd_ms": g_med * 1000, "sge_ms": s_med * 1000, "ratio": g_med / s_med}


if __name__ == "__main__":
    main()

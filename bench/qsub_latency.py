"""Wall time of one CLI `qsub -b y true`: gridd's on an idle 1-host cell, and real GE's.

Each run is a fresh process, timed with perf_counter around subprocess.run; a few warm-up
runs are not counted. Real Grid Engine's jobs are deleted afterwards, and the output
files of those that already ran are removed.
"""

from __future__ import annotations

import os
import re
import subprocess
import time
from pathlib import Path

from _cell import BIN, cell, median_p90

RUNS = 50
WARMUP = 3
SGE_SETTINGS = Path("/var/lib/gridengine/default/common/settings.sh")


def time_qsub(cmd: list[str], env: dict[str, str], cwd: Path) -> tuple[list[float], list[int]]:
    """Seconds per run (warm-ups excluded) and the job ids qsub printed."""
    times, ids = [], []
    for i in range(WARMUP + RUNS):
        t0 = time.perf_counter()
        res = subprocess.run(cmd, env=env, cwd=cwd, capture_output=True, text=True)
        elapsed = time.perf_counter() - t0
        if res.returncode != 0:
            raise RuntimeError(f"{' '.join(cmd)}: rc={res.returncode}: {res.stderr.strip()}")
        ids.append(int(re.search(r"\d+", res.stdout).group()))
        if i >= WARMUP:
            times.append(elapsed)
    return times, ids


def sge_env() -> dict[str, str] | None:
    """Real GE's environment from settings.sh, if it is installed and qstat answers."""
    if not SGE_SETTINGS.exists():
        return None
    env = dict(os.environ)
    env.update(re.findall(r"^(SGE_\w+)=(\S+?);", SGE_SETTINGS.read_text(), re.M))
    try:
        ok = subprocess.run(["/usr/bin/qstat"], env=env, capture_output=True,
                            timeout=10).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        ok = False
    return env if ok else None


def bench_gridd() -> list[float]:
    with cell(hosts=1, slots=1) as c:
        times, _ = time_qsub([str(BIN / "qsub"), "-b", "y", "true"], c.env, c.root)
    return times


def bench_sge(env: dict[str, str]) -> list[float]:
    home = Path.home()
    times, ids = time_qsub(["/usr/bin/qsub", "-b", "y", "true"], env, home)
    subprocess.run(["/usr/bin/qdel", *map(str, ids)], env=env, capture_output=True)
    for job_id in ids:  # the output of jobs that ran before qdel got to them
        for stream in "oe":
            (home / f"true.{stream}{job_id}").unlink(missing_ok=True)
    return times


def main() -> dict[str, float | None]:
    g_med, g_p90 = median_p90(bench_gridd())
    print(f"gridd qsub -b y true:   median {g_med * 1000:7.1f} ms   p90 {g_p90 * 1000:7.1f} ms"
          f"   ({RUNS} runs)")
    env = sge_env()
    if env is None:
        print("real Grid Engine is not available (no settings.sh or qstat fails)")
        return {"gridd_ms": g_med * 1000, "sge_ms": None, "ratio": None}
    s_med, s_p90 = median_p90(bench_sge(env))
    print(f"real GE qsub -b y true: median {s_med * 1000:7.1f} ms   p90 {s_p90 * 1000:7.1f} ms"
          f"   ({RUNS} runs)")
    print(f"ratio gridd / real GE (medians): {g_med / s_med:.2f}")
    return {"gridd_ms": g_med * 1000, "sge_ms": s_med * 1000, "ratio": g_med / s_med}


if __name__ == "__main__":
    main()

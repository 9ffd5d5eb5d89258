"""Wall time of one CLI `qsub -h -b y true`: gridd's on an idle 1-host cell, and real GE's
C binary's (not Debian's wrapper script, which adds 55-90 ms).

Each run is a fresh process, timed with perf_counter around subprocess.run; a few warm-up
runs are not counted, and the two commands take turns. Real Grid Engine's (held) jobs are
deleted afterwards.
"""

from __future__ import annotations

import re
import subprocess
import time
from pathlib import Path

from _cell import BIN, SMOKE, cell, median_p90
from _sge import binary, sge_env

RUNS = 2 if SMOKE else 50
WARMUP = 0 if SMOKE else 3


Run = tuple[list[str], dict[str, str], Path]  # command, environment, working directory


def time_qsub(runs: list[Run]) -> list[tuple[list[float], list[int]]]:
    """For each (command, env, cwd): seconds per run (warm-ups excluded) and the job ids
    qsub printed. The commands take turns run by run, so that the machine's drift over
    the measurement touches all of them alike."""
    results: list[tuple[list[float], list[int]]] = [([], []) for _ in runs]
    for i in range(WARMUP + RUNS):
        for (cmd, env, cwd), (times, ids) in zip(runs, results, strict=True):
            t0 = time.perf_counter()
            res = subprocess.run(cmd, env=env, cwd=cwd, capture_output=True, text=True)
            elapsed = time.perf_counter() - t0
            if res.returncode != 0:
                raise RuntimeError(f"{' '.join(cmd)}: rc={res.returncode}: {res.stderr.strip()}")
            ids.append(int(re.search(r"\d+", res.stdout).group()))
            if i >= WARMUP:
                times.append(elapsed)
    return results


def bench(sge: dict[str, str] | None) -> tuple[list[float], list[float] | None]:
    """gridd's qsub on an idle 1-host cell, and real GE's in turn with it when it runs.

    Jobs are submitted held (-h) on both, so that neither system is busy running them
    while the next submission is timed."""
    home = Path.home()
    with cell(hosts=1, slots=1) as c:
        runs = [([str(BIN / "qsub"), "-h", "-b", "y", "true"], c.env, c.root)]
        if sge is not None:
            runs.append(([binary("qsub"), "-h", "-b", "y", "true"], sge, home))
        results = time_qsub(runs)
    if sge is None:
        return results[0][0], None
    subprocess.run([binary("qdel"), *map(str, results[1][1])], env=sge, capture_output=True)
    return results[0][0], results[1][0]


def main() -> dict[str, float | None]:
    env = None if SMOKE else sge_env()
    gridd_times, sge_times = bench(env)
    g_med, g_p90 = median_p90(gridd_times)
    print(f"gridd qsub -h -b y true:   median {g_med * 1000:7.1f} ms   p90 {g_p90 * 1000:7.1f} ms"
          f"   ({RUNS} runs)")
    if sge_times is None:
        print("real Grid Engine not measured (--smoke, or no settings.sh, or its qstat fails)")
        return {"gridd_ms": g_med * 1000, "sge_ms": None, "ratio": None}
    s_med, s_p90 = median_p90(sge_times)
    print(f"real GE qsub -h -b y true: median {s_med * 1000:7.1f} ms   p90 {s_p90 * 1000:7.1f} ms"
          f"   ({RUNS} runs, taking turns with gridd's)")
    print(f"ratio gridd / real GE (medians): {g_med / s_med:.2f}")
    return {"gridd_ms": g_med * 1000, "sge_ms": s_med * 1000, "ratio": g_med / s_med}


if __name__ == "__main__":
    main()

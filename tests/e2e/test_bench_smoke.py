"""Every bench under bench/ runs in its short form (`--smoke`: tiny sizes, no Grid Engine),
so that a bench that rots (an API it calls changed, a rule it now breaks) fails here
rather than on the day its figures are wanted. Only the exit status and that figures
were printed are checked: a time is never asserted.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).parents[2] / "bench"
SMOKE = ["api_submit", "ar_grant", "argv_scaling", "cli_latency", "cluster_drain", "curve",
         "dispatch", "drain", "drmaa", "execd_crash", "fuzz", "ingest", "job_cost",
         "load_adjust_dispatch",
         "master_rss", "plan_instructions", "qacct", "qstat_big", "qrsh_latency",
         "qsub_latency", "quota_dispatch", "reservation_dispatch", "sched_pass",
         "sim_check_traces", "sim_throughput", "spool",
         "spool_crash", "submit_to_running", "synthetic_accounting", "web_ui"]
# Not benches: what the benches share, the runner of them all, and the libFuzzer harness
# bench/fuzz.py starts (it needs atheris; fuzz.py's short form runs without it).
HELPERS = {"_cell", "_sge", "_slurm", "run_all", "fuzz_atheris"}


def test_every_bench_is_named_here() -> None:
    benches = {path.stem for path in BENCH.glob("*.py")} - HELPERS
    assert benches == set(SMOKE), "a bench (or a helper) is missing from SMOKE (or HELPERS)"


@pytest.mark.parametrize("bench", SMOKE)
def test_the_bench_runs_in_its_short_form(bench: str) -> None:
    res = subprocess.run([sys.executable, f"{bench}.py", "--smoke"], cwd=BENCH,
                         capture_output=True, text=True, timeout=120)
    assert res.returncode == 0, f"{bench} --smoke: rc={res.returncode}\n{res.stderr[-3000:]}"
    if res.stdout.startswith("skipped:"):  # what it needs is not installed (web_ui: Chromium)
        pytest.skip(f"{bench}: {res.stdout.strip()}")
    output = res.stdout + res.stderr
    assert re.search(r"\d", output), f"{bench} --smoke printed no figures:\n{output}"

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
SMOKE = ["api_submit", "ar_grant", "cli_latency", "dispatch", "drain",
         "load_adjust_dispatch", "master_rss", "qsub_latency", "quota_dispatch",
         "reservation_dispatch", "sim_throughput", "submit_to_running"]
# Not benches: what the benches share, and the runner of them all.
HELPERS = {"_cell", "_sge", "run_all"}
# Benches without a short form yet, and why.
WITHOUT = {
    "argv_scaling": "not given one yet",
    "cluster_drain": "not given one yet (network namespaces)",
    "curve": "not given one yet",
    "drmaa": "not given one yet",
    "execd_crash": "not given one yet",
    "fuzz": "not given one yet (tests/fuzz runs its targets)",
    "fuzz_atheris": "not given one yet (needs atheris)",
    "ingest": "not given one yet",
    "plan_instructions": "not given one yet (valgrind)",
    "qacct": "not given one yet",
    "qrsh_latency": "not given one yet",
    "sim_check_traces": "not given one yet",
    "spool": "not given one yet",
    "spool_crash": "not given one yet (tests/e2e/test_spool_crash.py shares its harness)",
    "synthetic_accounting": "not given one yet",
    "web_ui": "not given one yet (Chromium)",
}


def test_every_bench_is_named_here() -> None:
    benches = {path.stem for path in BENCH.glob("*.py")} - HELPERS
    assert benches == set(SMOKE) | set(WITHOUT), "a bench is missing from SMOKE or WITHOUT"
    assert not set(SMOKE) & set(WITHOUT)


@pytest.mark.parametrize("bench", SMOKE)
def test_the_bench_runs_in_its_short_form(bench: str) -> None:
    res = subprocess.run([sys.executable, f"{bench}.py", "--smoke"], cwd=BENCH,
                         capture_output=True, text=True, timeout=120)
    assert res.returncode == 0, f"{bench} --smoke: rc={res.returncode}\n{res.stderr[-3000:]}"
    assert re.search(r"\d", res.stdout), f"{bench} --smoke printed no figures:\n{res.stdout}"

"""The issue's acceptance run: 200 CLI submissions through a 4-host, 4-slot cell."""

from __future__ import annotations

import re
import subprocess

import duckdb

from tests.e2e.conftest import BIN, Cell, wait_for


def test_200_cli_jobs_all_finish_and_are_accounted_once(big_cell: Cell):
    loop = f'for i in $(seq 200); do "{BIN}/qsub" -b y sleep 0.1 || exit 1; done'
    res = subprocess.run(["bash", "-c", loop], env=big_cell.env, cwd=big_cell.root,
                         capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stderr
    ids = [int(m) for m in re.findall(r"^Your job (\d+) ", res.stdout, re.M)]
    assert len(ids) == 200 == len(set(ids))
    wait_for(lambda: len(big_cell.accounting_lines()) >= 200, timeout=120,
             what="200 accounting records")
    lines = big_cell.accounting_lines()
    assert len(lines) == 200
    fields = [ln.split(":") for ln in lines]
    assert sorted(int(f[5]) for f in fields) == ids
    assert all(f[12] == "0" and f[11] == "0" for f in fields)  # exit_status, failed
    for job in (ids[0], ids[99], ids[-1]):
        out = big_cell.ok("qacct", "-j", str(job))
        assert re.search(r"^exit_status\s+0\s*$", out, re.M)
    big_cell.ok("gridd", "down")  # DuckDB admits one writer: read it once the master stopped
    con = duckdb.connect(str(big_cell.root / "common" / "reporting.duckdb"), read_only=True)
    count, distinct = con.execute(
        "SELECT count(*), count(DISTINCT job_number) FROM accounting").fetchone()
    con.close()
    assert count == distinct == 200

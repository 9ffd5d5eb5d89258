"""execd killed (SIGKILL) while jobs run, again and again: each job is accounted once.

Jobs outlive their execd under their shepherds; every restarted execd takes over those
still running, reports those that ended while it was away and registers with the master,
which sends again what never arrived. The accounting must then hold every job exactly
once, with its real exit status and run time.
"""

from __future__ import annotations

import os
import re
import signal
from collections.abc import Iterator
from pathlib import Path

import pytest

from gridd.pidfile import alive, read_pid
from tests.e2e.conftest import Cell, cell_processes, make_cell, wait_for

HOST = "node1"
# (seconds, exit status): long ones first, so that they run through every kill
JOBS = [(8, 0), (9, 2), (10, 0),
        (1, 0), (1, 3), (2, 0), (2, 4), (3, 0), (3, 5), (1, 6), (2, 0), (3, 7)]


@pytest.fixture
def one_host(tmp_path: Path) -> Iterator[Cell]:
    yield from make_cell(tmp_path, hosts=1, slots=6)


class Execd:
    """The cell's only execd, killed and started again as an operator would."""

    def __init__(self, cell: Cell) -> None:
        self.cell = cell
        self.spool = cell.root / "spool" / HOST
        self.restarts = 0

    def pid(self) -> int:
        return read_pid(self.spool / "execd.pid")

    def kill(self) -> None:
        pid = self.pid()
        assert alive(pid)
        os.kill(pid, signal.SIGKILL)
        wait_for(lambda: not alive(pid), timeout=10, what="the execd to die")

    def start(self) -> None:
        old = self.pid()
        self.cell.ok("gridd", "up", "--load-report-time", "1")
        wait_for(lambda: self.pid() != old and alive(self.pid()), timeout=20,
                 what="the execd to run again")
        self.restarts += 1

    def tasks(self, *names: str) -> list[Path]:
        """Task spool directories holding all of the files named."""
        active = self.spool / "active_jobs"
        dirs = sorted(active.iterdir()) if active.is_dir() else []
        return [d for d in dirs if all((d / name).exists() for name in names)]


def test_execd_kills_while_jobs_run_account_each_job_once(one_host: Cell):
    cell = one_host
    execd = Execd(cell)
    try:
        expected = {}
        for seconds, status in JOBS:
            out = cell.ok("qsub", "-b", "y", "-o", "/dev/null", "-j", "y",
                          "sleep", str(seconds), ";", "exit", str(status))
            expected[int(re.search(r"Your job (\d+) ", out).group(1))] = (seconds, status)

        # 1. While the first six jobs run.
        wait_for(lambda: len(execd.tasks("job.json")) >= 6, what="six jobs running")
        execd.kill()
        execd.start()

        # 2. Once some are accounted; jobs end while no execd runs, then the new one is
        # killed again before it can have settled, and started once more.
        wait_for(lambda: len(cell.accounting_lines()) >= 3, what="three jobs accounted")
        execd.kill()
        wait_for(lambda: [d for d in execd.tasks("exit.json")
                          if not (d / "report.json").exists()],
                 what="a job to end while no execd runs")
        execd.start()
        execd.kill()
        execd.start()

        # 3. With the long jobs still running and the last short ones being started.
        wait_for(lambda: len(cell.accounting_lines()) >= 7, what="seven jobs accounted")
        execd.kill()
        execd.start()

        wait_for(lambda: len(cell.accounting_lines()) >= len(JOBS), timeout=40,
                 what="every job accounted")
        # Every report acknowledged and forgotten: none can be sent again after this.
        wait_for(lambda: not execd.tasks(), what="execd's spool emptied")
        wait_for(lambda: cell.ok("qstat") == "", what="qstat empty")

        lines = cell.accounting_lines()
        assert len(lines) == len(JOBS)
        fields = {int(f[5]): f for f in (line.split(":") for line in lines)}
        assert sorted(fields) == sorted(expected)
        for job, (seconds, status) in expected.items():
            failed, exit_status, wallclock = fields[job][11], fields[job][12], fields[job][13]
            assert (failed, int(exit_status)) == ("0", status), f"job {job}: {fields[job]}"
            assert seconds - 0.5 <= float(wallclock) < seconds + 5, f"job {job}: {wallclock}"
        for job in (min(expected), max(expected)):
            out = cell.ok("qacct", "-j", str(job))
            assert re.search(rf"^exit_status\s+{expected[job][1]}\b", out, re.M), out
            assert re.search(r"^failed\s+0\s*$", out, re.M), out
        assert execd.restarts == 4

        cell.ok("gridd", "down")
        wait_for(lambda: not cell_processes(cell.root), timeout=15,
                 what="no process of the cell left")
    finally:
        for pid in cell_processes(cell.root):
            os.kill(pid, signal.SIGKILL)


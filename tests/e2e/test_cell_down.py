"""`gridd down` stops the daemons and leaves the jobs running, as Grid Engine's daemons do;
the next `gridd up` takes them over, and each is accounted once. `--kill-jobs` ends them.

The jobs wait for a file the test creates, so the test decides when they end; waits are
on conditions, never fixed.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from gridd.pidfile import alive
from tests.e2e.conftest import Cell, cell_processes, make_cell, wait_for
from tests.e2e.test_cell import submit

HOST = "node1"


@pytest.fixture
def one_host(tmp_path: Path) -> Iterator[Cell]:
    yield from make_cell(tmp_path, hosts=1, slots=2)


def waiting_job(cell: Cell, go: Path, status: int) -> int:
    """A job that runs until `go` exists, then exits with `status`."""
    return submit(cell, "-b", "y", "-shell", "n", "-o", "/dev/null", "-j", "y", "sh", "-c",
                  f"until [ -e {go} ]; do sleep 0.1; done; exit {status}")


def task_dir(cell: Cell, job: int) -> Path:
    return cell.root / "spool" / HOST / "active_jobs" / f"{job}.1"


def job_pid(cell: Cell, job: int) -> int:
    """The job's pid once its shepherd has started it, else 0."""
    try:
        return int(json.loads((task_dir(cell, job) / "job.json").read_text())["job_pid"])
    except (OSError, ValueError, KeyError):
        return 0


def records(cell: Cell, job: int) -> list[list[str]]:
    """The job's accounting lines, split into fields, once execd's spool is empty: every
    report acknowledged and forgotten, none can be sent again."""
    wait_for(lambda: not task_dir(cell, job).exists(), what="the report acknowledged")
    return [f for f in (line.split(":") for line in cell.accounting_lines())
            if int(f[5]) == job]


def state(cell: Cell, job: int) -> str:
    lines = [line.split() for line in cell.ok("qstat").splitlines()[2:]]
    return next((fields[4] for fields in lines if fields[0] == str(job)), "")


def test_a_running_job_outlives_gridd_down_and_gridd_up_takes_it_over(
        one_host: Cell, tmp_path: Path):
    cell, go = one_host, tmp_path / "go"
    job = waiting_job(cell, go, 3)
    pid = wait_for(lambda: job_pid(cell, job), what="the job running")
    daemons = cell.pids()

    out = cell.ok("gridd", "down")
    assert "1 job(s) left running" in out, out
    assert not [d for d in daemons if alive(d)]
    assert alive(pid)

    cell.ok("gridd", "up", "--load-report-time", "1")
    assert state(cell, job) == "r"
    assert alive(pid) and job_pid(cell, job) == pid  # the same process, taken over
    go.touch()
    wait_for(lambda: cell.accounting_lines(), what="the job accounted")
    [fields] = records(cell, job)
    assert (fields[11], fields[12]) == ("0", "3")  # failed, exit_status
    assert re.search(r"^exit_status\s+3\s*$", cell.ok("qacct", "-j", str(job)), re.M)


def test_a_job_that_ends_while_the_cell_is_down_is_accounted_once_after_up(
        one_host: Cell, tmp_path: Path):
    cell, go = one_host, tmp_path / "go"
    job = waiting_job(cell, go, 4)
    pid = wait_for(lambda: job_pid(cell, job), what="the job running")
    cell.ok("gridd", "down")
    go.touch()
    wait_for(lambda: (task_dir(cell, job) / "exit.json").exists(),
             what="the shepherd to record the job's end")
    assert not alive(pid) and not cell.accounting_lines()
    stopped = time.time()

    cell.ok("gridd", "up", "--load-report-time", "1")
    wait_for(lambda: cell.accounting_lines(), what="the job accounted")
    [fields] = records(cell, job)
    assert (fields[11], fields[12]) == ("0", "4")
    start, end = int(fields[9]), int(fields[10])
    assert start <= end <= stopped  # its real end, kept by the shepherd, not the take-over
    assert cell.ok("qstat") == ""


def test_gridd_down_kill_jobs_kills_them_and_the_kill_is_accounted_once(one_host: Cell):
    """The old way, as qconf -kej: execd kills its jobs before it ends; the kill is
    accounted once, by whichever execd gets the report through."""
    cell = one_host
    job = submit(cell, "-b", "y", "-o", "/dev/null", "-j", "y", "sleep", "300")
    pid = wait_for(lambda: job_pid(cell, job), what="the job running")
    out = cell.ok("gridd", "down", "--kill-jobs")
    assert "left running" not in out, out
    wait_for(lambda: not cell_processes(cell.root), timeout=15,
             what="no process of the cell left")
    assert not alive(pid)
    cell.ok("gridd", "up", "--load-report-time", "1")
    wait_for(lambda: cell.accounting_lines(), what="the job accounted")
    [fields] = records(cell, job)
    assert (fields[11], fields[12]) == ("100", "137")


def test_a_test_cell_torn_down_leaves_no_job_behind(tmp_path: Path):
    """The fixtures' teardown: `gridd down` leaves jobs, so it kills them by PID."""
    cells = make_cell(tmp_path, hosts=1, slots=1)
    cell = next(cells)
    job = submit(cell, "-b", "y", "-o", "/dev/null", "-j", "y", "sleep", "300")
    pid = wait_for(lambda: job_pid(cell, job), what="the job running")
    cells.close()
    assert not alive(pid)
    assert not cell_processes(cell.root)

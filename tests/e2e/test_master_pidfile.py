"""A second `gridd master` for a cell whose master runs refuses to start, and leaves the
running master's pid file alone (it used to remove it on its way out)."""

from __future__ import annotations

from tests.e2e.conftest import Cell


def test_a_second_master_refuses_and_keeps_the_pid_file(cell: Cell) -> None:
    pid = cell.master_pid()
    res = cell.run("gridd", "master", timeout=30)
    assert res.returncode != 0
    assert f"a master already runs for this cell (pid {pid})" in res.stderr
    assert cell.master_pid() == pid
    cell.ok("qstat", "-f")

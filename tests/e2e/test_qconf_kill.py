"""qconf -ke, -kej and -km through the real commands: daemons shut down as 8.1.9's do, in
its words. An execd told -ke leaves its jobs running for the next one to take over."""

from __future__ import annotations

import getpass
import os
import re

from gridd.pidfile import alive, read_pid
from tests.e2e.conftest import Cell, wait_for
from tests.e2e.test_cell import submit


def execd_pid(cell: Cell, host: str) -> int:
    return read_pid(cell.root / "spool" / host / "execd.pid")


def running(cell: Cell, job: int) -> bool:
    return any(line.split()[:1] == [str(job)] and " r " in line
               for line in cell.ok("qstat").splitlines())


def accounted(cell: Cell, job: int) -> dict[str, str]:
    res = cell.run("qacct", "-j", str(job))
    if res.returncode:
        return {}
    return {key: value.strip() for key, value in (
        re.split(r"\s+", line, maxsplit=1) for line in res.stdout.splitlines()[1:]
        if " " in line)}


def test_execds_and_the_master_shut_down_when_told(cell: Cell):
    kept = submit(cell, "-q", "all.q@node1", "-b", "y", "sleep", "4")
    killed = submit(cell, "-q", "all.q@node2", "-b", "y", "sleep", "300")
    wait_for(lambda: running(cell, kept) and running(cell, killed), what="both jobs to run")
    first, second = execd_pid(cell, "node1"), execd_pid(cell, "node2")

    told = cell.run("qconf", "-ke", "node1")
    assert (told.returncode, told.stderr) == (
        0, "sent shutdown notification to  execd host node1\n")
    wait_for(lambda: not alive(first), timeout=15, what="node1's execd to end")
    cell.ok("gridd", "up", "--load-report-time", "1")  # a new execd takes the job over
    done = wait_for(lambda: accounted(cell, kept), timeout=30, what="the job kept to end")
    assert (done["failed"], done["exit_status"]) == ("0", "0"), done

    told = cell.run("qconf", "-kej", "node2")
    assert (told.returncode, told.stderr) == (
        0, "sent shutdown notification to  execd host node2\n")
    wait_for(lambda: not alive(second), timeout=15, what="node2's execd to end")
    cell.ok("gridd", "up", "--load-report-time", "1")
    gone = wait_for(lambda: accounted(cell, killed), timeout=30, what="the job to be killed")
    assert gone["exit_status"] != "0", gone

    unknown = cell.run("qconf", "-ke", "nosuch")
    assert (unknown.returncode, unknown.stderr) == (
        1, "failed sending shutdown notification to unknown execd host nosuch\n")
    missing = cell.run("qconf", "-ke")
    assert (missing.returncode, missing.stderr) == (1, 'Need a hostname or the keyword "all"\n')

    master = cell.master_pid()
    told = cell.run("qconf", "-km")
    assert (told.returncode, told.stderr) == (
        0, f"{getpass.getuser()}@{os.uname().nodename} kills qmaster\n")
    wait_for(lambda: not alive(master), timeout=15, what="the master to end")

"""qmod through the real commands: queue instance states that stop dispatching, and
suspension that really stops a job's processes."""

from __future__ import annotations

import getpass
import os
import re
from pathlib import Path

from tests.e2e.conftest import Cell, wait_for
from tests.e2e.test_cell import submit

USER, HOST = getpass.getuser(), os.uname().nodename


def state_of(cell: Cell, job: int) -> str:
    for line in cell.ok("qstat").splitlines()[2:]:
        fields = line.split()
        if fields[0] == str(job):
            return fields[4]
    return ""


def instance_line(cell: Cell, name: str) -> str:
    full = cell.ok("qstat", "-f")
    match = re.search(rf"^{re.escape(name)} .*$", full, re.M)
    assert match, full
    return match.group(0)


def process_state(pid: int) -> str:
    return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]


def test_disabled_instances_take_no_jobs_until_enabled(cell: Cell):
    assert cell.ok("qmod", "-d", "all.q") == (
        f'{USER}@{HOST} changed state of "all.q@node1" (disabled)\n'
        f'{USER}@{HOST} changed state of "all.q@node2" (disabled)\n')
    again = cell.run("qmod", "-d", "all.q@node1")
    assert (again.returncode, again.stdout) == (
        0, 'Queue instance "all.q@node1" is already in the specified state: disabled\n')
    assert instance_line(cell, "all.q@node1").endswith(" d")
    job = submit(cell, "-b", "y", "true")
    info = wait_for(lambda: "dropped because it is disabled" in (
        out := cell.ok("qstat", "-j", str(job))) and out, what="scheduling info")
    assert 'queue instance "all.q@node2" dropped because it is disabled' in info
    assert state_of(cell, job) == "qw"
    cell.ok("qmod", "-e", "*@node2")
    wait_for(lambda: cell.run("qacct", "-j", str(job)).returncode == 0, what="job ran")
    bad = cell.run("qmod", "-d", "nosuch.q")
    assert (bad.returncode, bad.stdout) == (1, 'invalid queue "nosuch.q"\n')
    bad = cell.run("qmod", "-sj", "99999")
    assert (bad.returncode, bad.stdout) == (1, 'invalid queue or job "99999"\n')
    usage = cell.run("qmod", "-x", "all.q")
    assert usage.returncode == 1 and usage.stderr.endswith('invalid option argument "-x"\n')


def test_suspension_stops_and_continues_the_processes(cell: Cell, tmp_path: Path):
    pidfile = tmp_path / "pid"
    job = submit(cell, "-q", "all.q@node1", "-b", "y", "echo", "$$", ">", str(pidfile), ";",
                 "exec", "sleep", "60")
    wait_for(lambda: pidfile.exists() and pidfile.read_text().strip(), what="job started")
    pid = int(pidfile.read_text())
    wait_for(lambda: state_of(cell, job) == "r", what="running")

    assert cell.ok("qmod", "-s", str(job)) == f"{USER} - suspended job {job}\n"
    wait_for(lambda: process_state(pid) == "T", what="process stopped")
    assert state_of(cell, job) == "s"
    assert cell.ok("qmod", "-sj", str(job)) == f"{USER} - job {job} is already suspended\n"

    cell.ok("qmod", "-s", "all.q@node1")  # the queue too: "Ss"
    assert state_of(cell, job) == "Ss"
    assert instance_line(cell, "all.q@node1").endswith(" s")
    cell.ok("qmod", "-usj", str(job))
    assert state_of(cell, job) == "S"
    assert process_state(pid) == "T"  # still stopped by its queue
    cell.ok("qmod", "-us", "all.q@node1")
    wait_for(lambda: process_state(pid) != "T", what="process continued")
    assert state_of(cell, job) == "r"
    cell.ok("qdel", str(job))

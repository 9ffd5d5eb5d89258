"""A host lost and found again, with real daemons: node1's execd is stopped (SIGSTOP) past
a short max_unheard and continued (SIGCONT), a rerunnable and a non-rerunnable job on
it. qstat -f shows node1 unknown (u) and qhost its load as -; after reschedule_unknown
the rerunnable job runs again on node2 while the other is still shown running on node1;
once node1's execd goes on, the run it still had of the rerunnable job is killed there
(it never comes to its end) and never accounted, and qacct shows each run once: the
rescheduled one (failed 25), the one on node2, the other job's."""

from __future__ import annotations

import os
import re
import signal
from collections.abc import Iterator
from pathlib import Path

import pytest

from gridd.pidfile import read_pid
from tests.e2e.conftest import Cell, make_cell, wait_for
from tests.e2e.test_cell import submit
from tests.e2e.test_hold import states


@pytest.fixture
def two_hosts(tmp_path: Path) -> Iterator[Cell]:
    yield from make_cell(tmp_path, hosts=2, slots=2)


def configure(cell: Cell, **values: str) -> None:
    """qconf -Mconf: the global configuration with these values changed."""
    lines = [line for line in cell.ok("qconf", "-sconf").splitlines()[1:]
             if line.strip() and line.split()[0] not in values]
    path = cell.root / "global"
    path.write_text("\n".join([*lines, *(f"{k} {v}" for k, v in values.items())]) + "\n")
    cell.ok("qconf", "-Mconf", str(path))


def instance_states(cell: Cell) -> dict[str, str]:
    """qstat -f's state column by queue instance ("" for none)."""
    found = {}
    for line in cell.ok("qstat", "-f").splitlines():
        fields = line.split()
        if fields and "@" in fields[0]:
            found[fields[0]] = fields[5] if len(fields) > 5 else ""
    return found


def where(cell: Cell) -> dict[int, str]:
    """The queue instance each running job is in."""
    found = {}
    for line in cell.ok("qstat").splitlines()[2:]:
        fields = line.split()
        if "@" in line:
            found[int(fields[0])] = fields[7]
    return found


def host_load(cell: Cell, host: str) -> str:
    """qhost's LOAD column for a host."""
    header, *rows = cell.ok("qhost").splitlines()
    column = header.split().index("LOAD")
    [row] = [r.split() for r in rows if r.split()[:1] == [host]]
    return row[column]


def records(cell: Cell, job: int) -> list[dict[str, str]]:
    """qacct -j's records of a job, each field by its name."""
    out = cell.ok("qacct", "-j", str(job))
    return [dict(re.findall(r"^(\w+)\s+(.*?)\s*$", block, re.M))
            for block in out.split("=" * 62) if block.strip()]


def test_a_host_stopped_past_max_unheard_is_unknown_and_reconciled_when_it_goes_on(
        two_hosts: Cell) -> None:
    cell = two_hosts
    configure(cell, max_unheard="0:0:5", reschedule_unknown="0:0:3")
    cell.ok("qmod", "-d", "all.q@node2")  # both jobs start on node1
    ended = cell.root / "ended"
    ended.mkdir()
    released = cell.root / "released"  # the rerun on node2 waits for it, not for 25 s
    job = ["-b", "y", "-o", "/dev/null", "-j", "y",
           "case", "$HOSTNAME", "in", "node2)", "until", "[", "-e", str(released), "];",
           "do", "sleep", "0.1;", "done", ";;", "*)", "sleep", "25", ";;", "esac", ";",
           "touch", f"{ended}/$JOB_ID.$HOSTNAME"]  # where each job's run came to its end
    rerun = submit(cell, "-r", "y", *job)
    kept = submit(cell, "-r", "n", *job)
    wait_for(lambda: where(cell) == {rerun: "all.q@node1", kept: "all.q@node1"},
             what="both jobs running on node1")
    cell.ok("qmod", "-e", "all.q@node2")
    execd = read_pid(cell.root / "spool" / "node1" / "execd.pid")
    os.kill(execd, signal.SIGSTOP)
    try:
        wait_for(lambda: "u" in instance_states(cell)["all.q@node1"], timeout=20,
                 what="node1 unknown")
        wait_for(lambda: where(cell).get(rerun) == "all.q@node2", timeout=20,
                 what="the rerunnable job running on node2")
        assert states(cell)[str(rerun)] == "Rr"
        assert where(cell)[kept] == "all.q@node1" and states(cell)[str(kept)] == "r"
        assert "u" in instance_states(cell)["all.q@node1"]
        assert host_load(cell, "node1") == "-" != host_load(cell, "node2")
        released.touch()
    finally:
        os.kill(execd, signal.SIGCONT)
    wait_for(lambda: "u" not in instance_states(cell)["all.q@node1"], timeout=20,
             what="node1 up again")
    wait_for(lambda: cell.ok("qstat") == "", timeout=60, what="both jobs done")
    wait_for(lambda: len(cell.accounting_lines()) == 3, what="three runs accounted")
    first, second = records(cell, rerun)
    assert (first["hostname"], first["failed"]) == ("node1", "25  : rescheduling")
    assert (second["hostname"], second["failed"], second["exit_status"]) == ("node2", "0", "0")
    [only] = records(cell, kept)
    assert (only["hostname"], only["failed"], only["exit_status"]) == ("node1", "0", "0")
    assert len(cell.accounting_lines()) == 3
    assert sorted(p.name for p in ended.iterdir()) == [f"{rerun}.node2", f"{kept}.node1"]

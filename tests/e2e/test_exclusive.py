"""Exclusive scheduling through the real commands, as on 8.1.9 (run here): a complex
`exclusive excl BOOL EXCL YES YES 0 1000`, exclusive=true on the hosts; a job asking for it
gets a host to itself, and the others keep off that host meanwhile."""

from __future__ import annotations

from pathlib import Path

from tests.e2e.conftest import Cell, wait_for
from tests.e2e.test_cell import submit


def running_on(cell: Cell) -> dict[int, str]:
    out = {}
    for line in cell.ok("qstat", "-s", "r").splitlines()[2:]:
        fields = line.split()
        out[int(fields[0])] = fields[7].partition("@")[2]
    return out


def test_an_exclusive_job_gets_a_host_to_itself(cell: Cell, tmp_path: Path):
    table = tmp_path / "complexes"
    table.write_text(cell.ok("qconf", "-sc")
                     + "exclusive excl BOOL EXCL YES YES 0 1000\n")
    cell.ok("qconf", "-Mc", str(table))
    for host in ("node1", "node2"):
        cell.ok("qconf", "-aattr", "exechost", "complex_values", "exclusive=true", host)
    plain = submit(cell, "-q", "all.q@node1", "-b", "y", "sleep", "300")
    wait_for(lambda: running_on(cell).get(plain) == "node1", what="the plain job to run")
    alone = submit(cell, "-l", "exclusive=true", "-b", "y", "sleep", "300")
    wait_for(lambda: running_on(cell).get(alone) == "node2", what="the exclusive job on node2")
    waiting = submit(cell, "-l", "exclusive=true", "-b", "y", "true")
    other = submit(cell, "-q", "all.q@node2", "-b", "y", "true")
    info = wait_for(lambda: "already in use" in (out := cell.ok("qstat", "-j", str(other)))
                    and out, what="the reason the plain job waits")
    assert ('(-l NONE) cannot run at host "node2" because for default request exclusive '
            "resource (exclusive) is already in use") in info
    info = cell.ok("qstat", "-j", str(waiting))
    assert ('(-l exclusive=true) cannot run at host "node1" because exclusive resource (exclusive) '
            "is already in use") in info
    shown = cell.ok("qstat", "-F", "exclusive", "-q", "all.q@node2")
    assert "\thc:exclusive=0.000000\n" in shown
    assert "\thc:exclusive=1.000000\n" in cell.ok("qstat", "-F", "exclusive", "-q",
                                                  "all.q@node1")

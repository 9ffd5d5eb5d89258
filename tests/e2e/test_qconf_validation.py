"""Bad configuration values are refused through the real qconf, in 8.1.9's words, and
leave the cell as it was, spool included (issue 29, items 3 to 5)."""

from __future__ import annotations

import os
import re
import signal
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.e2e.conftest import Cell, make_cell, wait_for


@pytest.fixture(scope="module")
def quiet_cell(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cell]:
    """One cell for the tests whose every change is refused."""
    yield from make_cell(tmp_path_factory.mktemp("quiet"), hosts=1, slots=1)


def _replaced(shown: str, attr: str, value: str) -> str:
    return re.sub(rf"^{attr} +.*$", f"{attr} {value}", shown, count=1, flags=re.M)


def _views(cell: Cell) -> list[str]:
    return [cell.ok("qconf", *argv) for argv in (
        ["-ssconf"], ["-sconf"], ["-sc"], ["-sq", "all.q"], ["-se", "global"])]


def test_scheduler_and_global_values_not_of_their_type(quiet_cell: Cell, tmp_path: Path):
    cell = quiet_cell
    before = _views(cell)
    sched = tmp_path / "sched"
    sched.write_text(_replaced(before[0], "max_reservation", "lots"))
    res = cell.run("qconf", "-Msconf", str(sched))
    assert (res.returncode, res.stderr) == (
        1, 'error: error parsing unsigned long value from string "lots"\n'
           f'error: error reading file: "{sched}"\nerror reading in file\n')
    sched.write_text(_replaced(before[0], "schedule_interval", "soon"))
    res = cell.run("qconf", "-Msconf", str(sched))
    assert (res.returncode, res.stderr) == (
        1, 'error: attribute "schedule_interval" is not a time value\nerror reading in file\n')
    conf = tmp_path / "global"
    conf.write_text(_replaced(before[1], "max_u_jobs", "many"))
    res = cell.run("qconf", "-Mconf", str(conf))
    assert (res.returncode, res.stderr) == (
        1, 'format error for "max_u_jobs" in "many" configuration\n')
    editor = tmp_path / "edit.sh"  # -mconf sends what the editor left as -Mconf's file
    editor.write_text("#!/bin/sh\nsed -i 's/^loglevel .*/loglevel many/' \"$1\"\n")
    editor.chmod(0o755)
    res = cell.run("qconf", "-mconf", env=dict(cell.env, EDITOR=str(editor)))
    assert (res.returncode, res.stderr) == (1, 'denied: got invalid value "many" for loglevel\n')
    assert _views(cell) == before


def test_complex_values_and_removals_are_checked_against_the_complexes(cell: Cell,
                                                                      tmp_path: Path):
    table = tmp_path / "sc"
    default = cell.ok("qconf", "-sc")
    table.write_text(default + "license lic INT <= YES YES 0 0\n")
    cell.ok("qconf", "-Mc", str(table))
    # complexes.txt: an INT complex refuses text
    res = cell.run("qconf", "-mattr", "queue", "complex_values", "license=abc", "all.q")
    assert (res.returncode, res.stdout, res.stderr) == (
        1, "", 'attribute "license" is not a integer value\n')
    cell.ok("qconf", "-mattr", "exechost", "complex_values", "license=5", "global")
    job = cell.ok("qsub", "-terse", "-h", "-l", "lic=1", "-b", "y", "true").strip()
    before = _views(cell)
    # complexes.txt: a complex still named is not removed
    table.write_text(default)
    res = cell.run("qconf", "-Mc", str(table))
    assert (res.returncode, res.stderr) == (
        1, 'denied: Complex attribute "license" is still referenced in host "global".\n')
    # nothing went to the spool: a master started afresh shows the same
    os.kill(cell.master_pid(), signal.SIGKILL)
    wait_for(lambda: cell.run("qstat").returncode != 0, what="master gone")
    cell.start_master()
    wait_for(lambda: cell.run("qconf", "-sc").returncode == 0, what="master back")
    assert _views(cell) == before
    cell.ok("qconf", "-dattr", "exechost", "complex_values", "license", "global")
    res = cell.run("qconf", "-Mc", str(table))
    assert (res.returncode, res.stderr) == (
        1, f'denied: Complex attribute "license" is still referenced in job "{job}".\n')
    cell.ok("qdel", job)
    res = cell.run("qconf", "-Mc", str(table))
    assert res.returncode == 0 and 'removed "license" from complex list' in res.stderr
    cell.ok("qconf", "-mattr", "queue", "slots", "3", "all.q")  # the cell goes on

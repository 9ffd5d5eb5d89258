"""`gridd spool` on a real cell of either method: check and backup while the master
runs, restore and convert once it is stopped (and refused while it runs)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.e2e.conftest import Cell, make_cell

OTHER = {"sqlite": "classic", "classic": "sqlite"}


@pytest.fixture(params=["sqlite", "classic"])
def spooled_cell(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Cell]:
    yield from make_cell(tmp_path, hosts=1, slots=2, spooling_method=request.param)


def held_job(cell: Cell, name: str) -> int:
    out = cell.ok("qsub", "-h", "-b", "y", "-N", name, "sleep", "100")
    return int(re.search(r"Your job (\d+)", out).group(1))


def job_names(cell: Cell) -> set[str]:
    lines = cell.ok("qstat").splitlines()[2:]
    return {line.split()[2] for line in lines}


def queue_slots(cell: Cell) -> str:
    return re.search(r"^slots\s+(\S+)", cell.ok("qconf", "-sq", "all.q"), re.M).group(1)


def test_backup_while_running_then_restore_and_convert(spooled_cell: Cell, tmp_path: Path):
    cell = spooled_cell
    method = (cell.root / "spool" / "qmaster" / "spooling_method").read_text().strip()
    for name in ("one", "two", "three"):
        held_job(cell, name)
    cell.ok("qconf", "-mattr", "queue", "slots", "5", "all.q")
    assert f"({method})" in cell.ok("gridd", "spool", "check")
    backup = tmp_path / "backup"
    assert "backed up" in cell.ok("gridd", "spool", "backup", str(backup))
    refused = cell.run("gridd", "spool", "backup", str(backup))
    assert refused.returncode == 1 and "not empty" in refused.stderr

    held_job(cell, "later")  # after the backup: gone once it is restored
    cell.ok("qconf", "-mattr", "queue", "slots", "7", "all.q")
    for action in (["restore", str(backup)], ["convert", "--to", OTHER[method]]):
        refused = cell.run("gridd", "spool", *action)
        assert refused.returncode == 1 and "stop it first" in refused.stderr

    cell.ok("gridd", "down")
    cell.ok("gridd", "spool", "restore", str(backup))
    cell.ok("gridd", "up")
    assert job_names(cell) == {"one", "two", "three"}
    assert queue_slots(cell) == "5"
    assert held_job(cell, "four") == 4  # the backup's next id: "later" had it, and is gone

    cell.ok("gridd", "down")
    assert "converted" in cell.ok("gridd", "spool", "convert", "--to", OTHER[method])
    assert f"({OTHER[method]})" in cell.ok("gridd", "spool", "check")
    cell.ok("gridd", "up")
    assert job_names(cell) == {"one", "two", "three", "four"}
    assert queue_slots(cell) == "5"
    assert not (cell.root / "spool" / "qmaster" / method).exists()

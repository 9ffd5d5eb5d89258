"""DRMAA fixtures: gridd's libdrmaa (as `gridd drmaa-library` names it) on a real cell that
a module's tests share, each test leaving it as it found it (its jobs ended)."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.e2e.conftest import BIN, Cell, make_cell


@pytest.fixture(scope="session")
def libdrmaa() -> Path:
    """The library of this installation (the Makefile's editable install builds it)."""
    out = subprocess.run([str(BIN / "gridd"), "drmaa-library"], capture_output=True,
                         text=True, check=True).stdout.strip()
    return Path(out)


@pytest.fixture(scope="module")
def drmaa_cell(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cell]:
    """One host with 4 slots, for a module's DRMAA programs."""
    yield from make_cell(tmp_path_factory.mktemp("drmaa"), hosts=1, slots=4)


@pytest.fixture
def drmaa_env(drmaa_cell: Cell, libdrmaa: Path) -> dict[str, str]:
    """The environment of a DRMAA program on the cell."""
    return dict(drmaa_cell.env, DRMAA_LIBRARY_PATH=str(libdrmaa))

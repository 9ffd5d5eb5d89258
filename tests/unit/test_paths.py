"""Where the commands find their cell: GRIDD_ROOT, else Grid Engine's SGE_ROOT/SGE_CELL."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from gridd import paths, sge_root

VARIABLES = ("GRIDD_ROOT", "SGE_ROOT", "SGE_CELL", "HOME")


@pytest.mark.parametrize(("environment", "root", "origin"), [
    ({}, "/home/ann/.gridd", "the default ~/.gridd"),
    ({"GRIDD_ROOT": "/cells/a"}, "/cells/a", "$GRIDD_ROOT"),
    ({"GRIDD_ROOT": "/cells/a/", "SGE_ROOT": "/sge", "SGE_CELL": "b"}, "/cells/a",
     "$GRIDD_ROOT"),
    ({"GRIDD_ROOT": "", "SGE_ROOT": "/sge", "SGE_CELL": "b"}, "/sge/b", "$SGE_ROOT/$SGE_CELL"),
    ({"SGE_ROOT": "/sge"}, "/sge/default", "$SGE_ROOT/$SGE_CELL"),
    ({"SGE_ROOT": "/sge", "SGE_CELL": ""}, "/sge/default", "$SGE_ROOT/$SGE_CELL"),
    ({"SGE_CELL": "b"}, "/home/ann/.gridd", "the default ~/.gridd"),
    ({"SGE_ROOT": "", "SGE_CELL": "b"}, "/home/ann/.gridd", "the default ~/.gridd"),
])
def test_root_dir_by_the_environment(monkeypatch: pytest.MonkeyPatch,
                                     environment: dict[str, str], root: str,
                                     origin: str) -> None:
    for name in VARIABLES:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HOME", "/home/ann")
    for name, value in environment.items():
        monkeypatch.setenv(name, value)
    assert paths.root_dir() == root
    assert paths.root() == Path(root)
    assert paths.root_origin() == origin


def test_a_relative_root_is_taken_from_the_working_directory(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("GRIDD_ROOT", raising=False)
    monkeypatch.setenv("SGE_ROOT", "sge")
    monkeypatch.setenv("SGE_CELL", "c")
    assert paths.root_dir() == str(tmp_path / "sge" / "c")


@pytest.mark.parametrize("name", ["gridd", ".gridd", "default"])
def test_the_cell_variables_of_a_job_name_its_cell(monkeypatch: pytest.MonkeyPatch,
                                                   tmp_path: Path, name: str) -> None:
    """A job's SGE_ROOT/SGE_CELL lead its own q* commands back to the cell, as do they for
    a wrapper that passes on only those (GRIDD_ROOT outranks them: it names the cell too).
    SGE_ROOT is inside the root (gridd.sge_root makes it), its SGE_CELL default a link back."""
    root = tmp_path / name
    root.mkdir()
    variables = paths.cell_variables(str(root))
    assert variables == {"GRIDD_ROOT": str(root), "SGE_ROOT": str(root / "sge"),
                         "SGE_CELL": "default"}
    assert sge_root.make(str(root), {}, "lx-amd64") == []
    monkeypatch.delenv("GRIDD_ROOT", raising=False)
    monkeypatch.setenv("SGE_ROOT", variables["SGE_ROOT"])
    monkeypatch.setenv("SGE_CELL", variables["SGE_CELL"])
    assert paths.root_dir() == str(root / "sge" / "default")
    assert os.path.samefile(paths.root_dir(), root)


def test_a_grid_engine_cell_is_told_apart(tmp_path: Path) -> None:
    """The C implementation's cell holds common/act_qmaster and common/bootstrap; a gridd
    cell holds neither (its files are master_endpoint and bootstrap.json)."""
    assert paths.grid_engine_cell(tmp_path) is None
    (tmp_path / "common").mkdir()
    (tmp_path / "common" / "bootstrap.json").write_text("{}")
    (tmp_path / "common" / "master_endpoint").write_text("tcp://127.0.0.1:1\n")
    assert paths.grid_engine_cell(tmp_path) is None
    (tmp_path / "common" / "bootstrap").write_text("admin_user sgeadmin\n")
    assert paths.grid_engine_cell(tmp_path) == str(tmp_path / "common" / "bootstrap")
    (tmp_path / "common" / "act_qmaster").write_text("vm\n")
    assert paths.grid_engine_cell(tmp_path) == str(tmp_path / "common" / "act_qmaster")

"""The jobs' $SGE_ROOT inside the cell's root: bin/<arc>/ links to the commands and the
cell link back to the root, made again and again and by several machines sharing it."""

from __future__ import annotations

import os
from pathlib import Path

from gridd import sge_root

ARC = "lx-amd64"


def test_arch_names() -> None:
    assert sge_root.arch_name("x86_64") == "lx-amd64"
    assert sge_root.arch_name("aarch64") == "lx-arm64"
    assert sge_root.arch_name("riscv64") == "lx-riscv64"


def commands(where: Path, *names: str) -> dict[str, str]:
    """Stand-ins for an installation's console scripts."""
    where.mkdir(parents=True, exist_ok=True)
    for name in names:
        (where / name).write_text("#!/bin/sh\n")
        (where / name).chmod(0o755)
    return {name: str(where / name) for name in names}


def test_the_links_lead_to_the_commands_and_the_cell(tmp_path: Path) -> None:
    root = tmp_path / "root"
    mine = commands(tmp_path / "venv" / "bin", "qrsh", "qsub")
    assert sge_root.make(str(root), mine, ARC) == []
    assert os.readlink(root / "sge" / "default") == ".."
    assert (root / "sge" / "default").resolve() == root.resolve()
    for name, target in mine.items():
        assert os.readlink(root / "sge" / "bin" / ARC / name) == target
        assert os.access(root / "sge" / "bin" / ARC / name, os.X_OK)
    assert sge_root.bin_dir(str(root), ARC) == str(root / "sge" / "bin" / ARC)
    # again: nothing changes, nothing said
    assert sge_root.make(str(root), mine, ARC) == []
    assert sorted(os.listdir(root / "sge" / "bin" / ARC)) == ["qrsh", "qsub"]


def test_another_machines_links_are_kept_unless_they_lead_nowhere_here(tmp_path: Path) -> None:
    """A shared root: the first machine's links stay while they work here; a link to an
    installation this machine lacks is replaced, and what is not a link is left alone."""
    root = tmp_path / "root"
    theirs = commands(tmp_path / "theirs", "qrsh", "qstat")
    assert sge_root.make(str(root), theirs, ARC) == []
    bin_dir = root / "sge" / "bin" / ARC
    os.symlink(tmp_path / "gone" / "qsub", bin_dir / "qsub")  # another machine's path
    (bin_dir / "qdel").write_text("#!/bin/sh\n# the administrator's own\n")
    mine = commands(tmp_path / "mine", "qrsh", "qsub", "qdel", "qstat", "qhost")
    assert sge_root.make(str(root), mine, ARC) == []
    assert {name: os.readlink(bin_dir / name) for name in ("qrsh", "qstat", "qsub", "qhost")} == {
        "qrsh": theirs["qrsh"], "qstat": theirs["qstat"], "qsub": mine["qsub"],
        "qhost": mine["qhost"]}
    assert (bin_dir / "qdel").read_text().endswith("own\n")
    assert sorted(os.listdir(bin_dir)) == ["qdel", "qhost", "qrsh", "qstat", "qsub"]


def test_what_cannot_be_made_is_said_and_the_rest_made(tmp_path: Path) -> None:
    root = tmp_path / "root"
    (root / "sge" / "default").mkdir(parents=True)  # not the link: left as it is
    mine = commands(tmp_path / "venv", "qrsh")
    assert sge_root.make(str(root), mine, ARC) == [
        f"{root}/sge/default is not a link to ..: $SGE_ROOT/$SGE_CELL in a job does not "
        "lead to the cell"]
    assert os.readlink(root / "sge" / "bin" / ARC / "qrsh") == mine["qrsh"]
    blocked = tmp_path / "blocked"
    blocked.mkdir()
    (blocked / "sge").write_text("a file where the directory goes\n")
    problems = sge_root.make(str(blocked), mine, ARC)
    assert len(problems) == 1 and problems[0].startswith(
        f"cannot make {blocked}/sge/bin/{ARC} ("), problems
    assert problems[0].endswith("): jobs find no $SGE_ROOT/bin/$ARC commands")


def test_own_commands_are_this_installations_console_scripts() -> None:
    found = sge_root.own_commands()
    assert {"qsub", "qstat", "qacct", "gridd"} <= set(found)
    for path in found.values():
        assert os.access(path, os.X_OK), path

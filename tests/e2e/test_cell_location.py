"""The commands find their cell by Grid Engine's SGE_ROOT and SGE_CELL when GRIDD_ROOT is
unset (wrappers such as batchspawner pass on only those), and leave a cell of Grid Engine
itself alone: its settings.sh sets them too."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
from pathlib import Path

from gridd.pidfile import gridd_alive, read_pid
from tests.e2e.conftest import BIN, Cell, wait_for


def sge_environment(base: dict[str, str], sge_root: Path, cell: str) -> dict[str, str]:
    env = {name: value for name, value in base.items() if name != "GRIDD_ROOT"}
    env.update(SGE_ROOT=str(sge_root), SGE_CELL=cell)
    return env


def test_the_commands_and_a_job_find_the_cell_by_sge_root_and_sge_cell(cell: Cell):
    """Only SGE_ROOT/SGE_CELL name the cell; the job submits a job of its own with them
    alone (GRIDD_ROOT taken out), and it reaches the same cell."""
    env = sge_environment(cell.env, cell.root.parent, cell.root.name)
    inner = f"env -u GRIDD_ROOT {BIN}/qsub -terse -b y -N inner -o /dev/null -j y true"
    out = cell.ok("qsub", "-b", "y", "-N", "outer", "-cwd", "-o", "outer.out", "-j", "y",
                  *inner.split(), env=env)
    assert out.startswith('Your job 1 ("outer") has been submitted'), out
    wait_for(lambda: len(cell.accounting_lines()) == 2, what="both jobs accounted")
    assert (cell.root / "outer.out").read_text() == "2\n"
    assert "jobname      inner" in cell.ok("qacct", "-j", "2", env=env)
    assert cell.ok("qstat", env=env) == ""


def test_a_grid_engine_cell_is_left_alone(tmp_path: Path):
    """SGE_ROOT/SGE_CELL of a Grid Engine installation: the q* commands say there is no
    gridd cell there, and gridd writes nothing into it nor stops what runs there (a
    process stands for its qmaster)."""
    ge_cell = tmp_path / "gridengine" / "default"
    (ge_cell / "common").mkdir(parents=True)
    (ge_cell / "common" / "act_qmaster").write_text("vm\n")
    (ge_cell / "common" / "bootstrap").write_text("admin_user sgeadmin\n")
    (ge_cell / "spool" / "qmaster").mkdir(parents=True)
    qmaster = subprocess.Popen(["sleep", "300"])
    (ge_cell / "spool" / "qmaster" / "qmaster.pid").write_text(f"{qmaster.pid}\n")
    before = sorted(ge_cell.rglob("*"))
    env = sge_environment(dict(os.environ, HOME=str(tmp_path)), tmp_path / "gridengine",
                          "default")

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([str(BIN / args[0]), *args[1:]], env=env, cwd=tmp_path,
                              capture_output=True, text=True, timeout=60)

    try:
        for command in (("qstat",), ("qsub", "-b", "y", "true"), ("qconf", "-sql"),
                        ("qacct", "-j")):
            res = run(*command)
            assert (res.returncode, res.stdout) == (1, ""), (command, res)
            assert (f"error: no gridd cell at {ge_cell}, found by $SGE_ROOT/$SGE_CELL: it "
                    f"holds a cell of Grid Engine itself ({ge_cell}/common/act_qmaster); set "
                    "GRIDD_ROOT to the directory of your gridd cell\n") in res.stderr, res
        for command in (("gridd", "up"), ("gridd", "down"), ("gridd", "keys", "user", "ann"),
                        ("gridd", "status")):
            res = run(*command)
            assert (res.returncode, res.stdout) == (1, ""), (command, res)
            assert res.stderr == (
                f"gridd: {ge_cell} (found by $SGE_ROOT/$SGE_CELL) holds a cell of Grid Engine "
                f"itself ({ge_cell}/common/act_qmaster): gridd leaves it alone; set "
                "GRIDD_ROOT to a directory for a gridd cell\n"), (command, res.stderr)
        assert sorted(ge_cell.rglob("*")) == before
        assert qmaster.poll() is None
        # its accounting loaded into a database of one's own is no harm to it
        shutil.copy(Path(__file__).parents[1] / "data" / "sge-8.1.9" / "accounting",
                    ge_cell / "common" / "accounting")
        res = run("gridd", "dbwriter", str(ge_cell / "common" / "accounting"),
                  "--db", str(tmp_path / "ge.duckdb"))
        assert res.returncode == 0 and "(28 accounting)" in res.stderr, res
    finally:
        qmaster.kill()
        qmaster.wait()
        for pidfile in ge_cell.glob("spool/*/*.pid"):  # what a gridd up that was not
            pid = read_pid(pidfile)                      # refused would have started
            if gridd_alive(pid):
                os.kill(pid, signal.SIGKILL)

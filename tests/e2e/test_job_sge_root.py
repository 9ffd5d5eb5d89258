"""The SGE_ROOT a job sees on a cell `gridd up` made: $GRIDD_ROOT/sge, whose bin/$ARC holds
the cell's commands (first on the job's PATH after TMPDIR) and whose $SGE_CELL leads back
to the root; made again at the next start where a link leads nowhere (another machine's
installation on a shared root), and left as it is otherwise."""

from __future__ import annotations

import os

from gridd.sge_root import arch_name
from tests.e2e.conftest import BIN, Cell, wait_for

SCRIPT = """\
#!/bin/sh
unset GRIDD_ROOT
echo "root=$SGE_ROOT cell=$SGE_CELL arc=$ARC"
echo "qsub=$(command -v qsub)"
echo "cellroot=$(cd "$SGE_ROOT/$SGE_CELL" && pwd -P)"
qsub -terse -b y -o /dev/null -j y true
"""


def test_a_job_finds_the_cells_commands_and_the_cell_by_sge_root(cell: Cell) -> None:
    arc = arch_name()
    bin_dir = cell.root / "sge" / "bin" / arc
    assert os.readlink(bin_dir / "qsub") == str(BIN / "qsub")
    assert os.readlink(cell.root / "sge" / "default") == ".."
    cell.ok("qsub", "-cwd", "-o", "job.out", "-j", "y", input=SCRIPT)
    wait_for(lambda: len(cell.accounting_lines()) == 2, what="the job and its own accounted")
    lines = (cell.root / "job.out").read_text().splitlines()
    assert lines == [f"root={cell.root}/sge cell=default arc={arc}", f"qsub={bin_dir}/qsub",
                     f"cellroot={cell.root.resolve()}", "2"]


def test_links_leading_nowhere_are_made_again_at_the_next_start(cell: Cell) -> None:
    """Another machine's links (to a path this one lacks) give way to this machine's;
    a link that works, or a file of the administrator's, stays."""
    bin_dir = cell.root / "sge" / "bin" / arch_name()
    (bin_dir / "qstat").unlink()
    os.symlink("/nonexistent/venv/bin/qstat", bin_dir / "qstat")
    (bin_dir / "qdel").unlink()
    (bin_dir / "qdel").write_text("#!/bin/sh\n# the administrator's own\n")
    cell.ok("gridd", "down")
    cell.ok("gridd", "up")
    assert os.readlink(bin_dir / "qstat") == str(BIN / "qstat")
    assert (bin_dir / "qdel").read_text().endswith("own\n")
    assert os.readlink(bin_dir / "qsub") == str(BIN / "qsub")

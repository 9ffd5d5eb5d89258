"""qsub -masterq and qalter -masterq through the real commands, with 8.1.9's lines (run
here with reference/sge-8.1.9/start.sh): the master task of a parallel job starts in a
queue of its master list, the other slots where the PE's rule puts them."""

from __future__ import annotations

import re
from pathlib import Path

from tests.e2e.conftest import Cell, wait_for
from tests.e2e.test_cell import submit


def test_the_master_task_starts_in_a_queue_of_its_master_list(cell: Cell,
                                                              tmp_path: Path) -> None:
    big = re.sub(r"^seq_no .*$", "seq_no                1",
                 cell.ok("qconf", "-sq", "all.q").replace("all.q", "big.q", 1), flags=re.M)
    (tmp_path / "big.q").write_text(big)
    cell.ok("qconf", "-Aq", str(tmp_path / "big.q"))

    sequential = cell.run("qsub", "-b", "y", "-masterq", "big.q", "true")
    assert (sequential.returncode, sequential.stderr) == (1, (
        "Unable to run job: job rejected: specification of master queue is not allowed for "
        "non-parallel jobs\nExiting.\n"))
    unknown = cell.run("qsub", "-b", "y", "-pe", "mpi", "2", "-masterq", "no.q", "true")
    assert (unknown.returncode, unknown.stderr) == (1, (
        'Unable to run job: Job was rejected because job requests unknown queue "no.q"\n'
        "Exiting.\n"))

    # mpi fills up: the master task takes big.q@node2 (last in planning order), the two
    # other slots all.q@node1, the first.
    job = submit(cell, "-pe", "mpi", "3", "-masterq", "big.q@node2", "-b", "y", "sleep", "60")
    wait_for(lambda: "Master Queue:     big.q@node2" in cell.ok("qstat", "-r"),
             what="job running")
    full = cell.ok("qstat", "-f")
    assert re.search(rf"^all\.q@node1 .*\n +{job} .* 2 +$", full, re.M), full
    assert re.search(rf"^big\.q@node2 .*\n +{job} .* 1 +$", full, re.M), full
    assert "master hard queue_list:     big.q@node2\n" in cell.ok("qstat", "-j", str(job))
    by_slot = [line.split()[-2:] for line in cell.ok("qstat", "-g", "t").splitlines()[2:]]
    assert by_slot == [["all.q@node1", "SLAVE"], ["all.q@node1", "SLAVE"],
                       ["big.q@node2", "MASTER"]]
    summary = cell.ok("qstat", "-g", "c").splitlines()
    assert [line.split()[0] for line in summary[2:]] == ["all.q", "big.q"]
    assert [line.split()[2:4] for line in summary[2:]] == [["2", "0"], ["1", "0"]]
    wrong = cell.run("qstat", "-g", "x")
    assert (wrong.returncode, wrong.stderr) == (1, "wrong character 'x' for -g option\n")

    assert cell.ok("qalter", "-masterq", "big.q", str(job)) == (
        f"modified master hard queue list of job {job}\n")
    refused = cell.run("qalter", "-masterq", "no.q", str(job))
    assert (refused.returncode, refused.stdout) == (  # on stdout, as 8.1.9 says it
        1, 'Job was rejected because job requests unknown queue "no.q"\n')
    cell.ok("qdel", str(job))

"""RSMAP on a real one-host cell, the issue's own check: with `gpu=2(0 1)` two `-l gpu=1`
jobs run at once with different ids in SGE_HGR_gpu and CUDA_VISIBLE_DEVICES and a third
waits; `qstat -j` shows the ids; they stay with their jobs across a master and an execd
restart, and the third job gets the id the first frees. Also what qconf refuses of RSMAP
values, in Open Cluster Scheduler's words, changing nothing."""

from __future__ import annotations

import json
import os
import signal
from collections.abc import Iterator
from pathlib import Path

import pytest

from gridd.pidfile import alive
from tests.e2e.conftest import Cell, make_cell, wait_for
from tests.e2e.test_cell import submit
from tests.e2e.test_qconf_kill import execd_pid

GPU_ROW = "gpu                 gpu        RSMAP     <=    YES         HOST       0        0\n"


@pytest.fixture(scope="module")
def cell1(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cell]:
    base = tmp_path_factory.mktemp("rsmap")
    for cell in make_cell(base, hosts=1, slots=4):
        table = base / "complexes"
        table.write_text(cell.ok("qconf", "-sc") + "gpu gpu RSMAP <= YES h 0 0\n")
        cell.ok("qconf", "-Mc", str(table))
        assert GPU_ROW in cell.ok("qconf", "-sc")  # the letter h is kept as HOST
        cell.ok("qconf", "-aattr", "exechost", "complex_values", "gpu=2(0 1)", "node1")
        yield cell


def refused(cell: Cell, *args: str) -> str:
    """What a refused command says (stdout and stderr), having checked it fails."""
    res = cell.run(*args)
    assert res.returncode != 0, (args, res)
    return res.stdout + res.stderr


def test_qconf_refuses_what_is_no_rsmap_value(cell1: Cell) -> None:
    cell = cell1
    before = cell.ok("qconf", "-se", "node1")
    assert "complex_values        gpu=2(0 1)" in before
    said = refused(cell, "qconf", "-mattr", "exechost", "complex_values", "gpu=4(0 1)", "node1")
    assert 'RSMAP "gpu" value "4(0 1)" has amount 4 but 2 elements' in said
    said = refused(cell, "qconf", "-mattr", "exechost", "complex_values", "gpu=2", "node1")
    assert 'the RSMAP value "2" needs to define IDs' in said
    said = refused(cell, "qconf", "-aattr", "queue", "complex_values", "gpu=1(7)", "all.q")
    assert 'RSMAP "gpu" cannot be offered by a queue' in said
    assert cell.ok("qconf", "-se", "node1") == before
    said = refused(cell, "qsub", "-b", "y", "-l", "gpu=1(0)", "true")
    assert 'attribute "gpu" is not a integer value' in said
    table = cell.root / "bad_complexes"
    table.write_text(cell.ok("qconf", "-sc") + "gpu2 gpu2 RSMAP <= YES NO 0 0\n")
    assert 'RSMAP complex "gpu2" needs to be a consumable' in refused(
        cell, "qconf", "-Mc", str(table))
    assert "gpu2" not in cell.ok("qconf", "-sc")


def gpu_job(cell: Cell, out: Path) -> int:
    """A job that writes its ids and holds them until its file `out.go` appears."""
    script = (f'echo "$SGE_HGR_gpu|$CUDA_VISIBLE_DEVICES" > {out}; '
              f"while [ ! -e {out}.go ]; do sleep 0.2; done")
    return submit(cell, "-b", "y", "-shell", "n", "-l", "gpu=1", "-o", "/dev/null", "-j", "y",
                  "sh", "-c", script)


def state(cell: Cell, job: int) -> str:
    for line in cell.ok("qstat").splitlines()[2:]:
        fields = line.split()
        if int(fields[0]) == job:
            return fields[4]
    return ""


def resource_map(cell: Cell, job: int) -> str:
    for line in cell.ok("qstat", "-j", str(job)).splitlines():
        if line.startswith("resource_map"):
            return line.partition(":")[2].strip()
    return ""


def test_two_gpu_jobs_run_with_their_own_ids_and_a_third_waits(cell1: Cell,
                                                               tmp_path: Path) -> None:
    cell = cell1
    outs = [tmp_path / f"ids{n}" for n in range(3)]
    first, second = gpu_job(cell, outs[0]), gpu_job(cell, outs[1])
    wait_for(lambda: all(out.exists() and out.read_text().strip() for out in outs[:2]),
             what="both jobs to write their ids")
    seen = [out.read_text().strip() for out in outs[:2]]
    assert sorted(seen) == ["0|0", "1|1"]
    third = gpu_job(cell, outs[2])
    wait_for(lambda: state(cell, third) == "qw", what="the third job to wait")
    ids = {job: seen[n].partition("|")[0] for n, job in enumerate((first, second))}
    for job, gpu in ids.items():
        assert resource_map(cell, job) == f"gpu=node1=({gpu})"
    assert "gpu=" in cell.ok("qstat", "-F", "gpu")  # none left: qstat -F shows hc:gpu=0
    # The ids stay with their jobs when the master and the execd start again.
    os.kill(cell.master_pid(), signal.SIGKILL)
    wait_for(lambda: cell.run("qstat").returncode != 0, what="the master to go")
    cell.start_master()
    wait_for(lambda: cell.run("qstat").returncode == 0, what="the master to come back")
    execd = execd_pid(cell, "node1")
    wait_for(lambda: cell.run("qconf", "-ke", "node1").returncode == 0,
             what="the master to know node1's execd again")
    wait_for(lambda: not alive(execd), timeout=15, what="node1's execd to end")
    cell.ok("gridd", "up", "--load-report-time", "1")
    for job, gpu in ids.items():
        assert resource_map(cell, job) == f"gpu=node1=({gpu})"
    assert state(cell, third) == "qw"
    # The first job ends: the third gets the id it held.
    (outs[0].parent / f"{outs[0].name}.go").touch()
    wait_for(lambda: outs[2].exists() and outs[2].read_text().strip(), timeout=40,
             what="the third job to run")
    assert outs[2].read_text().strip() == f"{ids[first]}|{ids[first]}"
    for out in outs[1:]:
        (out.parent / f"{out.name}.go").touch()
    wait_for(lambda: cell.ok("qstat") == "", what="the jobs to end")
    for args in (("qstat", "-json"), ("qhost", "-json"), ("qacct", "-j", str(first), "-json")):
        json.loads(cell.ok(*args))

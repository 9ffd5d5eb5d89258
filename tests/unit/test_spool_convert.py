"""`gridd spool convert` moves a cell of thousands of jobs to the other method and back
without changing one object.

A conversion is the one moment where every object of a cell passes through both methods'
encodings at once, so a field one method drops or a float it rounds shows up here as a
difference and not, months later, as a job that came back wrong after a restart. The
comparison is on msgpack encodings: equal only if types, float values and dict order are.

The suite converts 2,000 jobs whose ids are spread over 74,000 (so that the classic
method's job directories span several shards); bench/spool.py times 10,000. Creating the
classic method's files costs 0.1-0.5 ms each on this machine's ext4, which makes 10,000
jobs (20,000 files) a minute's test under load.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import msgspec
import pytest

from gridd.master.bootstrap import CellConfig, initial_config
from gridd.master.state import Effects, MasterState
from gridd.model.ar import AdvanceReservation, ArSpec
from gridd.model.job import JobSpec, Task, Usage, new_job
from gridd.model.report import ConfigRecord, JobRecord
from gridd.spool import admin
from gridd.spool.base import SpoolError
from gridd.spool.methods import DEFAULT, MARK, METHODS, choose, method_of, open_spool, set_method
from gridd.spool.records import records, restore
from gridd.spool.tracking import Tracker

JOBS = 2_000
ID_STEP = 37  # job ids 1, 38, 75, ...: several of the classic method's job shards
NOW = 1_700_000_000.125
BIN = Path(sys.executable).parent

_msgpack = msgspec.msgpack.Encoder()


def cell_state(jobs: int, id_step: int = 1) -> MasterState:
    """A cell of `jobs` jobs (ids 1, 1 + id_step, ...) of the shapes a spool meets: plain
    held and pending jobs; every 50th an array script job with a running task (usage
    floats, a grant) and a task id past 1,000 (the classic method's task buckets); plus an
    AR, an outbox entry with its report and a configuration record."""
    state = MasterState()
    initial_config(state, CellConfig(hosts=["node1", "node2"], slots=4, manager="admin",
                                      machine="head"))
    state.config.queues["all.q"].slots = "4,[node2=2]"
    job_ids = range(1, jobs * id_step + 1, id_step)
    for n, job_id in enumerate(job_ids, 1):
        if n % 50 == 0:
            spec = JobSpec(name=f"arr{job_id}", owner="bob", array=(1, 1201, 300),
                           hard_resources={"h_rt": "600"},
                           script="#!/bin/sh\necho $SGE_TASK_ID\n",
                           env={"PATH": "/usr/bin:/bin", "Z": "last", "A": "first"})
            job = new_job(job_id, spec, NOW + job_id / 7)
            job.tasks[301] = Task(task_id=301, state="r", start_time=NOW + job_id + 0.1,
                                  queue="all.q@node1", host="node1",
                                  granted=[("all.q@node1", 1)],
                                  usage=Usage(wallclock=12.75, utime=1 / 3, maxvmem=2.5e9))
        else:
            spec = JobSpec(name=f"job{job_id}", owner="alice", uid=1000, gid=100,
                           binary=True, command=["/bin/sleep", str(job_id % 60)],
                           hold=job_id % 3 == 0, priority=-(job_id % 1024))
            job = new_job(job_id, spec, NOW + job_id / 7)
        state.jobs[job_id] = job
    state.next_job_id = job_ids[-1] + 1
    array_job = job_ids[min(49, jobs - 1)]
    ar = AdvanceReservation(ar_id=1, spec=ArSpec(name="maint", owner="admin", start=NOW,
                                                 duration=7200.0),
                            submission_time=NOW, start=NOW, end=NOW + 7200,
                            granted=[("all.q@node2", 2)])
    state.ars = {1: ar}
    state.next_ar_id = 2
    state.outbox = {1: (array_job, 301 if jobs >= 50 else 0)}
    state.reports = {
        1: JobRecord(kind="new_job", time=NOW, job_id=array_job, task_id=-1,
                     name=f"arr{array_job}", owner="bob", group="users", project="",
                     department="defaultdepartment", account="sge", priority=0,
                     submission_time=NOW),
        2: ConfigRecord(time=NOW, kind="queue", key="all.q", body='{"qname": "all.q"}'),
    }
    state.next_seq = 3
    state.flags = {"all.q@node2": "d"}
    return state


def contents(objects: Iterator[tuple[str, str, object]]) -> dict[tuple[str, str], bytes]:
    """Objects by kind and key, each as msgpack; a (kind, key) read twice is a bug."""
    found: dict[tuple[str, str], bytes] = {}
    for kind, key, obj in objects:
        assert (kind, key) not in found, f"{kind} {key} read twice"
        found[(kind, key)] = _msgpack.encode(obj)
    return found


def spool_contents(spool_dir: Path) -> dict[tuple[str, str], bytes]:
    spool = open_spool(spool_dir)
    try:
        return contents(spool.read_all())
    finally:
        spool.close()


def fill(spool_dir: Path, method: str, state: MasterState) -> None:
    """A spool of `method` holding the state, written through the Spool API as a master
    would (in transactions), marked as the method in use."""
    set_method(spool_dir, method)
    spool = open_spool(spool_dir, method)
    try:
        admin.write_all(spool, list(records(state)))
    finally:
        spool.close()


@pytest.fixture(scope="module")
def state() -> MasterState:
    return cell_state(JOBS, ID_STEP)


@pytest.fixture(scope="module")
def expected(state: MasterState) -> dict[tuple[str, str], bytes]:
    return contents(records(state))


@pytest.mark.parametrize("start", METHODS)
def test_round_trip_of_2000_jobs(tmp_path: Path, start: str, state: MasterState,
                                  expected: dict[tuple[str, str], bytes]) -> None:
    other = next(m for m in METHODS if m != start)
    spool_dir = tmp_path / "qmaster"
    fill(spool_dir, start, state)
    assert spool_contents(spool_dir) == expected

    t0 = time.perf_counter()
    lines = admin.convert(spool_dir, other)
    there = time.perf_counter() - t0
    assert lines == [f"spool converted from {start} to {other}: {len(expected)} objects"]
    assert method_of(spool_dir) == other
    assert not (spool_dir / start).exists()  # the old spool goes once the new one is in use
    assert spool_contents(spool_dir) == expected

    t0 = time.perf_counter()
    admin.convert(spool_dir, start)
    back = time.perf_counter() - t0
    assert method_of(spool_dir) == start and not (spool_dir / other).exists()
    got = spool_contents(spool_dir)
    assert got == expected
    # and the objects still make the cell they came from
    spool = open_spool(spool_dir)
    try:
        restored = restore(spool.read_all())
    finally:
        spool.close()
    assert len(restored.jobs) == JOBS
    assert contents(records(restored)) == expected
    print(f"convert {start}->{other} {there:.2f} s, back {back:.2f} s")


@pytest.mark.parametrize("start", METHODS)
def test_a_task_removed_after_a_conversion_stays_removed(tmp_path: Path, start: str) -> None:
    """The master writes only what changed since it read the spool: after a conversion
    the job headers must hold no tasks, or a task the master deletes (qdel 50.301) would
    come back from the stale header at the next restart."""
    spool_dir = tmp_path / "qmaster"
    fill(spool_dir, start, cell_state(50))
    admin.convert(spool_dir, next(m for m in METHODS if m != start))
    spool = open_spool(spool_dir)
    try:
        state = restore(spool.read_all())
        tracker = Tracker(state)
        del state.jobs[50].tasks[301]
        tx = spool.prepare()
        tracker.fill(tx, state, Effects(dirty_jobs={50}), NOW)
        assert [(c.kind, c.key, c.obj) for c in tx.changes] == [("task", "50.301", None)]
        tx.commit()
        assert sorted(restore(spool.read_all()).jobs[50].tasks) == [1, 601, 901, 1201]
    finally:
        spool.close()


def test_converting_to_the_method_in_use_changes_nothing(tmp_path: Path) -> None:
    spool_dir = tmp_path / "qmaster"
    fill(spool_dir, "sqlite", cell_state(10))
    before = spool_contents(spool_dir)
    assert admin.convert(spool_dir, "sqlite") == ["spool is already sqlite"]
    assert spool_contents(spool_dir) == before


@pytest.mark.parametrize("start", METHODS)
def test_the_cli_converts_a_stopped_cell(tmp_path: Path, start: str) -> None:
    """`gridd spool convert --to` (the venv's own gridd) and `gridd spool check` after."""
    root = tmp_path / "cell"
    spool_dir = root / "spool" / "qmaster"
    fill(spool_dir, start, cell_state(50))
    expected = spool_contents(spool_dir)
    other = next(m for m in METHODS if m != start)
    env = dict(os.environ, GRIDD_ROOT=str(root))
    for to in (other, start):
        done = subprocess.run([str(BIN / "gridd"), "spool", "convert", "--to", to], env=env,
                              capture_output=True, text=True, timeout=60)
        assert done.returncode == 0, done.stderr
        assert (spool_dir / MARK).read_text().strip() == to
        assert spool_contents(spool_dir) == expected
        check = subprocess.run([str(BIN / "gridd"), "spool", "check"], env=env,
                               capture_output=True, text=True, timeout=60)
        assert check.returncode == 0, check.stderr
        assert f"({to})" in check.stdout and "50 jobs" in check.stdout


def test_a_spool_keeps_the_method_it_was_given(tmp_path: Path) -> None:
    assert choose(tmp_path / "new") == DEFAULT == method_of(tmp_path / "new")
    assert choose(tmp_path / "c", "classic") == "classic" == choose(tmp_path / "c")
    with pytest.raises(SpoolError, match="convert --to sqlite"):
        choose(tmp_path / "c", "sqlite")
    old = tmp_path / "old"
    old.mkdir()
    (old / "spool.db").write_bytes(b"")  # before there were methods: refused, not ignored
    with pytest.raises(SpoolError, match="earlier gridd"):
        choose(old)
    assert not (old / MARK).exists()

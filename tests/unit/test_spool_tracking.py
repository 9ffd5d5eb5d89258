"""Only what changed is spooled, and the state read back is the state spooled."""

from __future__ import annotations

import copy
import random
from collections import Counter

import msgspec
import pytest

from gridd import protocol as p
from gridd.master.bootstrap import CellConfig, initial_config
from gridd.master.state import Effects, MasterState
from gridd.model.job import Job, JobSpec, Task, new_job
from gridd.model.report import ConfigRecord
from gridd.model.rqs import RuleSet
from gridd.model.task_lifecycle import RUNNING, TRANSFERRING
from gridd.spool import tracking
from gridd.spool.base import Change, Spool, SpoolError, Transaction
from gridd.spool.records import records, restore
from gridd.spool.tracking import Tracker
from tests.unit.test_master_core import make_master, schedule, spec


class _Memory(Spool):
    """A spool in a dict: what the tracker writes, seen directly."""

    method = "memory"

    def __init__(self) -> None:
        self.objects: dict[tuple[str, str], object] = {}

    def write(self, changes: list[Change]) -> None:
        for change in changes:
            if change.obj is None:
                self.objects.pop((change.kind, change.key), None)
            else:  # a copy, as a spool on disk holds: the state's objects change on
                self.objects[(change.kind, change.key)] = copy.deepcopy(change.obj)

    def read_all(self):  # noqa: ANN201
        for (kind, key), obj in self.objects.items():
            yield kind, key, obj

    def backup(self, target) -> None:  # noqa: ANN001
        raise NotImplementedError

    def close(self) -> None:
        pass


def _cell() -> tuple[MasterState, _Memory, Tracker]:
    state = MasterState()
    initial_config(state, CellConfig(hosts=["node1", "node2"], slots=4))
    spool = _Memory()
    tracker = Tracker(None)
    tx = spool.prepare()
    tracker.fill(tx, state, Effects(config_changed=True, counters_changed=True,
                                    flags_changed=True, dirty_hosts=set(state.hosts)), 1.0)
    tx.commit()
    return state, spool, tracker


def _fill(tracker: Tracker, state: MasterState, fx: Effects, now: float = 2.0) -> Transaction:
    tx = Transaction(_Memory())
    tracker.fill(tx, state, fx, now)
    return tx


def test_a_new_cell_spools_its_whole_configuration_and_its_history() -> None:
    state, spool, _ = _cell()
    kinds = {kind for kind, _ in spool.objects}
    assert {"queue", "pe", "userset", "managers", "complexes", "global_conf",
            "sched_conf", "order", "counter"} <= kinds
    history = [r for r in state.reports.values() if isinstance(r, ConfigRecord)]
    assert ("queue", "all.q") in {(r.kind, r.key) for r in history}
    assert "order" not in {r.kind for r in history}
    again = restore(spool.read_all())
    assert again.config == state.config
    assert again.next_seq == state.next_seq


def test_a_task_that_starts_in_a_large_array_writes_that_task_alone(
        monkeypatch: pytest.MonkeyPatch) -> None:
    state, spool, tracker = _cell()
    state.jobs[7] = new_job(7, JobSpec(name="a", owner="u", array=(1, 10_000, 1)), 3.0)
    state.next_job_id = 8
    tx = _fill(tracker, state, Effects(dirty_jobs={7}, counters_changed=True))
    assert len([c for c in tx.changes if c.kind == "task"]) == 10_000
    state.jobs[7].tasks[42].state = RUNNING
    tx = _fill(tracker, state, Effects(dirty_jobs={7}))
    assert [(c.kind, c.key) for c in tx.changes] == [("task", "7.42")]
    state.jobs[7].spec.name = "b"  # qalter -N: the header alone
    tx = _fill(tracker, state, Effects(dirty_jobs={7}))
    assert [(c.kind, c.key) for c in tx.changes] == [("job", "7")]
    # Named as a task alone, it is compared alone: the other 9,999 are not looked at.
    state.jobs[7].tasks[43].state = RUNNING
    digests = []
    monkeypatch.setattr(tracking, "_digest", lambda obj: digests.append(obj) or b"")
    tx = _fill(tracker, state, Effects(dirty_tasks={(7, 43)}))
    assert [(c.kind, c.key) for c in tx.changes] == [("task", "7.43")]
    assert digests == [state.jobs[7].tasks[43]]


def test_a_job_that_leaves_takes_its_tasks_along() -> None:
    state, spool, tracker = _cell()
    state.jobs[3] = new_job(3, JobSpec(name="a", owner="u", array=(1, 3, 1)), 3.0)
    tx = _fill(tracker, state, Effects(dirty_jobs={3}))
    spool.write(tx.changes)
    del state.jobs[3]
    tx = _fill(tracker, state, Effects(gone_jobs={3}))
    assert sorted((c.kind, c.key, c.obj) for c in tx.changes) == [
        ("job", "3", None), ("task", "3.1", None), ("task", "3.2", None),
        ("task", "3.3", None)]


def test_one_changed_queue_is_one_queue_written_and_one_history_record() -> None:
    state, _, tracker = _cell()
    before = dict(state.reports)
    state.config.queues["all.q"].slots = "8"
    tx = _fill(tracker, state, Effects(config_changed=True), now=5.0)
    written = [(c.kind, c.key) for c in tx.changes if c.kind not in ("report", "counter")]
    assert written == [("queue", "all.q")]
    new = [r for seq, r in state.reports.items() if seq not in before]
    assert len(new) == 1 and isinstance(new[0], ConfigRecord)
    assert (new[0].kind, new[0].key, new[0].time) == ("queue", "all.q", 5.0)
    assert msgspec.json.decode(new[0].body)["slots"] == "8"


def test_a_deleted_object_is_deleted_and_its_history_says_so() -> None:
    state, _, tracker = _cell()
    del state.config.pes["mpi"]
    tx = _fill(tracker, state, Effects(config_changed=True))
    assert Change("pe", "mpi", None) in tx.changes
    assert ("order", "pe") in {(c.kind, c.key) for c in tx.changes}
    last = state.reports[max(state.reports)]
    assert isinstance(last, ConfigRecord) and (last.kind, last.key, last.body) == (
        "pe", "mpi", None)


def test_collection_order_survives_a_restart() -> None:
    state, spool, tracker = _cell()
    for name in ("zeta", "alpha", "mid"):
        state.config.rqs[name] = RuleSet(name=name)
    spool.write(_fill(tracker, state, Effects(config_changed=True)).changes)
    assert list(restore(spool.read_all()).config.rqs) == ["zeta", "alpha", "mid"]


def test_every_record_of_a_state_restores_it() -> None:
    state, _, _ = _cell()
    state.jobs[1] = new_job(1, JobSpec(name="x", owner="u"), 2.0)
    state.outbox[9] = (1, 0)
    assert restore(records(state)).jobs == state.jobs
    assert restore(records(state)).outbox == {9: (1, 0)}


def test_a_task_without_its_job_is_a_damaged_spool() -> None:
    state, _, _ = _cell()
    state.jobs[1] = new_job(1, JobSpec(name="x", owner="u"), 2.0)
    damaged = [r for r in records(state) if not (r[0] == "job" and r[1] == "1")]
    with pytest.raises(SpoolError, match="task 1.0 is spooled without its job"):
        restore(damaged)
    with pytest.raises(SpoolError, match="unknown object kind"):
        restore([("gizmo", "1", {})])


def test_what_the_effects_name_keeps_the_spool_equal_to_the_state() -> None:
    """A master driven through submissions, dispatch, starts, finishes, qdel, qalter,
    qmod on jobs and queues, execd reconciliation and accounting, with the tracker
    filling a spool after every step from the effects alone: read back, the spool is
    the master's state each time. (A step that changed a job without naming it, or named
    a task where it changed the job, would show here. The requests come from the master's
    own process: no host to be a submit host.)"""
    rng = random.Random(11)
    master = make_master(hosts=2, slots=3)
    spool = _Memory()
    tracker = Tracker(None)
    tx = spool.prepare()
    tracker.fill(tx, master.s, Effects(config_changed=True, counters_changed=True,
                                       flags_changed=True, dirty_hosts=set(master.s.hosts)),
                 0.0)
    tx.commit()
    steps: Counter[str] = Counter()
    now = 1.0

    def tasks(state: str) -> list[tuple[Job, Task]]:
        return [(job, task) for job in master.s.jobs.values() for task in job.tasks.values()
                if task.state == state]

    for _ in range(400):
        now += 1.0
        fx = Effects()
        step = rng.choice(["submit", "submit", "schedule", "start", "start", "finish",
                           "finish", "qdel", "qalter", "qmod", "qhold", "queue", "register",
                           "account"])
        if step == "submit":
            array = (1, rng.randint(1, 6), 1) if rng.random() < 0.6 else None
            master.submit(spec(array=array, hold=rng.random() < 0.1), now, fx)
        elif step == "schedule":
            fx = schedule(master, now)
        elif step == "start" and tasks(TRANSFERRING):
            job, task = rng.choice(tasks(TRANSFERRING))
            master.task_started(p.TaskStarted(host=task.host, job_id=job.job_id,
                                              task_id=task.task_id, start_time=now), now, fx)
        elif step == "finish" and tasks(RUNNING):
            job, task = rng.choice(tasks(RUNNING))
            master.task_finished(p.TaskReport(
                job_id=job.job_id, task_id=task.task_id, host=task.host, start_time=now - 1,
                end_time=now, exit_status=rng.choice([0, 1])), now, fx)
        elif step in ("qdel", "qalter", "qmod", "qhold") and master.s.jobs:
            target = str(rng.choice(sorted(master.s.jobs)))
            if step == "qdel":
                master.delete(p.Delete(targets=[target], user="alice"), now, fx)
            elif step == "qhold":
                master.hold(p.Hold(targets=[target], user="alice", hold=rng.random() < 0.5),
                            fx)
            elif step == "qalter":
                master.alter(p.Alter(targets=[target], user="alice",
                                     name=f"n{rng.randint(1, 9)}"), now, fx)
            else:
                master.qmod(p.Qmod(action=rng.choice(["sj", "usj"]), targets=[target],
                                   user="root", host="node1"), now, fx)
        elif step == "queue":
            master.qmod(p.Qmod(action=rng.choice(["s", "us"]), targets=["all.q@node1"],
                               user="root", host="node1"), now, fx)
        elif step == "register":
            host = rng.choice(sorted(master.s.hosts))
            running = [(job.job_id, task.task_id) for job, task in
                       tasks(TRANSFERRING) + tasks(RUNNING) if task.host == host]
            master.register(p.Register(host=host, load={}, running=running), now, fx)
        elif step == "account" and master.s.outbox:
            master.accounted(sorted(master.s.outbox)[:rng.randint(1, 3)], fx)
        else:
            continue
        steps[step] += 1
        tx = spool.prepare()
        tracker.fill(tx, master.s, fx, now)
        tx.commit()
        assert restore(spool.read_all()).jobs == master.s.jobs, step
    assert min(steps.values()) >= 10, steps

"""Shortcuts the planner takes where the cell's shape allows (a pool such as `gridd sim`'s:
one queue instance, a $pe_slots PE) must decide as its general paths do. A random walk
plans each view twice, by two carried planners, one with the shortcuts and one without,
and compares the whole plans, reasons included."""

from __future__ import annotations

import random
from collections import Counter

import msgspec
import pytest

from gridd.model.cluster import Running
from gridd.model.pe import FILL_UP, PE_SLOTS, ParallelEnv
from gridd.model.planning import SchedEvent, SchedJob
from gridd.sched.parallel import ParallelPlacement
from gridd.sched.plan import Plan, Planner
from gridd.sched.view import SchedView
from tests.unit.test_plan import cell, qi

NOW = 1_795_327_298.0


def _pool(max_reservation: int, job_info: bool, other: bool) -> SchedView:
    """One instance of 16 slots with a $pe_slots PE of 12 and a $fill_up PE; `other`: a
    second instance without the $pe_slots PE, so its jobs still have one candidate."""
    instances = [qi("pool.q@p", slots=16, pe_list=["smp", "mpi"], h_rt="INFINITY")]
    if other:
        instances.append(qi("other.q@o", slots=4, pe_list=["mpi"], h_rt="INFINITY"))
    view = cell(*instances, global_values={"license": "6"},
                pes=(ParallelEnv("smp", 12, PE_SLOTS), ParallelEnv("mpi", 20, FILL_UP)),
                job_info=job_info)
    view.conf = msgspec.structs.replace(view.conf, max_reservation=max_reservation,
                                        duration_offset=0.0)
    return view


def _job(rng: random.Random, number: int, now: float) -> SchedJob:
    hard = {"h_rt": str(rng.choice([10, 40, 200]))}
    if rng.random() < 0.2:
        hard["license"] = str(rng.randint(1, 2))
    low = rng.choice([0, 1, 2, 4, 8, 12, 16])
    high = low if rng.random() < 0.7 else low + rng.choice([2, 6])
    return SchedJob(job_id=number, pending=[1], priority=rng.choice([0, 0, 0, 5]),
                    submit_time=now, hard=hard,
                    pe=(rng.choice(["smp", "smp", "mpi", "*"]) if low else ""),
                    pe_min=low, pe_max=high, reserve=rng.random() < 0.8)


def _started(view: SchedView, plan: Plan, now: float) -> SchedEvent:
    started = [Running(o.job_id, o.task_id, view.jobs[o.job_id].hard, o.granted, o.pe,
                       start=now) for o in plan.orders]
    return SchedEvent(seq=view.seq + 1, started=started,
                      removed=[(o.job_id, o.task_id) for o in plan.orders],
                      answers_dispatch=True)


@pytest.mark.parametrize("other", [False, True])
@pytest.mark.parametrize("job_info", [False, True])
@pytest.mark.parametrize("max_reservation", [0, 1, 3])
def test_a_pools_shortcuts_plan_what_the_general_paths_plan(
        max_reservation: int, job_info: bool, other: bool,
        monkeypatch: pytest.MonkeyPatch) -> None:
    taken: Counter[str] = Counter()
    alone = ParallelPlacement._place_alone

    def counted(self: ParallelPlacement, *args: object) -> object:
        taken["alone"] += 1
        return alone(self, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(ParallelPlacement, "_place_alone", counted)
    rng = random.Random(max_reservation * 4 + job_info * 2 + other)
    view = _pool(max_reservation, job_info, other)
    shortcut, general = Planner(), Planner()
    now, number = NOW, 1
    for step in range(300):
        now += rng.choice([0.0, 1.0, 5.0, 30.0])
        for key, task in list(view.running.items()):
            if task.start + float(task.hard["h_rt"]) <= now:
                assert view.apply(SchedEvent(seq=view.seq + 1, ended=[key]))
        jobs = [_job(rng, number + i, now) for i in range(rng.choice([0, 1, 1, 2, 3]))]
        number += len(jobs)
        assert view.apply(SchedEvent(seq=view.seq + 1, jobs=jobs))
        plan = shortcut.plan(view, now)
        with monkeypatch.context() as patched:
            patched.setattr(ParallelPlacement, "_alone", lambda *_: False)
            again = general.plan(view, now)
        assert plan == again, step
        assert view.apply(_started(view, plan, now))
    assert taken["alone"] >= 100, taken

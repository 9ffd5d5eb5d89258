"""A planner goes on with its last cycle when all that happened since is that the cycle's
orders started and jobs arrived behind every job it left waiting (resume.Resumable). Each
plan it makes so must be the plan a new planner makes of the same view."""

from __future__ import annotations

import random
from collections import Counter

import msgspec
import pytest

from gridd.model.cluster import Running
from gridd.model.pe import FILL_UP, PE_SLOTS, ParallelEnv
from gridd.model.planning import SchedEvent, SchedJob
from gridd.sched.plan import Plan, Planner
from gridd.sched.resume import Resumable
from gridd.sched.view import SchedView
from tests.unit.test_plan import cell, qi

NOW = 1_795_327_298.0


def _cell(max_reservation: int, adjusted: bool, max_aj_instances: int) -> SchedView:
    pes = (ParallelEnv("mpi", 12, FILL_UP), ParallelEnv("smp", 12, PE_SLOTS))
    view = cell(*(qi(f"all.q@h{i}", slots=4, pe_list=["mpi", "smp"], h_rt="INFINITY")
                  for i in range(3)),
                global_values={"license": "5"}, pes=pes, job_info=False)
    view.conf = msgspec.structs.replace(
        view.conf, max_reservation=max_reservation, duration_offset=0.0,
        max_aj_instances=max_aj_instances,
        load_adjustments=view.conf.load_adjustments if adjusted else {})
    return view


def _job(rng: random.Random, number: int, now: float) -> SchedJob:
    hard = {"h_rt": str(rng.choice([10, 40, 200]))}
    if rng.random() < 0.3:
        hard["license"] = str(rng.randint(1, 3))
    tasks = list(range(1, rng.choice([1, 1, 1, 4]) + 1))
    slots = rng.choice([0, 0, 2, 5, 12])
    return SchedJob(job_id=number, pending=tasks, priority=rng.choice([0, 0, 0, 5]),
                    submit_time=now, hard=hard, pe=rng.choice(["mpi", "smp", "*"]) if slots
                    else "", pe_min=slots, pe_max=slots, reserve=rng.random() < 0.8,
                    immediate=rng.random() < 0.05)


def _applied(view: SchedView, plan: Plan, now: float, rng: random.Random) -> SchedEvent:
    """The master's answer to a dispatch: the orders started (as a rule at the cycle's
    time, now and then a second late, as a live master's clock may have it), immediate
    jobs that could not start gone."""
    late = rng.random() < 0.1
    started = [Running(o.job_id, o.task_id, view.jobs[o.job_id].hard, o.granted, o.pe,
                       start=now + late) for o in plan.orders]
    removed = [(o.job_id, o.task_id) for o in plan.orders]
    removed += [(j, t) for j in plan.unschedulable for t in view.jobs[j].pending]
    return SchedEvent(seq=view.seq + 1, started=started, removed=removed,
                        answers_dispatch=True)


def _change(view: SchedView, now: float, rng: random.Random, number: int) -> SchedEvent:
    """What may happen between two cycles: new jobs (some ahead of those waiting), a
    waiting job or one of its tasks deleted, a task ending, a task this planner did not
    order taking another's place, a load report (of the license too), a host going."""
    event = SchedEvent(seq=view.seq + 1)
    event.jobs = [_job(rng, number + i, now) for i in range(rng.choice([0, 1, 1, 2]))]
    roll = rng.random()
    if roll < 0.03 and view.running:
        gone = rng.choice(list(view.running))
        event.ended = [gone]
        event.started = [Running(10**6 + number, 1, {"h_rt": "100"}, [("all.q@h2", 3)],
                                 start=now)]
    elif roll < 0.1 and view.jobs:
        job = rng.choice(list(view.jobs.values()))
        event.removed = [(job.job_id, rng.choice(job.pending))]
    elif roll < 0.2 and view.running:
        event.ended = [rng.choice(list(view.running))]
    elif roll < 0.25:  # h1 may report the license used up: jobs may reserve for now
        event.loads = {"h1": {"np_load_avg": f"{rng.random():.2f}",
                              **({"license": "0"} if rng.random() < 0.5 else {})}}
    elif roll < 0.28:
        event.hosts_up = sorted({"h0", "h1", "h2"} - {rng.choice(["h0", "h1", "h2", "h9"])})
    return event


@pytest.mark.parametrize("max_aj_instances", [0, 2])
@pytest.mark.parametrize("adjusted", [False, True])
@pytest.mark.parametrize("max_reservation", [0, 1, 3])
def test_going_on_with_the_last_cycle_plans_what_a_new_planner_plans(
        max_reservation: int, adjusted: bool, max_aj_instances: int,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """With job_load_adjustments (and h1 reporting np_load_avg) a cycle is not gone on with
    while a job started within the decay time moves the loads: few are, so there the plans
    alone are compared; without them, many cycles are gone on with and many not. With
    max_aj_instances an array job that reached it (in an earlier cycle or in the one gone
    on with) waits for its own tasks, and reserves nothing either way."""
    went_on: Counter[bool] = Counter()
    resume = Resumable.resume

    def counted(self: Resumable, *args: object) -> Plan | None:
        plan = resume(self, *args)  # type: ignore[arg-type]
        went_on[plan is not None] += 1
        return plan

    monkeypatch.setattr(Resumable, "resume", counted)
    rng = random.Random(max_reservation)
    view = _cell(max_reservation, adjusted, max_aj_instances)
    carried = Planner()
    now, number = NOW, 1
    for step in range(400):
        now += rng.choice([0.0, 0.5, 1.0, 5.0, 30.0, -0.5])  # a clock may step back
        # Tasks end at their h_rt, some a little later (planning takes a task past its
        # expected end to end within a second).
        for key, task in list(view.running.items()):
            if task.start + float(task.hard["h_rt"]) + 2.5 * (task.job_id % 3 == 0) <= now:
                assert view.apply(SchedEvent(seq=view.seq + 1, ended=[key]))
        event = _change(view, now, rng, number)
        number += len(event.jobs)
        assert view.apply(event)
        plan = carried.plan(view, now)
        again = Planner().plan(view, now)
        assert (plan.orders, plan.reserved, plan.unschedulable, plan.global_info,
                plan.info) == (again.orders, again.reserved, again.unschedulable,
                               again.global_info, again.info), step
        assert view.apply(_applied(view, plan, now, rng))
    assert adjusted or (went_on[True] >= 50 and went_on[False] >= 50), went_on


def test_a_reservation_for_the_time_of_the_cycle_is_not_gone_on_with() -> None:
    """B ($fill_up) cannot start: its placement, on the first host, would run into A's
    reservation. Yet the diagrams have room for it on the second host at once, so it is
    reserved for the cycle's own time: a later cycle reserves it for its time instead."""
    pes = (ParallelEnv("smp", 8, PE_SLOTS), ParallelEnv("mpi", 8, FILL_UP))
    running = [Running(100 + i, 1, {"h_rt": "50"}, [(f"all.q@h{i}", 2)], pe="smp", start=NOW)
               for i in range(2)]
    view = cell(*(qi(f"all.q@h{i}", slots=4, pe_list=["smp", "mpi"], h_rt="INFINITY")
                  for i in range(2)), pes=pes, running=running, job_info=False)
    view.conf = msgspec.structs.replace(view.conf, max_reservation=5, duration_offset=0.0)
    a = SchedJob(job_id=1, pending=[1], priority=5, submit_time=NOW, hard={"h_rt": "100"},
                 pe="smp", pe_min=4, pe_max=4, reserve=True)
    b = SchedJob(job_id=2, pending=[1], priority=0, submit_time=NOW, hard={"h_rt": "100"},
                 pe="mpi", pe_min=2, pe_max=2, reserve=True)
    view.jobs = {1: a, 2: b}
    carried = Planner()
    first = carried.plan(view, NOW)
    assert not first.orders and first.reserved == {1: (NOW + 50, [("all.q@h0", 4)], []),
                                                   2: (NOW, [("all.q@h1", 2)], [])}
    view.jobs[3] = SchedJob(job_id=3, pending=[1], priority=0, submit_time=NOW + 5,
                            hard={"h_rt": "100"}, pe="smp", pe_min=4, pe_max=4)
    later = carried.plan(view, NOW + 5)
    assert later.reserved[2] == (NOW + 5, [("all.q@h1", 2)], [])
    assert later.reserved == Planner().plan(view, NOW + 5).reserved

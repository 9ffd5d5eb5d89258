"""Invariants of the first-fit planner over random cells and workloads."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from gridd import protocol as p
from gridd.model.pe import FILL_UP, PE_SLOTS, ROUND_ROBIN
from gridd.sched.firstfit import SchedView, plan

PES = {"smp": (999, PE_SLOTS), "mpi": (999, FILL_UP), "rr": (999, ROUND_ROBIN)}


@st.composite
def cells(draw: st.DrawFn) -> SchedView:
    hosts = [f"node{i}" for i in range(draw(st.integers(1, 5)))]
    capacity = {f"all.q@{h}": draw(st.integers(0, 6)) for h in hosts}
    used = {qi: draw(st.integers(0, n)) for qi, n in capacity.items()}
    up = set(draw(st.lists(st.sampled_from(hosts), unique=True)))
    jobs = {}
    for job_id in range(1, draw(st.integers(0, 25)) + 1):
        pe = draw(st.sampled_from(["", "", "smp", "mpi", "rr"]))
        jobs[job_id] = p.SchedJob(
            job_id=job_id, pending=list(range(1, draw(st.integers(1, 4)) + 1)),
            slots=draw(st.integers(1, 8)) if pe else 1, h_rt=0.0,
            queues=draw(st.sampled_from([[], ["all.q"], ["all.q@node0"]])),
            priority=draw(st.integers(-5, 5)), submit_time=float(job_id), pe=pe)
    view = SchedView()
    view.reset(p.SchedState(jobs=list(jobs.values()), capacity=capacity, used=used,
                            hosts_up=sorted(up), pes=PES, queue_h_rt={}, seq=0))
    return view


@settings(max_examples=300, deadline=None)
@given(cells())
def test_plan_never_overbooks_and_respects_requests(view: SchedView):
    used = dict(view.used)
    orders = plan(view, 100.0).orders
    seen = set()
    for order in orders:
        job = view.jobs[order.job_id]
        assert (order.job_id, order.task_id) not in seen
        seen.add((order.job_id, order.task_id))
        assert order.task_id in job.pending
        assert sum(n for _, n in order.granted) == job.slots
        hosts = {qi.partition("@")[2] for qi, _ in order.granted}
        assert hosts <= view.hosts_up
        if job.pe == "smp":
            assert len(hosts) == 1
        if job.queues == ["all.q@node0"]:
            assert hosts == {"node0"}
        for qi, n in order.granted:
            assert n > 0
            used[qi] = used.get(qi, 0) + n
    assert all(used[qi] <= view.capacity[qi] for qi in used)


@settings(max_examples=200, deadline=None)
@given(cells())
def test_a_lower_priority_job_never_starts_while_a_sequential_higher_one_could(view: SchedView):
    """First fit in priority order: a plain 1-slot job left waiting means nothing fits it."""
    orders = plan(view, 100.0).orders
    started = {o.job_id for o in orders}
    free = {qi: view.capacity[qi] - view.used.get(qi, 0) for qi in view.capacity
            if qi.partition("@")[2] in view.hosts_up}
    for order in orders:
        for qi, n in order.granted:
            free[qi] -= n
    for job in view.jobs.values():
        if job.job_id not in started and not job.pe and not job.queues:
            assert all(n < 1 for n in free.values())

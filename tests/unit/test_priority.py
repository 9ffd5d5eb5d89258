"""Job priority as Grid Engine 8.1.9 computes it, checked against what its qstat -pri and
-urg print (reference/sge-8.1.9/transcripts/jobs.txt): default weights (urgency 0.5,
ticket 0.5, priority 0), slots urgency 1000, weight_waiting_time 0.278."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gridd.model.complexes import DEFAULT_COMPLEXES
from gridd.model.pe import ParallelEnv
from gridd.model.planning import SchedJob
from gridd.model.priority import (
    ResourceUrgency,
    Weights,
    normalise,
    priorities,
    urgency,
    urgency_totals,
)
from gridd.sched.plan import Planner
from gridd.sched.view import SchedView
from tests.unit.test_plan import cell, qi


def test_the_transcripts_prior_nurg_and_npprior() -> None:
    w = Weights()
    slots = ResourceUrgency(DEFAULT_COMPLEXES)
    assert (slots.of({}, 1), slots.of({}, 3), slots.of({"s": "2"}, 1)) == (1000, 3000, 2000)
    # Jobs 6 (3 slots), 7 (2 slots), 8 (-p -100) and 9 (-p 100), waiting 8 s; a running
    # job that waited 16 s before it started.
    jobs = [(0, urgency(1000, 16.2, None, 0.0, w)), (0, urgency(3000, 8, None, 0.0, w)),
            (0, urgency(2000, 8, None, 0.0, w)), (-100, urgency(1000, 8, None, 0.0, w)),
            (100, urgency(1000, 8, None, 0.0, w))]
    got = [(round(x.prior, 5), round(x.npprior, 5), x.ntckts) for x in priorities(jobs, w)]
    assert got[1:] == [(0.75, 0.5, 0.5), (0.5, 0.5, 0.5), (0.25, 0.45117, 0.5),
                       (0.25, 0.54883, 0.5)]
    assert 0.25 < got[0][0] < 0.2507  # a little more urgent than the later jobs' 1002
    assert [round(x.urgency.total) for x in priorities(jobs, w)][1:] == [3002, 2002, 1002, 1002]


def test_equal_values_normalise_to_a_half() -> None:
    assert normalise([3.0, 3.0]) == [0.5, 0.5] and normalise([1.0, 3.0]) == [0.0, 1.0]


def test_the_planner_orders_by_urgency_with_the_default_weights() -> None:
    view: SchedView = cell(qi("all.q@h0", 1))
    view.conf.weight_priority, view.conf.weight_urgency, view.conf.weight_ticket = 0.0, 0.5, 0.5
    view.conf.pes = {"smp": ParallelEnv("smp", 99)}

    def job(job_id: int, submit: float, priority: int = 0, slots: int = 0) -> SchedJob:
        return SchedJob(job_id=job_id, pending=[1], priority=priority, submit_time=submit,
                          pe="smp" if slots else "", pe_min=slots, pe_max=slots)

    view.jobs = {1: job(1, 10.0, priority=1000), 2: job(2, 5.0), 3: job(3, 10.0, slots=3)}
    # The 3-slot job is the most urgent; then the one waiting longer; -p counts for nothing.
    assert [j.job_id for j in Planner().order(view, 20.0)] == [3, 2, 1]
    view.conf.weight_priority, view.conf.weight_urgency = 1.0, 0.0
    assert [j.job_id for j in Planner().order(view, 20.0)] == [1, 2, 3]


@pytest.mark.parametrize("posix", [-1023, 0, 1024])
def test_npprior_spans_the_posix_range(posix: int) -> None:
    (x,) = priorities([(posix, urgency(0, 0, None, 0.0, Weights()))], Weights())
    assert x.npprior == (posix + 1024) / 2048


@given(st.lists(st.tuples(st.floats(0, 1e6), st.floats(-1e3, 1e7),
                          st.one_of(st.just(0.0), st.floats(1.0, 2e7))), max_size=20),
       st.floats(0, 2e7))
def test_the_planners_totals_are_the_urgencies_totals(
        jobs: list[tuple[float, float, float]], now: float) -> None:
    """The planner's urgencies, worked out in one pass, are qstat's to the last bit."""
    w = Weights()
    assert urgency_totals(jobs, now, w) == [
        urgency(resources, waited, deadline or None, now, w).total
        for resources, waited, deadline in jobs]

"""A trace replayed a busy period per process (gridd.sim_processes) is the replay in one:
job for job, and run for run, whether the cuts fall on idle instants or inside busy
periods (where the replay before a cut goes on until the two meet)."""

from __future__ import annotations

import os
from typing import Any

import pytest

from gridd import sim_processes
from gridd.sched.sim import Simulation, Stretch, synthetic_trace

SLOTS = 64


def one_replay(jobs: list, max_reservation: int) -> tuple[list, int, dict[int, int]]:
    sim = Simulation(jobs, SLOTS, max_reservation)
    idle: dict[int, int] = {}
    sim.replay(len(jobs), idle=idle)
    return [o for o in sim.outcomes if o is not None], sim.runs, idle


def joined_here(jobs: list, max_reservation: int, cuts: list[int]) -> tuple[list, int, int]:
    """The processes' part played in this one: a stretch per cut after the first, joined
    in order. Also says how many stretches were joined."""
    main = Simulation(jobs, SLOTS, max_reservation)
    ends = [*cuts[1:], len(jobs)]
    stretches = [Simulation(jobs, SLOTS, max_reservation).stretch(first, until)
                 for first, until in zip(cuts[1:], ends[1:], strict=True)]
    main.replay(cuts[1] if stretches else len(jobs))
    joined = sum(main.join(stretch) for stretch in stretches)
    main.replay(len(jobs))
    return [o for o in main.outcomes if o is not None], main.runs, joined


@pytest.mark.parametrize(("load", "max_reservation"), [(0.5, 1), (0.9, 1), (0.95, 10**6),
                                                       (0.7, 0)])
def test_stretches_joined_are_the_one_replay(load: float, max_reservation: int) -> None:
    jobs = synthetic_trace(1500, SLOTS, seed=11, load=load)
    outcomes, runs, idle = one_replay(jobs, max_reservation)
    for parts in (2, 3, 5):
        cuts = [first for first, _ in Simulation(jobs, SLOTS, max_reservation).split(parts)]
        got, got_runs, joined = joined_here(jobs, max_reservation, cuts)
        assert (got, got_runs) == (outcomes, runs)
        if load == 0.5:  # idle often: the stretches meet the replay and are taken
            assert joined >= 1


def test_a_cut_inside_a_busy_period_is_met_further_on() -> None:
    jobs = synthetic_trace(1500, SLOTS, seed=12, load=0.8)
    outcomes, runs, idle = one_replay(jobs, 1)
    # An arrival well inside a busy period that ends before the trace does.
    instants = sorted(at for at in idle if at < len(jobs))
    before, after = max(zip(instants, instants[1:], strict=False),
                        key=lambda pair: pair[1] - pair[0])
    busy = next(at for at in range((before + after) // 2, after)
                if jobs[at - 1].submit != jobs[at].submit)
    assert busy not in idle
    got, got_runs, joined = joined_here(jobs, 1, [0, busy])
    assert (got, got_runs) == (outcomes, runs) and joined == 1


def test_a_cut_with_no_idle_instant_after_it_leaves_the_replay_to_this_process() -> None:
    jobs = synthetic_trace(600, SLOTS, seed=13, load=0.5)
    outcomes, runs, idle = one_replay(jobs, 1)
    # A stretch that claims no idle instant the replay meets: never taken.
    sim = Simulation(jobs, SLOTS, 1)
    stretch = Simulation(jobs, SLOTS, 1).stretch(300, 400)
    stretch.idle = {at: n for at, n in stretch.idle.items() if at not in idle}
    sim.replay(300)
    assert not sim.join(stretch)
    sim.replay(len(jobs))
    assert ([o for o in sim.outcomes if o is not None], sim.runs) == (outcomes, runs)


@pytest.mark.parametrize("workers", [2, 3])
def test_processes_give_the_one_replay(workers: int) -> None:
    jobs = synthetic_trace(2000, SLOTS, seed=14, load=0.6)
    assert len(Simulation(jobs, SLOTS, 1).split(workers)) == workers
    outcomes, runs, _ = one_replay(jobs, 1)
    sim = Simulation(jobs, SLOTS, 1)
    seen: list[int] = []
    assert sim_processes.run(sim, workers, seen.append) == outcomes
    assert sim.runs == runs and max(seen) == seen[-1] == len(jobs)


def test_a_failing_process_fails_the_replay(monkeypatch: pytest.MonkeyPatch) -> None:
    here, stretch = os.getpid(), Simulation.stretch

    def broken(sim: Simulation, *args: Any) -> Stretch:
        if os.getpid() != here:
            raise ValueError("broken on purpose")
        return stretch(sim, *args)

    monkeypatch.setattr(Simulation, "stretch", broken)  # the forked process has it too
    jobs = synthetic_trace(500, SLOTS, seed=15, load=0.3)
    assert len(Simulation(jobs, SLOTS, 1).split(2)) == 2
    with pytest.raises(RuntimeError, match="broken on purpose"):
        sim_processes.run(Simulation(jobs, SLOTS, 1), 2)


def test_short_traces_stay_in_one_process() -> None:
    assert sim_processes.default_workers(1000) == 1
    assert sim_processes.default_workers(10**6) >= 1

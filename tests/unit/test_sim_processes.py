"""A trace replayed in stretches (gridd.sim_processes) is the replay in one: job for job,
and run for run, whether a stretch begins at the state the replay reaches there (the
model's checkpoints, with max_reservation 0 or 1) or at a wrong guess of it (where the
replay goes on until the two meet at an idle instant, or to the stretch's end)."""

from __future__ import annotations

import os
from dataclasses import replace
from typing import Any

import pytest

from gridd import sim_processes
from gridd.model.trace import TraceJob
from gridd.sched.sim import START, Checkpoint, Simulation, Stretch, synthetic_trace

SLOTS = 64


def one_replay(jobs: list[TraceJob], max_reservation: int, offset: float = 60.0
               ) -> tuple[list, int, dict[int, tuple[int, int]]]:
    sim = Simulation(jobs, SLOTS, max_reservation, offset)
    idle: dict[int, tuple[int, int]] = {}
    sim.replay(len(jobs), idle=idle)
    return sim.outcomes(), sim.runs, idle


def stretches(jobs: list[TraceJob], max_reservation: int, begins: list[Checkpoint],
              offset: float = 60.0) -> list[Stretch]:
    ends = [begin.arrival for begin in begins[1:]] + [len(jobs)]
    return [Simulation(jobs, SLOTS, max_reservation, offset).stretch(begin, until)
            for begin, until in zip(begins, ends, strict=True)]


def joined(jobs: list[TraceJob], max_reservation: int, found: list[Stretch],
           offset: float = 60.0) -> tuple[list, int, list[bool], list[bool]]:
    """The stretches joined in order, as this process joins them: the outcomes, the runs,
    and per stretch whether it began where the replay stood and whether it was taken."""
    main = Simulation(jobs, SLOTS, max_reservation, offset)
    began, taken = [], []
    for stretch in found:
        began.append(main.checkpoint() == stretch.begin)
        taken.append(main.join(stretch))
    assert main.ended == len(jobs)
    return main.outcomes(), main.runs, began, taken


def _fractional(jobs: list[TraceJob]) -> list[TraceJob]:
    return [TraceJob(j.job_id, j.submit * 1.37, j.run * 0.93, j.slots, j.limit * 1.01)
            for j in jobs]


# With unlimited reservation 800 jobs, not 1500: the 1500-job trace splits into one
# stretch only (nothing joined) and takes ~10 times as long; 800 split into two.
@pytest.mark.parametrize(("load", "max_reservation", "count"),
                         [(0.5, 1, 1500), (0.9, 1, 1500), (1.2, 1, 1500), (0.7, 0, 1500),
                          (0.95, 3, 1500), (0.95, 10**6, 800)])
def test_stretches_joined_are_the_one_replay(load: float, max_reservation: int,
                                             count: int) -> None:
    jobs = synthetic_trace(count, SLOTS, seed=11, load=load)
    outcomes, runs, _ = one_replay(jobs, max_reservation)
    for shares in ([0.5, 0.5], [0.2] * 5, sim_processes.shares(3)):
        split = Simulation(jobs, SLOTS, max_reservation).split(shares)
        assert split[0][0] == START
        if max_reservation <= 1:  # the model is the replay: its guesses are its runs
            assert len(split) <= len(shares) and sum(g for _, g in split) == runs
        found = stretches(jobs, max_reservation, [begin for begin, _ in split])
        got, got_runs, began, taken = joined(jobs, max_reservation, found)
        assert (got, got_runs) == (outcomes, runs)
        if max_reservation <= 1:  # every checkpoint the model found is the replay's
            assert all(began) and all(taken)


@pytest.mark.parametrize("max_reservation", [0, 1])
@pytest.mark.parametrize("offset", [0.0, 0.5, 60.0])
def test_checkpoints_with_fractional_times_and_offsets(max_reservation: int,
                                                       offset: float) -> None:
    """Times in fractions of seconds and a DURATION_OFFSET under a second, where the
    model may guess a checkpoint wrong: the stretches still join to the one replay."""
    jobs = _fractional(synthetic_trace(1200, SLOTS, seed=16, load=0.9))
    outcomes, runs, _ = one_replay(jobs, max_reservation, offset)
    split = Simulation(jobs, SLOTS, max_reservation, offset).split([0.25] * 4)
    found = stretches(jobs, max_reservation, [begin for begin, _ in split], offset)
    got, got_runs, _, _ = joined(jobs, max_reservation, found, offset)
    assert (got, got_runs) == (outcomes, runs)


def test_the_models_checkpoints_are_the_replays_where_ends_coincide() -> None:
    """Times in whole hours: many tasks are expected to end at the same instant, and a
    reservation then has the slots of all of them beside it."""
    hours = [TraceJob(j.job_id, (j.submit // 3600) * 3600, j.run,
                      j.slots, max(3600.0, (j.limit // 3600) * 3600))
             for j in synthetic_trace(1500, SLOTS, seed=18, load=0.9)]
    for max_reservation in (0, 1):
        found, runs = Simulation(hours, SLOTS, max_reservation).checkpoints()
        replay = Simulation(hours, SLOTS, max_reservation)
        for checkpoint, made in found:
            replay.replay(checkpoint.arrival)
            assert (replay.checkpoint(), replay.runs) == (checkpoint, made)
        replay.replay(len(hours))
        assert replay.runs == runs


def _busy_checkpoint(jobs: list[TraceJob]) -> Checkpoint:
    """A checkpoint of the model's well inside a busy period (jobs running and waiting)."""
    found, _ = Simulation(jobs, SLOTS, 1).checkpoints()
    return next(at for at, _ in found[len(found) // 3:] if at.running and at.waiting)


def test_a_wrong_checkpoint_is_met_further_on() -> None:
    """A stretch begun at a wrong guess (one job fewer running) is taken from the first
    idle instant the replay meets it at."""
    jobs = synthetic_trace(1500, SLOTS, seed=12, load=0.8)
    outcomes, runs, idle = one_replay(jobs, 1)
    busy = _busy_checkpoint(jobs)
    wrong = replace(busy, running=busy.running[1:])
    first, rest = stretches(jobs, 1, [START, wrong])
    assert set(rest.idle) & set(idle)  # they meet
    got, got_runs, began, taken = joined(jobs, 1, [first, rest])
    assert (got, got_runs) == (outcomes, runs)
    assert began == [True, False] and taken == [True, True]


def test_a_stretch_never_met_is_left_to_this_process() -> None:
    jobs = synthetic_trace(600, SLOTS, seed=13, load=0.5)
    outcomes, runs, idle = one_replay(jobs, 1)
    busy = _busy_checkpoint(jobs)
    first, rest = stretches(jobs, 1, [START,
                                      replace(busy, reserved=-1.0)])
    rest.idle.clear()  # claims no idle instant: the two never meet
    got, got_runs, began, taken = joined(jobs, 1, [first, rest])
    assert (got, got_runs) == (outcomes, runs)
    assert began == [True, False] and taken == [True, False]


def test_a_checkpoint_taken_and_set_again_goes_on_alike() -> None:
    jobs = synthetic_trace(800, SLOTS, seed=17, load=0.9)
    sim = Simulation(jobs, SLOTS, 1)
    busy = _busy_checkpoint(jobs)
    sim.replay(busy.arrival)
    assert sim.checkpoint() == busy
    again = Simulation(jobs, SLOTS, 1)
    again.restart(busy)
    assert again.checkpoint() == busy
    sim.replay(len(jobs))
    again.replay(len(jobs))
    assert again.outcomes() == [
        o for o in sim.outcomes() if o.start >= jobs[busy.arrival].submit]


def test_shares_shrink_and_add_up() -> None:
    for workers in (2, 3, 8):
        made = sim_processes.shares(workers)
        assert sum(made) == pytest.approx(1.0)
        assert made == sorted(made, reverse=True)
        assert made[0] == pytest.approx(1 / (2 * workers))
        assert min(made[:-1]) >= sim_processes.SMALLEST_SHARE / workers - 1e-12


@pytest.mark.parametrize(("workers", "max_reservation"), [(2, 1), (3, 1), (2, 3)])
def test_processes_give_the_one_replay(workers: int, max_reservation: int) -> None:
    """With max_reservation 1 a process replays the first stretch while the checkpoints
    are found; with 3 (the model's checkpoints are guesses) every process waits for them."""
    jobs = synthetic_trace(2000, SLOTS, seed=14, load=0.6)
    outcomes, runs, _ = one_replay(jobs, max_reservation)
    sim = Simulation(jobs, SLOTS, max_reservation)
    assert (sim.arrival_after(0.25) is None) == (max_reservation > 1)
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
    with pytest.raises(RuntimeError, match="broken on purpose"):
        sim_processes.run(Simulation(jobs, SLOTS, 1), 2)


def test_short_traces_stay_in_one_process() -> None:
    assert sim_processes.default_workers(1000) == 1
    assert sim_processes.default_workers(10**6) >= 1

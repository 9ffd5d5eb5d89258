"""`gridd sim` against two deliberately simple backfilling schedulers written here, apart
from the planner: EASY (one reservation, for the first job that cannot start) and
conservative (every waiting job reserves, in order). Both see what the planner sees:
expected ends at start + requested time, no DURATION_OFFSET, the trace's order."""

from __future__ import annotations

import gzip
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from gridd.formats.swf import read_swf
from gridd.model.trace import TraceJob
from gridd.sched.cycle import Cycle, Plan
from gridd.sched.plan import Planner
from gridd.sched.sim import Outcome, Simulation, summary, synthetic_trace
from gridd.sched.view import SchedView

SLOTS = 64
# The shared workloads beside the clone (../shared), or beside the folder of worktrees.
WORKLOADS = next((folder / "shared" / "workloads" / "swf"
                  for folder in Path(__file__).resolve().parents[3:5]
                  if (folder / "shared" / "workloads" / "swf").is_dir()), Path("/nowhere"))

# A waiting job, and the running jobs as (expected end, slots).
Decide = Callable[[float, list[TraceJob], list[tuple[float, int]]], list[TraceJob]]


def replay(jobs: list[TraceJob], slots: int, decide: Decide) -> dict[int, tuple[float, float]]:
    """Start and end per job id. At each instant: ends, then arrivals, then `decide`."""
    arrivals = sorted(jobs, key=lambda j: j.submit)
    queue: list[TraceJob] = []
    running: dict[int, tuple[float, float, TraceJob]] = {}  # id -> start, end, job
    out: dict[int, tuple[float, float]] = {}
    i = 0
    while i < len(arrivals) or running:
        now = min([end for _, end, _ in running.values()]
                  + ([arrivals[i].submit] if i < len(arrivals) else []))
        for job_id in [k for k, (_, end, _) in running.items() if end <= now]:
            del running[job_id]
        while i < len(arrivals) and arrivals[i].submit <= now:
            queue.append(arrivals[i])
            i += 1
        busy = [(start + job.limit, job.slots) for start, _, job in running.values()]
        for job in decide(now, queue, busy):
            queue.remove(job)
            end = now + min(job.run, job.limit)
            running[job.job_id] = (now, end, job)
            out[job.job_id] = (now, end)
        assert sum(job.slots for _, _, job in running.values()) <= slots
    return out


def easy(slots: int) -> Decide:
    def decide(now: float, queue: list[TraceJob], busy: list[tuple[float, int]]
               ) -> list[TraceJob]:
        free = slots - sum(n for _, n in busy)
        starts: list[TraceJob] = []
        shadow, extra = None, 0
        for job in queue:
            if shadow is None and job.slots <= free:
                starts.append(job)
                free -= job.slots
                busy.append((now + job.limit, job.slots))
            elif shadow is None:  # the first job that cannot start: its reservation
                avail = free
                for end, n in sorted(busy):
                    avail += n
                    if avail >= job.slots:
                        shadow = end
                        break
                assert shadow is not None
                extra = free + sum(n for end, n in busy if end <= shadow) - job.slots
            elif job.slots <= free and (now + job.limit <= shadow or job.slots <= extra):
                starts.append(job)
                free -= job.slots
                if now + job.limit > shadow:
                    extra -= job.slots
        return starts
    return decide


def conservative(slots: int) -> Decide:
    def decide(now: float, queue: list[TraceJob], busy: list[tuple[float, int]]
               ) -> list[TraceJob]:
        held = [(now, end, n) for end, n in busy]  # (from, to, slots)

        def fits(t: float, job: TraceJob) -> bool:
            end = t + job.limit
            points = [t, *(a for a, _, _ in held if t < a < end)]
            return all(sum(n for a, b, n in held if a <= x < b) + job.slots <= slots
                       for x in points)

        starts = []
        for job in queue:
            times = sorted({now, *(b for _, b, _ in held if b > now)})
            t = next(x for x in times if fits(x, job))
            held.append((t, t + job.limit, job.slots))
            if t == now:
                starts.append(job)
        return starts
    return decide


def simulated(jobs: list[TraceJob], slots: int, max_reservation: int
              ) -> dict[int, tuple[float, float]]:
    outcomes = Simulation(jobs, slots, max_reservation, duration_offset=0.0).run()
    return {o.job_id: (o.start, o.end) for o in outcomes}


@pytest.mark.parametrize("seed", [1, 2])
def test_sim_agrees_with_easy_backfilling(seed: int) -> None:
    jobs = synthetic_trace(2000, SLOTS, seed=seed)
    assert simulated(jobs, SLOTS, 1) == replay(jobs, SLOTS, easy(SLOTS))


def test_sim_agrees_with_conservative_backfilling() -> None:
    jobs = synthetic_trace(2000, SLOTS, seed=3, load=0.7)
    conservative_starts = simulated(jobs, SLOTS, 10**6)
    assert conservative_starts == replay(jobs, SLOTS, conservative(SLOTS))
    # The three policies differ on this trace: the agreement is not a trivial one.
    easy_starts, greedy_starts = simulated(jobs, SLOTS, 1), simulated(jobs, SLOTS, 0)
    assert len({str(conservative_starts), str(easy_starts), str(greedy_starts)}) == 3


@pytest.mark.parametrize("max_reservation", [1, 10**6])
def test_reservations_found_without_the_placement_walk_are_the_walks(
        monkeypatch: pytest.MonkeyPatch, max_reservation: int) -> None:
    """Cycle._one_place (gridd.sched.backfill: the pool's reservation read off
    `_no_sooner`) answers what `parallel_at` would: the replay is the same without it,
    with the default DURATION_OFFSET and with none."""
    jobs = synthetic_trace(1500, SLOTS, seed=4, load=0.8)
    for offset in (0.0, 60.0):
        fast = Simulation(jobs, SLOTS, max_reservation, duration_offset=offset).run()
        with monkeypatch.context() as patch:
            patch.setattr(Cycle, "_one_place", lambda *args: None)
            walked = Simulation(jobs, SLOTS, max_reservation, duration_offset=offset).run()
        assert fast == walked


def test_the_replay_hands_the_planner_the_order_it_would_sort(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A replay keeps its waiting jobs in the planner's order (Simulation._plan): the
    order it passes is, run after run, the one Planner.order sorts, including after a
    checkpoint it was set to."""
    plan = Planner.plan
    runs = 0

    def checked(self: Planner, view: SchedView, now: float, **kwargs: Any) -> Plan:
        nonlocal runs
        runs += 1
        assert kwargs["order"] == self.order(view, now)
        return plan(self, view, now, **kwargs)

    monkeypatch.setattr(Planner, "plan", checked)
    jobs = synthetic_trace(800, SLOTS, seed=6, load=0.95)
    sim = Simulation(jobs, SLOTS, 1, duration_offset=0.0)
    found, _ = sim.checkpoints()
    sim.stretch(found[len(found) // 2][0], len(jobs))
    assert runs > 100


class Forgetful(Simulation):
    """A replay whose every run is planned by a new planner: nothing carried."""

    def _plan(self, now: float) -> None:
        self.planner = Planner()
        super()._plan(now)


@pytest.mark.parametrize(("max_reservation", "count"), [(0, 1500), (1, 1500), (10**6, 400)])
def test_what_the_planner_carries_from_run_to_run_changes_nothing(
        max_reservation: int, count: int) -> None:
    """The planner keeps the running tasks' diagrams, the categories' statics and the
    empty levels from one run to the next: a replay planned by a new planner every run
    is the same, with the default DURATION_OFFSET and with none. (Every waiting job
    reserving, planned from nothing each run, is slow: a shorter trace.)"""
    jobs = synthetic_trace(count, SLOTS, seed=5, load=0.9)
    for offset in (0.0, 60.0):
        kept = Simulation(jobs, SLOTS, max_reservation, duration_offset=offset).run()
        assert kept == Forgetful(jobs, SLOTS, max_reservation, duration_offset=offset).run()


class Thorough(Simulation):
    """A replay that leaves out no run that a waiting job could fit in what is free: no
    run is left out for the last run's reservation (Simulation._held)."""

    def _held(self, now: float) -> bool:
        return False


def _fractional(jobs: list[TraceJob]) -> list[TraceJob]:
    """The trace with times no longer in whole seconds."""
    return [TraceJob(j.job_id, j.submit * 1.37, j.run * 0.93, j.slots, j.limit * 1.01)
            for j in jobs]


@pytest.mark.parametrize(("max_reservation", "count"),
                         [(0, 600), (1, 1500), (3, 1000), (10**6, 300)])
def test_runs_left_out_for_a_reservation_would_have_started_nothing(
        max_reservation: int, count: int) -> None:
    """The runs left out because the job first in line holds a reservation that every
    other job fitting now would be in the way of are runs that start nothing: the
    replay is the one that makes them, with the default DURATION_OFFSET, with none, with
    less than a second, and with times in fractions of seconds."""
    whole = synthetic_trace(count, SLOTS, seed=7, load=0.95)
    for jobs in (whole, _fractional(whole)):
        for offset in (0.0, 0.5, 60.0):
            lean = Simulation(jobs, SLOTS, max_reservation, duration_offset=offset)
            outcomes = lean.run()
            thorough = Thorough(jobs, SLOTS, max_reservation, duration_offset=offset)
            assert outcomes == thorough.run()
            if max_reservation and (offset >= 1 or jobs is whole):
                assert lean.runs < thorough.runs  # the test tests something


def test_a_run_is_left_out_where_the_tasks_running_past_the_reservation_leave_too_little():
    """On 10 slots A (4 slots) runs until 100 and D (2) long after; B (6) waits, reserved
    from 100 by the run C's arrival makes. E (3), arriving next, fits in the 4 free now
    and in the 4 that B leaves of the pool, but not in the 2 that B and D leave at 100:
    nothing can start, and no run is made then. The replay is the one that makes it, and
    its model leaves out the same run."""
    jobs = [TraceJob(1, 0.0, 100.0, 4, 100.0), TraceJob(2, 0.0, 1000.0, 2, 1000.0),
            TraceJob(3, 1.0, 50.0, 6, 50.0), TraceJob(4, 2.0, 500.0, 3, 500.0),
            TraceJob(5, 3.0, 500.0, 3, 500.0)]
    lean = Simulation(jobs, 10, max_reservation=1, duration_offset=0.0)
    thorough = Thorough(jobs, 10, max_reservation=1, duration_offset=0.0)
    assert lean.run() == thorough.run()
    assert thorough.runs - lean.runs == 1
    assert Simulation(jobs, 10, max_reservation=1, duration_offset=0.0).checkpoints()[1] \
        == lean.runs


def test_summary_figures() -> None:
    outcomes = [Outcome(1, 0.0, 0.0, 100.0, 2), Outcome(2, 0.0, 100.0, 105.0, 4)]
    s = summary(outcomes, 4, runs=2)
    assert s.mean_wait == 50.0
    assert s.mean_bounded_slowdown == (1.0 + 105.0 / 10.0) / 2
    assert s.makespan == 105.0
    assert s.utilization == pytest.approx((200.0 + 20.0) / (4 * 105.0))


SWF_RECORDS = [
    "; MaxProcs: 100",
    "  1   0  5  100  8 -1 -1  16  200 -1 1 1 1 -1 -1 -1 -1 -1",
    "  2  10 -1   -1 -1 -1 -1  -1   -1 -1 5 1 1 -1 -1 -1 -1 -1",  # cancelled
    "  3  20  0   50  4 -1 -1  -1   -1 -1 1 1 1 -1 -1 -1 -1 -1",
    "  4  30  0   60 -1 -1 -1   6   90 -1 1 1 1 -1 -1 -1 -1 -1",
]


def test_swf_records_and_the_header() -> None:
    """A job is as wide as its allocated processors (field 5), its requested ones (8)
    where those are missing, as the Parallel Workloads Archive's tools read a trace."""
    trace = read_swf(SWF_RECORDS)
    assert trace.max_procs == 100 and trace.skipped == 1
    assert trace.jobs == [TraceJob(1, 0.0, 100.0, 8, 200.0), TraceJob(3, 20.0, 50.0, 4, 50.0),
                          TraceJob(4, 30.0, 60.0, 6, 90.0)]
    with pytest.raises(ValueError, match="line 1"):
        read_swf(["1 2 3"])


def test_swf_sized_by_requested_processors() -> None:
    """requested_first takes field 8 first, the allocated processors where it is missing."""
    assert [job.slots for job in read_swf(SWF_RECORDS, requested_first=True).jobs] == [16, 4, 6]


def test_a_real_trace_replays_with_every_job_once() -> None:
    path = WORKLOADS / "KTH-SP2-1996-2.swf.gz"
    if not path.exists():
        pytest.skip("the shared workloads are not beside this clone")
    with gzip.open(path, "rt") as lines:
        jobs = read_swf(lines).jobs[:1500]
    outcomes = Simulation(jobs, 100, 1).run()
    assert sorted(o.job_id for o in outcomes) == sorted(j.job_id for j in jobs)
    assert all(o.start >= o.submit and o.end >= o.start for o in outcomes)


def test_a_real_trace_is_sized_by_allocated_processors() -> None:
    """KTH-SP2's job 17259 was allocated 15 processors and asked for 13: published results
    (and pyss) count 15; --size requested counts 13."""
    path = WORKLOADS / "KTH-SP2-1996-2.swf.gz"
    if not path.exists():
        pytest.skip("the shared workloads are not beside this clone")
    for requested_first, slots in ((False, 15), (True, 13)):
        with gzip.open(path, "rt") as lines:
            jobs = {job.job_id: job for job in read_swf(lines, requested_first).jobs}
        assert jobs[17259].slots == slots


def test_the_command_writes_the_csv_and_the_summary(tmp_path: Path,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    from gridd.cli.gridd_cmd import main

    trace = tmp_path / "t.swf"
    trace.write_text("; MaxProcs: 4\n"
                     "1 0 0 100 4 -1 -1 4 100 -1 1 1 1 -1 -1 -1 -1 -1\n"
                     "2 10 0 50 2 -1 -1 2 50 -1 1 1 1 -1 -1 -1 -1 -1\n"
                     "3 20 0 10 8 -1 -1 8 10 -1 1 1 1 -1 -1 -1 -1 -1\n")
    out = tmp_path / "jobs.csv"
    assert main(["sim", str(trace), "--slots", "4", "--out", str(out)]) == 0
    assert out.read_text().splitlines() == ["job_id,submit,start,end,slots",
                                            "1,0,0,100,4", "2,10,100,150,2"]
    printed = capsys.readouterr().out
    assert "jobs                   2" in printed and "1 wider than 4 slots" in printed
    assert main(["sim", str(tmp_path / "missing.swf"), "--slots", "4", "--out", str(out)]) == 1
    assert "missing.swf" in capsys.readouterr().err


@pytest.mark.parametrize(("size", "rows"), [
    ([], ["1,0,0,100,2", "2,10,10,60,2"]),  # allocated: both fit side by side
    (["--size", "requested"], ["1,0,0,100,4", "2,10,100,150,1"]),
])
def test_the_command_sizes_jobs_as_told(tmp_path: Path, size: list[str],
                                        rows: list[str]) -> None:
    from gridd.cli.gridd_cmd import main

    trace = tmp_path / "t.swf"
    trace.write_text("1 0 0 100 2 -1 -1 4 100 -1 1 1 1 -1 -1 -1 -1 -1\n"
                     "2 10 0 50 2 -1 -1 1 50 -1 1 1 1 -1 -1 -1 -1 -1\n")
    out = tmp_path / "jobs.csv"
    assert main(["sim", str(trace), "--slots", "4", "--out", str(out), *size]) == 0
    assert out.read_text().splitlines()[1:] == rows

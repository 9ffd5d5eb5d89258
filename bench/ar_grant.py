"""Granting an advance reservation: the decision on a busy cell, and qrsub's round trip.

decision   `gridd.sched.grant.grant_ar` as the master calls it for a qrsub, on
           the dispatch benchmark's cell (1,000 queue instances on 250 hosts, bench/dispatch.py)
           with 5,000 running jobs (each with an h_rt of one to eight hours, so that ARs can go
           behind them) and 500 ARs already granted at random windows over the next two
           days; the new AR asks for one slot, or for 8 slots of a $pe_slots PE, for two
           hours starting in an hour. Best of a few runs. Target: under 100 ms.
round trip the wall time of one `qrsub -d 0:10:0` (a fresh process, as a user runs it) on
           an idle one-host cell: median and 90th percentile.
"""

from __future__ import annotations

import random
import re
import subprocess
import time

import dispatch
from _cell import BIN, SMOKE, cell, median_p90

from gridd.model.ar import ArBooking, ArPlace
from gridd.model.cluster import Running
from gridd.model.complexes import ComplexTable
from gridd.model.planning import SchedJob
from gridd.sched.grant import grant_ar
from gridd.sched.levels import instance_states
from gridd.sched.plan import Planner

RUNNING = 200 if SMOKE else 5_000
ARS = 20 if SMOKE else 500
RUNS = 1 if SMOKE else 5
ROUND_TRIPS = 2 if SMOKE else 20
SEED = 6119
PLANNER = Planner()  # as the master keeps one for granting


def busy_cell() -> tuple[dispatch.SchedView, list[Running], dict[int, ArBooking]]:
    """The dispatch cell with 5,000 tasks running where they fit and 500 granted ARs."""
    rng = random.Random(SEED)
    view = dispatch.build_view()
    free = {qi.name: qi.slots for qi in view.conf.instances}
    running = []
    names = list(free)
    while len(running) < RUNNING:
        name = rng.choice(names)
        if free[name] <= 0:
            continue
        free[name] -= 1
        start = dispatch.NOW - rng.randrange(3600)
        running.append(Running(len(running) + 1, 1, {"h_rt": str(rng.randrange(1, 9) * 3600)},
                               [(name, 1)], start=start))
    ars: dict[int, ArBooking] = {}
    states = instance_states(view.conf, view.loads, view.hosts_up, {},
                             ComplexTable(view.conf.complexes))
    while len(ars) < ARS:
        start = dispatch.NOW + rng.randrange(3600, 48 * 3600)
        end = start + rng.randrange(1, 5) * 3600
        slots = rng.choice((1, 1, 2, 4))
        request = _request(slots)
        granted = grant_ar(PLANNER, view.conf, view.loads, running, ars, states, request,
                           ArPlace(users=["root"]), start, end, dispatch.NOW)
        if granted is not None:
            ars[len(ars) + 1] = ArBooking(len(ars) + 1, start, end, granted[0], {},
                                          granted[1])
    return view, running, ars


def _request(slots: int) -> SchedJob:
    if slots == 1:
        return SchedJob(job_id=0, pending=[1], priority=0, submit_time=0.0)
    return SchedJob(job_id=0, pending=[1], priority=0, submit_time=0.0, pe="smp",
                    pe_min=slots, pe_max=slots)


def decision_seconds(slots: int, view: dispatch.SchedView, running: list[Running],
                     ars: dict[int, ArBooking]) -> float:
    states = instance_states(view.conf, view.loads, view.hosts_up, {},
                             ComplexTable(view.conf.complexes))
    start = dispatch.NOW + 3600
    best = float("inf")
    for _ in range(RUNS):
        t0 = time.perf_counter()
        granted = grant_ar(PLANNER, view.conf, view.loads, running, ars, states,
                           _request(slots), ArPlace(users=["root"]), start, start + 7200,
                           dispatch.NOW)
        best = min(best, time.perf_counter() - t0)
        assert granted is not None
    return best


def round_trip() -> tuple[float, float]:
    with cell(hosts=1, slots=ROUND_TRIPS + 2) as c:
        times = []
        for _ in range(ROUND_TRIPS + 2):
            t0 = time.perf_counter()
            res = subprocess.run([str(BIN / "qrsub"), "-d", "0:10:0"], env=c.env,
                                 capture_output=True, text=True, cwd=c.root)
            times.append(time.perf_counter() - t0)
            if res.returncode != 0 or not re.search(r"granted", res.stdout):
                raise RuntimeError(f"qrsub: rc={res.returncode}: {res.stdout}{res.stderr}")
        return median_p90(times[2:])


def main() -> dict[str, float]:
    view, running, ars = busy_cell()
    one = decision_seconds(1, view, running, ars)
    pe = decision_seconds(8, view, running, ars)
    print(f"{len(view.conf.instances)} queue instances, {len(running):,} running jobs, "
          f"{len(ars)} ARs granted")
    print(f"grant one slot      {one * 1000:7.1f} ms  best of {RUNS} (target < 100 ms)")
    print(f"grant 8 PE slots    {pe * 1000:7.1f} ms  best of {RUNS} (target < 100 ms)")
    median, p90 = round_trip()
    print(f"qrsub round trip    {median * 1000:7.1f} ms median, {p90 * 1000:.1f} ms p90 "
          f"({ROUND_TRIPS} runs, idle one-host cell)")
    return {"ar_grant_ms": max(one, pe) * 1000, "qrsub_ms": median * 1000}


if __name__ == "__main__":
    main()

"""One dispatch decision with resource reservation: the complexes benchmark's cell and
10,000 pending jobs (bench/dispatch.py: 1,000 queue instances on 250 hosts), every job
with -R y, max_reservation=100 and default_duration one hour (jobs without h_rt would
otherwise run for ever, and nothing could be reserved behind them).

The first jobs start; the next hundred that cannot start get the earliest reservation
over every instance that could ever take them; the rest may only start where they keep
clear of those. Target: under 2 s, on a warm planner (best of a few runs). The schedule
file's lines are made too (MONITOR), as a cell watching its reservations would. That
nothing is over-booked is the property tests' (tests/unit/test_reserve_properties.py).
"""

from __future__ import annotations

import time

import dispatch
import msgspec
from _cell import SMOKE

from gridd.sched.plan import Plan, Planner

RUNS = 1 if SMOKE else 3
MAX_RESERVATION = 100


def build() -> dispatch.SchedView:
    if SMOKE:  # more jobs than the cell takes at once, so that the short form reserves
        dispatch.JOBS = 5_000
    view = dispatch.build_view()
    view.conf = msgspec.structs.replace(view.conf, max_reservation=MAX_RESERVATION,
                                        default_duration=3600.0, monitor=True)
    for job in view.jobs.values():
        job.reserve = True
    return view


def main() -> dict[str, float]:
    view = build()
    planner = Planner()
    planner.plan(view, dispatch.NOW)  # warm
    best, plan = float("inf"), Plan()
    for _ in range(RUNS):
        t0 = time.perf_counter()
        plan = planner.plan(view, dispatch.NOW)
        best = min(best, time.perf_counter() - t0)
    starts = sorted(reserved[0] for reserved in plan.reserved.values())  # (start, where, ids)
    print(f"{dispatch.HOSTS} hosts, {len(view.conf.instances)} queue instances, "
          f"{len(view.jobs):,} pending jobs, max_reservation={MAX_RESERVATION}")
    print(f"decision   {best:6.3f} s  best of {RUNS}  {len(plan.orders):,} jobs placed, "
          f"{len(plan.reserved)} reserved (target < 2 s)")
    if starts:
        print(f"reservations from now+{starts[0] - dispatch.NOW:,.0f} s "
              f"to now+{starts[-1] - dispatch.NOW:,.0f} s")
    return {"reserve_s": best, "reserved": float(len(plan.reserved))}


if __name__ == "__main__":
    main()

"""One dispatch decision of the complexes benchmark (bench/dispatch.py: 10,000 pending jobs,
1,000 queue instances on 250 hosts) sorted by load, with 8.1.9's default load adjustments
(job_load_adjustments np_load_avg=0.50 over 0:7:30) and without them (NONE).

The hosts report np_load_avg in seven values, so that many are equally loaded: with the
adjustments each placement raises its host's load at once and moves its four instances
in the planning order, and the categories placed next follow the order
(gridd.sched.order); without, the least loaded hosts fill first. The production path
(`Planner.plan` with the garbage collector held off, as the scheduler actor runs it) on a
warm planner, best of five runs each, the two planners' runs interleaved so that the
machine's drift falls on both alike. The benchmark also checks that the plan with the
adjustments equals the plan of the planner without category caches (one run: slow).
"""

from __future__ import annotations

import time

import dispatch
import msgspec
from _cell import SMOKE

from gridd.collector import held_off
from gridd.sched.plan import Plan, Planner
from gridd.sched.view import SchedView

RUNS = 1 if SMOKE else 5
FIRST = 250  # placements whose hosts are counted: how far the jobs spread


def view_with(adjustments: dict[str, str]) -> SchedView:
    view = dispatch.build_view()
    for i, host in enumerate(sorted(view.loads)):
        view.loads[host]["np_load_avg"] = f"{(i % 7) / 20:.6f}"
    view.conf = msgspec.structs.replace(view.conf, queue_sort_method="load",
                                        load_adjustments=adjustments)
    return view


def main() -> dict[str, float]:
    views = {"adjusted": view_with({"np_load_avg": "0.50"}), "none": view_with({})}
    planners = {mode: Planner() for mode in views}
    best = dict.fromkeys(views, float("inf"))
    plans: dict[str, Plan] = {}
    with held_off():
        for mode, planner in planners.items():
            planner.plan(views[mode], dispatch.NOW)  # warm: requests compiled once
        for _ in range(RUNS):
            for mode, planner in planners.items():
                t0 = time.perf_counter()
                plans[mode] = planner.plan(views[mode], dispatch.NOW)
                best[mode] = min(best[mode], time.perf_counter() - t0)
    for mode in views:
        plan = plans[mode]
        first = {name.partition("@")[2] for o in plan.orders[:FIRST] for name, _ in o.granted}
        print(f"{mode:<9} {best[mode]:6.3f} s  best of {RUNS}  {len(plan.orders):,} jobs "
              f"placed, the first {FIRST} on {len(first)} hosts")
    ratio = best["adjusted"] / best["none"]
    print(f"with adjustments: {ratio:.1f}x the time without")
    reference = Planner().plan(views["adjusted"], dispatch.NOW, categories=False)
    agree = reference.orders == plans["adjusted"].orders
    print(f"placements identical to the planner without category caches: "
          f"{'yes' if agree else 'NO (BUG)'}")
    return {"adjusted_s": best["adjusted"], "none_s": best["none"], "ratio": ratio,
            "agree": float(agree)}


if __name__ == "__main__":
    main()

"""The planner's benchmarks at sizes callgrind runs in a few minutes, for instruction counts
that compare two commits on a shared machine (where seconds drift by a fifth):

    PYTHONHASHSEED=0 valgrind --tool=callgrind --callgrind-out-file=OUT \\
        python bench/plan_instructions.py WORKLOAD [JOBS]
    callgrind_annotate OUT | head

  dispatch      bench/dispatch.py's cell and jobs: a first and a warm decision
  quota         bench/quota_dispatch.py's, with its rule sets: the same
  reservation   bench/reservation_dispatch.py's (max_reservation 100): the same
  sim           a `gridd sim` replay of a synthetic trace (256 slots, load 0.7,
                max_reservation 1) in one process
  imports       nothing but this script's imports: the start-up the others share

JOBS: the pending jobs (the trace's for sim; defaults below). A count covers the whole
process: less the `imports` one, it is what building the cell and planning cost (two
commits may import modules of different sizes).
"""

from __future__ import annotations

import sys

import dispatch
import quota_dispatch
import reservation_dispatch

from gridd.collector import held_off
from gridd.sched.plan import Planner
from gridd.sched.sim import Simulation, synthetic_trace

DEFAULT_JOBS = {"dispatch": 10_000, "quota": 2_500, "reservation": 2_500, "sim": 3_000,
                "imports": 0}
SIM_SEED = 20261122  # bench/sim_throughput.py's


def main(workload: str, jobs: int) -> None:
    if workload == "imports":
        return
    if workload == "sim":
        trace = synthetic_trace(jobs, 256, seed=SIM_SEED, load=0.7)
        sim = Simulation(trace, 256, max_reservation=1)
        outcomes = sim.run()
        print(f"sim: {len(outcomes):,} jobs, {sim.runs:,} runs")
        return
    dispatch.JOBS = jobs
    view = {"dispatch": dispatch.build_view, "quota": lambda: quota_dispatch.build(True),
            "reservation": reservation_dispatch.build}[workload]()
    planner = Planner()
    for _ in range(2):  # a first decision (requests compiled) and a warm one
        with held_off():
            plan = planner.plan(view, dispatch.NOW)
    print(f"{workload}: {len(view.jobs):,} jobs, {len(plan.orders):,} placed, "
          f"{len(plan.reserved):,} reserved")


if __name__ == "__main__":
    if sys.argv[1:] == ["--smoke"]:  # each workload, small, without valgrind
        for workload in DEFAULT_JOBS:
            main(workload, 100)
        sys.exit(0)
    name = sys.argv[1] if len(sys.argv) > 1 else ""
    if name not in DEFAULT_JOBS:
        sys.exit(__doc__)
    main(name, int(sys.argv[2]) if len(sys.argv) > 2 else DEFAULT_JOBS[name])

"""`gridd sim` throughput: a 100,000-job synthetic trace (gridd.sched.sim.synthetic_trace:
a 256-slot pool offered about 70 % of its capacity, sizes 1 to 256 slots (the whole pool),
long-tailed run times, requested times from exact to four times too long) replayed with
max_reservation=1 (EASY backfilling) and the default DURATION_OFFSET.
Target: at least 10,000 jobs/s.

The replay is the production planner run in virtual time (see gridd/sched/sim.py), so the
figure is what one planning run costs times the runs a trace needs.
"""

from __future__ import annotations

import sys
import time

from gridd.sched.sim import Simulation, summary, synthetic_trace

JOBS = 100_000
SLOTS = 256
LOAD = 0.7
SEED = 20261122


def main(jobs: int = JOBS) -> dict[str, float]:
    trace = synthetic_trace(jobs, SLOTS, seed=SEED, load=LOAD)
    sim = Simulation(trace, SLOTS, max_reservation=1)
    t0 = time.perf_counter()
    outcomes = sim.run()
    seconds = time.perf_counter() - t0
    s = summary(outcomes, SLOTS, sim.runs)
    print(f"{len(trace):,} jobs on {SLOTS} slots (offered load {LOAD:.0%}), max_reservation=1")
    print(f"replayed in {seconds:.1f} s: {len(outcomes) / seconds:,.0f} jobs/s "
          f"(target >= 10,000), {sim.runs:,} planning runs ({seconds / sim.runs * 1e6:,.0f} "
          "us each)")
    print(f"mean wait {s.mean_wait:,.0f} s, mean bounded slowdown "
          f"{s.mean_bounded_slowdown:,.1f}, utilization {s.utilization:.1%}")
    return {"sim_jobs_per_s": len(outcomes) / seconds, "runs": float(sim.runs)}


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else JOBS)

"""One scheduling pass over a long queue, beside Slurm's main scheduling loop in the same
run: a 4-slot cell whose slots are taken by 4 long jobs, and 5,000 short jobs waiting
behind them (one slot each, no requests), so that the pass looks at every waiting job
and starts none. Target (issue 36): gridd's pass within 2x Slurm's mean main-loop cycle.

gridd: the production planner in-process on the scheduler's mirror of the cell
(`SchedView`, as the scheduler actor keeps it), a warm planner, each pass after one more
job arrived (what makes the actor plan); best and median of 20 passes, with
schedd_job_info on (the default: every waiting job's reasons are kept, so each pass looks
at each job) and off; and the time `Planner.order` takes of it.

Slurm: a private slurmctld and slurmd (bench/_slurm.py) with one 4-CPU node, the same
jobs submitted with sbatch; sdiag's mean main-loop cycle over at least 5 runs after the
queue filled (its default_queue_depth is 100, but its main loop looks at each job anyway:
sdiag shows the depth). Skipped where Slurm is not installed (Debian's slurmctld, slurmd,
munge) and in the short form.
"""

from __future__ import annotations

import statistics
import time

import _slurm
from _cell import SMOKE

from gridd.model.cluster import Instance, PlanConf, Running
from gridd.model.complexes import DEFAULT_COMPLEXES
from gridd.model.planning import SchedJob
from gridd.sched.plan import Planner
from gridd.sched.view import SchedView

SLOTS = 4
PENDING = 200 if SMOKE else 5_000
PASSES = 3 if SMOKE else 20
NOW = 1_000_000.0


def cell(job_info: bool) -> SchedView:
    qi = Instance(name="all.q@h0", queue="all.q", host="h0", slots=SLOTS,
                  values={"qname": "all.q", "hostname": "h0", "slots": str(SLOTS),
                          "h_rt": "INFINITY"})
    conf = PlanConf(complexes=list(DEFAULT_COMPLEXES), instances=[qi],
                    queue_sort_method="seqno", job_info=job_info)
    view = SchedView(conf=conf)
    view.hosts_up = {"h0"}
    for n in range(1, SLOTS + 1):
        view.running[(n, 1)] = Running(n, 1, {}, [(qi.name, 1)], start=10.0, submit=float(n))
    for n in range(SLOTS + 1, SLOTS + 1 + PENDING):
        view.jobs[n] = job(n)
    return view


def job(n: int) -> SchedJob:
    return SchedJob(job_id=n, pending=[1], priority=0, submit_time=float(n), hard={})


def gridd_pass(job_info: bool) -> tuple[float, float, float]:
    """Best and median pass, and the best of `order` alone, in ms."""
    view = cell(job_info)
    planner = Planner()
    planner.plan(view, NOW)
    passes, orders = [], []
    next_id = SLOTS + 1 + PENDING
    for i in range(PASSES):
        view.jobs[next_id] = job(next_id)  # an arrival: what makes the scheduler plan
        next_id += 1
        now = NOW + i + 1
        start = time.perf_counter()
        plan = planner.plan(view, now)
        passes.append(time.perf_counter() - start)
        assert not plan.orders, "the slots are taken: nothing starts"
        start = time.perf_counter()
        planner.order(view, now)
        orders.append(time.perf_counter() - start)
    return min(passes) * 1000, statistics.median(passes) * 1000, min(orders) * 1000


def slurm_loop() -> tuple[float, int, int] | None:
    if SMOKE or not _slurm.available():
        return None
    with _slurm.slurm(SLOTS) as env:
        _slurm.submit(env, "sleep 3600", SLOTS)
        _slurm.submit(env, "true", PENDING)
        return _slurm.main_loop(env, cycles=5)


def main() -> None:
    print(f"one pass: {PENDING} waiting on {SLOTS} busy slots")
    figures = {}
    for job_info in (True, False):
        best, median, order = gridd_pass(job_info)
        figures[job_info] = best
        print(f"  gridd, schedd_job_info {'on ' if job_info else 'off'}: best {best:7.2f} ms"
              f"  median {median:7.2f} ms  (order {order:6.2f} ms)")
    slurm = slurm_loop()
    if slurm is None:
        print("  Slurm: not run (short form, or not installed)")
        return
    mean, runs, depth = slurm
    print(f"  Slurm main loop:           mean {mean:7.2f} ms over {runs} runs, "
          f"depth {depth}")
    if mean:
        print(f"  ratio gridd/Slurm: {figures[True] / mean:.2f} (job_info on), "
              f"{figures[False] / mean:.2f} (off); target <= 2")


if __name__ == "__main__":
    main()

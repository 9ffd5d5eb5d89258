"""The outcomes of `gridd sim` on five check traces, as hashes: a change meant to leave the
planner's decisions alone (a refactoring, a speed-up) must leave every line the same.

Four synthetic traces (gridd.sched.sim.synthetic_trace) of different seeds, sizes and
loads, replayed with max_reservation 0, 1, 3 and 10, and the real KTH-SP2 log (100
processors; EASY backfilling, max_reservation 1) when the shared workloads are there.
Each is replayed in one process, as `gridd sim --workers 1` does; per trace the line
shows a hash of every job's (id, start, end, slots), in the trace's order, and the
number of planning runs. Run it on two commits and compare the lines.
"""

from __future__ import annotations

import gzip
import hashlib
import sys
import time
from pathlib import Path

from _cell import SMOKE

from gridd.formats.swf import read_swf
from gridd.sched.sim import Simulation, synthetic_trace

KTH = Path("/work/shared/workloads/swf/KTH-SP2-1996-2.swf.gz")
# (name, jobs, slots, seed, offered load, max_reservation)
SYNTHETIC = (
    ("synthetic-a", 2_000, 64, 1, 0.9, 0),
    ("synthetic-b", 3_000, 256, 2, 0.7, 1),
    ("synthetic-c", 1_500, 32, 3, 0.95, 3),
    ("synthetic-d", 1_000, 128, 4, 0.8, 10),
)


def replay(name: str, sim: Simulation) -> str:
    started = time.perf_counter()
    outcomes = sim.run()
    digest = hashlib.sha256()
    for o in outcomes:
        digest.update(f"{o.job_id} {o.start!r} {o.end!r} {o.slots}\n".encode())
    seconds = time.perf_counter() - started
    line = f"{name:<12} {len(outcomes):>6} jobs  {sim.runs:>6} runs  {digest.hexdigest()[:16]}"
    print(f"{line}  ({seconds:.1f} s)", flush=True)
    return line


def main() -> list[str]:
    lines = []
    for name, jobs, slots, seed, load, reservations in SYNTHETIC:
        jobs = jobs // 10 if SMOKE else jobs  # the short form: other hashes, same code
        trace = synthetic_trace(jobs, slots, seed=seed, load=load)
        lines.append(replay(name, Simulation(trace, slots, max_reservation=reservations)))
    if SMOKE:  # the synthetic traces are the short form
        return lines
    if KTH.exists():
        with gzip.open(KTH, "rt") as text:
            trace = read_swf(text)
        slots = trace.max_procs or 100
        kept = [job for job in trace.jobs if job.slots <= slots]
        lines.append(replay("KTH-SP2", Simulation(kept, slots, max_reservation=1)))
    else:
        print(f"KTH-SP2      not found ({KTH})", file=sys.stderr)
    return lines


if __name__ == "__main__":
    main()

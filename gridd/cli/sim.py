"""`gridd sim`: read a trace, replay it, write per-job outcomes and print the summary."""

from __future__ import annotations

import argparse
import csv
import gzip
import sys
import time
from collections.abc import Callable

from gridd.cli.render_text import bar
from gridd.formats.swf import read_swf
from gridd.sched.sim import Simulation, summary
from gridd.sim_processes import default_workers, run


def cmd_sim(args: argparse.Namespace) -> int:
    if args.slots < 1 or args.max_reservation < 0 or args.duration_offset < 0 or (
            args.workers is not None and args.workers < 1):
        print("gridd sim: --slots and --workers must be at least 1, --max-reservation and "
              "--duration-offset at least 0", file=sys.stderr)
        return 1
    try:
        opener = gzip.open if args.trace.endswith(".gz") else open
        with opener(args.trace, "rt") as lines:
            trace = read_swf(lines, requested_first=args.size == "requested")
    except (OSError, ValueError, EOFError) as exc:
        print(f"gridd sim: {args.trace}: {exc}", file=sys.stderr)
        return 1
    jobs = [job for job in trace.jobs if job.slots <= args.slots]
    too_wide = len(trace.jobs) - len(jobs)
    sim = Simulation(jobs, args.slots, args.max_reservation, args.duration_offset)
    started = time.perf_counter()
    workers = default_workers(len(jobs)) if args.workers is None else args.workers
    outcomes = run(sim, workers, _progress_bar(len(jobs)) if sys.stderr.isatty() else None)
    seconds = time.perf_counter() - started
    try:
        with open(args.out, "w", newline="") as out:
            writer = csv.writer(out)
            writer.writerow(["job_id", "submit", "start", "end", "slots"])
            for o in sorted(outcomes, key=lambda o: (o.submit, o.start, o.job_id)):
                writer.writerow([o.job_id, _number(o.submit), _number(o.start),
                                 _number(o.end), o.slots])
    except OSError as exc:
        print(f"gridd sim: {args.out}: {exc}", file=sys.stderr)
        return 1
    s = summary(outcomes, args.slots, sim.runs)
    print(f"jobs                   {s.jobs:,}")
    if trace.skipped or too_wide:
        print(f"skipped                {trace.skipped:,} without run time or processors, "
              f"{too_wide:,} wider than {args.slots} slots")
    print(f"mean wait              {s.mean_wait:,.1f} s")
    print(f"mean bounded slowdown  {s.mean_bounded_slowdown:,.2f} (runs under 10 s count as 10 s)")
    print(f"utilization            {s.utilization * 100:.1f} %")
    print(f"makespan               {s.makespan:,.0f} s")
    print(f"scheduling runs        {s.runs:,} in {seconds:.1f} s "
          f"({s.jobs / seconds if seconds else 0:,.0f} jobs/s"
          f"{f', up to {workers} processes' if workers > 1 else ''})")
    return 0


def _number(value: float) -> str:
    return str(int(value)) if value == int(value) else f"{value:.3f}"


def _progress_bar(total: int) -> Callable[[int], None]:
    """Redraw the bar on stderr when a whole percent more of the jobs has ended."""
    shown = -1

    def show(done: int) -> None:
        nonlocal shown
        percent = done * 100 // total if total else 100
        if percent == shown:
            return
        shown = percent
        sys.stderr.write(f"\r{bar(percent, 100)} {percent:3d}% {done:,}/{total:,} jobs")
        if done >= total:
            sys.stderr.write("\n")
        sys.stderr.flush()

    return show

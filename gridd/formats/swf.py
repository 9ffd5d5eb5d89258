"""The Standard Workload Format of the Parallel Workloads Archive: one job per line, 18
whitespace-separated numbers, -1 where unknown; lines starting with `;` are the header."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from gridd.model.trace import TraceJob
from gridd.model.values import is_unsigned


@dataclass(slots=True)
class Trace:
    jobs: list[TraceJob]
    skipped: int  # records that cannot be replayed: no run time or no processor count
    max_procs: int | None  # from the header, when it says


def read_swf(lines: Iterable[str], requested_first: bool = False) -> Trace:
    """Jobs in trace order. Allocated processors (field 5) count, else requested ones (8),
    as the archive's own tools and simulators such as pyss read a trace (or the other way
    round: `requested_first`); requested time (9), else the run time (4). Records without
    a run time or a processor count (jobs cancelled before they started) are skipped and
    counted."""
    jobs: list[TraceJob] = []
    skipped = 0
    max_procs = None
    for number, line in enumerate(lines, 1):
        text = line.strip()
        if not text:
            continue
        if text.startswith(";"):
            key, _, value = text[1:].partition(":")
            count = value.strip()
            if key.strip() == "MaxProcs" and is_unsigned(count):
                max_procs = int(count)
            continue
        fields = text.split()
        try:
            job_id, submit, run, allocated = int(fields[0]), float(fields[1]), \
                float(fields[3]), int(fields[4])
            requested, limit = int(fields[7]), float(fields[8])
        except (IndexError, ValueError):
            raise ValueError(f"line {number}: not an SWF job record: {text[:60]!r}") from None
        first, other = (requested, allocated) if requested_first else (allocated, requested)
        slots = first if first > 0 else other
        if run < 0 or slots <= 0:
            skipped += 1
            continue
        jobs.append(TraceJob(job_id, submit, run, slots, limit if limit > 0 else max(run, 1.0)))
    return Trace(jobs, skipped, max_procs)

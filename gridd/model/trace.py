"""A job of a workload trace: what `gridd sim` replays, whichever format it was read from
(gridd.formats.swf reads the Standard Workload Format)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(slots=True, frozen=True)
class TraceJob:
    job_id: int
    submit: float
    run: float  # how long it ran (it is killed at `limit` if that is shorter)
    slots: int
    limit: float  # the run time it asked for: its h_rt

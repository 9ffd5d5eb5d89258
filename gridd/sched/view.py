"""The scheduler's mirror of the master: pending jobs, running tasks, configuration, loads.

Kept current by the master's full state and its numbered events; a gap in the numbers
means a missed event, and the scheduler then asks for the full state again.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from gridd.model.ar import ArBooking
from gridd.model.cluster import PlanConf, Running
from gridd.model.planning import SchedEvent, SchedJob, SchedState


@dataclass
class SchedView:
    jobs: dict[int, SchedJob] = field(default_factory=dict)
    running: dict[tuple[int, int], Running] = field(default_factory=dict)
    conf: PlanConf = field(default_factory=PlanConf)
    loads: dict[str, dict[str, str]] = field(default_factory=dict)
    hosts_up: set[str] = field(default_factory=set)
    flags: dict[str, str] = field(default_factory=dict)
    seq: int = 0
    ars: dict[int, ArBooking] = field(default_factory=dict)
    # Something planning depends on changed since the last cycle (load reports alone do
    # not count: they refine the next cycle but do not warrant one of their own).
    changed: bool = True

    def reset(self, state: SchedState) -> None:
        self.jobs = {j.job_id: j for j in state.jobs}
        self.running = {(r.job_id, r.task_id): r for r in state.running}
        self.conf = state.conf
        self.loads = dict(state.loads)
        self.hosts_up = set(state.hosts_up)
        self.flags = dict(state.flags)
        self.seq = state.seq
        self.ars = {ar.ar_id: ar for ar in state.ars}
        self.changed = True

    def apply(self, ev: SchedEvent) -> bool:
        """Apply one event; False when events were missed and a full state is needed."""
        if ev.seq != self.seq + 1:
            return False
        self.seq = ev.seq
        for job_id, task_id in ev.removed:
            job = self.jobs.get(job_id)
            if job and task_id in job.pending:
                job.pending.remove(task_id)
                if not job.pending:
                    del self.jobs[job_id]
        for job in ev.jobs:
            if job.pending:
                self.jobs[job.job_id] = job
            else:
                self.jobs.pop(job.job_id, None)
        for task in ev.started:
            self.running[(task.job_id, task.task_id)] = task
        for key in ev.ended:
            self.running.pop(key, None)
        self.loads.update(ev.loads)
        if ev.hosts_up is not None:
            self.hosts_up = set(ev.hosts_up)
        if ev.flags is not None:
            self.flags = dict(ev.flags)
        if ev.conf is not None:
            self.conf = ev.conf
        if ev.ars is not None:
            self.ars = {ar.ar_id: ar for ar in ev.ars}
        if (ev.jobs or ev.removed or ev.started or ev.ended or ev.hosts_up is not None
                or ev.flags is not None or ev.conf is not None or ev.ars is not None
                or ev.answers_dispatch):
            self.changed = True
        return True

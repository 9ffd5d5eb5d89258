"""First-fit dispatching on slots and h_rt: the planning core of the first cell.

Pending tasks are taken in priority order (POSIX priority, then submission order) and
placed on the first queue instances, in queue-name and host order, that have free slots.
Later work replaces this with resource diagrams and reservations; the interface
(``plan(view, now) -> Dispatch``) stays.
"""

from __future__ import annotations

import fnmatch
from dataclasses import dataclass, field

from gridd import protocol as p
from gridd.model.pe import FILL_UP, PE_SLOTS, ROUND_ROBIN


@dataclass
class SchedView:
    """The scheduler's mirror of the master, kept current by state and events."""

    jobs: dict[int, p.SchedJob] = field(default_factory=dict)
    capacity: dict[str, int] = field(default_factory=dict)
    used: dict[str, int] = field(default_factory=dict)
    hosts_up: set[str] = field(default_factory=set)
    pes: dict[str, tuple[int, str]] = field(default_factory=dict)
    queue_h_rt: dict[str, float] = field(default_factory=dict)  # cluster queue -> limit (0 none)
    seq: int = 0

    def reset(self, state: p.SchedState) -> None:
        self.jobs = {j.job_id: j for j in state.jobs}
        self.capacity = dict(state.capacity)
        self.used = dict(state.used)
        self.hosts_up = set(state.hosts_up)
        self.pes = dict(state.pes)
        self.queue_h_rt = dict(state.queue_h_rt)
        self.seq = state.seq

    def apply(self, ev: p.SchedEvent) -> bool:
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
        for qi, delta in ev.used_delta.items():
            self.used[qi] = self.used.get(qi, 0) + delta
        if ev.hosts_up is not None:
            self.hosts_up = set(ev.hosts_up)
        if ev.capacity is not None:
            self.capacity = dict(ev.capacity)
        return True


def plan(view: SchedView, now: float) -> p.Dispatch:
    """Decide which pending tasks start now.

    The view is left alone: the master answers a Dispatch with an event that carries its
    effects, and the scheduler plans again only after that answer.
    """
    free = _free_instances(view)
    orders: list[p.Order] = []
    unschedulable: list[int] = []
    for job in sorted(view.jobs.values(), key=_order_key):
        started = False
        for task_id in job.pending:
            if not free:
                break
            granted = _place(job, free, view)
            if granted is None:
                break
            for qi, n in granted:
                free[qi] -= n
                if free[qi] == 0:
                    del free[qi]
            orders.append(p.Order(job.job_id, task_id, granted))
            started = True
        if job.immediate and not started:
            unschedulable.append(job.job_id)
    return p.Dispatch(orders=orders, unschedulable=unschedulable)


def _order_key(job: p.SchedJob) -> tuple[int, float, int]:
    return (-job.priority, job.submit_time, job.job_id)


def _free_instances(view: SchedView) -> dict[str, int]:
    """Free slots per usable queue instance, in the order first fit walks them."""
    free: dict[str, int] = {}
    for qi in sorted(view.capacity):
        host = qi.partition("@")[2]
        n = view.capacity[qi] - view.used.get(qi, 0)
        if n > 0 and host in view.hosts_up:
            free[qi] = n
    return free


def _allowed(job: p.SchedJob, qi: str) -> bool:
    if not job.queues:
        return True
    queue, _, host = qi.partition("@")
    for ref in job.queues:
        qpat, _, hpat = ref.partition("@")
        if fnmatch.fnmatchcase(queue, qpat or "*") and (
            not hpat or fnmatch.fnmatchcase(host, hpat)
        ):
            return True
    return False


def _fits_time(job: p.SchedJob, qi: str, view: SchedView) -> bool:
    limit = view.queue_h_rt.get(qi.partition("@")[0], 0.0)
    return not limit or not job.h_rt or job.h_rt <= limit


def _place(job: p.SchedJob, free: dict[str, int], view: SchedView) -> list[tuple[str, int]] | None:
    candidates = [
        (qi, n) for qi, n in free.items() if _allowed(job, qi) and _fits_time(job, qi, view)
    ]
    if not job.pe:
        for qi, n in candidates:
            if n >= job.slots:
                return [(qi, job.slots)]
        return None
    rule = _pe_rule(job.pe, view)
    if rule is None:
        return None
    if rule == PE_SLOTS:
        by_host = _by_host(candidates)
        for host_slots in by_host.values():
            if sum(n for _, n in host_slots) >= job.slots:
                return _take(host_slots, job.slots)
        return None
    if rule == ROUND_ROBIN:
        return _round_robin(candidates, job.slots)
    if rule == FILL_UP:
        return _take(candidates, job.slots)
    per_host = int(rule)
    by_host = _by_host(candidates)
    granted: list[tuple[str, int]] = []
    need = job.slots
    for host_slots in by_host.values():
        if need == 0:
            break
        if sum(n for _, n in host_slots) >= per_host and need >= per_host:
            granted += _take(host_slots, per_host) or []
            need -= per_host
    return granted if need == 0 else None


def _pe_rule(pattern: str, view: SchedView) -> str | None:
    for name in sorted(view.pes):
        if fnmatch.fnmatchcase(name, pattern):
            return view.pes[name][1]
    return None


def _by_host(candidates: list[tuple[str, int]]) -> dict[str, list[tuple[str, int]]]:
    hosts: dict[str, list[tuple[str, int]]] = {}
    for qi, n in candidates:
        hosts.setdefault(qi.partition("@")[2], []).append((qi, n))
    return hosts


def _take(candidates: list[tuple[str, int]], need: int) -> list[tuple[str, int]] | None:
    granted = []
    for qi, n in candidates:
        if need == 0:
            break
        k = min(n, need)
        granted.append((qi, k))
        need -= k
    return granted if need == 0 else None


def _round_robin(candidates: list[tuple[str, int]], need: int) -> list[tuple[str, int]] | None:
    if sum(n for _, n in candidates) < need:
        return None
    left = dict(candidates)
    granted: dict[str, int] = {}
    while need:
        for qi in list(left):
            if need == 0:
                break
            if left[qi]:
                left[qi] -= 1
                granted[qi] = granted.get(qi, 0) + 1
                need -= 1
    return list(granted.items())

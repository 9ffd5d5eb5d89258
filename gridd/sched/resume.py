"""Going on with the last cycle instead of starting over, when all that happened since
is that its orders started and jobs arrived behind every job it left waiting; and
planning again in it when tasks ended too."""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping
from dataclasses import dataclass

from gridd.model.cluster import Running
from gridd.model.planning import Order, Reserved, SchedJob
from gridd.sched.cycle import TASK_LIMIT, Cycle, Plan
from gridd.sched.reserve import RESERVING
from gridd.sched.view import SchedView


@dataclass(slots=True, eq=False)
class Resumable:
    """The last cycle, for the next to go on with instead of starting over: when all
    that happened since is that its orders started and jobs arrived that come after every
    job it left waiting. Nothing was released, so what it found still holds: a new cycle
    would refuse the jobs it left waiting again, in the same order, and reserve for them
    at the same times, as long as no diagram changes in between (no task reaching its
    expected end, no reservation beginning). Planning the new jobs in it is then planning
    them in a new cycle, at the cost of the new jobs alone: most instants of a replayed
    trace (`gridd sim`) are arrivals, and so are a quiet cell's new submissions.

    When tasks ended too (or the waiting jobs changed), every waiting job is planned
    again, in the same cycle reopened: what the tasks gone held, and what the cycle
    reserved, is given back on its levels and diagrams (Cycle.reopen), which spares
    building them, as a new cycle would, at nearly every other instant of a replay."""

    cycle: Cycle
    now: float
    states: Mapping[str, str]  # the instances' states, which the next three decide:
    loads: dict[str, dict[str, str]]  # the loads its levels were made for (Carried's copy)
    hosts_up: set[str]  # the view's own: it replaces them when they change
    flags: dict[str, str]
    # The jobs still waiting, in order: those of `planned` not `done` with (None: it may
    # not go on). Sorted out only when the next run may go on: most follow tasks that
    # ended, and plan every job again.
    planned: list[SchedJob]
    done: set[int] | None
    running: list[Running]  # what runs, as the view lists it, once the orders started
    orders: list[Order]  # what the last run started (of jobs in `planned`)
    reserved: dict[int, Reserved]
    horizon: float = math.inf  # when a diagram first changes
    looked: int = 0  # bookings of the schedule the horizon has taken in

    @classmethod
    def after(cls, cycle: Cycle, view: SchedView, order: list[SchedJob], plan: Plan,
              states: Mapping[str, str]) -> Resumable | None:
        """The cycle as one to go on with, if it may be: not under resource quotas, not
        with load adjustments (the order they move follows `now`), not with reasons or the
        schedule file to make for every job. (Called for every cycle: the flags first,
        then the walk over the waiting jobs.)"""
        if (cycle.adjust is not None or cycle.conf.monitor or cycle.conf.job_info
                or cycle.quotas is not None):
            return None
        done = done_with(plan, view.jobs)
        if done is None:
            return None
        return cls(cycle, cycle.now, states, cycle.carried.loads, view.hosts_up, view.flags,
                   order, done, cycle.running, plan.orders, plan.reserved)

    def resume(self, view: SchedView, now: float, order: list[SchedJob]) -> Plan | None:
        """The plan for `order`, gone on with from this cycle, or planned again in it
        when tasks ended since (Cycle.reopen); None when it may be neither."""
        cycle = self.cycle
        if (self.done is None or view.conf is not cycle.conf or view.ars or now < self.now
                or view.hosts_up is not self.hosts_up or view.flags is not self.flags
                or cycle.carried.loads is not self.loads or view.loads != self.loads):
            return None
        tasks = list(view.running.values())
        plan = self._go_on(view, now, order, tasks)
        if plan is None:
            plan = self._reopen(view, now, order, tasks)
        if plan is not None:
            self.running, self.now, self.orders = tasks, now, plan.orders
        return plan

    def _go_on(self, view: SchedView, now: float, order: list[SchedJob],
               tasks: list[Running]) -> Plan | None:
        """The plan of the jobs after those left waiting, when nothing was released and no
        diagram changed. (The view's running tasks are in the order they started: none
        ended, so the first are those the cycle knew.)"""
        cycle, orders = self.cycle, self.orders
        if len(tasks) != len(self.running) + len(orders):
            return None
        assert self.done is not None
        left = still_waiting(self.planned, self.done)
        if len(order) < len(left):
            return None
        if cycle.schedule is None and cycle.keeps_starts:
            return None  # its starts would be booked from the later time (Cycle.the_schedule)
        self._follow()
        # A task within a second of its expected end is taken to end then
        # (Cycle.the_schedule): that would change its diagrams.
        if now > self.horizon - 1 or order[:len(left)] != left:
            return None
        if tasks[:len(self.running)] != self.running:
            return None
        for o in orders:
            task = view.running.get((o.job_id, o.task_id))
            if task is None or task.start != self.now or task.granted != o.granted \
                    or task.pe != o.pe:
                return None
        new = order[len(left):]
        if cycle.job_tasks is None and any(map(TASK_LIMIT, new)):
            return None  # the cycle kept no count of running tasks to limit them by
        plan = cycle.go_on(now, new, self.states)
        self.reserved = plan.reserved = self.reserved | plan.reserved
        self.planned, self.done = left + new, done_with(plan, view.jobs)
        return plan

    def _reopen(self, view: SchedView, now: float, order: list[SchedJob],
                tasks: list[Running]) -> Plan | None:
        """The plan of every waiting job made again in this cycle (Cycle.reopen), when
        all that changed of what runs is that its orders started and tasks ended."""
        cycle = self.cycle
        gone = self._gone(view.running, len(tasks))
        if gone is None or (cycle.job_tasks is None and any(map(TASK_LIMIT, order))):
            return None  # (the cycle kept no count of running tasks to limit them by)
        plan = cycle.reopen(now, tasks, gone, order, self.states)
        if plan is None:
            return None
        self.reserved = plan.reserved
        self.planned, self.done = order, done_with(plan, view.jobs)
        self.horizon, self.looked = math.inf, 0
        return plan

    def _gone(self, running: Mapping[tuple[int, int], Running], count: int
              ) -> list[Running] | None:
        """The tasks the cycle knew to run (its orders' as they started) that ended since,
        if the others still run as they did and nothing else runs (None otherwise). A task
        without a start is booked from each cycle's own time (Cycle.the_schedule): none
        may run."""
        gone = []
        for task in self.running:
            still = running.get((task.job_id, task.task_id))
            if still is None:
                gone.append(task)
            elif not task.start or (still is not task and still != task):
                return None
        known = len(self.running) - len(gone)
        for o in self.orders:
            task = running.get((o.job_id, o.task_id))
            if task is None:  # (it holds its job's hard requests)
                hard = next(job.hard for job in self.planned if job.job_id == o.job_id)
                gone.append(Running(o.job_id, o.task_id, hard, o.granted, o.pe,
                                    start=self.now, resource_map=o.resource_map))
            elif not task.start or task.start != self.now or task.granted != o.granted \
                    or task.pe != o.pe:
                return None
            else:
                known += 1
        return gone if count == known else None

    def _follow(self) -> None:
        """Take in the bookings made since the horizon was last lowered."""
        schedule = self.cycle.schedule
        if schedule is None or self.looked == len(schedule.bookings):
            return
        horizon = self.horizon
        for booking in itertools.islice(schedule.bookings, self.looked, None):
            horizon = min(horizon, booking.start if booking.state == RESERVING
                          else booking.start + booking.duration)
        self.horizon, self.looked = horizon, len(schedule.bookings)


def done_with(plan: Plan, jobs: Mapping[int, SchedJob]) -> set[int] | None:
    """The jobs of a run's order done with after it: those all of whose tasks started,
    and immediate jobs that could not (they are gone). None when an immediate job started
    some of its tasks: the next cycle would give up on the others. Asked before the view
    hears of the orders."""
    done = set(plan.unschedulable)
    if plan.orders:
        started: dict[int, int] = {}
        for o in plan.orders:
            started[o.job_id] = started.get(o.job_id, 0) + 1
        for number, n in started.items():
            job = jobs[number]
            if n >= len(job.pending):
                done.add(number)
            elif job.immediate:
                return None
    return done


def still_waiting(order: list[SchedJob], done: set[int]) -> list[SchedJob]:
    """The jobs of an order not done with (done_with), in order."""
    return [job for job in order if job.job_id not in done] if done else order

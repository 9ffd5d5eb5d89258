"""Dispatch planning: which pending jobs start now, where, and why the others cannot.

The Planner orders the pending jobs by priority and makes a cycle (gridd.sched.cycle) for
each decision, or goes on with the last one when nothing it found has changed
(gridd.sched.resume); what holds from cycle to cycle is carried (gridd.sched.carried).
`verify` answers qsub -w v and -w p with a cycle of its own; AR granting has its own
entry point (gridd.sched.grant), which the Planner lends what it carries.
"""

from __future__ import annotations

import operator
from collections.abc import Iterable, Mapping

import msgspec

from gridd.model.ar import ArBooking
from gridd.model.cluster import PlanConf, Running
from gridd.model.planning import SchedJob
from gridd.model.priority import ResourceUrgency, normalise, prior, urgency_totals
from gridd.sched.adjust import Adjustments
from gridd.sched.allocation import slots_of
from gridd.sched.ar_jobs import apart
from gridd.sched.carried import Carried
from gridd.sched.cycle import TASK_LIMIT, Cycle, Plan
from gridd.sched.levels import build_levels, debit, instance_states, matcher_for
from gridd.sched.match import Matcher
from gridd.sched.quota import QuotaRules, who_of
from gridd.sched.resume import Resumable
from gridd.sched.view import SchedView

_SUBMISSION = operator.attrgetter("submit_time", "job_id")  # the order of jobs alike
_FIRST_THREE = operator.itemgetter(0, 1, 2)  # priority, submission, number
_PRIORITY = operator.attrgetter("priority")


class Planner:
    """Plans cycles; compiled requests live as long as the complex table does."""

    def __init__(self) -> None:
        self._matcher: Matcher | None = None
        self._complexes: object = None
        self._quota_rules: QuotaRules | None = None
        self.carried = Carried()  # from cycle to cycle; AR granting (gridd.sched.grant) too
        self._urgency: ResourceUrgency | None = None
        self._urgency_of: object = None
        self._last: Resumable | None = None

    def matcher(self, conf: PlanConf) -> Matcher:
        if self._matcher is None or self._complexes is not conf.complexes:
            self._matcher, self._complexes = matcher_for(conf), conf.complexes
        return self._matcher

    def plan(self, view: SchedView, now: float, *, categories: bool = True,
             order: list[SchedJob] | None = None) -> Plan:
        """Decide which pending tasks start now. The view is left alone: the master
        answers with events that carry the orders' effects. `categories=False` is the
        slow reference the caches must agree with (see Cycle). `order`: the pending jobs
        as `order` would put them, from a caller that keeps them so (a replay: `gridd
        sim`), spared sorting them again every run."""
        if order is None:
            order = self.order(view, now)
        self.carried.keep_jobs(view.jobs)
        last, self._last = self._last, None
        if last is not None and categories:
            plan = last.resume(view, now, order)
            if plan is not None:
                self._last = last
                return plan
        # Tasks in advance reservations hold what their AR holds, not the cell's (those of
        # an AR that is over hold their own until they end).
        running, in_ars = apart(view.running.values(), view.ars) if view.ars else (
            view.running.values(), ())
        self.carried.follow_cell(view.conf, view.loads)
        levels = self.carried.running_levels(view.conf, view.loads, self.matcher(view.conf),
                                              running)
        for ar in view.ars.values():  # one whose window is open holds its resources now
            if ar.start <= now < ar.end:
                debit(levels, Running(-ar.ar_id, 1, ar.hard, ar.granted, ar.pe,
                                      resource_map=ar.resource_map), ar=True)
        table = levels.matcher.table
        adjust = Adjustments.of(view.conf, view.loads, view.running.values(), now, table)
        states = self.carried.instance_states(view.hosts_up, view.flags, table) \
            if adjust is None else instance_states(view.conf, view.loads, view.hosts_up,
                                                   view.flags, table, adjust.loads)
        cycle = Cycle(view.conf, levels, view.loads, running, states,
                      categories=categories, quota_rules=self._quota_rules, now=now,
                      carried=self.carried, ars=view.ars, in_ars=in_ars, adjust=adjust,
                      count_tasks=view.conf.max_aj_instances > 0 or any(
                          map(TASK_LIMIT, order)), reasons=view.conf.job_info)
        if cycle.quotas is not None:
            self._quota_rules = cycle.quotas.rules
        plan = cycle.run(order)
        if categories and not view.ars:
            self._last = Resumable.after(cycle, view, order, plan, states)
        return plan

    def order(self, view: SchedView, now: float) -> list[SchedJob]:
        """The pending jobs in priority order (gridd.model.priority; urgency normalised
        over pending and running jobs), equals by submission time, then job number; not
        those whose -a time is still to come."""
        conf = view.conf
        jobs = [j for j in view.jobs.values() if j.start_time <= now]  # qsub -a: not yet
        if not conf.weight_urgency and len(set(map(_PRIORITY, jobs))) <= 1:
            return sorted(jobs, key=_SUBMISSION)  # all alike in priority
        w = conf.weights()
        nurgs = [0.5] * len(jobs)  # where the urgency counts for nothing
        if w.urgency:
            resources = self._resource_urgency(conf).of
            nurgs = normalise(urgency_totals(
                [*((resources(j.hard, j.pe_min or 1), now - j.submit_time, j.deadline)
                   for j in jobs),
                 *((resources(t.hard, slots_of(t.granted)),
                    now - t.submit if t.submit else 0.0, 0.0)
                   for t in view.running.values())], now, w))[:len(jobs)]
        keyed = [(-prior(j.priority, nurg, w), j.submit_time, j.job_id, j)
                 for j, nurg in zip(jobs, nurgs, strict=True)]
        keyed.sort(key=_FIRST_THREE)
        return [k[3] for k in keyed]

    def _resource_urgency(self, conf: PlanConf) -> ResourceUrgency:
        if self._urgency is None or self._urgency_of is not conf.complexes:
            self._urgency, self._urgency_of = ResourceUrgency(conf.complexes), conf.complexes
        return self._urgency


def verify(
    conf: PlanConf,
    loads: Mapping[str, Mapping[str, str]],
    running: Iterable[Running],
    job: SchedJob,
    ars: Mapping[int, ArBooking] | None = None,
    now: float = 0.0,
) -> list[str] | None:
    """Why `job` could not start on this cluster (None when it could), states ignored:
    `qsub -w v` asks with no running tasks (an empty cluster), `-w p` with today's. The
    advance reservations stay: a job in one is checked against what it holds (as if it
    ran); any other may run once they end, unless it may run for ever, which keeps it
    off the instances they hold."""
    running, _ = apart(running, ars or {})
    levels = build_levels(conf, loads, running)
    if job.ar and ars and job.ar in ars:
        ar = ars[job.ar]
        ars = {ar.ar_id: msgspec.structs.replace(ar, usable=True)}
        now = max(now, ar.start)
    cycle = Cycle(conf, levels, loads, running, {}, ars=ars, now=now)
    cat = cycle.category(job)
    who = who_of(job)
    if job.ar:
        found = cycle.instances_in_ar(job, cat)
        placed = found is not None and cycle.place_in_ar(job, cat, *found) is not None
    else:
        placed = cycle.place(job, cat, who) is not None
    return None if placed else cat.why(who).lines()

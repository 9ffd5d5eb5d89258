"""One dispatch decision over one set of levels (Cycle), and what it decides (Plan).

A cycle builds on levels with every running task debited, keeps the queue instances that
take jobs now in planning order, and walks the jobs in priority order: each placement is
debited before the next job is looked at, so nothing is booked twice. Cycle holds the
state its steps share and the walk itself (run); the steps are its bases, each in the
module of its rule:

- gridd.sched.ordering     the planning order, and following the loads placements raise
- gridd.sched.categories   jobs alike, and which instances may ever take them
- gridd.sched.placement    where a task starts now, and booking it; sequential jobs
- gridd.sched.parallel     parallel jobs (their slots' shape: gridd.sched.allocation)
- gridd.sched.backfill     reservations, the diagrams, keeping starts clear of them
- gridd.sched.ar_jobs      jobs in advance reservations
- gridd.sched.quota_checks the resource quotas as a cycle asks them

What carries over to the next cycle is gridd.sched.carried and gridd.sched.resume; the
planner that makes cycles is gridd.sched.plan, AR granting gridd.sched.grant.
"""

from __future__ import annotations

import itertools
import math
import operator
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from functools import partial

from gridd.model.ar import ArBooking
from gridd.model.cluster import Instance, PlanConf, Running
from gridd.model.planning import Granted, Order, Reserved, SchedJob
from gridd.model.rsmap import ResourceMap
from gridd.sched.adjust import Adjustments
from gridd.sched.allocation import slots_of
from gridd.sched.ar_jobs import ArJobs
from gridd.sched.backfill import Backfilling, Capacity
from gridd.sched.carried import Carried
from gridd.sched.categories import Categories, Category
from gridd.sched.levels import Levels, debit, formula_terms, whole
from gridd.sched.match import CategoryCache, Held, JobRequest
from gridd.sched.ordering import Following, Ordering
from gridd.sched.parallel import ParallelPlacement
from gridd.sched.placement import Placement
from gridd.sched.quota import QuotaRules, Quotas, Who
from gridd.sched.quota_checks import Closed, QuotaChecks, Sigs
from gridd.sched.reasons import Why, as_lists
from gridd.sched.reserve import Schedule
from gridd.sched.rsmap_ids import NO_IDS

# A job's -tc: asked of every pending job each cycle, at the speed of C.
TASK_LIMIT = operator.attrgetter("task_concurrency")
ARRAY_LIMIT = "not all array tasks may be started due to 'max_aj_instances'"
ARRAY_FULL = Why.of([ARRAY_LIMIT])


@dataclass(slots=True)
class Plan:
    """What a cycle decides: the tasks that start now, where, and why the others wait."""

    orders: list[Order] = field(default_factory=list)
    unschedulable: list[int] = field(default_factory=list)  # immediate jobs not started
    why: dict[int, Why] = field(default_factory=dict)  # jobs left pending -> why
    global_info: list[str] = field(default_factory=list)  # why instances took no job
    reserved: dict[int, Reserved] = field(default_factory=dict)  # job -> when, where, ids
    schedule: list[str] | None = None  # the schedule file's lines for this cycle (MONITOR)

    @property
    def info(self) -> dict[int, list[str]]:
        """Why each job left pending waits, as lists (made on each read)."""
        return as_lists(self.why)


class Cycle(Ordering, Categories, Placement, ParallelPlacement, Backfilling, ArJobs,
            QuotaChecks):
    """One dispatch decision over one set of levels: the state its steps (the bases)
    share, declared here alone, and the walk over the jobs."""

    def __init__(
        self,
        conf: PlanConf,
        levels: Levels,
        loads: Mapping[str, Mapping[str, str]],
        running: Iterable[Running],
        states: Mapping[str, str],
        *,
        categories: bool = True,
        quota_rules: QuotaRules | None = None,
        now: float = 0.0,
        carried: Carried | None = None,
        ars: Mapping[int, ArBooking] | None = None,
        in_ars: Iterable[Running] = (),
        granting: bool = False,
        count_tasks: bool = False,
        reasons: bool = True,
        adjust: Adjustments | None = None,
    ) -> None:
        """`categories=False` plans every job on its own with `Matcher.fits`: no
        CategoryCache, no passing over refusing instances, no skipping of rejected
        categories, and reasons
        gathered per job. It is far slower and exists as the reference the caches must
        agree with (the property tests and bench/dispatch.py compare the two).
        `quota_rules` are the rule sets compiled by an earlier cycle, reused while the
        configuration is the same (and their tables within bounds). `count_tasks`: keep
        count of each job's running tasks (max_aj_instances, -tc). `reasons=False`: no
        one reads why jobs cannot run (schedd_job_info off), so the costlier ones go unsaid
        (_clear_of_reservations). `adjust`: the load adjustments, which order the instances
        and judge their load thresholds, and rise with every placement (_follow_load)."""
        self.conf = conf
        self.reasons = reasons
        self.levels = levels
        self.matcher = levels.matcher
        self.use_categories = categories
        # The matcher's checks, answered from the category's earlier failures if cached
        # (forgotten with the categories: _learn_afresh).
        self._cache = CategoryCache()
        self.fits = partial(self._cache.fits, self.matcher) if categories else self.matcher.fits
        self.soft_violations = (partial(self._cache.soft_violations, self.matcher)
                                if categories else self.matcher.soft_violations)
        self.categories: dict[tuple[object, ...], Category] = {}
        self.global_info: list[str] = []
        self.instances = {qi.name: qi for qi in conf.instances}
        running = list(running)
        self.quotas: Quotas | None = None
        if conf.rqs and not granting:  # an AR is limited by capacities, not by quotas
            if quota_rules is None or not quota_rules.reusable_for(conf):
                quota_rules = QuotaRules(conf, self.matcher.table)
            self.quotas = Quotas(quota_rules, loads)
            self.quotas.book_running(running, self.instances, self.matcher)
        self.quota_hit = False  # the current attempt met a quota refusal
        self._sigs: dict[int, Sigs] = {}  # by id of a list
        # Per asker, request amounts and candidate list: skip pointers past the instances
        # the quotas closed to the asker for the rest of the cycle (see Category.alive).
        self._quota_dead: dict[tuple[Who, int, int], Closed] = {}
        self.pe_used: dict[str, int] = {}
        for task in running:
            if task.pe:
                self.pe_used[task.pe] = self.pe_used.get(task.pe, 0) + slots_of(task.granted)
        # Reservation: the diagrams are made when first needed (Schedule); until then the
        # placements started are only remembered, for them to be booked then.
        self.now = now
        self.loads = loads
        self.running = running
        self.schedule: Schedule | None = None
        self.keeps_starts = conf.max_reservation > 0 or conf.monitor
        self._started: list[tuple[int, int, Category, Granted, str, Who]] = []
        self._quota_limits: dict[int, float] = {}  # by mark, for the "R" diagrams
        # Whether every amount the levels offer is whole (levels.whole), for reopen to
        # give back exactly: found when first asked, then kept as Placement.book debits
        # (a whole request keeps whole levels whole); None until asked.
        self._whole: bool | None = None
        # What each task the cycle started (by job and task) took of the levels, for
        # reopen to give back when it ends, rather than work it out again.
        self._held: dict[tuple[int, int], Held] = {}
        self.capacity = Capacity(levels, conf.pes, self._quota_limits)
        self._quota_reserved = False  # a reservation holds quota
        # The RSMAP ids the cycle's reservations book: (start, end, ids).
        self._booked_ids: list[tuple[float, float, ResourceMap]] = []
        # Advance reservations not over yet, and what the jobs in each use of it: slots
        # per (AR, instance), consumables per (AR, resource).
        self.ars = {n: ar for n, ar in ars.items() if ar.end > now} if ars else {}
        # Where jobs without a run-time limit may not go (not a concern of a new AR's).
        self.ar_instances = frozenset(
            name for ar in self.ars.values() for name, _ in ar.granted
        ) if self.ars and not granting else frozenset()
        if carried is None:  # else the planner has made it follow this cycle's cell
            carried = Carried()
            carried.follow_cell(conf, loads)
        self.carried = carried
        # Whose jobs may go where: judged for jobs; an AR's access list is judged by
        # grant_ar itself (its owner need not be on it).
        self.access = None if granting else carried.access
        # The instances in planning order follow the loads alone, unless adjusted: then
        # they follow the jobs started too, and change as the cycle places more.
        self.adjust = adjust
        self._following: Following | None = None
        if adjust is None:
            self.usable, self.open = self._usable(self.carried.ordered(loads, self._ordered),
                                                  states)
        else:
            order = self._order(adjust.loads)
            self.usable, self.open = self._usable(order.sort(self.conf.instances), states)
            order.hold(self.open)
            on_host: dict[str, list[tuple[int, Instance]]] = {}
            for index, qi in enumerate(self.conf.instances):
                on_host.setdefault(qi.host, []).append((index, qi))
            self._following = Following(adjust, order, formula_terms(conf.load_formula),
                                        on_host, set(map(id, self.usable)))
        self.carried.follow(self.usable, self.open, self.ar_instances)
        self.free_slots = self._free_slots()
        self.ar_slots: dict[tuple[int, str], int] = {}
        self.ar_spent: dict[tuple[int, str], float] = {}
        # Their consumables, level by level: per (AR, level, name, resource) as reserve.Use.
        self.ar_spent_levels: dict[tuple[int, str, str, str], float] = {}
        self.ar_holds: dict[int, dict[tuple[str, str, str], float]] = {}  # (ArJobs._ar_held)
        # The RSMAP ids of ARs their jobs hold, per (AR, RSMAP, host).
        self.ar_held: dict[tuple[int, str, str], Counter[str]] = {}
        for task in in_ars:
            self._spend_ar(task.ar, self.matcher.request(task.hard), task.granted,
                           task.resource_map)
        # Tasks running per job, where max_aj_instances or a job's -tc limits them (counted
        # on as they start).
        self.job_tasks: Counter[int] | None = None
        if count_tasks:
            self.job_tasks = Counter(task.job_id for task in itertools.chain(running, in_ars))

    def _learn_afresh(self) -> None:
        """Forget what the walk learnt of categories: their refusals hold only while
        what is free shrinks."""
        self._cache.forget()
        self.categories = {}

    def _free_slots(self) -> float:
        """An upper bound of what any job could get now: the free slots of the usable
        instances (booked down as jobs start)."""
        queues = self.levels.queues
        free: float = 0  # (as sum starts)
        for qi in self.usable:
            free += queues[qi.name].free.get("slots", math.inf)
        return free

    def reopen(self, now: float, running: list[Running], gone: list[Running],
               jobs: Iterable[SchedJob], states: Mapping[str, str]) -> Plan | None:
        """Plan all the waiting jobs again, later, after the tasks `gone` ended (see
        Resumable): as a new cycle over `running` would, on this cycle's levels and
        diagrams with what those tasks held and what it reserved given back, instead of
        building them again. Only for a cycle without quotas, advance reservations or
        load adjustments; None, and nothing changed, where an amount is not whole (what
        is given back would not be exact) or the diagrams of what still runs would
        change (Schedule.reopen)."""
        if self._whole is None:
            self._whole = whole(self.levels)
        if not (self.carried.empty_whole and self._whole):
            return None
        request, kept = self.matcher.request, self._held
        reqs: list[JobRequest | None] = []  # None: a task started here (its debit is kept)
        ended = set()
        for task in gone:
            req = None
            if task.resource_map or (task.job_id, task.task_id) not in kept:
                req = request(task.hard)
                if not req.whole:
                    return None
            reqs.append(req)  # (a task the cycle started asked a whole request: _whole)
            ended.add((task.job_id, task.task_id or 1))
        if self.schedule is not None and not self.schedule.reopen(now, ended):
            return None
        self.now, self.running = now, running
        for task, req in zip(gone, reqs, strict=True):
            if req is None:
                for free, name, amount in kept.pop((task.job_id, task.task_id)):
                    free[name] += amount
            else:
                kept.pop((task.job_id, task.task_id), None)
                debit(self.levels, task, sign=-1, req=req)
            if task.pe:
                self.pe_used[task.pe] -= slots_of(task.granted)
            if self.job_tasks is not None:
                self.job_tasks[task.job_id] -= 1
        self._started.clear()  # (they run now: the diagrams, once made, book them so)
        self._learn_afresh()
        self.global_info = []
        self.usable, self.open = self._usable(self.carried.ordered(self.loads, self._ordered),
                                              states)
        self.carried.follow(self.usable, self.open, self.ar_instances)
        self.free_slots = self._free_slots()
        self._booked_ids = []
        return self.run(jobs)

    def go_on(self, now: float, jobs: Iterable[SchedJob], states: Mapping[str, str]
              ) -> Plan:
        """Plan jobs that come after all the cycle has planned, later (see Resumable):
        what it started since runs, so some instances may be full now."""
        self.now = now
        if self.schedule is not None:
            self.schedule.move_to(now)
        self.global_info = []
        self._usable(self.carried.ordered(self.loads, self._ordered), states)
        return self.run(jobs)

    def run(self, jobs: Iterable[SchedJob]) -> Plan:
        plan = Plan(global_info=self.global_info)
        if self.ars:  # jobs starting now keep clear of them from the start
            self.the_schedule()
        job_info = self.conf.job_info
        pending = list(jobs)
        thinned = job_info  # with job_info every job is looked at, for its reasons
        limited = self.job_tasks is not None  # tasks per job are limited (_array_full)
        # The cycle's reservations below max_reservation: only one the walk makes ends it.
        reserving = self._reserving()
        i = 0
        while i < len(pending):
            if not thinned and not reserving:
                # No more reservations this cycle: of the jobs left, those that need more
                # slots than are free can neither start nor reserve (what is free only
                # shrinks). One sweep leaves them out, instead of a look at each.
                free = self.free_slots
                pending[i:] = [j for j in itertools.islice(pending, i, None)
                               if j.ar or j.immediate or (j.pe_min or 1) <= free]
                thinned = True
                if i == len(pending):
                    break
            job = pending[i]
            i += 1
            if job.ar:
                self._run_in_ar(job, plan)
                continue
            # As many of its tasks run as may (max_aj_instances, -tc): 8.1.9 leaves its
            # others out of the run, so it neither starts nor reserves until one of its own
            # ends. Asked before the shortcuts below, which would reserve for it.
            if limited and self._array_full(job, plan):
                if job.immediate:
                    plan.unschedulable.append(job.job_id)
                continue
            # Fewer slots free in all than the job needs: it waits. Matching it would
            # only find the reasons, and there are none to keep. (Most waiting jobs of a
            # busy cell are such: this is asked first and as cheaply as can be.)
            hopeless = (job.pe_min or 1) > self.free_slots and not job_info
            # A job may reserve with -R y and not -now y.
            may_reserve = reserving and job.reserve and not job.immediate
            if hopeless and not may_reserve:
                if job.immediate:
                    plan.unschedulable.append(job.job_id)
                continue
            cat, who = self.category_and_who(job)
            started = False
            waiting: int | None = job.pending[0] if job.pending else None
            if not hopeless and not cat.rejected and who not in cat.rejected_who:
                for task_id in job.pending:
                    if limited and self._array_full(job, plan):  # with those it started: as
                        waiting = None  # above, no reservation either
                        break
                    self.quota_hit = False
                    if self._following is not None:  # load adjustments may move instances
                        self._follow_order(cat)
                    placed = self.place(job, cat, who)
                    if placed is None:
                        if self.quota_hit:  # another asker may still fit
                            cat.refuse_who(who)
                        else:
                            cat.rejected = True
                        waiting = task_id
                        break
                    granted, pe, claimed = placed
                    ids = self.granted_ids(cat, granted) if cat.req.rsmap else []
                    if ids is None:  # ids and counts disagree: it is not given
                        cat.reasons[NO_IDS] = None
                        cat.rejected = True
                        waiting = task_id
                        break
                    self._held[job.job_id, task_id] = self.book(cat, granted, pe, who,
                                                                 claimed, ids)
                    if self.job_tasks is not None:
                        self.job_tasks[job.job_id] += 1
                    self._started_now(job.job_id, task_id, cat, granted, pe, who)
                    plan.orders.append(Order(job.job_id, task_id, granted, pe, ids))
                    started = True
                    if self.adjust is not None:
                        self._follow_load(granted)
                else:
                    waiting = None
            if job_info and (cat.rejected or who in cat.rejected_who):
                plan.why[job.job_id] = cat.why(who)
            if job.immediate and not started:
                plan.unschedulable.append(job.job_id)
            if waiting is not None and may_reserve:
                if self._following is not None:
                    self._follow_order(cat)
                reserved = self._reserve(job, waiting, cat)
                reserving = self._reserving()
                if reserved is not None:
                    plan.reserved[job.job_id] = (*reserved, self._reserved_ids(cat, *reserved))
        if self.conf.monitor:
            plan.schedule = [line for booking in self.the_schedule().bookings
                             for line in booking.lines(self.matcher.exclusive)]
        return plan

    def _array_full(self, job: SchedJob, plan: Plan) -> bool:
        """Whether as many of the job's tasks run as max_aj_instances or its -tc allow
        (said as 8.1.9's scheduler says it for either)."""
        if self.job_tasks is None:
            return False
        limit = min((n for n in (self.conf.max_aj_instances, job.task_concurrency) if n > 0),
                    default=0)
        if not limit or self.job_tasks[job.job_id] < limit:
            return False
        if self.conf.job_info:
            plan.why[job.job_id] = ARRAY_FULL
        return True

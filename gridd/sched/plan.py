"""Dispatch planning: which pending jobs start now, where, and why the others cannot.

A cycle builds the levels (configured values and loads, every running task debited),
keeps the queue instances that take jobs now in queue_sort_method order, and walks the
jobs in priority order. A sequential job goes to the first instance where its hard
requests fit, or, when it has soft requests, to the fitting one with the fewest soft
violations. A parallel job gets the largest slot count of its range that its PE's
allocation rule can place on the fitting instances. Each placement is debited before the
next job is looked at, so nothing is booked twice; with load adjustments (gridd.sched.adjust)
it also raises its hosts' loads, which moves their instances in the order
(gridd.sched.order) and may put them in alarm.

Jobs with equal requests form a category (the spec's caching section). Within a cycle a
category keeps what it learned: the levels where it failed (CategoryCache), the instances
that refused it (resources only shrink during a cycle, so they are passed over from then
on), and whether it was rejected, in which case its later jobs are not tried again and
share its reasons.
"""

from __future__ import annotations

import bisect
import fnmatch
import itertools
import math
import operator
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from functools import partial
from typing import NamedTuple

import msgspec

from gridd.model.ar import ArBooking, ArPlace
from gridd.model.cluster import Instance, PlanConf, Running
from gridd.model.pe import FILL_UP, PE_SLOTS, ROUND_ROBIN, ParallelEnv
from gridd.model.planning import Granted, Order, SchedJob
from gridd.model.priority import ResourceUrgency, normalise, prior, urgency
from gridd.model.queue_ref import names_queue, queue_matches
from gridd.model.values import is_unsigned
from gridd.sched.access import (
    AccessKey,
    access_key,
    allowed,
    host_refusal,
    pe_refusal,
    queue_refusal,
)
from gridd.sched.adjust import Adjustments, overload
from gridd.sched.levels import (
    ALARM,
    Levels,
    build_levels,
    debit,
    dropped_reason,
    formula_terms,
    formula_value,
    instance_states,
    matcher_for,
    whole,
)
from gridd.sched.match import (
    EXCLUSIVE,
    FIT,
    CategoryCache,
    JobRequest,
    Level,
    Matcher,
    MatchResult,
    reservation_refusal,
)
from gridd.sched.order import Key
from gridd.sched.order import Order as InstanceOrder
from gridd.sched.quota import Asker, QuotaRules, Quotas, Who
from gridd.sched.reserve import (
    ADVANCE,
    LEVEL_CHAR,
    RESERVING,
    Booking,
    Schedule,
    Standing,
    Use,
    uses,
)
from gridd.sched.view import SchedView

_SUBMISSION = operator.attrgetter("submit_time", "job_id")  # the order of jobs alike
# A job's -tc: asked of every pending job each cycle, at the speed of C.
_TASK_LIMIT = operator.attrgetter("task_concurrency")
ARRAY_LIMIT = "not all array tasks may be started due to 'max_aj_instances'"
ALL_DROPPED = "All queues dropped because of overload or full"  # said after the instances
_OVERLOADED = dropped_reason(ALARM)  # why an instance in alarm takes no jobs
_HELD = MatchResult(False, "cannot run because a reservation holds what it needs")  # unsaid
# Entries of a memo carried from cycle to cycle (categories' statics, placements' uses):
# as many as gridd.sched.match keeps compiled requests.
_MAX_KEPT = 20_000


@dataclass(slots=True)
class Plan:
    orders: list[Order] = field(default_factory=list)
    unschedulable: list[int] = field(default_factory=list)  # immediate jobs not started
    info: dict[int, list[str]] = field(default_factory=dict)  # jobs left pending -> why
    global_info: list[str] = field(default_factory=list)  # why instances took no job
    reserved: dict[int, tuple[float, Granted]] = field(default_factory=dict)  # job -> when, where
    schedule: list[str] | None = None  # the schedule file's lines for this cycle (MONITOR)


@dataclass(slots=True, eq=False)
class Carried:
    """What a cycle leaves the next while the configuration stays the same object: the
    levels with nothing running (for the loads they were built with), per running task
    where it holds what, and the diagrams of the running tasks (a cycle under resource
    quotas makes its own), and what categories are whatever was booked (while the loads
    and the instances open to jobs and to reservations stay too: a cell replayed by
    `gridd sim` plans the same jobs run after run, though not every job every run)."""

    conf: PlanConf | None = None
    loads: dict[str, dict[str, str]] = field(default_factory=dict)
    empty: Levels | None = None
    # The empty levels with the running tasks debited, and those tasks (by id): None
    # when an amount is not whole (see running_levels).
    busy: Levels | None = None
    busy_with: dict[int, Running] = field(default_factory=dict)
    empty_whole: bool = False  # every amount the empty levels offer is whole
    uses: dict[tuple[object, ...], tuple[Use, ...]] = field(default_factory=dict)  # Cycle._uses
    # Per running task (job, task, start): where it holds what, what planning assumes it
    # runs, and its request.
    held: dict[tuple[int, int, float], tuple[tuple[Use, ...], float, JobRequest]] = field(
        default_factory=dict)
    # ids of the instances usable and open, and the instances advance reservations hold
    # (None: in no order a cycle begins with, see forget_order)
    where: tuple[tuple[int, ...], tuple[int, ...], frozenset[str]] | None = ((), (), frozenset())
    standing: Standing = field(default_factory=Standing)  # the running tasks' diagrams
    statics: dict[tuple[object, ...], _Static] = field(default_factory=dict)  # by key
    lists: dict[tuple[int, ...], list[Instance]] = field(default_factory=dict)
    order: list[Instance] | None = None  # the instances in planning order (Cycle._ordered)
    access: AccessKey | None = None  # what access depends on (None: nothing limits it)
    pes: dict[str, list[ParallelEnv]] = field(default_factory=dict)  # by what -pe names

    def follow(self, usable: list[Instance], open_: list[Instance],
               held: frozenset[str]) -> None:
        where = (tuple(map(id, usable)), tuple(map(id, open_)), held)
        # (Those of categories whose jobs are gone are dropped en bloc, now and then.)
        if where != self.where or len(self.statics) >= _MAX_KEPT:
            self.where, self.statics = where, {}
        if not self.statics:
            self.lists = {}

    def forget_order(self) -> None:
        """The planning order changed within a cycle (load adjustments): what categories
        were made for the old one goes, and what is made for the new one is not kept for
        the next cycle, whatever its instances (none at all are instances too)."""
        self.where, self.statics, self.lists = None, {}, {}

    def follow_cell(self, conf: PlanConf, loads: Mapping[str, Mapping[str, str]]) -> None:
        """Forget what the configuration or the loads no longer bear out: once a cycle,
        before anything else is asked (comparing the loads of many hosts is not free)."""
        if conf is not self.conf:
            self.conf, self.empty, self.held, self.order = conf, None, {}, None
            self.statics, self.standing, self.pes = {}, Standing(), {}
            self.access = access_key(conf)
        if loads != self.loads:  # (what consumables hold is configured: no diagram changes)
            self.empty, self.order = None, None
            self.loads = {host: dict(values) for host, values in loads.items()}
            self.statics = {}

    def ordered(self, loads: Mapping[str, Mapping[str, str]],
                order: Callable[[Mapping[str, Mapping[str, str]]], list[Instance]]
                ) -> list[Instance]:
        """The instances in planning order, as `order` puts them for these loads."""
        if self.order is None:
            self.order = order(loads)
        return self.order

    def empty_levels(self, conf: PlanConf, loads: Mapping[str, Mapping[str, str]],
                     matcher: Matcher) -> Levels:
        """The levels with nothing running: what could ever fit where."""
        if self.empty is None:
            self.empty = build_levels(conf, loads, [], matcher)
            self.busy, self.empty_whole = None, whole(self.empty)
            self.uses = {}
        return self.empty

    def running_levels(self, conf: PlanConf, loads: Mapping[str, Mapping[str, str]],
                       matcher: Matcher, running: Iterable[Running]) -> Levels:
        """Levels of their own with the running tasks debited. The tasks started since
        the last cycle are debited and those gone given back, on levels kept from cycle
        to cycle, instead of debiting every running task again: exact, and the same as
        debiting them all in any order, while every amount is whole. Otherwise they are
        debited afresh, in the order given."""
        empty = self.empty_levels(conf, loads, matcher)
        now = {id(task): task for task in running}
        busy, before = self.busy, self.busy_with
        if busy is not None and now.keys() != before.keys():
            started = [t for key, t in now.items() if key not in before]
            if all(matcher.request(t.hard).whole for t in started):
                for key, task in before.items():
                    if key not in now:
                        debit(busy, task, sign=-1)
                for task in started:
                    debit(busy, task)
                self.busy_with = now
            else:
                busy = self.busy = None
        if busy is None:
            busy = empty.copy()
            for task in now.values():
                debit(busy, task)
            if not (self.empty_whole and all(matcher.request(t.hard).whole
                                             for t in now.values())):
                return busy
            self.busy, self.busy_with = busy, now
        return busy.copy()


@dataclass(slots=True, eq=False)
class _Resumable:
    """The last cycle, for the next to go on with instead of starting over: when all
    that happened since is that its orders started and jobs arrived that come after every
    job it left waiting. Nothing was released, so what it found still holds: a new cycle
    would refuse the jobs it left waiting again, in the same order, and reserve for them
    at the same times, as long as no diagram changes in between (no task reaching its
    expected end, no reservation beginning). Planning the new jobs in it is then planning
    them in a new cycle, at the cost of the new jobs alone: most instants of a replayed
    trace (`gridd sim`) are arrivals, and so are a quiet cell's new submissions."""

    cycle: Cycle
    now: float
    states: Mapping[str, str]  # the instances' states, which the next three decide:
    loads: dict[str, dict[str, str]]  # the loads its levels were made for (Carried's copy)
    hosts_up: set[str]  # the view's own: it replaces them when they change
    flags: dict[str, str]
    left: list[SchedJob] | None  # the jobs still waiting, in order (None: may not go on)
    running: list[Running]  # what runs, as the view lists it, once the orders started
    orders: list[Order]  # what the last run started
    reserved: dict[int, tuple[float, Granted]]
    horizon: float = math.inf  # when a diagram first changes
    looked: int = 0  # bookings of the schedule the horizon has taken in

    @classmethod
    def after(cls, cycle: Cycle, view: SchedView, order: list[SchedJob], plan: Plan,
              states: Mapping[str, str]) -> _Resumable | None:
        """The cycle as one to go on with, if it may be: not under resource quotas, not
        with reasons or the schedule file to make for every job, and with diagrams made
        if it keeps them. (Called for every cycle: it costs little.)"""
        left = _still_waiting(order, plan, view.jobs)
        if (left is None or cycle.adjust is not None or cycle.conf.monitor or cycle.conf.job_info
                or cycle.quotas is not None or (cycle.schedule is None and cycle.keeps_starts)):
            return None
        return cls(cycle, cycle.now, states, cycle.carried.loads, view.hosts_up, view.flags,
                   left, cycle.running, plan.orders, plan.reserved)

    def resume(self, view: SchedView, now: float, order: list[SchedJob]) -> Plan | None:
        """The plan for `order`, gone on with from this cycle; None when it may not be.
        (The view's running tasks are in the order they started: none ended, so the
        first are those the cycle knew.)"""
        cycle, left, orders = self.cycle, self.left, self.orders
        running = view.running
        if (left is None or view.conf is not cycle.conf or view.ars or now < self.now
                or len(running) != len(self.running) + len(orders) or len(order) < len(left)
                or view.hosts_up is not self.hosts_up or view.flags is not self.flags
                or cycle.carried.loads is not self.loads or view.loads != self.loads):
            return None
        self._follow()
        # A task within a second of its expected end is taken to end then
        # (Cycle._the_schedule): that would change its diagrams.
        if now > self.horizon - 1 or order[:len(left)] != left:
            return None
        tasks = list(running.values())
        if tasks[:len(self.running)] != self.running:
            return None
        for o in orders:
            task = running.get((o.job_id, o.task_id))
            if task is None or task.start != self.now or task.granted != o.granted \
                    or task.pe != o.pe:
                return None
        new = order[len(left):]
        if cycle.job_tasks is None and any(map(_TASK_LIMIT, new)):
            return None  # the cycle kept no count of running tasks to limit them by
        plan = cycle.go_on(now, new, self.states)
        self.reserved = plan.reserved = self.reserved | plan.reserved
        more = _still_waiting(new, plan, view.jobs)
        self.left = None if more is None else left + more
        self.running, self.now, self.orders = tasks, now, plan.orders
        return plan

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


def _still_waiting(order: list[SchedJob], plan: Plan, jobs: Mapping[int, SchedJob]
                   ) -> list[SchedJob] | None:
    """The jobs of a run's order still waiting after it: not those all of whose tasks
    started, nor immediate jobs that could not (they are gone). None when an immediate
    job started some of its tasks: the next cycle would give up on the others. Asked
    before the view hears of the orders."""
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
    return [job for job in order if job.job_id not in done] if done else order


class Planner:
    """Plans cycles; compiled requests live as long as the complex table does."""

    def __init__(self) -> None:
        self._matcher: Matcher | None = None
        self._complexes: object = None
        self._quota_rules: QuotaRules | None = None
        self._carried = Carried()
        self._urgency: ResourceUrgency | None = None
        self._urgency_of: object = None
        self._last: _Resumable | None = None

    def matcher(self, conf: PlanConf) -> Matcher:
        if self._matcher is None or self._complexes is not conf.complexes:
            self._matcher, self._complexes = matcher_for(conf), conf.complexes
        return self._matcher

    def plan(self, view: SchedView, now: float, *, categories: bool = True) -> Plan:
        """Decide which pending tasks start now. The view is left alone: the master
        answers with events that carry the orders' effects. `categories=False` is the
        slow reference the caches must agree with (see Cycle)."""
        order = self.order(view, now)
        last, self._last = self._last, None
        if last is not None and categories:
            plan = last.resume(view, now, order)
            if plan is not None:
                self._last = last
                return plan
        # Tasks in advance reservations hold what their AR holds, not the cell's (those of
        # an AR that is over hold their own until they end).
        running, in_ars = _apart(view.running.values(), view.ars) if view.ars else (
            view.running.values(), ())
        # An AR whose window is open holds its resources now, as a running job would.
        holds = [Running(-ar.ar_id, 1, ar.hard, ar.granted, ar.pe)
                 for ar in view.ars.values() if ar.start <= now < ar.end]
        self._carried.follow_cell(view.conf, view.loads)
        levels = self._carried.running_levels(view.conf, view.loads, self.matcher(view.conf),
                                              running)
        for task in holds:
            debit(levels, task)
        table = levels.matcher.table
        adjust = Adjustments.of(view.conf, view.loads, view.running.values(), now, table)
        states = instance_states(view.conf, view.loads, view.hosts_up, view.flags, table,
                                 None if adjust is None else adjust.loads)
        cycle = Cycle(view.conf, levels, view.loads, running, states,
                      categories=categories, quota_rules=self._quota_rules, now=now,
                      carried=self._carried, ars=view.ars, in_ars=in_ars, adjust=adjust,
                      count_tasks=view.conf.max_aj_instances > 0 or any(
                          map(_TASK_LIMIT, order)), reasons=view.conf.job_info)
        if cycle.quotas is not None:
            self._quota_rules = cycle.quotas.rules
        plan = cycle.run(order)
        if categories and not view.ars:
            self._last = _Resumable.after(cycle, view, order, plan, states)
        return plan

    def order(self, view: SchedView, now: float) -> list[SchedJob]:
        """The pending jobs in priority order (gridd.model.priority; urgency normalised
        over pending and running jobs), equals by submission time, then job number; not
        those whose -a time is still to come."""
        conf = view.conf
        jobs = [j for j in view.jobs.values() if j.start_time <= now]  # qsub -a: not yet
        if not conf.weight_urgency and len({j.priority for j in jobs}) <= 1:
            return sorted(jobs, key=_SUBMISSION)  # all alike in priority (the sim's jobs)
        w = conf.weights()
        nurgs = [0.5] * len(jobs)  # where the urgency counts for nothing
        if w.urgency:
            resources = self._resource_urgency(conf)
            urgent = [urgency(resources.of(j.hard, max(j.pe_min, 1)), now - j.submit_time,
                              j.deadline or None, now, w).total for j in jobs]
            held = [urgency(resources.of(t.hard, _slots_of(t.granted)),
                            now - t.submit if t.submit else 0.0, None, now, w).total
                    for t in view.running.values()]
            nurgs = normalise(urgent + held)[:len(jobs)]
        memo: dict[tuple[int, float], float] = {}  # jobs alike in priority and urgency
        priors = {}
        for j, nurg in zip(jobs, nurgs, strict=True):
            found = memo.get((j.priority, nurg))
            if found is None:
                found = memo[(j.priority, nurg)] = prior(j.priority, nurg, w)
            priors[j.job_id] = found
        return sorted(jobs, key=lambda j: (-priors[j.job_id], j.submit_time, j.job_id))

    def grant_ar(
        self,
        conf: PlanConf,
        loads: Mapping[str, Mapping[str, str]],
        running: Iterable[Running],
        ars: Mapping[int, ArBooking],
        states: Mapping[str, str],
        request: SchedJob,
        place: ArPlace,
        start: float,
        end: float,
        now: float,
    ) -> tuple[Granted, str] | None:
        """Where an advance reservation for `request` holds its slots from start to end,
        and its PE ("" for none), or None when nowhere.

        Earlier ARs and what runs until its expected end are booked in the diagrams, as
        for a reservation; quotas are not honoured (only capacities count). Disabled,
        suspended and unknown instances are suited, orphaned ones are not, nor instances
        where a task without a run-time limit runs (it might still run when the AR
        starts) or that `place` rules out. What the planner carries from cycle to
        cycle (the empty levels, where each running task holds what) serves here too.
        """
        own, _ = _apart(running, ars)
        instances = {qi.name: qi for qi in conf.instances}
        unlimited = {name for t in own for name, _ in t.granted
                     if name not in instances or _unlimited(t.hard, instances[name])}
        suited = {name: "".join(c for c in letters if c not in "dusSaA")
                  for name, letters in states.items()}
        # The diagrams decide; the levels only name where things are.
        self._carried.follow_cell(conf, loads)
        empty = self._carried.empty_levels(conf, loads, self.matcher(conf))
        cycle = Cycle(conf, empty, loads, own, suited, now=now, ars=ars,
                      carried=self._carried, granting=True)
        cat = cycle.category(request)
        schedule = cycle._the_schedule()
        duration = end - start

        def allowed(qi: Instance) -> bool:
            return qi.name not in unlimited and all(
                admits(qi, user, conf.usersets) and host_admits(conf, qi.host, user)
                for user in place.users) and (
                qi.interactive or not place.interactive) and (
                not place.checkpoint or place.checkpoint in qi.ckpt_list)

        def may_lead(qi: Instance) -> bool:
            return not place.master_queues or any(
                queue_matches(ref, qi, conf.hostgroups) for ref in place.master_queues)

        if not request.pe:
            for qi in cat.open:
                if allowed(qi) and may_lead(qi) and \
                        cycle.matcher.fits(cat.req, 1, *empty.of(qi)).ok and \
                        schedule.fits(uses(cat.req, [(empty.of(qi), 1)]), start, duration):
                    return [(qi.name, 1)], ""
            return None
        for pe in cat.pes:
            candidates = [qi for qi in cycle._pe_open(cat, pe).instances if allowed(qi)]
            granted = cycle._parallel_at(request, cat, pe, candidates, start, duration)
            leader = next((i for i, (name, _) in enumerate(granted or ())
                           if may_lead(cycle.instances[name])), None)
            if granted is not None and leader is not None:
                return _led_by(granted, leader), pe.name
        return None

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
    running, _ = _apart(running, ars or {})
    levels = build_levels(conf, loads, running)
    if job.ar and ars and job.ar in ars:
        ar = ars[job.ar]
        ars = {ar.ar_id: msgspec.structs.replace(ar, usable=True)}
        now = max(now, ar.start)
    cycle = Cycle(conf, levels, loads, running, {}, ars=ars, now=now)
    cat = cycle.category(job)
    who = _who(job)
    if job.ar:
        found = cycle._ar_instances(job, cat)
        placed = found is not None and cycle._place_in_ar(job, cat, *found) is not None
    else:
        placed = cycle.place(job, cat, who) is not None
    return None if placed else cat.why(who)


def _unlimited(hard: Mapping[str, str], qi: Instance) -> bool:
    """Whether a job with these requests may run for ever in the instance: neither it
    (h_rt, s_rt) nor the queue (h_rt) limits its run time."""
    return "h_rt" not in hard and "s_rt" not in hard and \
        qi.values.get("h_rt", "INFINITY").upper() in ("INFINITY", "")


def _led_by(granted: Granted, index: int) -> Granted:
    """The placement with its `index`th instance first: the one holding the master task."""
    return [granted[index], *granted[:index], *granted[index + 1:]]


def _apart(running: Iterable[Running], ars: Mapping[int, ArBooking]
           ) -> tuple[list[Running], list[Running]]:
    """Running tasks apart from those inside one of these ARs, and those."""
    own, inside = [], []
    for task in running:
        (inside if task.ar and task.ar in ars else own).append(task)
    return own, inside


def admits(qi: Instance, user: str, usersets: Mapping[str, list[str]], group: str = ""
           ) -> bool:
    """Whether the instance's access lists let a user in: of an advance reservation's
    access list (its groups are not known; a @userset entry is not judged), or one that
    qselect -U names, with its primary group."""
    if user.startswith("@"):
        return True
    return allowed(qi.user_lists, qi.xuser_lists, user, group, usersets)


def host_admits(conf: PlanConf, host: str, user: str, group: str = "") -> bool:
    """Whether the global host's and the host's access lists let a user in (as `admits`
    judges them)."""
    return user.startswith("@") or all(
        allowed(access.user_lists, access.xuser_lists, user, group, conf.usersets)
        for name in ("global", host) if (access := conf.host_access.get(name)) is not None)


class _Lead(NamedTuple):
    """Where a parallel job with -masterq may have its master task (names of the
    instances its list names) and its other slots (those its -q names; None: wherever it
    may run otherwise). 8.1.9 takes an instance of the master list even when -q leaves
    it out, but for the master task alone."""

    masters: frozenset[str]
    slaves: frozenset[str] | None


class _PeOpen(NamedTuple):
    instances: list[Instance]
    hosts: dict[str, tuple[list[Instance], set[tuple[str, str, str]]]]
    keys: set[tuple[str, str, str]]  # every diagram a slot of the job could use
    one: dict[str, tuple[Use, ...]]  # per instance, what one slot of the job takes there
    # Per host, what the job's fewest slots take on it ($pe_slots): on its only instance,
    # or, where it has several, on the global and host levels (a bound, not a placement).
    whole: dict[str, tuple[Use, ...]]


@dataclass(slots=True, eq=False)
class _Static:
    """What a category is whatever a cycle books (see Carried)."""

    req: JobRequest
    candidates: list[Instance]  # instances that may take its jobs, in planning order
    pes: list[ParallelEnv]  # PEs its wildcard names, in name order
    soft_queues: list[str]
    duration: float  # what planning assumes it runs: h_rt or s_rt, DURATION_OFFSET added
    excluded: dict[str, None]  # why the other instances never take its jobs
    lead: _Lead | None  # where its master task and other slots may go (-masterq)
    # The instances that may take its reservations (the candidates and the full ones);
    # of those the ones that could ever take one slot, with where that slot takes what,
    # made when first needed.
    open: list[Instance]
    reservable: list[tuple[Instance, tuple[Use, ...]]] | None = None
    pe_open: dict[str, _PeOpen] = field(default_factory=dict)  # by PE, see Cycle._pe_open


@dataclass(slots=True, eq=False)
class _Category:
    static: _Static
    req: JobRequest
    candidates: list[Instance]
    pes: list[ParallelEnv]
    soft_queues: list[str]
    duration: float
    open: list[Instance]
    reasons: dict[str, None]  # an ordered set
    rejected: bool = False
    # Per PE, the candidates listing it that have not refused one slot of the category yet.
    pe_candidates: dict[str, list[Instance]] = field(default_factory=dict)
    # Resource quotas depend on who asks: their refusals, and the askers they refused
    # everywhere, are kept per user, group and project, apart from what resources say.
    quota_reasons: dict[Who, dict[str, None]] = field(default_factory=dict)
    rejected_who: set[Who] = field(default_factory=set)
    resume_who: dict[Who, int] = field(default_factory=dict)  # past resource or quota refusals
    askers: dict[Who, Asker] = field(default_factory=dict)  # by who with the PE tried
    # skip[i] leads to the next candidate from i that has not refused the category one
    # slot (such a refusal holds all cycle long); [n] ends it. Made when first needed.
    skip: list[int] | None = None
    pe_vetted: dict[str, set[int]] = field(default_factory=dict)  # per PE: instances (ids)
    # one slot of the category fitted in this cycle, as far as the offers go
    pe_hosts: dict[str, dict[str, int]] = field(default_factory=dict)  # per PE: instances
    # of each host among pe_candidates ($pe_slots)
    # The reasons as a list, with the size of the set it was made from, and the last list
    # made per asker with the size of its quota reasons: jobs refused alike share them
    # (the sets only grow during a cycle).
    _reasons: tuple[int, list[str]] = (0, [])
    _why: dict[Who, tuple[list[str], int, list[str]]] = field(default_factory=dict)

    def alive(self, i: int) -> int:
        """The first candidate from index i that has not refused the category."""
        return i if self.skip is None else _jump(self.skip, i)

    def walk(self) -> Iterator[tuple[int, Instance]]:
        """The candidates that have not refused the category, with their indexes."""
        i = self.alive(0)
        while i < len(self.candidates):
            yield i, self.candidates[i]
            i = self.alive(i + 1)

    def dead(self, i: int) -> None:
        if self.skip is None:
            self.skip = list(range(len(self.candidates) + 1))
        self.skip[i] = i + 1

    def why(self, who: Who) -> list[str]:
        if self._reasons[0] != len(self.reasons):
            self._reasons = (len(self.reasons), list(self.reasons))
        reasons = self._reasons[1]
        quota = self.quota_reasons.get(who, ())
        made = self._why.get(who)
        if made is None or made[0] is not reasons or made[1] != len(quota):
            made = self._why[who] = (reasons, len(quota),
                                     reasons + list(quota) if quota else reasons)
        return made[2]


class _Sigs(NamedTuple):
    """The quota signatures of a candidate list: each candidate's, all of them, and the
    candidates (indexes) of each."""

    of: list[int]
    every: frozenset[int]
    members: dict[int, list[int]]


_NO_SIGS = _Sigs([], frozenset(), {})


@dataclass(slots=True, eq=False)
class _Closed:
    """The candidates of one list the quotas closed to one asker for the rest of the
    cycle: skip pointers as in _Category, and how many of the asker's blocked signatures
    (Quotas.blocked, in the order they were blocked) have been closed en bloc."""

    skip: list[int]
    applied: int = 0


@dataclass(slots=True, eq=False)
class _Capacity:
    """How much of a utilization's resource there is in all, for the diagrams. Apart
    from the cycle: its schedule keeps it, and a schedule that kept the cycle would make
    every cycle garbage for the collector to find rather than freed when let go."""

    levels: Levels
    pes: Mapping[str, ParallelEnv]
    quota_limits: dict[int, float]  # by mark, for the "R" diagrams

    def __call__(self, use: Use) -> float:
        if use.level == "R":
            return self.quota_limits.get(int(use.name), math.inf)
        if use.level == "P":
            pe = self.pes.get(use.name)
            return float(pe.slots) if pe is not None else math.inf
        level = self.level(use)
        return math.inf if level is None else level.capacity.get(use.resource, math.inf)

    def level(self, use: Use) -> Level | None:
        """The level a utilization is on (None for a PE's slots)."""
        if use.level == "G":
            return self.levels.global_level
        if use.level == "H":
            return self.levels.hosts.get(use.name)
        return self.levels.queues.get(use.name) if use.level == "Q" else None


@dataclass(slots=True, eq=False)
class _Following:
    """What a cycle with load adjustments keeps to follow the loads its placements raise
    (Cycle._follow_load): the planning order, the load formula, each host's instances with
    their configured positions, the usable ones not dropped in alarm since, and where in
    the order the cycle's usable and open instances and each category's candidates were
    last put in it (the changes of the order and its mark then)."""

    adjust: Adjustments
    order: InstanceOrder
    terms: tuple[tuple[float, str], ...]
    on_host: dict[str, list[tuple[int, Instance]]]
    watched: set[int]
    listed: tuple[int, int] = (0, 0)
    # Per category (by id; each new one writes its own): the changes and mark its
    # candidates followed.
    categories: dict[int, tuple[int, int]] = field(default_factory=dict)


class Cycle:
    """One dispatch decision over one set of levels."""

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
        # The matcher's checks, answered from the category's earlier failures if cached.
        cache = CategoryCache()
        self.fits = partial(cache.fits, self.matcher) if categories else self.matcher.fits
        self.soft_violations = (partial(cache.soft_violations, self.matcher) if categories
                                else self.matcher.soft_violations)
        self.categories: dict[tuple[object, ...], _Category] = {}
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
        self._sigs: dict[int, _Sigs] = {}  # by id of a list
        # Per asker, request amounts and candidate list: skip pointers past the instances
        # the quotas closed to the asker for the rest of the cycle (see _Category.alive).
        self._quota_dead: dict[tuple[Who, int, int], _Closed] = {}
        self.pe_used: dict[str, int] = {}
        for task in running:
            if task.pe:
                self.pe_used[task.pe] = self.pe_used.get(task.pe, 0) + _slots_of(task.granted)
        # Reservation: the diagrams are made when first needed (Schedule); until then the
        # placements started are only remembered, for them to be booked then.
        self.now = now
        self.loads = loads
        self.running = running
        self.schedule: Schedule | None = None
        self.keeps_starts = conf.max_reservation > 0 or conf.monitor
        self._started: list[tuple[int, int, _Category, Granted, str, Who]] = []
        self._quota_limits: dict[int, float] = {}  # by mark, for the "R" diagrams
        self.capacity = _Capacity(levels, conf.pes, self._quota_limits)
        self._quota_reserved = False  # a reservation holds quota
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
        self._following: _Following | None = None
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
            self._following = _Following(adjust, order, formula_terms(conf.load_formula),
                                         on_host, set(map(id, self.usable)))
        self.carried.follow(self.usable, self.open, self.ar_instances)
        # An upper bound of what any job could get now: the free slots of the usable
        # instances (booked down as jobs start).
        self.free_slots = sum(levels.queues[qi.name].free.get("slots", math.inf)
                              for qi in self.usable)
        self.ar_slots: dict[tuple[int, str], int] = {}
        self.ar_spent: dict[tuple[int, str], float] = {}
        for task in in_ars:
            self._spend_ar(task.ar, self.matcher.request(task.hard), task.granted)
        # Tasks running per job, where max_aj_instances or a job's -tc limits them (counted
        # on as they start).
        self.job_tasks: Counter[int] | None = None
        if count_tasks:
            self.job_tasks = Counter(task.job_id for task in itertools.chain(running, in_ars))

    def _order(self, loads: Mapping[str, Mapping[str, str]]) -> InstanceOrder:
        """The planning order for these loads."""
        terms = formula_terms(self.conf.load_formula)
        table = self.matcher.table
        load = {h: formula_value(terms, loads.get(h, {}), table)
                for h in {qi.host for qi in self.conf.instances}}
        return InstanceOrder((qi, self._sort_key(qi, i, load[qi.host]))
                     for i, qi in enumerate(self.conf.instances))

    def _ordered(self, loads: Mapping[str, Mapping[str, str]]) -> list[Instance]:
        """The instances in queue_sort_method order for these loads."""
        return self._order(loads).sort(self.conf.instances)

    def _sort_key(self, qi: Instance, index: int, load: float) -> Key:
        """Where an instance goes in the planning order: by the load formula's value on
        its host (`load`), then its sequence number (seqno: the other way round), then as
        configured (`index`)."""
        if self.conf.queue_sort_method == "seqno":
            return (qi.seq_no, load, index)
        return (load, qi.seq_no, index)

    def _usable(self, ordered: list[Instance], states: Mapping[str, str]
                ) -> tuple[list[Instance], list[Instance]]:
        """The instances jobs may start in now, and those that may take reservations: the
        same and the full ones."""
        usable, open_ = [], []
        for qi in ordered:
            why = dropped_reason(states.get(qi.name, ""))
            if why is None:
                open_.append(qi)
                if self.levels.queues[qi.name].free.get("slots", 1) <= 0:
                    why = "it is full"
            elif why == _OVERLOADED:
                why = self._overloaded(qi) or why
            if why is None:
                usable.append(qi)
            else:
                self.global_info.append(f'queue instance "{qi.name}" dropped because {why}')
        if ordered and not usable:
            self.global_info.append(ALL_DROPPED)
        return usable, open_

    def _overloaded(self, qi: Instance) -> str | None:
        """Why an instance in alarm is dropped, with the threshold its host reaches."""
        why = overload(qi, self.loads.get(qi.host, {}), self.matcher.table, self.adjust)
        return None if why is None else f"{_OVERLOADED}: {why}"

    def _follow_load(self, granted: Granted) -> bool:
        """After a placement, its hosts' adjusted loads have risen: their instances that
        reach a load threshold now take no more jobs this cycle (as 8.1.9 says, after the
        instances dropped when it began), and the others move in the planning order; each
        category follows the order before it is next placed (_follow_order). Whether the
        order changed."""
        following = self._following
        assert following is not None
        order, watched = following.order, following.watched
        changes = order.changes
        for host in following.adjust.book(granted):
            load = formula_value(following.terms, following.adjust.loads.get(host, {}),
                                 self.matcher.table)
            for index, qi in following.on_host.get(host, ()):
                why = self._overloaded(qi) if qi.load_thresholds and id(qi) in watched \
                    else None
                if why is not None:
                    watched.discard(id(qi))
                    self.global_info.append(f'queue instance "{qi.name}" dropped because {why}')
                order.move(qi, None if why else self._sort_key(qi, index, load))
        if order.changes == changes:
            return False
        self.carried.forget_order()
        # Lists let go may leave their ids to new ones: what is kept by a list's id goes
        # (a category lets its list go only in _follow_order, after such a change).
        self._sigs.clear()
        self._quota_dead.clear()
        return True

    def _in_order(self) -> None:
        """The usable and open instances in the planning order as it is now, for what asks
        them after placements (new categories, jobs in ARs)."""
        following = self._following
        assert following is not None
        if following.listed[0] != following.order.changes:
            order, since = following.order, following.listed[1]
            self.usable, self.open = order.follow(self.usable, since), order.follow(self.open,
                                                                                    since)
            following.listed = (order.changes, order.mark)

    # ---- the cycle ---------------------------------------------------------------------

    def go_on(self, now: float, jobs: Iterable[SchedJob], states: Mapping[str, str]
              ) -> Plan:
        """Plan jobs that come after all the cycle has planned, later (see _Resumable):
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
            self._the_schedule()
        job_info = self.conf.job_info
        pending = list(jobs)
        thinned = job_info  # with job_info every job is looked at, for its reasons
        i = 0
        while i < len(pending):
            if not thinned and not self._reserving():
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
            # Fewer slots free in all than the job needs: it waits. Matching it would
            # only find the reasons, and there are none to keep. (Most waiting jobs of a
            # busy cell are such: this is asked first and as cheaply as can be.)
            hopeless = (job.pe_min or 1) > self.free_slots and not job_info
            if hopeless and not (job.reserve and self._may_reserve(job)):
                if job.immediate:
                    plan.unschedulable.append(job.job_id)
                continue
            cat = self.category(job)
            who = _who(job)
            started = False
            waiting: int | None = job.pending[0] if job.pending else None
            if not hopeless and not cat.rejected and who not in cat.rejected_who:
                for task_id in job.pending:
                    if self._array_full(job, plan):  # no reservation either: it waits
                        waiting = None  # for one of its own tasks to end
                        break
                    self.quota_hit = False
                    if self._following is not None:  # load adjustments may move instances
                        self._follow_order(cat)
                    placed = self.place(job, cat, who)
                    if placed is None:
                        if self.quota_hit:  # another asker may still fit
                            cat.rejected_who.add(who)
                        else:
                            cat.rejected = True
                        waiting = task_id
                        break
                    granted, pe, claimed = placed
                    self.book(cat, granted, pe, who, claimed)
                    if self.job_tasks is not None:
                        self.job_tasks[job.job_id] += 1
                    self._started_now(job.job_id, task_id, cat, granted, pe, who)
                    plan.orders.append(Order(job.job_id, task_id, granted, pe))
                    started = True
                    if self.adjust is not None:
                        self._follow_load(granted)
                else:
                    waiting = None
            if (cat.rejected or who in cat.rejected_who) and self.conf.job_info:
                plan.info[job.job_id] = cat.why(who)
            if job.immediate and not started:
                plan.unschedulable.append(job.job_id)
            if waiting is not None and self._may_reserve(job):
                if self._following is not None:
                    self._follow_order(cat)
                reserved = self._reserve(job, waiting, cat)
                if reserved is not None:
                    plan.reserved[job.job_id] = reserved
        if self.conf.monitor:
            plan.schedule = [line for booking in self._the_schedule().bookings
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
            plan.info[job.job_id] = [ARRAY_LIMIT]
        return True

    def category(self, job: SchedJob) -> _Category:
        if not self.use_categories:
            return self._new_category(job)
        key = (tuple(job.hard.items()), tuple(job.soft.items()), tuple(job.queues),
               tuple(job.soft_queues), job.pe, job.pe_min, job.pe_max, job.ar,
               tuple(job.master_queues))
        if self.access is not None:  # jobs of owners allowed alike share a category
            key += self.access.of(job.owner, job.group, job.project)
        cat = self.categories.get(key)
        if cat is None:
            cat = self.categories[key] = self._new_category(job, key)
        return cat

    def _new_category(self, job: SchedJob, key: tuple[object, ...] | None = None
                      ) -> _Category:
        """A category for the cycle, from what earlier cycles knew of it if they can."""
        static = None if key is None else self.carried.statics.get(key)
        if static is None:
            static = self._static(job)
            if key is not None:
                self.carried.statics[key] = static
        cat = _Category(static, static.req, static.candidates, static.pes,
                        static.soft_queues, static.duration, static.open,
                        dict(static.excluded))
        if self._following is not None:
            order = self._following.order
            self._following.categories[id(cat)] = (order.changes, order.mark)
        return cat

    def _follow_order(self, cat: _Category) -> None:
        """The category's candidates in the cycle's planning order as it is now, if that
        changed since they were last in it. What it learned holds (resources only shrink,
        and instances in alarm only drop out): its refusals, the instances that refused it,
        its parallel jobs' candidates; only where its scans stopped is forgotten. (The
        order changed, so Carried.forget_order keeps none of it for the next cycle.)"""
        following = self._following
        assert following is not None
        order = following.order
        changes, mark = following.categories[id(cat)]
        if changes == order.changes:
            return
        old, one_list = cat.static, cat.open is cat.candidates
        candidates = order.follow(cat.candidates, mark)
        open_ = candidates if one_list else order.follow(cat.open, mark)
        if candidates is not cat.candidates or open_ is not cat.open:
            if self.quotas is not None:  # shared as _static shares them
                candidates = self.carried.lists.setdefault(tuple(map(id, candidates)),
                                                           candidates)
                open_ = candidates if one_list else open_
            static = _Static(old.req, candidates, old.pes, old.soft_queues, old.duration,
                             old.excluded, old.lead, open_)
            if cat.skip is not None:  # the same refusals, where the instances are now
                refused = set(map(id, itertools.compress(
                    cat.candidates, map(operator.ne, cat.skip, range(len(cat.candidates))))))
                cat.skip = list(map(operator.add, range(len(candidates)),
                                    map(refused.__contains__, map(id, candidates))))
                cat.skip.append(len(candidates))
            cat.static, cat.candidates, cat.open = static, candidates, open_
            cat.resume_who = {}
        followed = {pe: order.follow(instances, mark)
                    for pe, instances in cat.pe_candidates.items()}
        if any(followed[pe] is not instances for pe, instances in cat.pe_candidates.items()):
            cat.pe_candidates, cat.pe_hosts = followed, {}
        following.categories[id(cat)] = (order.changes, order.mark)

    def _static(self, job: SchedJob) -> _Static:
        if self._following is not None:
            self._in_order()
        req = self.matcher.request(job.hard, job.soft)
        pes = self.carried.pes.get(job.pe)
        if pes is None:
            if len(self.carried.pes) >= _MAX_KEPT:
                self.carried.pes.clear()
            pes = self.carried.pes[job.pe] = [
                pe for name, pe in sorted(self.conf.pes.items())
                if job.pe and fnmatch.fnmatchcase(name, job.pe)]
        excluded: dict[str, None] = {}
        if self.access is not None and pes:  # the PEs its owner may not use are out
            refused = {pe.name: pe_refusal(pe, job.owner, job.group, self.conf.usersets)
                       for pe in pes}
            for reasons in refused.values():
                excluded.update(dict.fromkeys(reasons))
            pes = [pe for pe in pes if not refused[pe.name]]
        candidates = []
        groups = self.conf.hostgroups
        for qi in self.usable:
            reasons = self._excluded(job, pes, qi, groups)
            if reasons:
                excluded.update(dict.fromkeys(reasons))
            else:
                candidates.append(qi)
        # Categories that can use the same instances share one list, and with it the
        # quota signatures and what the quotas close to an asker.
        candidates = self.carried.lists.setdefault(tuple(map(id, candidates)), candidates)
        open_ = candidates if len(self.open) == len(self.usable) else [
            qi for qi in self.open if not self._excluded(job, pes, qi, groups)]
        return _Static(req, candidates, pes, job.soft_queues, self._duration(req), excluded,
                       self._lead(job, pes), open_)

    def _lead(self, job: SchedJob, pes: list[ParallelEnv]) -> _Lead | None:
        if not (job.master_queues and pes):
            return None
        groups = self.conf.hostgroups

        def named(refs: list[str]) -> frozenset[str]:
            return frozenset(qi.name for qi in self.conf.instances
                             if any(queue_matches(ref, qi, groups) for ref in refs))

        return _Lead(named(job.master_queues), named(job.queues) if job.queues else None)

    def _excluded(self, job: SchedJob, pes: list[ParallelEnv], qi: Instance,
                  groups: Mapping[str, list[str]]) -> list[str]:
        """Why the job may never run in the instance, whatever it has free (none: it may).
        Its owner's access (and its project's) is judged first: the cluster queue's, then
        the global host's and the host's, as Grid Engine judges the cluster queue before
        its instances. A job that may run for ever never goes where an advance reservation
        holds slots: it could still run when the AR starts."""
        if self.access is not None:
            refused = queue_refusal(qi, job.owner, job.group, job.project, self.conf.usersets)
            for host in ("global", qi.host):
                access = self.conf.host_access.get(host)
                if refused is None and access is not None:
                    refused = host_refusal(host, access, job.owner, job.group, job.project,
                                           self.conf.usersets)
            if refused:
                return [refused]
        if not qi.batch:
            return [f'cannot run in queue instance "{qi.name}" because it is not of type batch']
        if job.queues and not any(queue_matches(ref, qi, groups) for ref in job.queues) \
                and not (pes and any(queue_matches(ref, qi, groups)
                                     for ref in job.master_queues)):
            # 8.1.9 names the cluster queue when no reference names it, else the instance.
            where = f'queue instance "{qi.name}"' if any(
                names_queue(ref, qi.queue) for ref in job.queues) else f'queue "{qi.queue}"'
            return [f"cannot run in {where} because it is not contained in its hard queue "
                    "list (-q)"]
        if pes and not any(pe.name in qi.pe_list for pe in pes):
            return [f'cannot run in queue "{qi.queue}" because PE "{pe.name}" is not in PE list'
                    for pe in pes]
        if not job.ar and qi.name in self.ar_instances and _unlimited(job.hard, qi):
            return [f'cannot run in queue instance "{qi.name}" because it carries an advance '
                    "reservation and the job has no run-time limit"]
        return []

    def place(self, job: SchedJob, cat: _Category,
              who: Who) -> tuple[Granted, str, bool] | None:
        """Where the job's next task goes and the PE it uses ("" for a sequential job).

        The PE is the one the placement was made for: with a wildcard (-pe "*") another
        PE listed by the same instances may have refused the job, for instance at its
        slot limit, and must neither be named in the order nor be debited. The flag says
        whether its quotas are booked already (a one-slot placement claims them).
        """
        if job.pe:
            for pe in cat.pes:
                if self._pe_held(job, cat, pe):
                    continue
                granted = self._place_parallel(job, cat, pe, who)
                if granted is not None and self.schedule is not None:
                    result = self._clear_of_reservations(
                        cat, granted, pe.name, self._quota_uses(cat.req, who, granted, pe.name)
                        if self._quota_reserved else ())
                    if not result.ok:
                        cat.reasons[result.reason] = None
                        continue
                if granted is not None:
                    return granted, pe.name, False
            return None
        if cat.req.soft or cat.soft_queues:
            granted = self._place_softly(cat, who)
            return None if granted is None else (granted, "", False)
        granted = self._place_first(cat, who)
        return None if granted is None else (granted, "", True)

    def _pe_held(self, job: SchedJob, cat: _Category, pe: ParallelEnv) -> bool:
        """Whether the cycle's reservations leave the PE too few slots for the job to
        start now, when no reason need be kept: placing it would be wasted."""
        if self.schedule is None or self.conf.job_info:
            return False
        diagram = self.schedule.diagrams.get(("P", pe.name, "slots"))
        return diagram is not None and diagram.reserved and not diagram.fits(
            self.now, cat.duration, float(max(job.pe_min, 1)))

    def book(self, cat: _Category, granted: Granted, pe: str, who: Who,
             claimed: bool = False) -> None:
        """Debit a placement on every level it uses, on its PE and (unless claimed
        already) its quotas."""
        in_pe = Who(who.user, who.group, who.project, pe)
        taken: set[int] = set()
        for index, (name, slots) in enumerate(granted):
            qi = self.instances[name]
            g, h, q = self.levels.of(qi)
            self.matcher.debit(cat.req, slots, g, h, q, master=index == 0, taken=taken)
            if self.quotas is not None and not claimed:
                self._asker(cat, in_pe).book(qi, slots, master=index == 0)
        self.free_slots -= _slots_of(granted)
        if pe:
            self.pe_used[pe] = self.pe_used.get(pe, 0) + _slots_of(granted)

    def _quota_refuses(self, cat: _Category, who: Who, qi: Instance, slots: int = 1,
                       master: bool = True) -> bool:
        """Whether a quota refuses the job here; the reason is kept for its asker."""
        if self.quotas is None:
            return False
        why = self._asker(cat, who).refusal(qi, slots, master)
        if why is None:
            return False
        self._note_quota(cat, who, why)
        return True

    def _asker(self, cat: _Category, who: Who) -> Asker:
        asker = cat.askers.get(who)
        if asker is None:
            assert self.quotas is not None
            asker = cat.askers[who] = self.quotas.asker(who, cat.req)
        return asker

    def _note_quota(self, cat: _Category, who: Who, why: str) -> None:
        """Keep a quota's refusal for the asker (`who` without a PE)."""
        cat.quota_reasons.setdefault(who, {})[why] = None
        self.quota_hit = True

    # ---- reservation ---------------------------------------------------------------------

    def _duration(self, req: JobRequest) -> float:
        """How long planning assumes a job runs: the longer of its h_rt and s_rt, else
        default_duration; plus DURATION_OFFSET."""
        limits = [need.key for need in req.hard if need.name in ("h_rt", "s_rt")]
        return (max(limits) if limits else self.conf.default_duration) + \
            self.conf.duration_offset

    def _uses(self, req: JobRequest, granted: Iterable[tuple[str, int]], pe: str
              ) -> tuple[Use, ...]:
        """What a placement takes where (`uses`), remembered from cycle to cycle: it
        depends only on which consumables each level has, settled with the empty levels
        (a reservation asks the same for its job cycle after cycle, and a task that
        started is booked again as it runs)."""
        key = (req, tuple(granted), pe)
        memo = self.carried.uses
        found = memo.get(key)
        if found is None:
            if len(memo) >= _MAX_KEPT:
                memo.clear()
            found = memo[key] = self._placed_uses(req, key[1], pe)
        return found

    def _placed_uses(self, req: JobRequest, granted: Iterable[tuple[str, int]], pe: str
                     ) -> tuple[Use, ...]:
        placed = []
        for name, slots in granted:
            qi = self.instances.get(name)
            if qi is not None:
                placed.append((self.levels.of(qi), slots))
            else:  # gone from the configuration: still holds global and host resources
                host = self.levels.hosts.get(name.partition("@")[2])
                levels = (self.levels.global_level, host) if host else (self.levels.global_level,)
                placed.append((levels, slots))
        return uses(req, placed, pe)

    def _started_now(self, job_id: int, task_id: int, cat: _Category, granted: Granted,
                     pe: str, who: Who) -> None:
        """Book a start in the diagrams, or remember it for when they are made."""
        if self.schedule is not None:
            self.schedule.book(self._starting(job_id, task_id, cat, granted, pe, who))
        elif self.keeps_starts:
            self._started.append((job_id, task_id, cat, granted, pe, who))

    def _starting(self, job_id: int, task_id: int, cat: _Category, granted: Granted,
                  pe: str, who: Who) -> Booking:
        return Booking(job_id, task_id or 1, "STARTING", self.now, cat.duration,
                       self._uses(cat.req, granted, pe)
                       + self._quota_uses(cat.req, who, granted, pe))

    def _quota_uses(self, req: JobRequest, who: Who, granted: Iterable[tuple[str, int]],
                    pe: str) -> tuple[Use, ...]:
        """What a placement books under the resource quotas, as utilizations of level "R"
        (one diagram per rule scope and resource, its capacity the limit): reservations
        honour quotas as they honour the levels' capacities."""
        if self.quotas is None:
            return ()
        asker = self.quotas.asker(Who(who.user, who.group, who.project, pe), req)
        totals: dict[int, float] = {}
        for index, (name, slots) in enumerate(granted):
            qi = self.instances.get(name)
            if qi is None:
                continue
            for check in asker.checks(qi):
                amount = check.per_slot * slots + (check.per_job if index == 0 else 0.0)
                if amount:
                    totals[check.mark] = totals.get(check.mark, 0.0) + amount
                    self._quota_limits[check.mark] = self.quotas.limit(check)
        marks = self.quotas.rules.marks
        return tuple(Use("R", str(mark), marks[mark][1], amount)
                     for mark, amount in totals.items())

    def _the_schedule(self) -> Schedule:
        """The diagrams: running tasks until their expected end, the cycle's starts."""
        if self.schedule is None:
            known = self.carried.held
            held: dict[tuple[int, int, float], tuple[tuple[Use, ...], float, JobRequest]] = {}
            # The standing diagrams hold no quota scopes: their limits are the cycle's.
            standing = self.carried.standing if self.quotas is None else None
            kept = {} if standing is None else standing.bookings
            wanted: dict[tuple[int, int, float], Booking] = {}
            for task in self.running:
                start = task.start or self.now
                key = (task.job_id, task.task_id, start)
                found = known.get(key)
                if found is None:
                    req = self.matcher.request(task.hard)
                    found = (self._uses(req, task.granted, task.pe), self._duration(req), req)
                held[key] = found
                placement, duration, req = found
                if self.quotas is not None:
                    placement += self._quota_uses(req, Who(task.owner, task.group,
                                                           task.project),
                                                  task.granted, task.pe)
                # One past its expected end is taken to end at once.
                duration = max(duration, self.now + 1 - start)
                booking = kept.get(key)
                if booking is None or booking.duration != duration:
                    booking = Booking(task.job_id, task.task_id or 1, "RUNNING", start,
                                      duration, placement)
                wanted[key] = booking
            if standing is not None and standing.follow(wanted, self.capacity):
                schedule = Schedule(self.now, self.capacity, standing)
                bookings = []
            else:
                schedule = Schedule(self.now, self.capacity)
                bookings = list(wanted.values())
            for ar in self.ars.values():
                bookings.append(Booking(ar.ar_id, 1, ADVANCE, ar.start, ar.end - ar.start,
                                        self._uses(self.matcher.request(ar.hard), ar.granted,
                                                   ar.pe)))
            bookings += [self._starting(*started) for started in self._started]
            for booking in bookings:
                schedule.book(booking)
            self.carried.held = held
            self._started.clear()
            self.schedule = schedule
        return self.schedule

    def _may_reserve(self, job: SchedJob) -> bool:
        """-R y, not -now y, and the cycle's reservations below max_reservation."""
        return job.reserve and not job.immediate and self._reserving()

    def _reserving(self) -> bool:
        """Whether the cycle's reservations are below max_reservation."""
        made = 0 if self.schedule is None else self.schedule.reserved
        return made < self.conf.max_reservation

    def _clear_of_reservations(self, cat: _Category, granted: Granted, pe: str = "",
                               quota: tuple[Use, ...] = ()) -> MatchResult:
        """Whether a placement starting now keeps clear of the cycle's reservations: it
        may take what one holds only if it ends before the reservation starts."""
        assert self.schedule is not None
        short = self.schedule.short(self._uses(cat.req, granted, pe) + quota, cat.duration)
        if short is None:
            return FIT
        if not self.reasons:
            return _HELD
        use, left = short
        level = self.capacity.level(use)
        if use.level == "R":
            return MatchResult(False, f"cannot run because a resource quota leaves only "
                               f"{use.resource}={left:f} due to a reservation")
        if level is None:  # the PE's slots
            return MatchResult(False, f'cannot run in PE "{pe}" because it only offers '
                               f"{int(left)} slots due to a reservation")
        return reservation_refusal(cat.req, level, use.resource, left)

    def _reserve(self, job: SchedJob, task_id: int, cat: _Category
                 ) -> tuple[float, Granted] | None:
        """Reserve for a job that cannot start now: the earliest start over the instances
        that could ever take it (the first of them among equals), booked in the diagrams
        so that no later job takes what it needs."""
        if job.pe:
            return self._reserve_parallel(job, task_id, cat)
        schedule = self._the_schedule()
        static = cat.static
        if static.reservable is None:
            empty = self._empty_levels()
            static.reservable = [(qi, uses(cat.req, [(self.levels.of(qi), 1)]))
                                 for qi in cat.open
                                 if self.matcher.fits(cat.req, 1, *empty.of(qi)).ok]
        best: tuple[float, Instance, tuple[Use, ...]] | None = None
        who = _who(job)
        for qi, placement in static.reservable:
            placement += self._quota_uses(cat.req, who, [(qi.name, 1)], "")
            start = schedule.earliest(placement, cat.duration)
            if best is None or start < best[0]:
                best = (start, qi, placement)
        if best is None or math.isinf(best[0]):
            return None
        start, qi, placement = best
        self._book_reservation(Booking(job.job_id, task_id or 1, RESERVING, start,
                                       cat.duration, placement))
        return start, [(qi.name, 1)]

    def _quota_held(self, cat: _Category, who: Who, qi: Instance) -> str | None:
        """Why one slot of the job may not start on the instance now: the quota it would
        take is what a reservation of the cycle needs (None when it may)."""
        if not self._quota_reserved:
            return None
        result = self._clear_of_reservations(
            cat, [], "", self._quota_uses(cat.req, who, [(qi.name, 1)], ""))
        return None if result.ok else result.reason

    def _book_reservation(self, booking: Booking) -> None:
        assert self.schedule is not None
        self.schedule.book(booking)
        self._quota_reserved = self._quota_reserved or any(u.level == "R"
                                                           for u in booking.uses)

    def _empty_levels(self) -> Levels:
        """The levels with nothing running (the carried ones: the cycle followed the
        configuration and loads when it began)."""
        return self.carried.empty_levels(self.conf, self.loads, self.matcher)

    def _reserve_parallel(self, job: SchedJob, task_id: int, cat: _Category
                          ) -> tuple[float, Granted] | None:
        """The earliest start over the PEs the job names (the first PE among equal
        starts, the largest slot count of the range at that start), booked as for a
        sequential job. Starts are tried at now and wherever the usage of a resource the
        job could use drops."""
        schedule = self._the_schedule()
        best: tuple[float, int, Granted, str] | None = None
        for pe in cat.pes:
            where = self._pe_open(cat, pe)
            candidates = where.instances
            first = self._no_sooner(job, cat, pe, where)
            if not candidates or math.isinf(first) or (best is not None and first > best[0]):
                continue
            # No sooner is now or when a diagram the job could use drops: the first start
            # to try, and mostly the one found. The others are looked up only past it.
            start, granted = first, self._one_place(job, cat, pe, where, first)
            if granted is None:
                granted = self._parallel_at(job, cat, pe, candidates, first)
            if granted is None:
                keys = where.keys | {(u.level, u.name, u.resource) for qi in candidates
                                     for u in self._quota_uses(cat.req, _who(job),
                                                               [(qi.name, 1)], pe.name)}
                for start in schedule.ends(keys):
                    if start <= first:
                        continue
                    if best is not None and start > best[0]:
                        break
                    granted = self._parallel_at(job, cat, pe, candidates, start)
                    if granted is not None:
                        break
            if granted is not None:
                slots = _slots_of(granted)
                if best is None or start < best[0] or slots > best[1]:
                    best = (start, slots, granted, pe.name)
        if best is None:
            return None
        start, _, granted, pe_name = best
        self._book_reservation(Booking(
            job.job_id, task_id or 1, RESERVING, start, cat.duration,
            self._uses(cat.req, granted, pe_name)
            + self._quota_uses(cat.req, _who(job), granted, pe_name)))
        return start, granted

    def _one_place(self, job: SchedJob, cat: _Category, pe: ParallelEnv, where: _PeOpen,
                   first: float) -> Granted | None:
        """What `_parallel_at` gives at `first` without asking it, where that is certain:
        with one instance and $pe_slots, `_no_sooner` found the earliest start of all the
        job's slots there (a fixed count, no quotas); with whole amounts the rooms it
        would work out agree with the diagrams to the last slot. None: ask it."""
        if not (len(where.instances) == 1 and pe.allocation_rule == PE_SLOTS
                and job.pe_min == job.pe_max >= 1 and self.quotas is None
                and cat.static.lead is None):
            return None
        assert self.schedule is not None
        qi = where.instances[0]
        whole = where.whole.get(qi.host)
        if whole is None or not self.schedule.whole or not all(
                self.capacity(use).is_integer() for use in whole) or not cat.req.whole:
            return None
        return [(qi.name, job.pe_min)]

    def _pe_open(self, cat: _Category, pe: ParallelEnv) -> _PeOpen:
        """The instances of the PE that could ever take a slot of the category, by host
        with the diagrams each host's slot would use; made once per cycle."""
        found = cat.static.pe_open.get(pe.name)
        if found is None:
            empty = self._empty_levels()
            found = cat.static.pe_open[pe.name] = _PeOpen([], {}, set(), {}, {})
            for qi in cat.open:
                if pe.name in qi.pe_list and self.matcher.fits(cat.req, 1, *empty.of(qi),
                                                                 master=False).ok:
                    found.instances.append(qi)
                    on_host, keys = found.hosts.setdefault(qi.host, ([], set()))
                    on_host.append(qi)
                    one = found.one[qi.name] = self._uses(cat.req, [(qi.name, 1)], pe.name)
                    keys.update((u.level, u.name, u.resource) for u in one)
            for _, keys in found.hosts.values():
                found.keys.update(keys)
        return found

    def _no_sooner(self, job: SchedJob, cat: _Category, pe: ParallelEnv,
                   where: _PeOpen) -> float:
        """A time before which no allocation can start: when the PE has the fewest slots
        free; with $pe_slots exactly the earliest start, the earliest of any one host (its
        instances together) taking them all."""
        schedule = self.schedule
        assert schedule is not None
        fewest = max(job.pe_min, 1)
        first = schedule.earliest((Use("P", pe.name, "slots", float(fewest)),), cat.duration)
        if pe.allocation_rule != PE_SLOTS:
            return first
        best = math.inf
        hosts = []  # (no sooner than, its instances, their diagrams)
        for host, (on_host, keys) in where.hosts.items():
            whole = where.whole.get(host)
            if whole is None:
                if len(on_host) == 1:
                    whole = self._uses(cat.req, [(on_host[0].name, fewest)], pe.name)
                else:
                    g, h, _ = self.levels.of(on_host[0])
                    whole = uses(cat.req, [((g, h), fewest)], pe.name)
                where.whole[host] = whole
            if len(on_host) == 1:  # the diagrams answer at once
                best = min(best, schedule.earliest(whole, cat.duration))
            else:  # not before the host takes them all, nor one of its instances one slot
                soonest = schedule.earliest(whole, cat.duration)
                if soonest < best:
                    hosts.append((max(soonest, min(schedule.earliest(where.one[qi.name],
                                                                     cat.duration)
                                                   for qi in on_host)), on_host, keys))
        hosts.sort(key=lambda h: h[0])
        for soonest, on_host, keys in hosts:
            if soonest >= best:
                break
            for start in schedule.ends(keys):
                if start >= best:
                    break
                if start >= max(first, soonest) and self._parallel_at(job, cat, pe, on_host,
                                                                       start):
                    best = start
                    break
        return best

    def _parallel_at(self, job: SchedJob, cat: _Category, pe: ParallelEnv,
                     candidates: list[Instance], start: float,
                     duration: float | None = None) -> Granted | None:
        """The allocation of the job's slots the diagrams allow from `start` on for its
        whole duration (or the one given), or None."""
        assert self.schedule is not None
        schedule, req = self.schedule, cat.req
        duration = cat.duration if duration is None else duration
        per_slot = [need for need in req.hard if need.consumable == "YES" and need.key]
        once = [need for need in req.hard if need.consumable == EXCLUSIVE]

        diagrams, end = schedule.diagrams, start + duration

        def room(level: Level) -> float:
            letter = LEVEL_CHAR.get(level.kind, "Q")
            for need in once:  # exclusivity lets all of the job's slots on or none
                diagram = diagrams.get((letter, level.name, need.name))
                if diagram is not None and diagram.capacity - diagram.peak(start, end) < need.key:
                    return 0.0
            most = math.inf
            for need in per_slot:
                capacity = level.capacity.get(need.name)
                if capacity is None:
                    continue
                diagram = diagrams.get((letter, level.name, need.name))
                left = capacity if diagram is None else diagram.capacity - diagram.peak(start,
                                                                                         end)
                most = min(most, left / need.key)
            return most

        cap = _whole(min(job.pe_max, room(self.levels.global_level),
                         schedule.left(Use("P", pe.name, "slots", 0.0), start, duration)))
        rooms: dict[str, list[tuple[Instance, int]]] = {}
        host_room: dict[str, int] = {}
        host_cap: dict[str, float] = {}
        for qi in candidates:
            _, h, q = self.levels.of(qi)
            if qi.host not in host_cap:
                host_cap[qi.host] = room(h)
            here = _whole(min(room(q), host_cap[qi.host], job.pe_max))
            if here > 0:
                rooms.setdefault(qi.host, []).append((qi, here))
                host_room[qi.host] = _whole(min(host_cap[qi.host],
                                                host_room.get(qi.host, 0) + here))

        def fits(granted: Granted) -> bool:
            return schedule.fits(self._uses(req, granted, pe.name)
                                 + self._quota_uses(req, _who(job), granted, pe.name),
                                 start, duration)

        lead = cat.static.lead
        if lead is not None:
            return allocate_led(pe.allocation_rule, rooms, host_room, host_cap, lead, cap,
                                job.pe_min, fits)[0]
        granted, _ = allocate(pe.allocation_rule, rooms, host_room, cap, job.pe_min)
        return granted if granted is not None and fits(granted) else None

    # ---- jobs in advance reservations ------------------------------------------------------

    def _run_in_ar(self, job: SchedJob, plan: Plan) -> None:
        """A job of an AR starts inside what the AR holds and its other jobs leave free;
        neither the cell's levels nor resource quotas concern it."""
        cat = self.category(job)
        started = False
        found = self._ar_instances(job, cat) if self._in_time(job, cat) else None
        for task_id in job.pending:
            if self._array_full(job, plan):
                break
            placed = None if found is None else self._place_in_ar(job, cat, *found)
            if placed is None:
                if self.conf.job_info:
                    plan.info[job.job_id] = cat.why(_who(job))
                break
            granted, pe = placed
            self._spend_ar(job.ar, cat.req, granted)
            # Its load is the host's, whatever the AR: the job's next task goes by the
            # order it leaves, as a job's outside an AR does, and not where it put alarm.
            if self.adjust is not None and self._follow_load(granted):
                found = self._ar_instances(job, cat)
            if self.job_tasks is not None:
                self.job_tasks[job.job_id] += 1
            plan.orders.append(Order(job.job_id, task_id, granted, pe))
            started = True
        if job.immediate and not started:
            plan.unschedulable.append(job.job_id)

    def _in_time(self, job: SchedJob, cat: _Category) -> bool:
        """Whether the job's run time fits its AR: no longer than the AR less
        DURATION_OFFSET, and over before the AR ends."""
        ar = self.ars.get(job.ar)
        limits = [need.key for need in cat.req.hard if need.name in ("h_rt", "s_rt")]
        if ar is None or not limits:
            return True
        if max(limits) > ar.end - ar.start - self.conf.duration_offset:
            cat.reasons[f"cannot run because its run time exceeds the duration of advance "
                        f"reservation {ar.ar_id} less DURATION_OFFSET"] = None
            return False
        if self.now + max(limits) > ar.end:
            cat.reasons[f"cannot run because it would not end before advance reservation "
                        f"{ar.ar_id} ends"] = None
            return False
        return True

    def _ar_instances(self, job: SchedJob, cat: _Category
                      ) -> tuple[ArBooking, list[tuple[Instance, int]]] | None:
        """The running AR of a job and the instances it holds (with their slots) where
        the job may run; why not elsewhere goes into the category's reasons. The same
        for every task of the job in a cycle."""
        ar = self.ars.get(job.ar)
        if ar is None or not ar.usable or not ar.start <= self.now:
            cat.reasons[f"cannot run because advance reservation {job.ar} is not running"] \
                = None
            return None
        reserved = dict(ar.granted)
        empty = self._empty_levels()
        found = []
        if self._following is not None:
            self._in_order()
        for qi in self.open:
            n = reserved.get(qi.name)
            if n is None:
                cat.reasons[f'cannot run in queue instance "{qi.queue}" because it was not '
                            f"reserved by advance reservation {ar.ar_id}"] = None
                continue
            excluded = self._excluded(job, cat.pes, qi, self.conf.hostgroups)
            result = self.matcher.fits(cat.req, 1, *empty.of(qi))
            if excluded or not result.ok:
                cat.reasons.update(dict.fromkeys(excluded or [result.reason]))
                continue
            found.append((qi, n))
        return ar, found

    def _place_in_ar(self, job: SchedJob, cat: _Category, ar: ArBooking,
                     found: list[tuple[Instance, int]]) -> tuple[Granted, str] | None:
        """Where one task goes in what its AR has left."""
        most = self._ar_room(ar, cat.req)
        rooms: dict[str, list[tuple[Instance, int]]] = {}
        host_room: dict[str, int] = {}
        for qi, n in found:
            room = _whole(min(n - self.ar_slots.get((ar.ar_id, qi.name), 0), most))
            if room > 0:
                rooms.setdefault(qi.host, []).append((qi, room))
                host_room[qi.host] = host_room.get(qi.host, 0) + room
        if not job.pe:
            first = next((qi for items in rooms.values() for qi, _ in items), None)
            if first is None:
                cat.reasons["cannot run because the advance reservation "
                            f"{ar.ar_id} has no slot left for it"] = None
                return None
            return [(first.name, 1)], ""
        for pe in cat.pes:
            if pe.name != ar.pe:  # a job uses no PE its AR did not reserve
                cat.reasons[f'cannot run in PE "{pe.name}" because advance reservation '
                            f"{ar.ar_id} did not reserve it"] = None
                continue
            cap = _whole(min(job.pe_max, most))
            lead = cat.static.lead
            granted, offered = allocate(pe.allocation_rule, rooms, host_room, cap,
                                        job.pe_min) if lead is None else allocate_led(
                pe.allocation_rule, rooms, host_room, host_room, lead, cap, job.pe_min)
            if granted is not None:
                return granted, pe.name
            cat.reasons[f'cannot run in PE "{pe.name}" because it only offers {offered} '
                        "slots"] = None
        return None

    def _ar_room(self, ar: ArBooking, req: JobRequest) -> float:
        """How many slots of a job the AR's consumables leave room for (the slots apart):
        a job may use no more, and nothing else, than its AR holds."""
        held = {need.name: need for need in self.matcher.request(ar.hard).hard}
        total = _slots_of(ar.granted)
        most = math.inf
        for need in req.hard:
            if need.consumable in ("NO", EXCLUSIVE) or not need.key or need.name == "slots":
                continue  # (exclusivity inside an AR is the AR's)
            own = held.get(need.name)
            budget = 0.0 if own is None else (
                own.key if own.consumable == "JOB" else own.key * total)
            left = budget - self.ar_spent.get((ar.ar_id, need.name), 0.0)
            most = min(most, (math.inf if left >= need.key else 0.0)
                       if need.consumable == "JOB" else left / need.key)
        return most

    def _spend_ar(self, ar_id: int, req: JobRequest, granted: Iterable[tuple[str, int]]
                  ) -> None:
        slots = 0
        for name, n in granted:
            self.ar_slots[(ar_id, name)] = self.ar_slots.get((ar_id, name), 0) + n
            slots += n
        for need in req.hard:
            if need.consumable not in ("NO", EXCLUSIVE) and need.key and need.name != "slots":
                amount = need.key if need.consumable == "JOB" else need.key * slots
                key = (ar_id, need.name)
                self.ar_spent[key] = self.ar_spent.get(key, 0.0) + amount

    # ---- sequential jobs -----------------------------------------------------------------

    def _refused_now(self, cat: _Category, i: int, qi: Instance) -> bool:
        """Whether one slot of the category is refused on candidate i now, by what its
        levels have left or by a reservation it would run into; the reason is kept, and
        the refusal holds for the rest of the cycle (both only grow)."""
        result = self.fits(cat.req, 1, *self.levels.of(qi))
        if result.ok and self.schedule is not None:
            result = self._clear_of_reservations(cat, [(qi.name, 1)])
        if result.ok:
            return False
        cat.reasons[result.reason] = None
        if self.use_categories:
            cat.dead(i)
        return True

    def _place_first(self, cat: _Category, who: Who) -> Granted | None:
        """The first instance that fits. An instance the category's requests do not fit is
        passed over by all its later scans, one a quota refuses by the asker's only."""
        candidates = cat.candidates
        # Instances whose signature the quotas refuse the asker for good: skipped without
        # asking the matcher.
        blocked: dict[int, str] = {}
        closed: dict[str, str] = {}
        sigs = _NO_SIGS
        shut: _Closed | None = None
        noted: dict[str, None] = {}
        asker: Asker | None = None
        key: tuple[Who, int, int] = (who, 0, 0)
        if self.quotas is not None:
            asker = self._asker(cat, who)
            blocked, closed = asker.blocked, asker.closed
            sigs = self._signatures(cat)
            noted = cat.quota_reasons.setdefault(who, {})
            if blocked and sigs.every <= blocked.keys():
                # Quotas refuse the asker every kind of instance the category has.
                noted.update(dict.fromkeys(blocked[sig] for sig in sigs.every))
                self.quota_hit = True
                cat.resume_who[who] = len(candidates)
                return None
            key = (who, asker.amounts, id(candidates))
            if self.use_categories:
                shut = self._shut_blocked(key, blocked, sigs, noted,
                                          cat.resume_who.get(who, 0))
        end = len(candidates)
        dead = None if shut is None else shut.skip
        i = self._next(cat, dead, cat.resume_who.get(who, 0) if self.use_categories else 0)
        while i < end:
            qi = candidates[i]
            why = (blocked.get(sigs.of[i]) or closed.get(qi.name)) if blocked or closed else None
            if why is None:
                if self._refused_now(cat, i, qi):
                    i = self._next(cat, dead, i + 1)
                    continue
                held = self._quota_held(cat, who, qi)
                if held is not None:  # depends on the job's duration: not for good
                    noted[held] = None
                    self.quota_hit = True
                    i = self._next(cat, dead, i + 1)
                    continue
                why = None if asker is None else asker.claim(qi)
                if why is None:
                    cat.resume_who[who] = i
                    return [(qi.name, 1)]
            noted[why] = None
            self.quota_hit = True
            if self.use_categories:  # a refusal of one slot holds for the rest of the cycle
                if shut is None or shut.applied != len(blocked):  # else nothing new to shut
                    shut = self._shut_blocked(key, blocked, sigs, noted, i + 1) or \
                        self._closed(key, end)
                if shut.skip[i] == i:
                    shut.skip[i] = i + 1
                dead = shut.skip
            i = self._next(cat, dead, i + 1)
        if dead is not None:  # instances closed to this asker alone were passed over
            self.quota_hit = True
        cat.resume_who[who] = len(candidates)
        return None

    def _next(self, cat: _Category, dead: list[int] | None, i: int) -> int:
        """The next candidate from i neither the category's requests nor the asker's
        quotas have ruled out for the rest of the cycle."""
        while True:
            i = cat.alive(i)
            if dead is None:
                return i
            j = _jump(dead, i)
            if j == i:
                return i
            i = j

    def _shut_blocked(self, key: tuple[Who, int, int], blocked: Mapping[int, str],
                      sigs: _Sigs, noted: dict[str, None], start: int) -> _Closed | None:
        """The candidates closed to the asker (keyed by who, request amounts and list),
        with every instance from `start` on of a signature the quotas blocked since the
        last call closed at once: scans then pass over them without a look. (A scan of
        another category that shares the list and starts earlier finds those before
        `start` blocked when it reaches them.)"""
        shut = self._quota_dead.get(key)
        applied = 0 if shut is None else shut.applied
        if applied == len(blocked):
            return shut
        for sig, why in itertools.islice(blocked.items(), applied, None):
            members = sigs.members.get(sig)
            if not members:
                continue
            if shut is None:
                shut = self._closed(key, len(sigs.of))
            noted[why] = None
            skip = shut.skip
            for j in itertools.islice(members, bisect.bisect_left(members, start), None):
                if skip[j] == j:
                    skip[j] = j + 1
        if shut is not None:
            shut.applied = len(blocked)
        return shut

    def _closed(self, key: tuple[Who, int, int], n: int) -> _Closed:
        """A fresh record of the candidates (n of them) closed to the asker."""
        shut = self._quota_dead[key] = _Closed(list(range(n + 1)))
        return shut

    def _signatures(self, cat: _Category) -> _Sigs:
        """The quota signature of each candidate, once per list."""
        found = self._sigs.get(id(cat.candidates))
        if found is None:
            assert self.quotas is not None
            of = [self.quotas.signature(qi) for qi in cat.candidates]
            members: dict[int, list[int]] = {}
            for i, sig in enumerate(of):
                members.setdefault(sig, []).append(i)
            found = self._sigs[id(cat.candidates)] = _Sigs(of, frozenset(of), members)
        return found

    def _place_softly(self, cat: _Category, who: Who) -> Granted | None:
        best: tuple[int, Instance] | None = None
        groups = self.conf.hostgroups
        for i, qi in cat.walk():
            if self._refused_now(cat, i, qi):
                continue
            if self._quota_refuses(cat, who, qi):
                continue
            why = self._quota_held(cat, who, qi)
            if why is not None:
                self._note_quota(cat, who, why)
                continue
            misses = self.soft_violations(cat.req, *self.levels.of(qi))
            if cat.soft_queues and not any(queue_matches(ref, qi, groups)
                                           for ref in cat.soft_queues):
                misses += 1
            if best is None or misses < best[0]:
                best = (misses, qi)
                if misses == 0:
                    break
        return None if best is None else [(best[1].name, 1)]

    # ---- parallel jobs -------------------------------------------------------------------

    def _place_parallel(self, job: SchedJob, cat: _Category, pe: ParallelEnv,
                        who: Who) -> Granted | None:
        matcher, req, levels = self.matcher, cat.req, self.levels
        quota_memo: dict[int, tuple[float, str | None]] = {}
        global_room = matcher.slot_room(req, levels.global_level)
        cap = _whole(min(global_room, pe.slots - self.pe_used.get(pe.name, 0), job.pe_max))
        candidates = cat.pe_candidates.get(pe.name)
        if candidates is None:
            candidates = [qi for qi in cat.candidates if pe.name in qi.pe_list]
            if self.use_categories:
                cat.pe_candidates[pe.name] = candidates
        # With $pe_slots a host whose instances together have less room than the job
        # needs never will this cycle (room only shrinks): once each of its instances has
        # been seen, the host is passed over by the category's later scans. The room that
        # counts is the resources' (quotas, which depend on who asks, only lower it).
        need = max(job.pe_min, 1)
        per_host: dict[str, int] | None = None
        host_resources: dict[str, int] = {}  # per host, its room before quotas
        unknown: set[str] = set()  # hosts with an instance the quotas closed: not judged
        if pe.allocation_rule == PE_SLOTS and self.use_categories:
            per_host = cat.pe_hosts.get(pe.name)
            if per_host is None:
                per_host = cat.pe_hosts[pe.name] = {}
                for qi in candidates:
                    per_host[qi.host] = per_host.get(qi.host, 0) + 1
        seen: dict[str, int] = {}
        of, fits, slot_room = levels.of, self.fits, matcher.slot_room
        pe_max = job.pe_max
        vetted = cat.pe_vetted.setdefault(pe.name, set())
        asker = None if self.quotas is None else self._asker(
            cat, Who(who.user, who.group, who.project, pe.name))
        if asker is not None:
            # Limits all the instances share bound the job wherever it goes: fewer slots
            # to look for, so the scan can stop early, or none to have at all.
            most, why = asker.common_room(self._signatures(cat).every)
            if most < cap:
                self._note_quota(cat, who, why or "")
                cap = _whole(most)
                if cap < max(job.pe_min, 1):
                    return None
        # Once the hosts seen can take `cap` slots under the rule, later instances cannot
        # give more; with a per-job consumable or -masterq the master task may need a host
        # further on.
        per_job = req.per_job
        lead = cat.static.lead
        stops = cap >= max(job.pe_min, 1) and not per_job and lead is None
        rooms: dict[str, list[tuple[Instance, int]]] = {}
        host_room: dict[str, int] = {}
        host_cap: dict[str, float] = {}
        scanned = 0

        def scan() -> None:
            """Gather rooms from where the last scan stopped until the hosts seen suffice."""
            nonlocal scanned
            enough = _Enough(pe.allocation_rule, cap) if stops else None
            if enough is not None and any(enough.add(h, 0, r) for h, r in host_room.items()):
                return
            refused: set[int] = set()
            small: set[str] = set()
            while scanned < len(candidates):
                qi = candidates[scanned]
                scanned += 1
                if per_host is not None:
                    seen[qi.host] = seen.get(qi.host, 0) + 1
                    if seen[qi.host] == per_host[qi.host]:
                        small.add(qi.host)  # unless its room suffices (below)
                quota_room, why = math.inf, None
                if asker is not None:
                    quota_room, why = asker.room(qi, quota_memo)
                    if quota_room < 1:  # closed to the asker: the matcher need not look
                        self._note_quota(cat, who, why or "")
                        small.discard(qi.host)
                        unknown.add(qi.host)  # its resources' room was not looked at
                        continue
                g, h, q = of(qi)
                host = qi.host
                most = host_cap.get(host)
                if most is None:
                    most = host_cap[host] = slot_room(req, h)
                here = slot_room(req, q)
                # An instance that met the category's other requests once does again:
                # one slot fits where each level has room for one.
                if not (global_room >= 1 and here >= 1 and most >= 1 and id(qi) in vetted):
                    result = fits(req, 1, g, h, q, master=False)
                    if not result.ok:
                        cat.reasons[result.reason] = None
                        refused.add(id(qi))
                        continue
                    vetted.add(id(qi))
                room = min(here, most, pe_max)  # finite: pe_max is
                room = int(room) if room > 0 else 0
                if per_host is not None:
                    total = min(most, host_resources.get(host, 0) + room)
                    host_resources[host] = int(total) if total > 0 else 0
                if quota_room < room:  # the asker's quotas, not the instance, bound it
                    self._note_quota(cat, who, why or "")
                    room = _whole(quota_room)
                rooms.setdefault(host, []).append((qi, room))
                before = host_room.get(host, 0)
                after = min(most, before + room)
                after = host_room[host] = int(after) if after > 0 else 0
                if enough is not None and enough.add(host, before, after):
                    break
            small = {h for h in small - unknown if host_resources.get(h, 0) < need}
            if (refused or small) and self.use_categories:  # holds all cycle long
                kept = [qi for qi in candidates[:scanned]
                        if id(qi) not in refused and qi.host not in small]
                if per_host is not None:
                    for qi in candidates[:scanned]:
                        if id(qi) in refused or qi.host in small:
                            per_host[qi.host] -= 1
                            seen[qi.host] -= 1
                candidates[:scanned] = kept
                scanned = len(kept)

        scan()
        quota_why = None
        while True:
            if lead is None:
                granted, offered = allocate(pe.allocation_rule, rooms, host_room, cap,
                                            job.pe_min)
            else:
                granted, offered = allocate_led(
                    pe.allocation_rule, rooms, host_room, host_cap, lead, cap, job.pe_min,
                    partial(self._may_lead, cat) if per_job else None)
            if granted is None:
                if quota_why is not None:
                    self._note_quota(cat, who, quota_why)
                else:
                    cat.reasons[f'cannot run in PE "{pe.name}" because it only offers '
                                f"{offered} slots"] = None
                return None
            # Without per-job consumables the master task needs what a slave task needs,
            # which the rooms allowed for: no instance need be asked again.
            placed, refusal = self._with_master(cat, granted) if per_job and lead is None \
                else (granted, None)
            if placed is None:
                placed = self._around_master(cat, pe, rooms, host_room, cap, job.pe_min,
                                             _slots_of(granted))
            if placed is None:
                if refusal is not None:
                    cat.reasons[refusal.reason] = None
                return None
            if asker is None or len(placed) == 1:
                return placed  # one instance's room already kept every limit it has
            # Each instance kept within its own quotas; together they must also keep the
            # limits they share. Take the excess from the instances that hold it, the last
            # placed first, and allocate again: elsewhere, or fewer slots if the range allows.
            excess = asker.placement_excess([(self.instances[name], n) for name, n in placed])
            if excess is None:
                return placed
            quota_why, over, holders = excess
            taken = dict(placed)
            for name in reversed(holders):
                if over <= 0:
                    break
                cut = min(over, taken[name])
                over -= cut
                _shrink(rooms, host_room, host_cap, self.instances[name], taken[name] - cut)
            if over > 0:
                self._note_quota(cat, who, quota_why)
                return None
            scan()  # what was cut may be found further on

    def _may_lead(self, cat: _Category, granted: Granted) -> bool:
        """Whether the placement's first instance can hold the master task's per-job
        consumables."""
        name, slots = granted[0]
        g, h, q = self.levels.of(self.instances[name])
        return self.matcher.fits(cat.req, slots, g, h, q, master=True).ok

    def _with_master(self, cat: _Category, granted: Granted) -> tuple[Granted | None,
                                                                      MatchResult | None]:
        """The placement with a master instance that also holds the job's per-job
        consumables (the first that can), or None and the first refusal."""
        refusal = None
        for index, (name, slots) in enumerate(granted):
            g, h, q = self.levels.of(self.instances[name])
            result = self.matcher.fits(cat.req, slots, g, h, q, master=True)
            if result.ok:
                return _led_by(granted, index), None
            refusal = refusal or result
        return None, refusal

    def _around_master(
        self,
        cat: _Category,
        pe: ParallelEnv,
        rooms: Mapping[str, list[tuple[Instance, int]]],
        host_room: Mapping[str, int],
        cap: int,
        lowest: int,
        most: int,
    ) -> Granted | None:
        """A placement led by an instance that can hold the master task's per-job (JOB)
        consumables, for when the rule's first choice has no such instance: the job may
        still run elsewhere (a host with the license but fewer free slots). Each such
        instance in turn leads its host and its host the others; the largest count wins,
        the first in planning order among equals. `most` is the first choice's count,
        which none can exceed."""
        best: tuple[int, Granted] | None = None
        for host, items in rooms.items():
            for qi, room in items:
                if room < 1:
                    continue
                g, h, q = self.levels.of(qi)
                if not self.matcher.fits(cat.req, 1, g, h, q, master=True).ok:
                    continue
                led = {host: [(qi, room), *(item for item in items if item[0] is not qi)]}
                if pe.allocation_rule != PE_SLOTS:
                    led |= {other: its for other, its in rooms.items() if other != host}
                granted, _ = allocate(pe.allocation_rule, led, host_room, cap, lowest)
                if granted is None or granted[0][0] != qi.name:
                    continue
                placed, _ = self._with_master(cat, granted)
                total = _slots_of(granted)
                if placed is not None and (best is None or total > best[0]):
                    best = (total, placed)
                    if total >= most:
                        return placed
        return None if best is None else best[1]


class _Enough:
    """Whether the hosts seen so far can take `cap` slots under an allocation rule:
    one host for $pe_slots, their sum for $fill_up, as many hosts as slots for
    $round_robin, enough hosts with N free for an integer rule N."""

    def __init__(self, rule: str, cap: int) -> None:
        self.rule, self.cap = rule, cap
        self.per_host = int(rule) if is_unsigned(rule) and int(rule) > 0 else 1
        self.total = 0  # $fill_up: the sum of host rooms
        self.hosts = 0  # $round_robin and integer rules: hosts that can take their share

    def add(self, host: str, before: int, after: int) -> bool:
        if self.rule == PE_SLOTS:
            return after >= self.cap
        if self.rule == FILL_UP:
            self.total += after - before
            return self.total >= self.cap
        if before < self.per_host <= after:
            self.hosts += 1
        return self.hosts * self.per_host >= self.cap


def allocate(
    rule: str,
    rooms: Mapping[str, list[tuple[Instance, int]]],
    host_room: Mapping[str, int],
    cap: int,
    lowest: int,
) -> tuple[Granted | None, int]:
    """Spread the largest slot count in [lowest, cap] over hosts as `rule` says.

    `rooms` lists per host (in planning order) its instances with the slots each could
    take, `host_room` what the host as a whole can take. Returns the placement, or None
    and the number of slots the rule could have offered.
    """
    hosts = [h for h in rooms if host_room[h] > 0]
    if rule == PE_SLOTS:
        best = max((host_room[h] for h in hosts), default=0)
        n = min(best, cap)
        if n < max(lowest, 1):
            return None, n
        host = next(h for h in hosts if host_room[h] >= n)
        return _take(rooms[host], n), n
    if rule in (FILL_UP, ROUND_ROBIN):
        n = min(sum(host_room[h] for h in hosts), cap)
        if n < max(lowest, 1):
            return None, n
        share = _fill(hosts, host_room, n) if rule == FILL_UP else _deal(hosts, host_room, n)
        return [part for h in hosts if share.get(h) for part in _take(rooms[h], share[h])], n
    per_host = int(rule) if is_unsigned(rule) and int(rule) > 0 else 1
    eligible = [h for h in hosts if host_room[h] >= per_host]
    n = min(len(eligible) * per_host, cap)
    n -= n % per_host
    if n < max(lowest, 1):
        return None, n
    return [part for h in eligible[: n // per_host] for part in _take(rooms[h], per_host)], n


def allocate_led(
    rule: str,
    rooms: Mapping[str, list[tuple[Instance, int]]],
    host_room: Mapping[str, int],
    host_cap: Mapping[str, float],
    lead: _Lead,
    cap: int,
    lowest: int,
    accept: Callable[[Granted], bool] | None = None,
) -> tuple[Granted | None, int]:
    """`allocate` for a job with -masterq, the master instance first in the placement.
    As 8.1.9 places such a job, the master task takes one slot of an instance the master
    list names, and the other slots go where the rule puts them in planning order, that
    instance's room left among them ($pe_slots: on its host; an integer rule N: N-1 of
    them on its host). Each possible master instance is tried in planning order: the
    largest slot count wins, the first among equals, of the placements `accept` takes.
    `host_cap` bounds what a host can take in all. Returns the placement, or None and
    the most slots one could have had."""
    best: Granted | None = None
    most = 0
    per_host = int(rule) if is_unsigned(rule) and int(rule) > 0 else 0
    for host, items in rooms.items():
        for master, room in items:
            if room < 1 or master.name not in lead.masters:
                continue
            rest: dict[str, list[tuple[Instance, int]]] = {}
            rest_room: dict[str, int] = {}
            for other, its in rooms.items():
                if rule == PE_SLOTS and other != host:
                    continue
                kept = [(qi, r - (qi is master)) for qi, r in its
                        if lead.slaves is None or qi.name in lead.slaves]
                kept = [(qi, r) for qi, r in kept if r > 0]
                rest_room[other] = _whole(min(host_cap[other] - (other == host),
                                              sum(r for _, r in kept)))
                if kept:
                    rest[other] = kept
            if per_host:  # N-1 on the master's host, N on each other
                if rest_room[host] < per_host - 1 or cap < per_host:
                    continue
                first = _take(rest.get(host, []), per_host - 1)
                need = max(lowest - per_host, 0)
                placed, n = allocate(rule, {h: its for h, its in rest.items() if h != host},
                                     rest_room, cap - per_host, need)
            else:
                first, need = [], max(lowest - 1, 0)
                placed, n = allocate(rule, rest, rest_room, cap - 1, need)
            if placed is None and n < need:  # too few for the range
                most = max(most, 1 + sum(k for _, k in first) + n)
                continue
            slaves = first + (placed or [])
            total = 1 + sum(k for _, k in slaves)
            own = sum(k for name, k in slaves if name == master.name)
            granted = [(master.name, 1 + own), *((name, k) for name, k in slaves
                                                 if name != master.name)]
            if accept is not None and not accept(granted):
                continue
            if best is None or total > _slots_of(best):
                best = granted
                if total >= cap:
                    return best, total
    return (best, _slots_of(best)) if best is not None else (None, most)


def _fill(hosts: list[str], host_room: Mapping[str, int], n: int) -> dict[str, int]:
    share = {}
    for host in hosts:
        if n == 0:
            break
        share[host] = min(host_room[host], n)
        n -= share[host]
    return share


def _deal(hosts: list[str], host_room: Mapping[str, int], n: int) -> dict[str, int]:
    """One slot per host in turn; whole rounds at once while every host has room."""
    share = dict.fromkeys(hosts, 0)
    while n:
        open_hosts = [h for h in hosts if share[h] < host_room[h]]
        rounds = min(n // len(open_hosts), min(host_room[h] - share[h] for h in open_hosts))
        if rounds:
            for host in open_hosts:
                share[host] += rounds
            n -= rounds * len(open_hosts)
            continue
        for host in open_hosts[:n]:
            share[host] += 1
        n = 0
    return share


def _take(items: list[tuple[Instance, int]], n: int) -> Granted:
    granted = []
    for qi, room in items:
        if n == 0:
            break
        k = min(room, n)
        if k > 0:
            granted.append((qi.name, k))
            n -= k
    return granted


def _shrink(rooms: dict[str, list[tuple[Instance, int]]], host_room: dict[str, int],
            host_cap: Mapping[str, float], qi: Instance, most: int) -> None:
    """Let an instance take at most `most` slots, and its host accordingly."""
    items = rooms[qi.host]
    rooms[qi.host] = [(it, min(room, most) if it is qi else room) for it, room in items]
    host_room[qi.host] = _whole(min(host_cap[qi.host], sum(r for _, r in rooms[qi.host])))


def _jump(skip: list[int], i: int) -> int:
    """Follow skip pointers from i to a position that points to itself, halving the path
    on the way so that later walks are short."""
    while skip[i] != i:
        skip[i] = skip[skip[i]]
        i = skip[i]
    return i


def _slots_of(granted: Iterable[tuple[str, int]]) -> int:
    """The slots a placement holds in all. (A loop: summing a generator costs several
    times as much, and cycles ask it of every running task.)"""
    total = 0
    for _, n in granted:
        total += n
    return total


def _who(job: SchedJob) -> Who:
    return Who(job.owner, job.group, job.project)


def _whole(value: float) -> int:
    return 0 if value <= 0 else int(min(value, 2**31)) if math.isfinite(value) else 2**31

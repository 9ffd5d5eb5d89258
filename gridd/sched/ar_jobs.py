"""Jobs in advance reservations: a job of an AR starts inside what its AR holds and its
other jobs leave free, within the AR's time; neither the cell's levels nor resource
quotas concern it. Also which running tasks are inside an AR (apart)."""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING

from gridd.model.ar import ArBooking
from gridd.model.cluster import Instance, Running
from gridd.model.planning import Granted, Order, SchedJob
from gridd.model.rsmap import ResourceMap
from gridd.sched.allocation import (
    Lead,
    allocate,
    allocate_led,
    led_by,
    slots_of,
    whole_slots,
)
from gridd.sched.categories import Category
from gridd.sched.match import EXCLUSIVE, JobRequest
from gridd.sched.reserve import Use
from gridd.sched.rsmap_ids import NO_IDS, Pool, hold_in, level_pool, parts, pick

if TYPE_CHECKING:
    from gridd.sched.cycle import Plan


def apart(running: Iterable[Running], ars: Mapping[int, ArBooking]
          ) -> tuple[list[Running], list[Running]]:
    """Running tasks apart from those inside one of these ARs, and those."""
    own, inside = [], []
    for task in running:
        (inside if task.ar and task.ar in ars else own).append(task)
    return own, inside


class ArJobs:
    """Starting jobs inside their advance reservations: a step of Cycle
    (gridd.sched.cycle), which holds the state the steps share."""

    def _run_in_ar(self, job: SchedJob, plan: Plan) -> None:
        """A job of an AR starts inside what the AR holds and its other jobs leave free;
        neither the cell's levels nor resource quotas concern it."""
        cat, who = self.category_and_who(job)
        started = False
        found = self.instances_in_ar(job, cat) if self._in_time(job, cat) else None
        for task_id in job.pending:
            if self._array_full(job, plan):
                break
            placed = None if found is None else self.place_in_ar(job, cat, *found)
            if placed is None:
                if self.conf.job_info:
                    plan.why[job.job_id] = cat.why(who)
                break
            granted, pe, ids = placed
            self._spend_ar(job.ar, cat.req, granted, ids)
            # Its load is the host's, whatever the AR: the job's next task goes by the
            # order it leaves, as a job's outside an AR does, and not where it put alarm.
            if self.adjust is not None and self._follow_load(granted):
                found = self.instances_in_ar(job, cat)
            if self.job_tasks is not None:
                self.job_tasks[job.job_id] += 1
            plan.orders.append(Order(job.job_id, task_id, granted, pe, ids))
            started = True
        if job.immediate and not started:
            plan.unschedulable.append(job.job_id)

    def _in_time(self, job: SchedJob, cat: Category) -> bool:
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

    def instances_in_ar(self, job: SchedJob, cat: Category
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
            # (a parallel job's master task, with its per-job consumables: place_in_ar)
            result = self.matcher.fits(cat.req, 1, *empty.of(qi), master=not job.pe,
                                       first_on_host=True)
            if excluded or not result.ok:
                cat.reasons.update(dict.fromkeys(excluded or [result.reason]))
                continue
            found.append((qi, n))
        return ar, found

    def place_in_ar(self, job: SchedJob, cat: Category, ar: ArBooking,
                     found: list[tuple[Instance, int]]
                     ) -> tuple[Granted, str, ResourceMap] | None:
        """Where one task goes in what its AR has left, and the RSMAP ids it takes there
        of the AR's. The AR holds its consumables level by level, where its booking took
        them, and its ids likewise: a placement is taken only where the AR has left what
        it takes on each level, with its ids (a task in turn on each instance, a
        parallel job's master task on each of its hosts)."""
        most = self._ar_room(ar, cat.req)
        rooms: dict[str, list[tuple[Instance, int]]] = {}
        host_room: dict[str, int] = {}
        for qi, n in self._left_levels(ar, cat, found):
            room = whole_slots(min(n, most))
            if room > 0:
                rooms.setdefault(qi.host, []).append((qi, room))
                host_room[qi.host] = host_room.get(qi.host, 0) + room
        taken: dict[tuple[tuple[str, int], ...], ResourceMap] = {}  # ids, by placement
        refusals: list[str] = []

        def accept(placed: Granted) -> bool:
            got = self._master_in_ar(ar, cat, placed)
            if isinstance(got, str):
                refusals.append(got)
                return False
            taken[tuple(placed)] = got
            return True

        if not job.pe:
            for qi in (qi for items in rooms.values() for qi, _ in items):
                if accept([(qi.name, 1)]):
                    return [(qi.name, 1)], "", taken[((qi.name, 1),)]
            cat.reasons[refusals[0] if refusals else "cannot run because the advance "
                        f"reservation {ar.ar_id} has no slot left for it"] = None
            return None
        for pe in cat.pes:
            if pe.name != ar.pe:  # a job uses no PE its AR did not reserve
                cat.reasons[f'cannot run in PE "{pe.name}" because advance reservation '
                            f"{ar.ar_id} did not reserve it"] = None
                continue
            cap = whole_slots(min(job.pe_max, most))
            lead = cat.static.lead
            if lead is None:
                granted, offered = allocate(pe.allocation_rule, rooms, host_room, cap,
                                            job.pe_min)
                if granted is not None:
                    for index in range(len(granted)):
                        placed = led_by(granted, index)
                        if accept(placed):
                            return placed, pe.name, taken[tuple(placed)]
                    # none of the rule's first choice may lead: around each that may
                    lead = Lead(frozenset(qi.name for items in rooms.values()
                                          for qi, _ in items), None)
            if lead is not None:
                granted, offered = allocate_led(pe.allocation_rule, rooms, host_room,
                                                host_room, lead, cap, job.pe_min, accept)
                if granted is not None:
                    return granted, pe.name, taken[tuple(granted)]
            cat.reasons[refusals[0] if refusals else f'cannot run in PE "{pe.name}" because '
                        f"it only offers {offered} slots"] = None
        return None

    def _master_in_ar(self, ar: ArBooking, cat: Category, placed: Granted
                      ) -> ResourceMap | str:
        """The RSMAP ids a placement takes of its AR's, its master task first, or why
        not: the master task's instance cannot hold its per-job consumables, the AR has
        not left on a level what the placement takes there, or it holds too few of the
        ids."""
        req = cat.req
        if req.per_job or req.per_host:
            name, slots = placed[0]
            result = self.matcher.fits(req, slots, *self._empty_levels().of(
                self.instances[name]), master=True)
            if not result.ok:
                return result.reason
        if req.amounts:
            held, spent = self._ar_held(ar), self.ar_spent_levels
            for use in self._uses(req, placed, ""):
                spot = (use.level, use.name, use.resource)
                if use.resource in req.amounts and \
                        held.get(spot, 0.0) - spent.get((ar.ar_id, *spot), 0.0) < use.amount:
                    return _too_little(ar, use)
        got = self._ar_ids(ar.ar_id, req, placed)
        return NO_IDS if got is None else got

    def _ar_room(self, ar: ArBooking, req: JobRequest) -> float:
        """How many slots of a job the AR's consumables leave room for (the slots apart):
        a job may use no more, and nothing else, than its AR holds, in all. (Level by
        level: _left_levels and _master_in_ar.)"""
        held = {need.name: need for need in self.matcher.request(ar.hard).hard}
        times = {"JOB": 1, "YES": slots_of(ar.granted)}
        most = math.inf
        for need in req.hard:
            if need.consumable in ("NO", EXCLUSIVE, "HOST") or not need.key or \
                    need.name == "slots":
                continue  # (exclusivity inside an AR is the AR's)
            own = held.get(need.name)
            budget = 0.0 if own is None else own.key * times[own.consumable]
            left = budget - self.ar_spent.get((ar.ar_id, need.name), 0.0)
            most = min(most, (math.inf if left >= need.key else 0.0)
                       if need.consumable == "JOB" else left / need.key)
        return most

    def _left_levels(self, ar: ArBooking, cat: Category,
                     found: list[tuple[Instance, int]]) -> list[tuple[Instance, int]]:
        """The instances with the slots a job may have there: those the AR's other jobs
        leave, and no more than what the AR has left on their levels of what a slot of it
        takes allows: a per-slot amount a slot at a time, a HOST amount all or none (its
        host's, and the global value). The AR holds them
        level by level as its booking took them (reserve.uses: a HOST consumable's on
        each of its hosts, its global value once per host), as Open Cluster Scheduler's
        AR holds its own copy of each host: one amount over its hosts would let a job
        take a host's where the AR has none left. Per-job amounts are the master task's
        (_master_in_ar). (A further queue instance on a host is judged as the first,
        though it takes no HOST amount: a queue value of one is rare.)"""
        req, taken = cat.req, self.ar_slots
        if not req.amounts:
            return [(qi, n - taken.get((ar.ar_id, qi.name), 0)) for qi, n in found]
        held, spent = self._ar_held(ar), self.ar_spent_levels
        kept = []
        for qi, n in found:
            room = float(n - taken.get((ar.ar_id, qi.name), 0))
            for use in self._uses(req, [(qi.name, 1)], ""):
                spot = (use.level, use.name, use.resource)
                kind = req.amounts.get(use.resource)
                if kind is None or kind == "JOB":
                    continue
                left = held.get(spot, 0.0) - spent.get((ar.ar_id, *spot), 0.0)
                if left < use.amount and room >= 1:
                    cat.reasons[_too_little(ar, use)] = None
                room = min(room, left // use.amount if kind == "YES" else
                           (room if left >= use.amount else 0.0))
            if room >= 1:
                kept.append((qi, int(room)))
        return kept

    def _ar_held(self, ar: ArBooking) -> dict[tuple[str, str, str], float]:
        """What an AR holds of its consumables (its slots apart: ar_slots), per (level,
        name, resource) of its booking (reserve.Use); worked out once a cycle."""
        held = self.ar_holds.get(ar.ar_id)
        if held is None:
            req = self.matcher.request(ar.hard)
            held = self.ar_holds[ar.ar_id] = {
                (use.level, use.name, use.resource): use.amount
                for use in self._uses(req, ar.granted, ar.pe, ar=True)
                if use.resource in req.amounts}
        return held

    def _ar_ids(self, ar_id: int, req: JobRequest, granted: Granted) -> ResourceMap | None:
        """The RSMAP ids a task in an AR is granted: out of the AR's, those its other jobs
        leave (None: fewer than the counts said)."""
        if not req.rsmap:
            return []
        return pick(req.rsmap, parts(granted), self._ar_pool(ar_id))

    def _ar_pool(self, ar_id: int) -> Pool:
        """The ids an AR holds, and those of them its jobs hold; none where the cell
        offers ids the AR does not hold."""
        ar = self.ars.get(ar_id)
        offered = {} if ar is None else {(name, host): ids for name, host, ids in
                                         ar.resource_map}
        cell = level_pool(self.levels.global_level, self.levels.hosts)

        def pool(name: str, host: str) -> tuple[Sequence[str], Counter[str]] | None:
            ids = offered.get((name, host))
            if ids is None:
                return None if cell(name, host) is None else ((), Counter())
            return ids, self.ar_held.setdefault((ar_id, name, host), Counter())

        return pool

    def _spend_ar(self, ar_id: int, req: JobRequest, granted: Iterable[tuple[str, int]],
                  ids: ResourceMap | None = None) -> None:
        if ids:
            hold_in(self._ar_pool(ar_id), ids)
        slots = 0
        placed = list(granted)
        for name, n in placed:
            self.ar_slots[(ar_id, name)] = self.ar_slots.get((ar_id, name), 0) + n
            slots += n
        times = {"JOB": 1, "YES": slots}
        for need in req.hard:
            if need.consumable in times and need.key and need.name != "slots":
                key = (ar_id, need.name)
                self.ar_spent[key] = self.ar_spent.get(key, 0.0) + need.key * times[
                    need.consumable]
        if req.amounts:
            spent = self.ar_spent_levels
            for use in self._uses(req, placed, ""):
                if use.resource in req.amounts:
                    key = (ar_id, use.level, use.name, use.resource)
                    spent[key] = spent.get(key, 0.0) + use.amount


_LEVELS = {"G": "", "H": "host ", "Q": "queue instance "}  # the global host: "global"


def _too_little(ar: ArBooking, use: Use) -> str:
    return (f"cannot run because advance reservation {ar.ar_id} has too little "
            f"{use.resource} left on {_LEVELS[use.level]}{use.name}")

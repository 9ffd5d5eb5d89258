"""Reservation and backfilling in a cycle: the diagrams (gridd.sched.reserve's Schedule)
of what runs until its expected end, of advance reservations and of the cycle's starts;
the earliest start of a -R y job that cannot start now, booked so that no later job
takes what it needs; and keeping later starts clear of those reservations (a job may take
what one holds only if it ends before the reservation starts)."""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import NamedTuple

from gridd.model.cluster import Instance, Running
from gridd.model.pe import PE_SLOTS, ParallelEnv
from gridd.model.planning import Granted, SchedJob
from gridd.model.rsmap import ResourceMap
from gridd.sched.allocation import (
    Lead,
    allocate,
    allocate_led,
    led_by,
    slots_of,
    whole_slots,
)
from gridd.sched.carried import MAX_KEPT
from gridd.sched.categories import Category
from gridd.sched.levels import Levels
from gridd.sched.match import FIT, JobRequest, Level, MatchResult, reservation_refusal
from gridd.sched.quota import Who, who_of
from gridd.sched.reserve import ADVANCE, LEVEL_CHAR, RESERVING, Booking, Schedule, Use, uses
from gridd.sched.rsmap_ids import free_with, parts, pick

_HELD = MatchResult(False, "cannot run because a reservation holds what it needs")  # unsaid


class PeOpen(NamedTuple):
    """The instances of a PE that could ever take a slot of a category, by host with the
    diagrams each host's slot would use (Backfilling.pe_open): made once per cycle."""

    instances: list[Instance]
    hosts: dict[str, tuple[list[Instance], set[tuple[str, str, str]]]]
    keys: set[tuple[str, str, str]]  # every diagram a slot of the job could use
    one: dict[str, tuple[Use, ...]]  # per instance, what one slot of the job takes there
    # Per host, what the job's fewest slots take on it ($pe_slots): on its only instance,
    # or, where it has several, on the global and host levels (a bound, not a placement).
    whole: dict[str, tuple[Use, ...]]
    # Per host, whether all that `whole` takes has a whole capacity (Backfilling._one_place)
    exact: dict[str, bool]


@dataclass(slots=True, eq=False)
class Capacity:
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


class Backfilling:
    """The cycle's diagrams, its reservations, and starts kept clear of them: a step of
    Cycle (gridd.sched.cycle), which holds the state the steps share."""

    def _duration(self, req: JobRequest) -> float:
        """How long planning assumes a job runs: the longer of its h_rt and s_rt, else
        default_duration; plus DURATION_OFFSET."""
        limits = [need.key for need in req.hard if need.name in ("h_rt", "s_rt")]
        return (max(limits) if limits else self.conf.default_duration) + \
            self.conf.duration_offset

    def expected_end(self, task: Running) -> float:
        """When a running task is expected to end, as the diagrams book it (not before
        the next second: it still runs)."""
        return max((task.start or self.now) + self._duration(self.matcher.request(task.hard)),
                   self.now + 1)

    def _reserved_ids(self, cat: Category, start: float, granted: Granted) -> ResourceMap:
        """The RSMAP ids a reservation books: the first free from its start for its
        duration, where running tasks expected to last into it, the ARs it overlaps and
        the cycle's earlier reservations hold theirs."""
        if not cat.req.rsmap:
            return []
        end = start + cat.duration
        held = [t.resource_map for t in self.running
                if t.resource_map and self.expected_end(t) > start]
        held += [ar.resource_map for ar in self.ars.values() if ar.start < end and start < ar.end]
        held += [ids for when, until, ids in self._booked_ids if when < end and start < until]
        ids = pick(cat.req.rsmap, parts(granted), free_with(self._empty_levels(), held)) or []
        self._booked_ids.append((start, end, ids))
        return ids

    def _uses(self, req: JobRequest, granted: Iterable[tuple[str, int]], pe: str,
              ar: bool = False) -> tuple[Use, ...]:
        """What a placement (an AR's: `ar`) takes where (`uses`), remembered from cycle
        to cycle: it depends only on which consumables each level has, settled with the
        empty levels (a reservation asks the same for its job cycle after cycle, and a
        task that started is booked again as it runs)."""
        key = (req, tuple(granted), pe, ar)
        memo = self.carried.uses
        found = memo.get(key)
        if found is None:
            if len(memo) >= MAX_KEPT:
                memo.clear()
            found = memo[key] = self._placed_uses(req, key[1], pe, ar)
        return found

    def _placed_uses(self, req: JobRequest, granted: Iterable[tuple[str, int]], pe: str,
                     ar: bool) -> tuple[Use, ...]:
        placed = []
        for name, slots in granted:
            qi = self.instances.get(name)
            if qi is not None:
                placed.append((self.levels.of(qi), slots))
            else:  # gone from the configuration: still holds global and host resources
                host = self.levels.hosts.get(name.partition("@")[2])
                levels = (self.levels.global_level, host) if host else (self.levels.global_level,)
                placed.append((levels, slots))
        return uses(req, placed, pe, ar=ar)

    def _started_now(self, job_id: int, task_id: int, cat: Category, granted: Granted,
                     pe: str, who: Who) -> None:
        """Book a start in the diagrams, or remember it for when they are made."""
        if self.schedule is not None:
            self.schedule.book(self._starting(job_id, task_id, cat, granted, pe, who))
        elif self.keeps_starts:
            self._started.append((job_id, task_id, cat, granted, pe, who))

    def _starting(self, job_id: int, task_id: int, cat: Category, granted: Granted,
                  pe: str, who: Who) -> Booking:
        return Booking(job_id, task_id or 1, "STARTING", self.now, cat.duration,
                       self._uses(cat.req, granted, pe)
                       + self._quota_uses(cat.req, who, granted, pe))

    def the_schedule(self) -> Schedule:
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
                                                   ar.pe, ar=True)))
            bookings += [self._starting(*started) for started in self._started]
            for booking in bookings:
                schedule.book(booking)
            self.carried.held = held
            self._started.clear()
            self.schedule = schedule
        return self.schedule

    def _reserving(self) -> bool:
        """Whether the cycle's reservations are below max_reservation."""
        made = 0 if self.schedule is None else self.schedule.reserved
        return made < self.conf.max_reservation

    def _clear_of_reservations(self, cat: Category, granted: Granted, pe: str = "",
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

    def _reserve(self, job: SchedJob, task_id: int, cat: Category
                 ) -> tuple[float, Granted] | None:
        """Reserve for a job that cannot start now: the earliest start over the instances
        that could ever take it (the first of them among equals), booked in the diagrams
        so that no later job takes what it needs."""
        if job.pe:
            return self._reserve_parallel(job, task_id, cat)
        schedule = self.the_schedule()
        static = cat.static
        if static.reservable is None:
            empty = self._empty_levels()
            static.reservable = [(qi, uses(cat.req, [(self.levels.of(qi), 1)]))
                                 for qi in cat.open
                                 if self.matcher.fits(cat.req, 1, *empty.of(qi)).ok]
        best: tuple[float, Instance, tuple[Use, ...]] | None = None
        who = who_of(job)
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

    def _book_reservation(self, booking: Booking) -> None:
        assert self.schedule is not None
        self.schedule.book(booking)
        self._quota_reserved = self._quota_reserved or self.quotas is not None and any(
            u.level == "R" for u in booking.uses)  # (none without quotas: _quota_uses)

    def _empty_levels(self) -> Levels:
        """The levels with nothing running (the carried ones: the cycle followed the
        configuration and loads when it began)."""
        return self.carried.empty_levels(self.conf, self.loads, self.matcher)

    def _reserve_parallel(self, job: SchedJob, task_id: int, cat: Category
                          ) -> tuple[float, Granted] | None:
        """The earliest start over the PEs the job names (the first PE among equal
        starts, the largest slot count of the range at that start), booked as for a
        sequential job. Starts are tried at now and wherever the usage of a resource the
        job could use drops."""
        schedule = self.the_schedule()
        # (with what the allocation takes, where known already: see _one_place)
        best: tuple[float, int, Granted, str, tuple[Use, ...] | None] | None = None
        for pe in cat.pes:
            where = self.pe_open(cat, pe)
            candidates = where.instances
            first = self._no_sooner(job, cat, pe, where)
            if not candidates or math.isinf(first) or (best is not None and first > best[0]):
                continue
            # No sooner is now or when a diagram the job could use drops: the first start
            # to try, and mostly the one found. The others are looked up only past it.
            start, placement = first, None
            one = self._one_place(job, cat, pe, where, first)
            if one is not None:
                granted, placement = one
            else:
                granted = self.parallel_at(job, cat, pe, candidates, first)
            if granted is None:
                keys = where.keys | {(u.level, u.name, u.resource) for qi in candidates
                                     for u in self._quota_uses(cat.req, who_of(job),
                                                               [(qi.name, 1)], pe.name)}
                for start in schedule.ends(keys):
                    if start <= first:
                        continue
                    if best is not None and start > best[0]:
                        break
                    granted = self.parallel_at(job, cat, pe, candidates, start)
                    if granted is not None:
                        break
            if granted is not None:
                slots = slots_of(granted)
                if best is None or start < best[0] or slots > best[1]:
                    best = (start, slots, granted, pe.name, placement)
        if best is None:
            return None
        start, _, granted, pe_name, placement = best
        if placement is None:
            placement = self._uses(cat.req, granted, pe_name)
            if self.quotas is not None:
                placement += self._quota_uses(cat.req, who_of(job), granted, pe_name)
        self._book_reservation(Booking(job.job_id, task_id or 1, RESERVING, start,
                                       cat.duration, placement))
        return start, granted

    def _one_place(self, job: SchedJob, cat: Category, pe: ParallelEnv, where: PeOpen,
                   first: float) -> tuple[Granted, tuple[Use, ...]] | None:
        """What `parallel_at` gives at `first` without asking it, where that is certain,
        with what it takes: with one instance and $pe_slots, `_no_sooner` found the
        earliest start of all the job's slots there (a fixed count, no quotas) and what
        they take (PeOpen.whole); with whole amounts the rooms it would work out agree
        with the diagrams to the last slot. None: ask it."""
        if not (len(where.instances) == 1 and pe.allocation_rule == PE_SLOTS
                and job.pe_min == job.pe_max >= 1 and self.quotas is None
                and cat.static.lead is None and not cat.req.per_job):
            return None
        assert self.schedule is not None
        qi = where.instances[0]
        if not (where.exact.get(qi.host) and self.schedule.whole and cat.req.whole):
            return None
        return [(qi.name, job.pe_min)], where.whole[qi.host]

    def pe_open(self, cat: Category, pe: ParallelEnv) -> PeOpen:
        """The instances of the PE that could ever take a slot of the category, by host
        with the diagrams each host's slot would use; made once per cycle."""
        found = cat.static.pe_open.get(pe.name)
        if found is None:
            empty = self._empty_levels()
            found = cat.static.pe_open[pe.name] = PeOpen([], {}, set(), {}, {}, {})
            for qi in cat.open:
                if pe.name in qi.pe_list and self.matcher.fits(cat.req, 1, *empty.of(qi),
                                                                 master=False,
                                                                 first_on_host=True).ok:
                    found.instances.append(qi)
                    on_host, keys = found.hosts.setdefault(qi.host, ([], set()))
                    on_host.append(qi)
                    one = found.one[qi.name] = self._uses(cat.req, [(qi.name, 1)], pe.name)
                    keys.update((u.level, u.name, u.resource) for u in one)
            for _, keys in found.hosts.values():
                found.keys.update(keys)
        return found

    def _no_sooner(self, job: SchedJob, cat: Category, pe: ParallelEnv,
                   where: PeOpen) -> float:
        """A time before which no allocation can start: when the PE has the fewest slots
        free; with $pe_slots exactly the earliest start, the earliest of any one host (its
        instances together) taking them all."""
        schedule = self.schedule
        assert schedule is not None
        fewest = max(job.pe_min, 1)
        if pe.allocation_rule != PE_SLOTS:
            return schedule.earliest(self._pe_use(pe, fewest), cat.duration)
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
                where.exact[host] = all(self.capacity(use).is_integer() for use in whole)
            if len(on_host) == 1:  # the diagrams answer at once
                best = min(best, schedule.earliest(whole, cat.duration))
            else:  # not before the host takes them all, nor one of its instances one slot
                soonest = schedule.earliest(whole, cat.duration)
                if soonest < best:
                    hosts.append((max(soonest, min(schedule.earliest(where.one[qi.name],
                                                                     cat.duration)
                                                   for qi in on_host)), on_host, keys))
        if not hosts:  # (each host's slots take the PE's too: its earliest is below)
            return best
        first = schedule.earliest(self._pe_use(pe, fewest), cat.duration)
        hosts.sort(key=lambda h: h[0])
        for soonest, on_host, keys in hosts:
            if soonest >= best:
                break
            for start in schedule.ends(keys):
                if start >= best:
                    break
                if start >= max(first, soonest) and self.parallel_at(job, cat, pe, on_host,
                                                                       start):
                    best = start
                    break
        return best

    @staticmethod
    def _pe_use(pe: ParallelEnv, slots: int) -> tuple[Use, ...]:
        """What `slots` slots take of the PE alone."""
        return (Use("P", pe.name, "slots", float(slots)),)

    def parallel_at(self, job: SchedJob, cat: Category, pe: ParallelEnv,
                     candidates: list[Instance], start: float,
                     duration: float | None = None,
                     may_lead: Callable[[Instance], bool] | None = None) -> Granted | None:
        """The allocation of the job's slots the diagrams allow from `start` on for its
        whole duration (or the one given), or None. Its master task goes to the first of
        its instances that `may_lead` takes (an AR's -masterq) and that could ever hold
        the master task's per-job consumables (the host, or the global host, has them),
        as a job placed now is led (ParallelPlacement._with_master)."""
        assert self.schedule is not None
        schedule, req = self.schedule, cat.req
        duration = cat.duration if duration is None else duration
        per_slot, once = req.per_slot, req.once

        diagrams, end = schedule.diagrams, start + duration

        def room(level: Level) -> float:
            letter = LEVEL_CHAR.get(level.kind, "Q")
            for need in once:  # exclusivity or a HOST consumable: all the slots there or none
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

        cap = whole_slots(min(job.pe_max, room(self.levels.global_level),
                              schedule.left(Use("P", pe.name, "slots", 0.0), start, duration)))
        rooms: dict[str, list[tuple[Instance, int]]] = {}
        host_room: dict[str, int] = {}
        host_cap: dict[str, float] = {}
        for qi in candidates:
            _, h, q = self.levels.of(qi)
            if qi.host not in host_cap:
                host_cap[qi.host] = room(h)
            here = whole_slots(min(room(q), host_cap[qi.host], job.pe_max))
            if here > 0:
                rooms.setdefault(qi.host, []).append((qi, here))
                host_room[qi.host] = whole_slots(min(host_cap[qi.host],
                                                     host_room.get(qi.host, 0) + here))

        def fits(granted: Granted) -> bool:
            return schedule.fits(self._uses(req, granted, pe.name)
                                 + self._quota_uses(req, who_of(job), granted, pe.name),
                                 start, duration)

        per_job = req.per_job or req.per_host  # a global HOST value: the master task's
        empty = self._empty_levels() if per_job else None

        def leads(granted: Granted) -> bool:
            name, slots = granted[0]
            qi = self.instances[name]
            return (may_lead is None or may_lead(qi)) and (
                empty is None or self.matcher.fits(req, slots, *empty.of(qi), master=True).ok)

        lead = cat.static.lead
        if lead is None:
            granted, _ = allocate(pe.allocation_rule, rooms, host_room, cap, job.pe_min)
            if granted is None:
                return None
            choose = per_job or may_lead is not None
            for index in range(len(granted) if choose else 1):
                placed = led_by(granted, index)
                if leads(placed) and fits(placed):
                    return placed
            if not choose:
                return None
            # none of the rule's first choice may lead: around each instance that may
            lead = Lead(frozenset(qi.name for items in rooms.values() for qi, _ in items),
                        None)
        return allocate_led(pe.allocation_rule, rooms, host_room, host_cap, lead, cap,
                            job.pe_min, lambda g: leads(g) and fits(g))[0]

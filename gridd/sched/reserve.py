"""Resource utilization over time, for resource reservation and backfilling.

A dispatch cycle that may reserve keeps, per consumable of the global host, each
execution host and each queue instance, a diagram of how much of it is in use from when
to when: what running tasks hold until their expected end (start + h_rt or s_rt, else
default_duration, plus DURATION_OFFSET), what the cycle starts now and what it reserves
for later. A job that cannot start now gets the earliest time all its consumables are free
for its whole duration (a reservation); a job that can start now may do so only if it
ends before any reservation needs what it takes (backfilling).

Diagrams are made when the cycle first reserves: until then (and in every cycle without
jobs asking for reservations) planning costs what it cost before.
"""

from __future__ import annotations

import bisect
import itertools
import math
from collections.abc import Callable, Container, Hashable, Iterable, Mapping
from dataclasses import dataclass, field

from gridd.sched.match import (
    EXCLUSIVE,
    GLOBAL,
    HOST,
    JobRequest,
    Level,
    first_parts,
    global_skipped,
    part_of,
    skipped,
)

_EPSILON = 1e-9
RESERVING = "RESERVING"
ADVANCE = "ADVANCE"  # an advance reservation's hold: gridd's own, not in the schedule file
LEVEL_CHAR = {GLOBAL: "G", HOST: "H"}  # the schedule file's letter per level kind ("Q" else)


@dataclass(slots=True, eq=False)
class Diagram:
    """Usage of one resource of one level as a step function of time: `steps[i]` the
    change of usage at `times[i]` (positive at a start, negative at an end), kept sorted
    by time as bookings come and go, so that `_after[i]`, the usage from times[i] on, is
    a running sum made again, without sorting or hashing a time, when a booking changed
    it: a cycle books its running tasks one after another before it asks anything."""

    capacity: float
    times: list[float] = field(default_factory=list)
    steps: list[float] = field(default_factory=list)
    reserved: bool = False  # a reservation uses it: jobs starting now must keep clear
    _after: list[float] | None = None

    def add(self, start: float, end: float, amount: float) -> None:
        self._shift(start, amount)
        if not math.isinf(end):
            self._shift(end, -amount)
        self._after = None

    def take_back(self, start: float, end: float, amount: float) -> None:
        """Undo an `add` of a whole amount (exact): steps that come to nothing go (see
        _shift), so a diagram kept from cycle to cycle does not grow with every task that
        ever ran."""
        self._shift(start, -amount)
        if not math.isinf(end):
            self._shift(end, amount)
        self._after = None

    def _shift(self, at: float, change: float) -> None:
        """Change the usage from a time on: its step, made if none is there, goes if it
        comes to nothing (a step of nothing changes no usage)."""
        times, steps = self.times, self.steps
        i = bisect.bisect_left(times, at)
        if i < len(times) and times[i] == at:
            left = steps[i] + change
            if left:
                steps[i] = left
            else:
                del times[i], steps[i]
        elif change:
            times.insert(i, at)
            steps.insert(i, change + 0.0)  # (a float, as the sums of steps are)

    def copy(self) -> Diagram:
        return Diagram(self.capacity, self.times.copy(), self.steps.copy(), self.reserved,
                       self._usage().copy())

    def _usage(self) -> list[float]:
        """The usage from each step on, made again if a booking changed the steps (the
        queries read `_after` themselves while it holds: a call each costs more)."""
        after = self._after
        if after is None:
            after = self._after = list(itertools.accumulate(self.steps))
        return after

    def peak(self, start: float, end: float) -> float:
        """The highest usage in [start, end)."""
        after = self._after or self._usage()
        times = self.times
        first = bisect.bisect_right(times, start)
        top = after[first - 1] if first else 0.0
        last = bisect.bisect_left(times, end, first)
        if last > first:
            top = max(top, max(after[first:last]))
        return top

    def fits(self, start: float, duration: float, amount: float) -> bool:
        return self.peak(start, start + duration) + amount <= self.capacity + _EPSILON

    def ends(self, start: float) -> list[float]:
        """The times after `start` at which usage drops: where a later start may fit."""
        first = bisect.bisect_right(self.times, start)
        return [t for t, step in zip(self.times[first:], self.steps[first:], strict=True)
                if step < 0]

    def earliest(self, start: float, duration: float, amount: float) -> float:
        """The earliest time from `start` on at which `amount` more fits for `duration`
        (infinity when never). One walk along the steps: where a window breaks, the next
        start to try is the next step low enough."""
        if amount > self.capacity + _EPSILON:
            return math.inf
        room = self.capacity - amount + _EPSILON
        after = self._after or self._usage()
        times = self.times
        n = len(times)
        i = bisect.bisect_right(times, start)  # the steps after the start tried
        t, level = start, (after[i - 1] if i else 0.0)
        while True:
            if level <= room:
                end = t + duration
                k = i
                while k < n and times[k] < end and after[k] <= room:
                    k += 1
                if k == n or times[k] >= end:
                    return t
                i = k
            while i < n and after[i] > room:
                i += 1
            if i == n:
                return math.inf
            t, level = times[i], after[i]
            i += 1


@dataclass(slots=True)
class Use:
    """One utilization of one job on one level, as the schedule file prints it. Never
    changed once made; not frozen, as cycles make several and a frozen dataclass costs
    three times as much to make."""

    level: str  # "G", "H", "Q" or "P"
    name: str  # global, the host, the queue instance, the PE
    resource: str
    amount: float


@dataclass(slots=True)
class Booking:
    """What a job holds (RUNNING), starts now (STARTING) or reserves (RESERVING). Never
    changed once made (not frozen, as Use)."""

    job_id: int
    task_id: int
    state: str
    start: float
    duration: float
    uses: tuple[Use, ...]

    def lines(self, exclusive: Container[str] = ()) -> list[str]:
        """The job's lines of a schedule file interval; an `exclusive` attribute's amount
        is shown as 1, whoever takes it, as 8.1.9 shows it."""
        if self.state == ADVANCE:
            return []
        duration = "INFINITY" if math.isinf(self.duration) else str(int(round(self.duration)))
        return [f"{self.job_id}:{self.task_id}:{self.state}:{int(self.start)}:{duration}:"
                f"{u.level}:{u.name}:{u.resource}:"
                f"{1.0 if u.resource in exclusive else u.amount:f}" for u in self.uses
                if u.level != "R"]  # quota scopes are gridd's own: not in the file


def uses(req: JobRequest, granted: Iterable[tuple[tuple[Level, Level, Level], int]],
         pe: str = "", *, ar: bool = False) -> tuple[Use, ...]:
    """Where a placement takes consumables: what `Matcher.debit` would take, level by
    level (the global level once, each host once), and the PE's slots. An advance
    reservation's (`ar`) takes a HOST consumable's global value once per host, as Open
    Cluster Scheduler books an AR's: each of its jobs takes it once, and each host of
    it may run one."""
    totals: dict[tuple[str, str, str], float] = {}  # in the order first used
    slots_total = 0
    placed = list(granted)
    # (a part whose host is gone has the global level alone: no host of its own)
    firsts = first_parts([levels[1].name if len(levels) > 1 else None for levels, _ in placed])
    for index, ((levels, slots), first) in enumerate(zip(placed, firsts, strict=True)):
        slots_total += slots
        part = part_of(index == 0, first)
        for need in req.hard:
            if need.consumable == "NO" or skipped(need.consumable, part):
                continue
            amount = need.key * slots if need.consumable == "YES" else need.key
            for level in levels:
                if need.name in level.capacity and (
                        ar or not global_skipped(need, level.kind, part)):
                    key = (LEVEL_CHAR.get(level.kind, "Q"), level.name, need.name)
                    if need.consumable == EXCLUSIVE and key in totals:
                        continue  # once per level for the whole placement
                    totals[key] = totals.get(key, 0.0) + amount
    out = [Use(*key, totals[key]) for key in sorted(totals, key=lambda k: "GHQ".index(k[0]))]
    if pe:
        out.append(Use("P", pe, "slots", float(slots_total)))
    return tuple(out)


class Standing:
    """The diagrams of the running tasks, kept from cycle to cycle: a cycle books the
    tasks started since the last and takes back those gone, instead of booking every
    running task again (most of what making the diagrams cost). Taking back is exact only
    for whole amounts: a task with another amount is not kept (see `follow`)."""

    def __init__(self) -> None:
        self.bookings: dict[Hashable, Booking] = {}
        self.diagrams: dict[tuple[str, str, str], Diagram] = {}

    def follow(self, wanted: Mapping[Hashable, Booking], capacity: Callable[[Use], float]
               ) -> bool:
        """Make the diagrams hold exactly the `wanted` bookings (by key; a booking of a
        key that is not the one kept replaces it). False, and nothing kept, when one of
        them has an amount that is not whole."""
        have = self.bookings
        new = [booking for key, booking in wanted.items() if have.get(key) is not booking]
        for booking in new:
            for use in booking.uses:
                if not use.amount.is_integer():
                    self.bookings, self.diagrams = {}, {}
                    return False
        if new or len(have) != len(wanted):
            for key, booking in have.items():
                if wanted.get(key) is not booking:
                    for use in booking.uses:
                        self.diagrams[(use.level, use.name, use.resource)].take_back(
                            booking.start, booking.start + booking.duration, use.amount)
            for booking in new:
                for use in booking.uses:
                    diagram_key = (use.level, use.name, use.resource)
                    diagram = self.diagrams.get(diagram_key)
                    if diagram is None:
                        diagram = self.diagrams[diagram_key] = Diagram(capacity(use))
                    diagram.add(booking.start, booking.start + booking.duration, use.amount)
        self.bookings = dict(wanted)  # in the order the cycle lists its running tasks
        return True


class Schedule:
    """The cycle's diagrams, and what it booked in them (for the schedule file).
    `capacity` tells how much of a resource a level has in all; `standing`, when given,
    holds the running tasks already (the cycle books on copies of its diagrams)."""

    def __init__(self, now: float, capacity: Callable[[Use], float],
                 standing: Standing | None = None) -> None:
        self.now = now
        self.capacity = capacity
        self.diagrams: dict[tuple[str, str, str], Diagram] = {}
        self.bookings: list[Booking] = []
        if standing is not None:
            self.diagrams = {key: d.copy() for key, d in standing.diagrams.items()}
            self.bookings = list(standing.bookings.values())
        self.reserved = 0  # reservations made this cycle
        # Every amount booked is a whole number: sums and differences of usage are exact,
        # so what fits by the diagrams fits by any arithmetic on them (Cycle._reserve_parallel).
        self.whole = True
        # Earliest starts asked since the last booking: the instances of a host, and all
        # instances, ask the same of the host's and the global diagrams.
        self._earliest: dict[tuple[tuple[str, str, str], float, float, float], float] = {}

    def move_to(self, now: float) -> None:
        """Plan from a later time on (the diagrams must not change in between)."""
        self.now = now
        self._earliest.clear()

    def reopen(self, now: float, gone: Container[tuple[int, int]]) -> bool:
        """Plan afresh from a later time on: the reservations, and the bookings of the
        tasks gone (by job and task), taken back, so that the diagrams hold what still
        runs as a new cycle's would (see Cycle.reopen). False, and nothing changed, where
        they would not: an amount is not whole (taking back would not be exact), or a task
        that still runs is within a second of its expected end (a new cycle takes it to
        end then: Cycle.the_schedule)."""
        if not self.whole:
            return False
        kept, dropped, soonest = [], [], math.inf
        for booking in self.bookings:
            if booking.state == RESERVING or (booking.job_id, booking.task_id) in gone:
                dropped.append(booking)
            else:
                kept.append(booking)
                end = booking.start + booking.duration
                if end < soonest:
                    soonest = end
        if now > soonest - 1:
            return False
        for booking in dropped:
            end, reserving = booking.start + booking.duration, booking.state == RESERVING
            for use in booking.uses:
                diagram = self.diagrams[(use.level, use.name, use.resource)]
                diagram.take_back(booking.start, end, use.amount)
                if reserving:  # (no advance reservation holds any: see Cycle.reopen)
                    diagram.reserved = False
        self.bookings, self.reserved = kept, 0
        self.move_to(now)
        return True

    def _diagram(self, use: Use) -> Diagram:
        key = (use.level, use.name, use.resource)
        found = self.diagrams.get(key)
        if found is None:
            found = self.diagrams[key] = Diagram(self.capacity(use))
        return found

    def book(self, booking: Booking) -> None:
        start, end = booking.start, booking.start + booking.duration
        # What a job starting now must keep clear of: the cycle's reservations and the
        # advance reservations.
        reserving = booking.state in (RESERVING, ADVANCE)
        diagrams = self.diagrams
        for use in booking.uses:
            diagram = diagrams.get((use.level, use.name, use.resource)) or self._diagram(use)
            diagram.add(start, end, use.amount)
            if reserving:
                diagram.reserved = True
            if self.whole and not use.amount.is_integer():
                self.whole = False
        if booking.state == RESERVING:
            self.reserved += 1
        self.bookings.append(booking)
        self._earliest.clear()

    def left(self, use: Use, start: float, duration: float) -> float:
        """How much of a use's resource is free all through [start, start + duration)."""
        diagram = self.diagrams.get((use.level, use.name, use.resource))
        if diagram is None:
            return self.capacity(use)
        return diagram.capacity - diagram.peak(start, start + duration)

    def fits(self, placement: tuple[Use, ...], start: float, duration: float) -> bool:
        return all(use.amount <= self.left(use, start, duration) + _EPSILON
                   for use in placement)

    def ends(self, keys: Iterable[tuple[str, str, str]]) -> list[float]:
        """Now and the later times at which usage of these resources drops, in order."""
        times = {self.now}
        for key in keys:
            diagram = self.diagrams.get(key)
            if diagram is not None:
                times.update(diagram.ends(self.now))
        return sorted(times)

    def short(self, placement: tuple[Use, ...], duration: float) -> tuple[Use, float] | None:
        """The first use of a placement starting now that would take what a reservation
        needs, with what is left of it meanwhile (None when it may start: backfilling)."""
        for use in placement:
            diagram = self.diagrams.get((use.level, use.name, use.resource))
            if diagram is not None and diagram.reserved:
                top = diagram.peak(self.now, self.now + duration)  # (as Diagram.fits asks)
                if top + use.amount > diagram.capacity + _EPSILON:
                    return use, diagram.capacity - top
        return None

    def earliest(self, placement: tuple[Use, ...], duration: float) -> float:
        """The earliest start from now on at which every use fits for the duration
        (infinity when never)."""
        t = self.now
        memo, diagrams = self._earliest, self.diagrams
        # Each use in turn is asked from the latest start found yet (none fits before it),
        # until all of them in a row fit at it.
        count, index, agreed = len(placement), 0, 0
        while agreed < count:
            use = placement[index]
            name = (use.level, use.name, use.resource)
            key = (name, t, duration, use.amount)
            found = memo.get(key)
            if found is None:
                diagram = diagrams.get(name) or self._diagram(use)
                found = memo[key] = diagram.earliest(t, duration, use.amount)
            if found > t:
                if math.isinf(found):
                    return found
                t, agreed = found, 1
            else:
                agreed += 1
            index = index + 1 if index + 1 < count else 0
        return t

"""A trace replayed in virtual time through the planner (`gridd sim`).

The cell is one pool: a host with the trace's processors as slots in one queue
instance, and a PE over it for jobs of more than one slot. Every job asks for its
processors, with h_rt its requested time and -R y; it runs for its run time, cut at
h_rt. A planning run follows every instant at which jobs arrive or end, once the jobs
ending then are gone and the jobs arriving then wait.

A run is left out when it cannot start anything. Reservations last one run and orders
are the only thing a run leaves, so leaving it out changes nothing; it spares most of
the runs of a busy trace. Nothing can start when no waiting job asks for as few slots
as are free; nor when the job first in line was reserved by the last run and every other
job that fits in what is free would be in the way of that reservation (Simulation._held).
A run at an instant when jobs only arrive costs what planning the new jobs costs: the
planner goes on with its last cycle (resume.Resumable); at one when jobs ended, it plans
again in that cycle, with what they held given back, rather than in a new one.

What the replay goes on with between two instants is small: what runs since when, what
waits, and the last run's reservation for the job first in line (Checkpoint). A replay
set to it goes on as the replay that reached it does, so stretches of a trace can be
replayed apart and joined: each from a checkpoint that a simple model of the replay
finds (Simulation.checkpoints), joined where the replay before it reaches that very
state, or else where the two meet at an instant at which nothing runs or waits
(Stretch; gridd.sim_processes does it on several cores).
"""

from __future__ import annotations

import bisect
import heapq
import itertools
import math
import operator
import random
from array import array
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from gridd.model.cluster import Instance, PlanConf, Running
from gridd.model.pe import PE_SLOTS, ParallelEnv
from gridd.model.planning import SchedJob
from gridd.model.trace import TraceJob
from gridd.sched.plan import Planner
from gridd.sched.view import SchedView

POOL = "sim.q@pool"
PE = "sim"
BOUND = 10.0  # seconds: the bounded slowdown's floor on run times
_CHECKPOINTS = 256  # the most Simulation.checkpoints keeps
_HELD = operator.itemgetter(1)  # of an expected end: the slots it frees


@dataclass(slots=True)
class Outcome:
    job_id: int
    submit: float
    start: float
    end: float
    slots: int


@dataclass(slots=True)
class Summary:
    jobs: int
    mean_wait: float
    mean_bounded_slowdown: float
    utilization: float
    makespan: float
    runs: int  # planning runs made


def pool_conf(slots: int, max_reservation: int, duration_offset: float) -> PlanConf:
    instance = Instance(name=POOL, queue="sim.q", host="pool", slots=slots, pe_list=[PE],
                        values={"qname": "sim.q", "hostname": "pool", "slots": str(slots),
                                "h_rt": "INFINITY"})
    return PlanConf(instances=[instance], pes={PE: ParallelEnv(PE, slots, PE_SLOTS)},
                    queue_sort_method="seqno", job_info=False,
                    max_reservation=max_reservation, duration_offset=duration_offset,
                    weight_urgency=0.0, weight_ticket=0.0)  # equal priorities: trace order


def _request(job: TraceJob, number: int) -> SchedJob:
    hard = {"h_rt": _seconds(job.limit)}
    if job.slots == 1:
        return SchedJob(job_id=number, pending=[1], priority=0, submit_time=job.submit,
                        hard=hard, reserve=True)
    return SchedJob(job_id=number, pending=[1], priority=0, submit_time=job.submit,
                    hard=hard, pe=PE, pe_min=job.slots, pe_max=job.slots, reserve=True)


def _seconds(value: float) -> str:
    return str(int(value)) if value == int(value) else repr(value)


@dataclass(frozen=True, slots=True)
class Checkpoint:
    """The replay's state before the instant of an arrival: all that the replay from
    there depends on, so that a replay set to it goes on as one that reached it does."""

    arrival: int  # into the arrival order: the first of its instant (or past the last)
    running: tuple[tuple[int, float], ...]  # per job running: its index and start, by index
    waiting: tuple[int, ...]  # the waiting jobs' indices, in order
    reserved: float | None  # the last run's reservation for the first waiting job: from


START = Checkpoint(0, (), (), None)  # the state a replay begins in


@dataclass(slots=True)
class Stretch:
    """A replay begun at a checkpoint and stopped at a later one. Where it began at the
    state a replay of the whole trace reaches there, the two agree up to its end; where it
    did not (the checkpoint was a guess), they agree from the first idle instant they both
    meet (nothing running or waiting, the same jobs to come) on."""

    begin: Checkpoint
    end: Checkpoint
    runs: int  # planning runs made
    idle: dict[int, tuple[int, int]]  # per idle instant met (its next arrival): the runs
    # made and the jobs started before it
    # Per job started, in order: its index, and when. (Arrays: no object per job, for
    # the collector to walk while the stretch waits to be joined, nor to send.)
    started: array[int]
    starts: array[float]


class Simulation:
    """The replay's state between instants: what waits, what runs and until when."""

    def __init__(self, jobs: Sequence[TraceJob], slots: int, max_reservation: int = 0,
                 duration_offset: float = 60.0) -> None:
        if any(job.slots > slots for job in jobs):
            raise ValueError("a job asks for more slots than the pool has")
        self.jobs = jobs
        self.slots = slots
        self._conf = pool_conf(slots, max_reservation, duration_offset)
        self._arrivals = sorted(range(len(jobs)), key=lambda i: (jobs[i].submit, i))
        # Per arrival, when: and infinity past the last, so that looking needs no bound.
        self._submits = [jobs[i].submit for i in self._arrivals] + [math.inf]
        self._size = [job.slots for job in jobs]  # per job: the slots it asks for
        self._span = [job.limit + duration_offset for job in jobs]  # and holds them, expected
        # Whether no task is ever taken to run past its expected end (start, h_rt and
        # DURATION_OFFSET), as the planner takes one within a second of it (cycle.Cycle.
        # the_schedule): a task ends by start + h_rt, so only an instant less than a second
        # before start + h_rt + DURATION_OFFSET can find it so, and there is none when
        # DURATION_OFFSET is a second or more or every instant is a whole second.
        self._kept_to_ends = duration_offset >= 1 or all(
            job.submit.is_integer() and job.run.is_integer() and job.limit.is_integer()
            for job in jobs)
        # Whether the model's checkpoints are the replay's (see checkpoints).
        self._modelled = max_reservation == 0 or (max_reservation == 1 and self._kept_to_ends)
        self.restart()

    def restart(self, at: Checkpoint | None = None) -> None:
        """Forget what was replayed: a new replay begun at the checkpoint `at` (at the
        first arrival, nothing run, if none)."""
        self.starts: dict[int, float] = {}  # per job started so far (index), in order: when
        self.runs = 0
        self.ended = 0  # jobs ended so far
        self._set(at or START)

    def _set(self, at: Checkpoint) -> None:
        jobs = self.jobs
        self.view = SchedView(conf=self._conf, hosts_up={"pool"})
        self.planner = Planner()
        self.free = self.slots
        self._next = at.arrival  # into _arrivals
        self._ends: list[tuple[float, int]] = []  # heap of (end, index)
        self._expected: list[tuple[float, int]] = []  # sorted (expected end, slots)
        for index, start in at.running:
            job, number = jobs[index], index + 1
            request = _request(job, number)
            self.view.running[(number, 1)] = Running(number, 1, request.hard,
                                                     [(POOL, job.slots)], request.pe,
                                                     start=start)
            self.free -= job.slots
            self._ends.append((start + min(job.run, job.limit), index))
            self._expected.append((start + self._span[index], job.slots))
        heapq.heapify(self._ends)
        self._expected.sort()
        self._waiting = _Queue(self._size, self._span)
        for index in at.waiting:
            self.view.jobs[index + 1] = _request(jobs[index], index + 1)
            self._waiting.add(index)
        # The last run's reservations, by job number: when they begin.
        self._reserved: dict[int, float] = (
            {} if at.reserved is None else {at.waiting[0] + 1: at.reserved})

    def checkpoint(self) -> Checkpoint:
        """Where the replay stands, between two instants."""
        waiting = tuple(number - 1 for number in self.view.jobs)
        return Checkpoint(self._next, tuple(sorted((task.job_id - 1, task.start)
                                                   for task in self.view.running.values())),
                          waiting, self._reserved.get(waiting[0] + 1) if waiting else None)

    def run(self, progress: Callable[[int], None] | None = None) -> list[Outcome]:
        """Replay to the end; `progress` hears how many jobs have ended, now and then."""
        self.replay(len(self._arrivals), progress)
        return self.outcomes()

    def outcomes(self) -> list[Outcome]:
        """Per job started, in the trace's order: when it was submitted, started and
        ended."""
        starts = self.starts
        return [Outcome(job.job_id, job.submit, start, start + min(job.run, job.limit),
                        job.slots)
                for index, job in enumerate(self.jobs)
                if (start := starts.get(index)) is not None]

    def replay(self, until: int, progress: Callable[[int], None] | None = None,
               idle: dict[int, tuple[int, int]] | None = None,
               meet: Callable[[int], bool] | None = None) -> bool:
        """Go on to the instant of arrival `until` (the first of its instant), or to the
        end: False then. True if stopped at an idle instant met on the way that `meet`
        accepts (by its next arrival). `idle`, if given, hears of each idle instant met:
        the runs made and the jobs started before it."""
        arrivals = len(self._arrivals)
        stop = self.jobs[self._arrivals[until]].submit if until < arrivals else math.inf
        while self._next < arrivals or self._ends:
            now = self._instant()
            if now >= stop:
                return False
            self.ended += self._end(now)
            if not self._ends and not self._waiting.sizes:  # idle until arrival _next
                if idle is not None:
                    idle[self._next] = (self.runs, len(self.starts))
                if meet is not None and meet(self._next):
                    return True
            self._arrive(now)
            if self._waiting.sizes and self._waiting.sizes[0] <= self.free \
                    and not self._held(now):
                self._plan(now)
            if progress is not None:
                progress(self.ended)
        return False

    def stretch(self, begin: Checkpoint, until: int,
                progress: Callable[[int], None] | None = None) -> Stretch:
        """Replay from the checkpoint `begin` to the instant of arrival `until`, as a new
        replay (whatever this one had replayed is forgotten)."""
        self.restart(begin)
        idle: dict[int, tuple[int, int]] = {}
        self.replay(until, progress, idle)
        return Stretch(begin, self.checkpoint(), self.runs, idle, array("q", self.starts),
                       array("d", self.starts.values()))

    def join(self, stretch: Stretch, progress: Callable[[int], None] | None = None) -> bool:
        """Go on with what the stretch found, from where this replay stands (its begin's
        arrival) to its end. Where the two stand apart there, this replay goes on until it
        meets the stretch at an idle instant, to take what the stretch found from there;
        False if it meets none before the stretch's end (this replay has gone on to it)."""
        runs = started = 0
        if self.checkpoint() != stretch.begin:
            if not self.replay(stretch.end.arrival, progress, meet=stretch.idle.__contains__):
                return False
            runs, started = stretch.idle[self._next]
        self.starts.update(zip(stretch.started[started:], stretch.starts[started:],
                               strict=True))
        self.runs += stretch.runs - runs
        self._set(stretch.end)
        self.ended = len(self.starts) - len(self._ends)
        return True

    def split(self, shares: Sequence[float], first: int = 0) -> list[tuple[Checkpoint, int]]:
        """Stretches from arrival `first` (the first of its instant) on, of about the
        given shares of the runs from there, in order, each as the checkpoint it begins
        at and the runs guessed for it, from the checkpoints `checkpoints` finds."""
        found, runs = self.checkpoints(first)
        found = [f for f in found if f[0].arrival >= first]
        if not found:  # no jobs from there
            return []
        made = [run for _, run in found]
        cuts = [found[0]]
        base, done = made[0], 0.0
        for share in shares[:-1]:
            done += share
            target = base + (runs - base) * done
            near = bisect.bisect_left(made, target)
            at = min(found[max(near - 1, 0):near + 1], key=lambda f: abs(f[1] - target))
            if at[0].arrival > cuts[-1][0].arrival:
                cuts.append(at)
        guessed = [run for _, run in cuts] + [runs]
        return [(at, guessed[k + 1] - guessed[k]) for k, (at, _) in enumerate(cuts)]

    def arrival_after(self, share: float) -> int | None:
        """The first arrival of an instant after about `share` of all arrivals: where a
        stretch from the start, begun before `split` has found the checkpoints, may end
        (`split` is then told to take one there); None where the model's checkpoints are
        guesses, or there is no such arrival."""
        arrivals, jobs = self._arrivals, self.jobs
        at = max(int(len(arrivals) * share), 1)
        while at < len(arrivals) and jobs[arrivals[at]].submit == jobs[arrivals[at - 1]].submit:
            at += 1
        return at if self._modelled and at < len(arrivals) else None

    def checkpoints(self, also: int = 0) -> tuple[list[tuple[Checkpoint, int]], int]:
        """Checkpoints of the replay as a simple model of it finds them, a few hundred
        at most, about evenly spaced in runs, and one at arrival `also` (the first of
        its instant), each with the runs made before it, in order; and the runs made in
        all.

        Each instant at which a waiting job fits in what is free, the jobs are taken in
        order: with max_reservation 0 each starts if it fits; else they do until one does
        not, which is reserved the earliest its slots are free by the expected ends of
        what runs (start, h_rt and DURATION_OFFSET), and of the others only those start
        that fit and either end by then or fit beside it. Run times are cut at h_rt; runs
        that would start nothing are left out as the replay leaves them out. That is the
        planner's EASY backfilling in a pool. The model runs at a fraction of the replay's
        cost, and with max_reservation 0 or 1 its checkpoints are the replay's (wherever
        one is not, Simulation.join finds it out); with more, a guess, so that only its
        idle instants are kept as checkpoints."""
        jobs, arrivals, count = self.jobs, self._arrivals, len(self._arrivals)
        size, span = self._size, self._span
        reserving, pool = self._conf.max_reservation > 0, self.slots
        found: list[tuple[Checkpoint, int]] = []
        every, due = 1, 0  # runs between checkpoints kept; runs before the next
        ends: list[tuple[float, int]] = []  # heap of (end, index)
        expected: list[tuple[float, int]] = []  # sorted (expected end, slots)
        running: dict[int, float] = {}  # index -> start
        waiting: list[int] = []  # indices, in order
        queue = _Queue(size, span)  # and by size
        sizes = queue.sizes
        reserved: float | None = None  # the last run's reservation for waiting[0]
        kept: tuple[Checkpoint, int] | None = None  # the one at arrival `also`

        def begin(index: int, now: float) -> None:
            job, slots = jobs[index], size[index]
            running[index] = now
            heapq.heappush(ends, (now + min(job.run, job.limit), index))
            bisect.insort(expected, (now + span[index], slots))
            queue.remove(index)

        free, at, runs = pool, 0, 0
        while at < count or ends:
            now = jobs[arrivals[at]].submit if at < count else math.inf
            if ends and ends[0][0] < now:
                now = ends[0][0]
            elif at < count and (at == also or runs >= due and (
                    self._modelled or not (running or waiting))):
                checkpoint = (Checkpoint(at, tuple(sorted(running.items())), tuple(waiting),
                                         reserved if waiting else None), runs)
                if at == also:
                    kept = checkpoint
                else:
                    found.append(checkpoint)
                    if len(found) > _CHECKPOINTS:
                        del found[1::2]
                        every *= 2
                    due = runs + every
            while ends and ends[0][0] <= now:
                _, index = heapq.heappop(ends)
                free += size[index]
                until = running.pop(index) + span[index]
                del expected[bisect.bisect_left(expected, (until, size[index]))]
            while at < count and jobs[arrivals[at]].submit <= now:
                waiting.append(arrivals[at])
                queue.add(arrivals[at])
                at += 1
            if not sizes or sizes[0] > free:
                continue
            first = size[waiting[0]]
            if (reserved is not None and self._kept_to_ends and first > free
                    and queue.in_the_way(free, _beside(expected, pool - first, reserved),
                                         reserved, now)):
                continue
            runs += 1
            k = 0  # the jobs first in line start while they fit
            while k < len(waiting) and size[waiting[k]] <= free:
                free -= size[waiting[k]]
                begin(waiting[k], now)
                k += 1
            del waiting[:k]
            reserved, beside = None, 0  # the reservation's start, and what fits beside it
            if reserving and waiting:
                reserved, beside = _earliest(expected, free, size[waiting[0]])
            started: list[int] = []  # positions in waiting
            for k, index in enumerate(waiting):
                slots = size[index]
                if slots > free:
                    continue
                if reserved is not None and now + span[index] > reserved:
                    if slots > beside:
                        continue
                    beside -= slots
                free -= slots
                begin(index, now)
                started.append(k)
                if not sizes or sizes[0] > free:  # the others fit no more
                    break
            for k in reversed(started):
                del waiting[k]
        if kept is not None:
            bisect.insort(found, kept, key=lambda f: f[0].arrival)
        return found, runs

    def _instant(self) -> float:
        arrival = self._submits[self._next]
        return min(arrival, self._ends[0][0]) if self._ends else arrival

    def _end(self, now: float) -> int:
        ends, expected, running = self._ends, self._expected, self.view.running
        count = 0
        while ends and ends[0][0] <= now:
            _, index = heapq.heappop(ends)
            slots = self._size[index]
            self.free += slots
            task = running.pop((index + 1, 1))
            del expected[bisect.bisect_left(expected, (task.start + self._span[index], slots))]
            count += 1
        return count

    def _arrive(self, now: float) -> None:
        jobs, pending, submits = self.jobs, self.view.jobs, self._submits
        while submits[self._next] <= now:
            index = self._arrivals[self._next]
            self._next += 1
            pending[index + 1] = _request(jobs[index], index + 1)
            self._waiting.add(index)

    def _held(self, now: float) -> bool:
        """Whether the last run's reservation for the job first in line shows that a run
        now would start nothing.

        That job starts only if its slots are free. Reserved from T by the last run, it
        is reserved from T' <= T now: since then tasks have only ended (each by its
        expected end, see _kept_to_ends), and what that run started kept clear of the
        reservation. Any other job starts only if it fits in what is free and keeps clear
        of the reservation too (_in_the_way): it ends by T', or fits beside it, in what
        the pool has at T' but the job reserved for and the tasks expected to run past
        T'. Those expected past T are among them, so a job that ends after T and needs
        more than the pool less all of those (_beside) keeps clear of no reservation
        from T'. (Jobs wait in the planner's order: by submission, then number, as they
        arrived.)"""
        if not self._reserved or not self._kept_to_ends:
            return False
        first = next(iter(self.view.jobs))
        start = self._reserved.get(first)
        slots, free = self._size[first - 1], self.free
        if start is None or slots <= free:
            return False
        return self._waiting.in_the_way(free, _beside(self._expected, self.slots - slots,
                                                      start), start, now)

    def _plan(self, now: float) -> None:
        self.runs += 1
        view = self.view
        # The jobs wait in the planner's order already: alike in priority, they arrived
        # by submission, then number (see pool_conf, _arrive).
        plan = self.planner.plan(view, now, order=list(view.jobs.values()))
        self._reserved = {}
        for number, reserved in plan.reserved.items():
            self._reserved[number] = reserved[0]
        for order in plan.orders:
            request = view.jobs.pop(order.job_id)
            index = order.job_id - 1
            job = self.jobs[index]
            self.starts[index] = now
            self.free -= job.slots
            self._waiting.remove(index)
            heapq.heappush(self._ends, (now + min(job.run, job.limit), index))
            bisect.insort(self._expected, (now + self._span[index], job.slots))
            view.running[(order.job_id, 1)] = Running(
                order.job_id, 1, request.hard, order.granted, order.pe, start=now)


class _Queue:
    """The waiting jobs by size: their sizes, sorted, and per size their spans, sorted.
    Whether one fits is a look at the first size, and whether every one that fits would
    be in a reservation's way a look at a span per size."""

    __slots__ = ("sizes", "_spans", "_size", "_span")

    def __init__(self, size: list[int], span: list[float]) -> None:
        self.sizes: list[int] = []
        self._spans: dict[int, list[float]] = {}
        self._size, self._span = size, span  # per job (index)

    def add(self, index: int) -> None:
        slots = self._size[index]
        bisect.insort(self.sizes, slots)
        bisect.insort(self._spans.setdefault(slots, []), self._span[index])

    def remove(self, index: int) -> None:
        slots, sizes = self._size[index], self.sizes
        del sizes[bisect.bisect_left(sizes, slots)]
        spans = self._spans[slots]
        del spans[bisect.bisect_left(spans, self._span[index])]

    def in_the_way(self, free: int, beside: int, start: float, now: float) -> bool:
        """Whether every job that fits in `free` slots would be in the way of a
        reservation from `start` of all a pool's slots but `beside`: it needs more than
        those and ends (its span from `now`) after `start`. (The job reserved for, which
        needs more than `free`, is one of them.) A span is the least of its size's."""
        sizes = self.sizes
        if sizes[0] <= min(free, beside):  # it fits beside
            return False
        k = bisect.bisect_right(sizes, beside)
        while k < len(sizes) and sizes[k] <= free:
            if now + self._spans[sizes[k]][0] <= start:
                return False
            k = bisect.bisect_right(sizes, sizes[k], k)
        return True


def _earliest(expected: list[tuple[float, int]], free: int, slots: int) -> tuple[float, int]:
    """The earliest expected end (of those sorted, with the slots each frees) by which
    `slots` are free, and how many more are free then (all that end then freed)."""
    last = len(expected) - 1
    for k, (end, held) in enumerate(expected):
        free += held
        if free >= slots and (k == last or expected[k + 1][0] != end):
            return end, free - slots
    raise ValueError("more slots than the pool has")


def _beside(expected: list[tuple[float, int]], slots: int, start: float) -> int:
    """What of `slots` is left from `start` on by the tasks (expected ends, sorted, with
    the slots each holds) expected to run past it."""
    return slots - sum(map(_HELD, itertools.islice(
        expected, bisect.bisect_right(expected, (start, math.inf)), None)))


def summary(outcomes: Sequence[Outcome], slots: int, runs: int) -> Summary:
    if not outcomes:
        return Summary(0, 0.0, 0.0, 0.0, 0.0, runs)
    waits = [o.start - o.submit for o in outcomes]
    slowdowns = [max(1.0, (o.end - o.submit) / max(o.end - o.start, BOUND)) for o in outcomes]
    makespan = max(o.end for o in outcomes) - min(o.submit for o in outcomes)
    work = sum((o.end - o.start) * o.slots for o in outcomes)
    return Summary(len(outcomes), sum(waits) / len(waits), sum(slowdowns) / len(slowdowns),
                   work / (slots * makespan) if makespan > 0 else 0.0, makespan, runs)


def synthetic_trace(count: int, slots: int, seed: int = 1, load: float = 0.9) -> list[TraceJob]:
    """A reproducible trace for tests and benchmarks: sizes mostly small and powers of
    two, run times long-tailed, requested times from exact to four times too long (a few
    jobs run into theirs and are killed), whole seconds so that events often coincide,
    and arrivals spaced to offer about `load` of the pool."""
    rng = random.Random(seed)
    sizes = [1, 1, 1, 2, 4] + [2 ** k for k in range(3, max(slots.bit_length(), 3))]
    shapes = []
    for _ in range(count):
        size = min(rng.choice(sizes), slots)
        run = float(int(rng.lognormvariate(6.0, 1.5)) + 1)
        limit = float(int(run * rng.choice((1.0, 1.2, 2.0, 4.0))) + 1)
        if rng.random() < 0.05:
            run = limit + float(rng.randint(1, 100))  # overruns: killed at its limit
        shapes.append((size, run, limit))
    work = sum(size * min(run, limit) for size, run, limit in shapes) / count
    gap = work / (slots * load)
    jobs, now = [], 0.0
    for number, (size, run, limit) in enumerate(shapes, 1):
        now += float(int(rng.expovariate(1.0 / gap)))
        jobs.append(TraceJob(number, now, run, size, limit))
    return jobs

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
planner goes on with its last cycle (plan._Resumable).

An instant at which nothing runs or waits cuts the trace: the replay goes on from it as
a new replay begun there would. Stretches of a trace can so be replayed apart and joined
where they meet at such an instant (Stretch; gridd.sim_processes does it on several
cores).
"""

from __future__ import annotations

import bisect
import heapq
import math
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from gridd import protocol as p
from gridd.formats.swf import TraceJob
from gridd.model.cluster import Instance, PlanConf, Running
from gridd.model.pe import PE_SLOTS, ParallelEnv
from gridd.sched.plan import Planner
from gridd.sched.view import SchedView

POOL = "sim.q@pool"
PE = "sim"
BOUND = 10.0  # seconds: the bounded slowdown's floor on run times


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


def _request(job: TraceJob, number: int) -> p.SchedJob:
    hard = {"h_rt": _seconds(job.limit)}
    if job.slots == 1:
        return p.SchedJob(job_id=number, pending=[1], priority=0, submit_time=job.submit,
                          hard=hard, reserve=True)
    return p.SchedJob(job_id=number, pending=[1], priority=0, submit_time=job.submit,
                      hard=hard, pe=PE, pe_min=job.slots, pe_max=job.slots, reserve=True)


def _seconds(value: float) -> str:
    return str(int(value)) if value == int(value) else repr(value)


@dataclass(slots=True)
class Stretch:
    """A replay begun at an idle instant (an arrival before which nothing runs or waits)
    and stopped at the first idle instant from a later arrival on. Where it meets a
    replay of the whole trace at an idle instant, the two agree from then on: both start
    that instant empty, with the same jobs to come."""

    stop: int  # the arrival (an index into the arrival order) it stopped before (all
    # the arrivals: it ran to the end)
    idle: dict[int, int]  # the idle instants it met, first and stop too: runs made before
    ended: list[tuple[int, float, float]]  # per job that ended: its index, start and end


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
        self._offset = duration_offset
        # Whether no task is ever taken to run past its expected end (start, h_rt and
        # DURATION_OFFSET), as the planner takes one within a second of it (plan.Cycle.
        # _the_schedule): a task ends by start + h_rt, so only an instant less than a second
        # before start + h_rt + DURATION_OFFSET can find it so, and there is none when
        # DURATION_OFFSET is a second or more or every instant is a whole second.
        self._kept_to_ends = duration_offset >= 1 or all(
            job.submit.is_integer() and job.run.is_integer() and job.limit.is_integer()
            for job in jobs)
        self.restart()

    def restart(self) -> None:
        """Forget what was replayed: nothing run, nothing arrived, as in a new replay."""
        self.view = SchedView(conf=self._conf, hosts_up={"pool"})
        self.planner = Planner()
        self.outcomes: list[Outcome | None] = [None] * len(self.jobs)
        self.free = self.slots
        self.runs = 0
        self.ended = 0  # jobs ended so far
        self._next = 0  # into _arrivals
        self._ends: list[tuple[float, int]] = []  # heap of (end, index)
        self._waiting: list[int] = []  # sorted slot counts of the waiting jobs
        self._reserved: dict[int, tuple[float, list[tuple[str, int]]]] = {}  # by the last run

    def run(self, progress: Callable[[int], None] | None = None) -> list[Outcome]:
        """Replay to the end; `progress` hears how many jobs have ended, now and then."""
        self.replay(len(self._arrivals), progress)
        return [o for o in self.outcomes if o is not None]

    @property
    def done(self) -> bool:
        return self._next == len(self._arrivals) and not self._ends

    def replay(self, until: int, progress: Callable[[int], None] | None = None,
               idle: dict[int, int] | None = None,
               meet: Callable[[int], bool] | None = None) -> None:
        """Go on to the first idle instant from arrival `until` on (that `meet` accepts,
        if given), or to the end. `idle`, if given, hears of each idle instant met: its
        arrival and the runs made before it."""
        arrivals = len(self._arrivals)
        while self._next < arrivals or self._ends:
            now = self._instant()
            self.ended += self._end(now)
            if not self._ends and not self._waiting:  # idle until arrival _next
                if idle is not None:
                    idle[self._next] = self.runs
                if self._next >= until and (meet is None or meet(self._next)):
                    return
            self._arrive(now)
            if self._waiting and self._waiting[0] <= self.free and not self._held(now):
                self._plan(now)
            if progress is not None:
                progress(self.ended)
        if idle is not None:
            idle[self._next] = self.runs

    def stretch(self, first: int, until: int,
                progress: Callable[[int], None] | None = None) -> Stretch:
        """Replay from the idle instant of arrival `first`, as if nothing had come before,
        to the first idle instant from arrival `until` on, as a new replay (whatever this
        one had replayed is forgotten)."""
        self.restart()
        self._next, idle = first, {}
        self.replay(until, progress, idle)
        return Stretch(self._next, idle,
                       [(i, o.start, o.end) for i, o in enumerate(self.outcomes)
                        if o is not None])

    def join(self, stretch: Stretch, progress: Callable[[int], None] | None = None) -> bool:
        """Go on to an idle instant the stretch met too and take what it found from there
        to its stop; False when this replay reached neither such an instant before the
        stretch's stop nor that stop (it went on to its first idle instant past it)."""
        if self.done or self._next > stretch.stop:
            return False
        if self._next not in stretch.idle:
            self.replay(self._next + 1, progress,
                        meet=lambda at: at in stretch.idle or at > stretch.stop)
            if self.done or self._next not in stretch.idle:
                return False
        at = self._next
        jobs, arrivals = self.jobs, self._arrivals
        first = (jobs[arrivals[at]].submit, arrivals[at]) if at < len(arrivals) else None
        for index, start, end in stretch.ended:
            job = jobs[index]
            if first is not None and (job.submit, index) >= first:
                self.outcomes[index] = Outcome(job.job_id, job.submit, start, end, job.slots)
                self.ended += 1
        self.runs += stretch.idle[stretch.stop] - stretch.idle[at]
        self._next = stretch.stop
        return True

    def split(self, parts: int) -> list[tuple[int, int]]:
        """Up to `parts` stretches of about equal cost, each as its first arrival (the
        first 0) and the planning runs guessed for it, cut at instants likely to be idle
        (`likely_idle`, which finds the first arrival of an instant, or none, idle).
        Where a cut is not idle after all, the replay before it goes on to the next idle
        instant, so a good guess saves time, a bad one nothing more."""
        likely, runs = self.likely_idle()
        if not likely:  # no jobs
            return [(0, 0)]
        costs = [cost for _, cost in likely]
        cuts = [0]
        for k in range(1, parts):
            target = runs * k / parts
            near = bisect.bisect_left(costs, target)
            at = min(likely[max(near - 1, 0):near + 1],
                     key=lambda guess: abs(guess[1] - target))[0]
            if cuts[-1] < at < len(self._arrivals):  # (idle only at the end: no cut)
                cuts.append(at)
        found = dict(likely)
        guessed = [found[at] for at in cuts] + [runs]
        return [(at, guessed[k + 1] - guessed[k]) for k, at in enumerate(cuts)]

    def likely_idle(self) -> tuple[list[tuple[int, int]], int]:
        """The arrivals before which a simple model of the replay finds nothing running
        or waiting, each with the runs it made before it, and the runs it made in all.

        Each instant at which a waiting job fits in what is free, the jobs are taken in
        order: with max_reservation 0 each starts if it fits; else they do until one does
        not, which is reserved the earliest its slots are free by the expected ends of
        what runs (start, h_rt and DURATION_OFFSET), and of the others only those start
        that fit and either end by then or fit beside it. Run times are cut at h_rt. That
        is the planner's EASY backfilling in a pool: with max_reservation 1 the model
        finds the replay's own idle instants (mostly: it breaks ties its own way), with
        more a guess, which is all `split` needs; and it costs a fraction of the replay."""
        jobs, arrivals, count = self.jobs, self._arrivals, len(self._arrivals)
        reserving, offset = self._conf.max_reservation > 0, self._offset
        found: list[tuple[int, int]] = []
        ends: list[tuple[float, float, int]] = []  # heap of (end, expected end, slots)
        expected: list[tuple[float, int]] = []  # sorted (expected end, slots)
        waiting: list[TraceJob] = []  # in order
        sizes: list[int] = []  # their slots, sorted
        free, at, runs = self.slots, 0, 0
        while at < count or ends:
            now = jobs[arrivals[at]].submit if at < count else math.inf
            if ends and ends[0][0] < now:
                now = ends[0][0]
            while ends and ends[0][0] <= now:
                _, until, slots = heapq.heappop(ends)
                free += slots
                del expected[bisect.bisect_left(expected, (until, slots))]
            if not ends and not waiting and (not found or found[-1][0] != at):
                found.append((at, runs))
            while at < count and jobs[arrivals[at]].submit <= now:
                job = jobs[arrivals[at]]
                waiting.append(job)
                bisect.insort(sizes, job.slots)
                at += 1
            if not sizes or sizes[0] > free:
                continue
            runs += 1
            left: list[TraceJob] = []
            shadow, beside = None, 0  # the reservation's start, and what fits beside it
            for job in waiting:
                slots, until = job.slots, now + (job.limit + offset)
                if shadow is None and slots > free and reserving:
                    room = free
                    for end, held in expected:
                        room += held
                        if room >= slots:
                            shadow, beside = end, room - slots
                            break
                    left.append(job)
                    continue
                if slots > free or (shadow is not None and until > shadow
                                    and slots > beside):
                    left.append(job)
                    continue
                free -= slots
                if shadow is not None and until > shadow:
                    beside -= slots
                heapq.heappush(ends, (now + min(job.run, job.limit), until, slots))
                bisect.insort(expected, (until, slots))
                del sizes[bisect.bisect_left(sizes, slots)]
            waiting = left
        return found, runs

    def _instant(self) -> float:
        arrival = (self.jobs[self._arrivals[self._next]].submit
                   if self._next < len(self._arrivals) else float("inf"))
        return min(arrival, self._ends[0][0]) if self._ends else arrival

    def _end(self, now: float) -> int:
        count = 0
        while self._ends and self._ends[0][0] <= now:
            _, index = heapq.heappop(self._ends)
            self.free += self.jobs[index].slots
            del self.view.running[(index + 1, 1)]
            count += 1
        return count

    def _arrive(self, now: float) -> None:
        jobs, view = self.jobs, self.view
        while self._next < len(self._arrivals) and jobs[self._arrivals[self._next]].submit <= now:
            index = self._arrivals[self._next]
            self._next += 1
            view.jobs[index + 1] = _request(jobs[index], index + 1)
            bisect.insort(self._waiting, jobs[index].slots)

    def _held(self, now: float) -> bool:
        """Whether the last run's reservation for the job first in line shows that a run
        now would start nothing.

        That job starts only if its slots are free. Reserved from T by the last run, it
        is reserved from T at the latest now: since then tasks have only ended (each by
        its expected end, see _kept_to_ends), and what that run started kept clear of the
        reservation. Any other job starts only if it fits in what is free and keeps clear
        of the reservation too: it ends, h_rt and DURATION_OFFSET from now, by T, or fits
        beside the first job's slots in the pool. (Jobs wait in the planner's order: by
        submission, then number, as they arrived.)"""
        if not self._reserved or not self._kept_to_ends:
            return False
        jobs, free, offset = self.jobs, self.free, self._offset
        waiting = iter(self.view.jobs)
        first = next(waiting)
        reserved = self._reserved.get(first)
        slots = jobs[first - 1].slots
        if reserved is None or slots <= free:
            return False
        start, beside = reserved[0], self.slots - slots
        for number in waiting:
            job = jobs[number - 1]
            if job.slots <= free and (job.slots <= beside or now + (job.limit + offset) <= start):
                return False
        return True

    def _plan(self, now: float) -> None:
        self.runs += 1
        view = self.view
        plan = self.planner.plan(view, now)
        self._reserved = plan.reserved
        for order in plan.orders:
            request = view.jobs.pop(order.job_id)
            index = order.job_id - 1
            job = self.jobs[index]
            end = now + min(job.run, job.limit)
            self.outcomes[index] = Outcome(job.job_id, job.submit, now, end, job.slots)
            self.free -= job.slots
            del self._waiting[bisect.bisect_left(self._waiting, job.slots)]
            heapq.heappush(self._ends, (end, index))
            view.running[(order.job_id, 1)] = Running(
                order.job_id, 1, request.hard, order.granted, order.pe, start=now)


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

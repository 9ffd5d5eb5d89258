"""Resource reservation and backfilling (spec/resource-reservation-backfilling.txt) as
properties of the planner over random job mixes on small random cells.

A cell has 1-3 hosts with one or two queue instances each (1-6 slots, h_rt=INFINITY),
sometimes a host-wide slot limit, sometimes exclusive scheduling on a host (`exclusive`,
relop EXCL), sometimes a global consumable `license`, sometimes a parallel environment
("mpi" with $fill_up or "smp" with $pe_slots) listed by some of the instances, and a few
tasks already running (some past their expected end, some exclusive). The pending jobs
are sequential (h_rt, sometimes license=k, sometimes exclusive=true) or parallel (a PE
range, sometimes with a master queue: qsub -masterq), of random
priority and submission time, most of them with -R y; max_reservation is 0-5 and
DURATION_OFFSET 0 or 60 s, and MONITOR is on so that the plan carries the cycle's
schedule file lines. "Before" and "after" a job mean in the order the planner takes the
jobs (Planner.order).

The properties are checked against the schedule lines with plain arithmetic and a brute
force search of start times, not against the planner's diagrams:

1. nothing is over-booked: at no instant do the utilizations of a resource exceed what
   its queue instance, host, the global host or the PE has;
2. no job started in the cycle delays a reservation made before it: removing the started
   jobs that come after a reserved job leaves its reservation as it was, and the starts
   after it leave its reservation room for its whole duration;
3. every reservation is the earliest start that what was booked before it (running tasks,
   the starts and reservations of the jobs before it in priority order) allows, and a
   parallel reservation takes the most slots of its range the rule allows at that start
   (sequential and parallel jobs alike);
4. a job that may reserve (-R y, max_reservation not reached) and could ever run gets a
   reservation.

Why: reservation is the planner's promise that a high priority job is not starved, and
backfilling is only allowed where it keeps that promise; both are easy to get subtly
wrong (which resource counts, which instance is considered, when a start may overlap).
The deterministic tests at the end are the smallest examples of the three planner bugs
the properties found (A: full instances were no reservation candidates; B: a parallel
backfill ignored the PE's reserved slots; C: a $pe_slots reservation could not span two
instances of a host); the property tests run those examples explicitly too.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

import msgspec
from hypothesis import event, example, given, settings
from hypothesis import strategies as st

from gridd.model.cluster import Running
from gridd.model.complexes import DEFAULT_COMPLEXES, ComplexAttr
from gridd.model.pe import FILL_UP, PE_SLOTS, ParallelEnv
from gridd.model.planning import SchedJob
from gridd.sched.plan import Plan, Planner
from gridd.sched.view import SchedView
from tests.unit.test_plan import cell, qi

NOW = 1_000_000.0
# The built-in attributes the cells use and a global consumable `license` (as in
# test_plan.COMPLEXES), so that a failing example stays readable.
COMPLEXES = [*(a for a in DEFAULT_COMPLEXES if a.name in ("h_rt", "hostname", "qname", "slots")),
             ComplexAttr("license", "license", "INT", "<=", "YES", "YES", "0", "0"),
             ComplexAttr("exclusive", "excl", "BOOL", "EXCL", "YES", "YES", "0", "0")]
WHOLE = float(2**31)  # what a host offering `exclusive` has of it (gridd.sched.match.WHOLE)
QUEUES = ("a", "b")
PE_RULES = {"mpi": FILL_UP, "smp": PE_SLOTS}
RUNNING_H_RT = (10, 30, 60, 100, 300, 1000)
RUNNING_AGE = (0, 5, 30, 100, 400)  # seconds before NOW a running task started
JOB_H_RT = (10, 20, 50, 100, 200, 500)

Key = tuple[str, str, str]  # (level letter, object name, resource) as the schedule names it


# ---- random cells and workloads --------------------------------------------------------------


def _chance(draw: st.DrawFn, percent: int) -> bool:
    """True `percent` percent of the time; shrinks towards False."""
    return draw(st.integers(0, 99)) >= 100 - percent


@st.composite
def scenarios(draw: st.DrawFn) -> SchedView:
    hosts = [f"h{i}" for i in range(draw(st.integers(1, 3)))]
    pe_name = draw(st.sampled_from(("", "mpi", "smp")))
    pes = [ParallelEnv(pe_name, draw(st.sampled_from((2, 3, 4, 6, 99))), PE_RULES[pe_name])
           ] if pe_name else []
    instances = []
    host_values: dict[str, dict[str, str]] = {}
    for host in hosts:
        for queue in QUEUES[:draw(st.integers(1, 2))]:
            listed = [pe_name] if pe_name and not _chance(draw, 25) else []
            instances.append(qi(f"{queue}@{host}", slots=draw(st.integers(1, 6)),
                                pe_list=listed, h_rt="INFINITY"))
        if _chance(draw, 30):
            host_values[host] = {"slots": str(draw(st.integers(1, 8)))}
        if _chance(draw, 25):  # exclusive scheduling on this host
            host_values.setdefault(host, {})["exclusive"] = "true"
    global_values = {"license": str(draw(st.integers(1, 6)))} if _chance(draw, 60) else {}
    view = cell(*instances, global_values=global_values, host_values=host_values, pes=pes,
                complexes=COMPLEXES)
    capacity = capacities(view)

    # Running tasks, each fitting what the ones before left (all of them hold at NOW).
    free = dict(capacity)
    for number in range(draw(st.integers(0, 6))):
        inst = draw(st.sampled_from(instances))
        keys = [("Q", inst.name, "slots"), ("H", inst.host, "slots")]
        room = min(free.get(k, math.inf) for k in keys)
        pe = ""
        if pe_name in inst.pe_list and _chance(draw, 40):
            pe = pe_name
            keys.append(("P", pe, "slots"))
            room = min(room, free[("P", pe, "slots")])
        if room < 1:
            continue
        slots = draw(st.integers(1, min(int(room), 4))) if pe else 1
        hard = {"h_rt": str(draw(st.sampled_from(RUNNING_H_RT)))}
        own = ("H", inst.host, "exclusive")
        if own in free:  # an exclusive task only on an empty host; none beside one
            if free[own] < 1:
                continue
            if free[own] == WHOLE and _chance(draw, 25):
                hard["exclusive"] = "true"
                free[own] = 0.0
            else:
                free[own] -= 1
        lic = ("G", "global", "license")
        if lic in free and free[lic] >= slots and _chance(draw, 40):
            per_slot = draw(st.integers(1, int(free[lic]) // slots))
            hard["license"] = str(per_slot)
            free[lic] -= per_slot * slots
        for k in keys:
            if k in free:
                free[k] -= slots
        job_id = 900 + number
        view.running[(job_id, 1)] = Running(job_id, 1, hard, [(inst.name, slots)], pe,
                                            start=NOW - draw(st.sampled_from(RUNNING_AGE)))

    for job_id in range(1, draw(st.integers(1, 8)) + 1):
        hard = {"h_rt": str(draw(st.sampled_from(JOB_H_RT)))}
        if global_values and _chance(draw, 40):
            hard["license"] = str(draw(st.integers(1, 3)))
        if _chance(draw, 20):
            hard["exclusive"] = "true"
        pe, pe_min, pe_max = "", 0, 0
        master_queues = []
        if pe_name and _chance(draw, 50):
            pe, pe_min = pe_name, draw(st.integers(1, 4))
            pe_max = pe_min + draw(st.integers(0, 2))
            if _chance(draw, 30):
                master_queues = [draw(st.sampled_from(("a", "b", "a@h0", "b@h1")))]
        view.jobs[job_id] = SchedJob(
            job_id=job_id, pending=[1], priority=draw(st.integers(-1, 2)),
            submit_time=float(draw(st.integers(0, 5))), hard=hard, pe=pe, pe_min=pe_min,
            pe_max=pe_max, reserve=not _chance(draw, 15), master_queues=master_queues)
    view.conf = msgspec.structs.replace(
        view.conf, max_reservation=0 if _chance(draw, 10) else draw(st.integers(1, 5)),
        duration_offset=float(draw(st.sampled_from((0, 60)))), monitor=True,
        job_info=not _chance(draw, 20))
    return view


# ---- reading the schedule, independently of the planner ------------------------------------


@dataclass(frozen=True, slots=True)
class Line:
    """One line of the schedule file: one utilization of one job over [start, end)."""

    job_id: int
    state: str
    start: float
    end: float
    key: Key
    amount: float


def parse(lines: Iterable[str]) -> list[Line]:
    out = []
    for text in lines:
        job_id, _task, state, start, duration, level, name, resource, amount = text.split(":")
        assert state in ("RUNNING", "STARTING", "RESERVING"), text
        assert level in ("G", "H", "Q", "P"), text
        out.append(Line(int(job_id), state, float(start), float(start) + float(duration),
                        (level, name, resource), float(amount)))
    return out


def capacities(view: SchedView) -> dict[Key, float]:
    """What each resource of the cell amounts to, from the configuration as drawn."""
    conf = view.conf
    out: dict[Key, float] = {("Q", i.name, "slots"): float(i.slots) for i in conf.instances}
    for host, values in conf.host_values.items():
        out |= {("H", host, name): WHOLE if v == "true" else float(v)
                for name, v in values.items()}
    out |= {("G", "global", name): float(v) for name, v in conf.global_values.items()}
    out |= {("P", pe.name, "slots"): float(pe.slots) for pe in conf.pes.values()}
    return out


def used(lines: Iterable[Line], key: Key, at: float) -> float:
    return sum(x.amount for x in lines if x.key == key and x.start <= at < x.end)


def peak(lines: list[Line], key: Key, start: float, end: float) -> float:
    """The highest usage of a resource in [start, end): usage only rises where an
    interval starts, so the instants to look at are `start` and the starts inside."""
    instants = {start} | {x.start for x in lines if x.key == key and start < x.start < end}
    return max(used(lines, key, t) for t in instants)


def left(lines: list[Line], capacity: Mapping[Key, float], key: Key, start: float,
         duration: float) -> float:
    """How much of a resource is free all through [start, start + duration)."""
    return capacity.get(key, math.inf) - peak(lines, key, start, start + duration)


def in_planning_order(view: SchedView) -> list[SchedJob]:
    """The pending jobs in the order the planner takes them (Planner.order: priority as
    gridd.model.priority weighs it; the properties here are about reservation, not about
    priority, so its order is taken as given)."""
    return Planner().order(view, NOW)


def planning_order(view: SchedView) -> dict[int, int]:
    return {j.job_id: i for i, j in enumerate(in_planning_order(view))}


def before(view: SchedView, lines: list[Line], job_id: int) -> list[Line]:
    """What was booked before the job: running tasks, and whatever the jobs ahead of it in
    planning order start or reserve."""
    pos = planning_order(view)
    return [x for x in lines if x.state == "RUNNING" or pos[x.job_id] < pos[job_id]]


def duration(view: SchedView, job: SchedJob) -> float:
    return float(job.hard["h_rt"]) + view.conf.duration_offset


def candidate_starts(lines: list[Line]) -> list[float]:
    """Now and every later time a booked utilization ends: usage only drops there, so the
    earliest start of anything is one of them."""
    return sorted({NOW} | {x.end for x in lines if x.end > NOW})


def license_per_slot(job: SchedJob) -> int:
    return int(job.hard.get("license", "0"))


def exclusive_share(job: SchedJob | Running) -> float:
    """What the job takes of a host's exclusive attribute: all of it if it asks for it.
    (The schedule file shows 1 either way, as 8.1.9's does.)"""
    return WHOLE if job.hard.get("exclusive") == "true" else 1.0


def asked(view: SchedView, job_id: int) -> SchedJob | Running:
    """The pending job or running task of a schedule line."""
    return view.jobs.get(job_id) or view.running[(job_id, 1)]


def host_admits(view: SchedView, booked: list[Line], job: SchedJob, host: str,
                start: float) -> bool:
    """Whether exclusivity lets the job on the host for its duration: one asking for it
    needs a host offering it with nothing there, any other job one without an exclusive
    job there."""
    own = ("H", host, "exclusive")
    capacity = capacities(view)
    if own not in capacity:
        return "exclusive" not in job.hard
    return exclusive_share(job) <= left(booked, capacity, own, start,
                                        duration(view, job)) + 1e-9


def sequential_needs(view: SchedView, job: SchedJob, name: str) -> list[tuple[Key, float]]:
    """What one slot of a sequential job takes on queue instance `name` (with the global
    license it asks for), or [] when the job can never run there."""
    capacity = capacities(view)
    host = name.partition("@")[2]
    needs: list[tuple[Key, float]] = [(("Q", name, "slots"), 1.0)]
    if ("H", host, "slots") in capacity:
        needs.append((("H", host, "slots"), 1.0))
    k = license_per_slot(job)
    if k:
        lic = ("G", "global", "license")
        if lic not in capacity:
            return []  # nothing offers a license: the job never runs
        needs.append((lic, float(k)))
    if any(amount > capacity[key] for key, amount in needs):
        return []
    return needs


def sequential_fits(view: SchedView, booked: list[Line], job: SchedJob, name: str,
                    start: float) -> bool:
    needs = sequential_needs(view, job, name)
    capacity = capacities(view)
    d = duration(view, job)
    return bool(needs) and host_admits(view, booked, job, name.partition("@")[2], start) \
        and all(amount <= left(booked, capacity, key, start, d) + 1e-9
                for key, amount in needs)


def parallel_most(view: SchedView, booked: list[Line], job: SchedJob, start: float) -> int:
    """The most slots (up to pe_max) the PE's allocation rule can place at `start` for the
    job's duration, on the instances listing the PE, given what is booked; with -masterq
    only where an instance of the master list has a slot for the master task (on the
    same host for $pe_slots)."""
    capacity = capacities(view)
    d = duration(view, job)
    pe = view.conf.pes[job.pe]
    k = license_per_slot(job)
    lic = ("G", "global", "license")
    if k and lic not in capacity:
        return 0
    cap = min(float(job.pe_max), left(booked, capacity, ("P", pe.name, "slots"), start, d))
    if k:
        cap = min(cap, math.floor(left(booked, capacity, lic, start, d) / k + 1e-9))
    per_host: dict[str, float] = {}
    leading: dict[str, float] = {}  # per host, the most room of an instance that may lead
    for inst in view.conf.instances:
        if pe.name not in inst.pe_list or not host_admits(view, booked, job, inst.host, start):
            continue
        here = left(booked, capacity, ("Q", inst.name, "slots"), start, d)
        per_host[inst.host] = per_host.get(inst.host, 0.0) + max(here, 0.0)
        if any(_names(ref, inst.queue, inst.host) for ref in job.master_queues):
            leading[inst.host] = max(leading.get(inst.host, 0.0), here)
    for host in per_host:
        host_left = left(booked, capacity, ("H", host, "slots"), start, d)
        per_host[host] = min(per_host[host], host_left)
        leading[host] = min(leading.get(host, 0.0), host_left)
    may_lead = {host for host, room in leading.items() if room >= 1 - 1e-9}
    for host in per_host:
        if job.master_queues and host not in may_lead and (
                pe.allocation_rule == PE_SLOTS or not may_lead):
            per_host[host] = 0.0
    rooms = [max(math.floor(r + 1e-9), 0) for r in per_host.values()]
    total = max(rooms, default=0) if pe.allocation_rule == PE_SLOTS else sum(rooms)
    return int(max(min(cap, total), 0))


def _names(ref: str, queue: str, host: str) -> bool:
    """Whether a -masterq reference of the scenarios ("a", "b@h1") names an instance."""
    named_queue, _, named_host = ref.partition("@")
    return named_queue == queue and named_host in ("", host)


def parallel_fits(view: SchedView, booked: list[Line], job: SchedJob, start: float) -> bool:
    return parallel_most(view, booked, job, start) >= max(job.pe_min, 1)


def fits_at(view: SchedView, booked: list[Line], job: SchedJob, start: float) -> bool:
    """Whether the job could run from `start` for its duration anywhere, given `booked`."""
    if job.pe:
        return parallel_fits(view, booked, job, start)
    return any(sequential_fits(view, booked, job, inst.name, start)
               for inst in view.conf.instances)


def earliest(view: SchedView, booked: list[Line], job: SchedJob) -> float:
    """The brute-force earliest start of the job given what is booked (inf: never)."""
    for start in candidate_starts(booked):
        if fits_at(view, booked, job, start):
            return start
    return math.inf


def run(view: SchedView) -> tuple[Plan, list[Line]]:
    plan = Planner().plan(view, NOW)
    assert plan.schedule is not None  # MONITOR is on
    lines = [dataclasses.replace(x, amount=exclusive_share(asked(view, x.job_id)))
             if x.key[2] == "exclusive" else x for x in parse(plan.schedule)]
    event(f"reservations: {len(plan.reserved) if len(plan.reserved) < 3 else '3+'}")
    if any(view.jobs[j].pe for j in plan.reserved):
        event("a parallel reservation")
    return plan, lines


# ---- the smallest examples of the planner bugs found ------------------------------------------


def _reserving(view: SchedView, *jobs: SchedJob) -> SchedView:
    view.conf = msgspec.structs.replace(view.conf, max_reservation=5, duration_offset=0.0,
                                        monitor=True)
    view.jobs = {j.job_id: j for j in jobs}
    return view


def _job(job_id: int, h_rt: int, *, pe: str = "", slots: int = 0,
         priority: int = 0) -> SchedJob:
    """-R y; job numbers are submission order (and with equal requests planning order)."""
    return SchedJob(job_id=job_id, pending=[1], priority=priority,
                    submit_time=float(job_id), hard={"h_rt": str(h_rt)}, pe=pe,
                    pe_min=slots, pe_max=slots, reserve=True)


def _busy(job_id: int, instance: str, h_rt: int, slots: int = 1, pe: str = "") -> Running:
    return Running(job_id, 1, {"h_rt": str(h_rt)}, [(instance, slots)], pe, start=NOW)


def full_instance() -> SchedView:
    """Bug A: the only instance is full until +100 when a -R y job asks."""
    return _reserving(cell(qi("a@h0", slots=1, h_rt="INFINITY"), complexes=COMPLEXES,
                           running=[_busy(900, "a@h0", 100)]),
                      _job(1, 50))


def full_instance_passed_over() -> SchedView:
    """Bug A: a@h0 is full until +10; job 1 starts on b@h0 until +20, and job 2 must be
    reserved on a@h0 at +10, not on b@h0 at +20."""
    return _reserving(cell(qi("a@h0", slots=2, h_rt="INFINITY"),
                           qi("b@h0", slots=1, h_rt="INFINITY"), complexes=COMPLEXES,
                           running=[_busy(900, "a@h0", 10), _busy(901, "a@h0", 10)]),
                      _job(1, 20), _job(2, 10))


def pe_backfill() -> SchedView:
    """Bug B: PE mpi has 4 slots, 3 of them held until +100; job 1 (4 slots) is reserved
    at +100, and job 2 (1 slot, 500 s) must not start now and hold the PE's slot past it."""
    pe = ParallelEnv("mpi", 4, FILL_UP)
    return _reserving(cell(qi("a@h0", slots=8, pe_list=["mpi"], h_rt="INFINITY"), pes=[pe],
                           complexes=COMPLEXES, running=[_busy(900, "a@h0", 100, 3, "mpi")]),
                      _job(1, 100, pe="mpi", slots=4, priority=10),
                      _job(2, 500, pe="mpi", slots=1))


def pe_slots_two_instances() -> SchedView:
    """Bug C: h0 has two smp instances of 2 slots, one slot busy until +100; a 4-slot
    $pe_slots job must be reserved at +100 on both instances of the host (as it would
    start now with nothing running)."""
    pe = ParallelEnv("smp", 99, PE_SLOTS)
    return _reserving(cell(qi("a@h0", slots=2, pe_list=["smp"], h_rt="INFINITY"),
                           qi("b@h0", slots=2, pe_list=["smp"], h_rt="INFINITY"), pes=[pe],
                           complexes=COMPLEXES, running=[_busy(900, "a@h0", 100)]),
                      _job(1, 50, pe="smp", slots=4))


def pe_slots_passed_over() -> SchedView:
    """Bug C: as pe_slots_two_instances, plus a@h1 with 4 of its 5 slots busy until +200:
    the job must be reserved on h0 at +100, not on h1 at +200."""
    pe = ParallelEnv("smp", 99, PE_SLOTS)
    return _reserving(cell(qi("a@h0", slots=2, pe_list=["smp"], h_rt="INFINITY"),
                           qi("b@h0", slots=2, pe_list=["smp"], h_rt="INFINITY"),
                           qi("a@h1", slots=5, pe_list=["smp"], h_rt="INFINITY"), pes=[pe],
                           complexes=COMPLEXES,
                           running=[_busy(900, "a@h0", 100), _busy(901, "a@h1", 200, 4)]),
                      _job(1, 50, pe="smp", slots=4))


# ---- the properties -----------------------------------------------------------------------
# Each property test also runs the examples of the bugs it found explicitly (@example).


def check_not_overbooked(view: SchedView, lines: list[Line]) -> None:
    capacity = capacities(view)
    for line in lines:
        assert line.key in capacity, ("a utilization of an unknown resource", line)
        total = used(lines, line.key, line.start)
        assert total <= capacity[line.key] + 1e-9, (
            "over-booked", line.key, line.start, total, capacity[line.key],
            [x for x in lines if x.key == line.key and x.start <= line.start < x.end])


@settings(max_examples=400, deadline=None)
@given(scenarios())
@example(pe_backfill())
def test_nothing_is_overbooked(view: SchedView) -> None:
    """1. Summing the schedule's utilizations of each resource at every instant one of them
    starts never exceeds what the queue instance, host, global host or PE has."""
    _, lines = run(view)
    check_not_overbooked(view, lines)


@settings(max_examples=300, deadline=None)
@given(scenarios())
@example(pe_backfill())
def test_no_start_delays_an_earlier_reservation(view: SchedView) -> None:
    """2. A job started in the cycle after a reserved job (lower in planning order) does
    not push the reservation: the starts after it leave its reservation room for its
    whole duration, and planned without those started jobs the reserved job gets the same
    reservation."""
    plan, lines = run(view)
    pos = planning_order(view)
    capacity = capacities(view)
    for job_id, (start, granted, _) in plan.reserved.items():
        later = {o.job_id for o in plan.orders if pos[o.job_id] > pos[job_id]}
        if not later:
            continue
        event("a reserved job with later starts")
        mine = [x for x in lines if x.job_id == job_id]
        others = before(view, lines, job_id) + [x for x in lines if x.job_id in later]
        for x in mine:
            assert x.start == start
            room = left(others, capacity, x.key, x.start, x.end - x.start)
            assert x.amount <= room + 1e-9, (
                f"a later start takes what the reservation of job {job_id} needs", x, room,
                [y for y in others if y.key == x.key])
        alone = dataclasses.replace(view, jobs={j: job for j, job in view.jobs.items()
                                                if j not in later})
        kept = [j.job_id for j in in_planning_order(alone)]
        if kept != [j for j in sorted(pos, key=pos.__getitem__) if j not in later]:
            event("the job priorities shift without the later jobs")  # (urgency normalised)
            continue
        again = Planner().plan(alone, NOW)
        assert (again.reserved.get(job_id) or ())[:2] == (start, granted), (job_id, sorted(later))


@settings(max_examples=300, deadline=None)
@given(scenarios())
def test_job_info_changes_nothing_but_the_reasons(view: SchedView) -> None:
    """Without schedd_job_info the planner passes over jobs that cannot start or reserve
    without matching them (and once no reservation is left, over all such jobs at once):
    what it decides must be what it decides when it looks at every job for its reasons."""
    decided = []
    for job_info in (True, False):
        view.conf = msgspec.structs.replace(view.conf, job_info=job_info)
        plan = Planner().plan(view, NOW)
        decided.append((plan.orders, plan.reserved, plan.unschedulable, plan.schedule))
    assert decided[0] == decided[1]


@settings(max_examples=400, deadline=None)
@given(scenarios())
@example(full_instance_passed_over())
@example(pe_slots_passed_over())
def test_every_reservation_is_the_earliest_start(view: SchedView) -> None:
    """3. For each reserved job, a brute-force search over now and every end of a
    utilization booked before it (running tasks and the starts and reservations of the
    jobs ahead of it) finds no earlier start than the reservation's, and the reservation
    fits where it was made. Sequential jobs may go to any instance where queue slots, the
    host's slots and the global license fit for h_rt + DURATION_OFFSET; parallel jobs need
    pe_min slots of the PE placed by its rule (all on one host for $pe_slots, any spread
    for $fill_up) within the instances', hosts', license's and PE's room, and get the
    most slots of their range the rule can place at that start."""
    plan, lines = run(view)
    for job_id, (start, granted, _) in plan.reserved.items():
        job = view.jobs[job_id]
        booked = before(view, lines, job_id)
        assert start >= NOW
        for t in candidate_starts(booked):
            if t >= start:
                break
            assert not fits_at(view, booked, job, t), (
                f"job {job_id} reserved at NOW+{start - NOW:g} but fits at NOW+{t - NOW:g}")
        if job.pe:
            event("parallel reservation checked")
            most = parallel_most(view, booked, job, start)
            assert most >= max(job.pe_min, 1), (job_id, "reserved where it does not fit")
            assert sum(n for _, n in granted) == most, (job_id, granted, most)
            if view.conf.pes[job.pe].allocation_rule == PE_SLOTS:
                assert len({name.partition("@")[2] for name, _ in granted}) == 1
        else:
            assert len(granted) == 1 and granted[0][1] == 1
            assert sequential_fits(view, booked, job, granted[0][0], start), (
                job_id, "reserved where it does not fit", granted)


@settings(max_examples=400, deadline=None)
@given(scenarios())
@example(full_instance())
@example(pe_slots_two_instances())
def test_a_job_that_may_reserve_and_could_run_gets_a_reservation(view: SchedView) -> None:
    """4. A pending job with -R y that did not start, while fewer than max_reservation
    reservations were made before it, gets a reservation exactly when the brute force of
    property 3 finds it some start at all."""
    plan, lines = run(view)
    started = {o.job_id for o in plan.orders}
    pos = planning_order(view)
    for job in in_planning_order(view):
        if job.job_id in started or not job.reserve:
            continue
        made = sum(1 for j in plan.reserved if pos[j] < pos[job.job_id])
        if made >= view.conf.max_reservation:
            continue
        when = earliest(view, before(view, lines, job.job_id), job)
        if math.isinf(when):
            assert job.job_id not in plan.reserved
        else:
            assert job.job_id in plan.reserved, (
                f"job {job.job_id} could start at NOW+{when - NOW:g} but has no reservation")


# ---- regression tests: one per bug found, its smallest example ---------------------------


def test_regression_a_full_instance_is_reservable() -> None:
    """Bug A: the only instance has its one slot busy until +100 (DURATION_OFFSET 0): a
    -R y job of 50 s is reserved there at +100 (the 6.0 scheduler puts the full queues
    back into its queue list "for reservation scheduling"). The planner used to drop the
    instance as "full" for the whole cycle, reservations included: no reservation."""
    plan = Planner().plan(full_instance(), NOW)
    assert plan.reserved == {1: (NOW + 100, [("a@h0", 1)], [])}


def test_regression_a_backfilled_parallel_job_keeps_clear_of_a_reserved_pe() -> None:
    """Bug B: PE mpi (4 slots) has 3 slots held until +100; job 1 (mpi 4, 100 s) is
    reserved at +100 with all four. Job 2 (mpi 1, 500 s) would hold the fourth past +100,
    so it must not start now (it may only backfill if it ended before +100). The planner
    used to check a parallel start against the reservations' queue, host and global
    diagrams but not the PE's, started job 2 and booked the PE 5/4 from +100 on."""
    plan = Planner().plan(pe_backfill(), NOW)
    assert plan.reserved[1] == (NOW + 100, [("a@h0", 4)], [])
    assert plan.orders == []


def test_regression_pe_slots_reservation_may_span_instances_of_a_host() -> None:
    """Bug C: a@h0 and b@h0 (2 slots each, both in $pe_slots PE smp), one slot busy until
    +100: a 4-slot job is reserved at +100 with both instances of h0 (with nothing
    running it starts that way at once). The planner used to look for the earliest time
    one instance could hold all four (_no_sooner) and made no reservation."""
    view = pe_slots_two_instances()
    plan = Planner().plan(view, NOW)
    assert plan.reserved == {1: (NOW + 100, [("a@h0", 2), ("b@h0", 2)], [])}
    # (The immediate placement does span the two instances.)
    view.running = {}
    assert [o.granted for o in Planner().plan(view, NOW).orders] == [[("a@h0", 2), ("b@h0", 2)]]

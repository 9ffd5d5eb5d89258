"""Advance reservations as properties of the planner over random small cells.

A cell has 1-3 hosts with one or two queue instances each (1-4 slots, h_rt=INFINITY),
sometimes a host-wide slot limit, sometimes a global consumable `license`, sometimes a
per-host consumable `hlic` (consumable HOST) on hosts or globally, and a PE "mpi"
($fill_up, 2-99 slots) that most instances list. A few tasks already run, most with an
h_rt (their expected end is start + h_rt + DURATION_OFFSET), some without (they may run
for ever). ARs are then asked for one after another (`grant_ar`, as qrsub does), with
random windows from now to a few hundred seconds on, one slot or a range of PE slots,
sometimes licenses per slot, sometimes hlic (taken once per host: an AR holds it on
each of its hosts, and a global value once per host, as Open Cluster Scheduler books an
AR's; a job takes a global value once).

The properties are checked with plain slot-time accounting over the intervals, not with
the planner's diagrams:

1. no AR is granted unless what it asks for is free all through its window, given the
   running tasks until their expected end and the ARs granted before it (on its queue
   instances, their hosts, the global license and the PE), and none goes to an instance
   where a task without run-time limit runs (spec 5.2.2.1.3);
2. an AR is refused only when nothing could hold it (the same accounting, brute force;
   not judged for one asking hlic);
3. over a random sequence of dispatch cycles (Planner.plan at increasing `now`, orders
   applied as running tasks, ARs starting and ending as the master's tick makes them),
   no job outside an AR ever uses what an AR holds while its window is open, no job
   without h_rt goes to an instance an AR holds, the jobs of an AR stay inside it and
   never exceed its slots, its licenses or what it holds of hlic on each host and
   globally, and nothing is over-booked.

Example counts are modest: the file runs in a few seconds.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from functools import partial

import msgspec
from hypothesis import event, given, settings
from hypothesis import strategies as st

from gridd.model.ar import ArBooking, ArPlace
from gridd.model.cluster import Running
from gridd.model.complexes import DEFAULT_COMPLEXES, ComplexAttr
from gridd.model.pe import FILL_UP, ParallelEnv
from gridd.model.planning import SchedJob
from gridd.sched.grant import grant_ar
from gridd.sched.plan import Planner
from gridd.sched.view import SchedView
from tests.unit.test_plan import cell, qi

NOW = 1_000_000.0
COMPLEXES = [*(a for a in DEFAULT_COMPLEXES if a.name in ("h_rt", "hostname", "qname", "slots")),
             ComplexAttr("license", "license", "INT", "<=", "YES", "YES", "0", "0"),
             ComplexAttr("hlic", "hlic", "INT", "<=", "YES", "HOST", "0", "0")]
QUEUES = ("a", "b")
RUNNING_H_RT = (20, 60, 150, 400)
AR_START = (0, 0, 10, 50, 100, 200, 400)  # seconds from now
AR_DURATION = (20, 60, 100, 300, 600)
JOB_H_RT = (10, 30, 60, 120, 300)
LICENSE = ("G", "global", "license")

Key = tuple[str, str, str]  # (level, name, resource): "Q"/"H"/"G"/"P" as the schedule file


# ---- cells --------------------------------------------------------------------------------


def _chance(draw: st.DrawFn, percent: int) -> bool:
    return draw(st.integers(0, 99)) >= 100 - percent


@dataclass
class Cell:
    view: SchedView
    capacity: dict[Key, float]
    host_of: dict[str, str]
    pe_list: dict[str, list[str]]
    offset: float


@dataclass
class Interval:
    """What something holds from start to end: slots per queue instance (the PE's slots
    when pe is set), licenses in all, hlic per host (an AR's: a global value once per
    host too)."""

    start: float
    end: float
    granted: list[tuple[str, int]]
    license: float = 0.0
    pe: str = ""
    hlic: float = 0.0
    ar: bool = False

    def active(self, at: float) -> bool:
        return self.start <= at < self.end


def uses(cell_: Cell, item: Interval) -> dict[Key, float]:
    out: dict[Key, float] = {}
    for name, n in item.granted:
        for key in (("Q", name, "slots"), ("H", cell_.host_of[name], "slots")):
            out[key] = out.get(key, 0.0) + n
    if item.pe:
        out[("P", item.pe, "slots")] = float(sum(n for _, n in item.granted))
    if item.license:
        out[LICENSE] = item.license
    if item.hlic:
        hosts = {cell_.host_of[name] for name, _ in item.granted}
        for host in hosts:
            out[("H", host, "hlic")] = item.hlic
        out[("G", "global", "hlic")] = item.hlic * (len(hosts) if item.ar else 1)
    return {k: v for k, v in out.items() if k in cell_.capacity}


def usage(cell_: Cell, items: Iterable[Interval], at: float) -> dict[Key, float]:
    total: dict[Key, float] = {}
    for item in items:
        if item.active(at):
            for key, amount in uses(cell_, item).items():
                total[key] = total.get(key, 0.0) + amount
    return total


def instants(items: Iterable[Interval], start: float, end: float) -> list[float]:
    """`start` and every change inside [start, end): usage is constant in between."""
    points = {start}
    for item in items:
        for t in (item.start, item.end):
            if start < t < end:
                points.add(t)
    return sorted(points)


@st.composite
def cells(draw: st.DrawFn) -> Cell:
    hosts = [f"h{i}" for i in range(draw(st.integers(1, 3)))]
    pe_slots = draw(st.sampled_from((2, 3, 4, 99)))
    instances, host_values = [], {}
    for host in hosts:
        for queue in QUEUES[:draw(st.integers(1, 2))]:
            listed = ["mpi"] if not _chance(draw, 20) else []
            instances.append(qi(f"{queue}@{host}", slots=draw(st.integers(1, 4)),
                                pe_list=listed, h_rt="INFINITY"))
        if _chance(draw, 25):
            host_values[host] = {"slots": str(draw(st.integers(1, 5)))}
        if _chance(draw, 40):
            host_values.setdefault(host, {})["hlic"] = str(draw(st.integers(1, 2)))
    global_values = {"license": str(draw(st.integers(1, 6)))} if _chance(draw, 50) else {}
    if _chance(draw, 30):
        global_values["hlic"] = str(draw(st.integers(1, 4)))
    view = cell(*instances, global_values=global_values, host_values=host_values,
                pes=[ParallelEnv("mpi", pe_slots, FILL_UP)], complexes=COMPLEXES)
    offset = float(draw(st.sampled_from((0, 60))))
    view.conf = msgspec.structs.replace(view.conf, duration_offset=offset,
                                        max_reservation=draw(st.integers(0, 3)))
    capacity: dict[Key, float] = {("Q", i.name, "slots"): float(i.slots) for i in instances}
    capacity |= {("H", h, n): float(x) for h, v in host_values.items() for n, x in v.items()}
    capacity |= {("G", "global", n): float(v) for n, v in global_values.items()}
    capacity[("P", "mpi", "slots")] = float(pe_slots)
    return Cell(view, capacity, {i.name: i.host for i in instances},
                {i.name: i.pe_list for i in instances}, offset)


@dataclass
class Started:
    """A running task: as the planner sees it, and what it really holds when."""

    running: Running
    held: Interval  # until its expected end (what planning may assume)
    real_end: float  # when it really ends (at the latest its h_rt)


@st.composite
def running_tasks(draw: st.DrawFn, cell_: Cell, limitless: bool = True) -> list[Started]:
    """Tasks running at NOW, each fitting what the ones before left."""
    out: list[Started] = []
    instances = cell_.view.conf.instances
    for number in range(draw(st.integers(0, 4))):
        inst = draw(st.sampled_from(instances))
        pe = "mpi" if "mpi" in inst.pe_list and _chance(draw, 30) else ""
        slots = draw(st.integers(1, 2)) if pe else 1
        h_rt = draw(st.sampled_from(RUNNING_H_RT)) if not limitless or _chance(draw, 80) \
            else None
        lic = draw(st.integers(1, 2)) if LICENSE in cell_.capacity and _chance(draw, 40) \
            else 0
        hlic = 1 if _hlic(cell_) and _chance(draw, 30) else 0
        age = draw(st.integers(0, h_rt - 1)) if h_rt else draw(st.integers(0, 500))
        start = NOW - age
        hard = {"h_rt": str(h_rt)} if h_rt else {}
        if lic:
            hard["license"] = str(lic)
        if hlic:
            hard["hlic"] = str(hlic)
        end = start + h_rt + cell_.offset if h_rt else math.inf
        held = Interval(start, end, [(inst.name, slots)], float(lic * slots), pe, hlic)
        now_used = usage(cell_, [s.held for s in out], NOW)
        if any(now_used.get(k, 0.0) + v > cell_.capacity[k] for k, v in
               uses(cell_, held).items()):
            continue
        job_id = 900 + number
        out.append(Started(Running(job_id, 1, hard, [(inst.name, slots)], pe, "alice",
                                   start=start),
                           held, start + h_rt if h_rt else math.inf))
    return out


def _hlic(cell_: Cell) -> bool:
    return any(key[2] == "hlic" for key in cell_.capacity)


@dataclass
class Asked:
    start: float
    end: float
    slots: tuple[int, int]  # pe_min, pe_max (1, 1 without a PE)
    pe: str
    license: int  # per slot
    hlic: int = 0  # per host

    def request(self) -> SchedJob:
        return SchedJob(job_id=0, pending=[1], priority=0, submit_time=0.0,
                          hard=self.hard(), pe=self.pe, pe_min=self.slots[0] if self.pe else 0,
                          pe_max=self.slots[1] if self.pe else 0, owner="root")

    def hard(self) -> dict[str, str]:
        hard = {"license": str(self.license)} if self.license else {}
        return hard | {"hlic": str(self.hlic)} if self.hlic else hard


@st.composite
def asked_ars(draw: st.DrawFn, cell_: Cell) -> list[Asked]:
    out = []
    for _ in range(draw(st.integers(1, 4))):
        start = NOW + draw(st.sampled_from(AR_START))
        end = start + draw(st.sampled_from(AR_DURATION))
        if _chance(draw, 50):
            low = draw(st.integers(1, 4))
            slots, pe = (low, low + draw(st.integers(0, 2))), "mpi"
        else:
            slots, pe = (1, 1), ""
        lic = draw(st.integers(1, 2)) if LICENSE in cell_.capacity and _chance(draw, 35) else 0
        hlic = draw(st.integers(1, 2)) if _hlic(cell_) and _chance(draw, 40) else 0
        out.append(Asked(start, end, slots, pe, lic, hlic))
    return out


@dataclass
class Granted:
    ar_id: int
    asked: Asked
    granted: list[tuple[str, int]]
    pe: str

    def interval(self) -> Interval:
        slots = sum(n for _, n in self.granted)
        return Interval(self.asked.start, self.asked.end, self.granted,
                        float(self.asked.license * slots), self.pe, float(self.asked.hlic),
                        ar=True)

    def booking(self, now: float) -> ArBooking:
        return ArBooking(self.ar_id, self.asked.start, self.asked.end, self.granted,
                         self.asked.hard(), self.pe, self.asked.start <= now)


def granter() -> Callable[..., tuple[list[tuple[str, int]], str] | None]:
    """AR granting as the master calls it: grant_ar with one planner for a row of qrsubs
    (what it carries from one to the next must not change the answers)."""
    return partial(grant_ar, Planner())


def grant_all(cell_: Cell, running: list[Started], asked: list[Asked]
              ) -> list[tuple[Asked, Granted | None]]:
    """Ask for the ARs one after another, as qrsub would at NOW."""
    view = cell_.view
    grant_ar = granter()
    out: list[tuple[Asked, Granted | None]] = []
    bookings: dict[int, ArBooking] = {}
    for number, ar in enumerate(asked, 1):
        got = grant_ar(view.conf, view.loads, [s.running for s in running], bookings, {},
                       ar.request(), ArPlace(users=["alice"]), ar.start, ar.end, NOW)
        if got is None:
            out.append((ar, None))
            continue
        granted = Granted(number, ar, got[0], got[1])
        bookings[number] = granted.booking(NOW)
        out.append((ar, granted))
    return out


def limitless_instances(running: list[Started]) -> set[str]:
    return {name for s in running if "h_rt" not in s.running.hard
            for name, _ in s.running.granted}


# ---- 1 and 2: granting ------------------------------------------------------------------------


@st.composite
def granting(draw: st.DrawFn) -> tuple[Cell, list[Started], list[Asked]]:
    cell_ = draw(cells())
    return cell_, draw(running_tasks(cell_)), draw(asked_ars(cell_))


@settings(max_examples=200, deadline=None)
@given(granting())
def test_no_ar_is_granted_unless_its_resources_are_free_for_its_whole_window(case) -> None:
    cell_, running, asked = case
    earlier: list[Interval] = [s.held for s in running]
    limitless = limitless_instances(running)
    for ar, granted in grant_all(cell_, running, asked):
        event("granted" if granted else "refused")
        if granted is None:
            continue
        slots = sum(n for _, n in granted.granted)
        if ar.pe:
            assert granted.pe == "mpi"
            assert ar.slots[0] <= slots <= ar.slots[1], (ar, granted)
            assert all("mpi" in cell_.pe_list[name] for name, _ in granted.granted)
        else:
            assert granted.pe == "" and len(granted.granted) == 1 and slots == 1, granted
        assert all(n > 0 for _, n in granted.granted)
        assert len({name for name, _ in granted.granted}) == len(granted.granted)
        assert not {name for name, _ in granted.granted} & limitless, (
            "an AR on an instance where a task without h_rt runs", granted, limitless)
        mine = granted.interval()
        for at in instants(earlier, ar.start, ar.end):
            total = usage(cell_, [*earlier, mine], at)
            for key, amount in total.items():
                assert amount <= cell_.capacity[key] + 1e-9, (
                    "AR granted over what is free", key, at, amount, cell_.capacity[key],
                    granted, [e for e in earlier if e.active(at)])
        earlier.append(mine)


def free_through(cell_: Cell, booked: list[Interval], start: float, end: float
                 ) -> dict[Key, float]:
    """How much of each resource stays free all through [start, end)."""
    free = dict(cell_.capacity)
    for at in instants(booked, start, end):
        for key, amount in usage(cell_, booked, at).items():
            free[key] = min(free[key], cell_.capacity[key] - amount)
    return free


def could_hold(cell_: Cell, booked: list[Interval], limitless: set[str], ar: Asked) -> bool:
    """Whether the AR's least slot count fits anywhere for its whole window ($fill_up may
    spread it over any instances listing the PE)."""
    free = free_through(cell_, booked, ar.start, ar.end)
    need = ar.slots[0]
    if ar.license:
        if free.get(LICENSE, 0.0) < ar.license * need:
            return False
    names = [i.name for i in cell_.view.conf.instances if i.name not in limitless
             and (not ar.pe or "mpi" in i.pe_list)]
    if not ar.pe:
        return any(free[("Q", n, "slots")] >= 1
                   and free.get(("H", cell_.host_of[n], "slots"), math.inf) >= 1
                   for n in names)
    if free[("P", "mpi", "slots")] < need:
        return False
    per_host: dict[str, float] = {}
    for n in names:
        host = cell_.host_of[n]
        per_host[host] = per_host.get(host, 0.0) + max(free[("Q", n, "slots")], 0.0)
    room = sum(min(r, free.get(("H", h, "slots"), math.inf)) for h, r in per_host.items())
    return room >= need


@settings(max_examples=200, deadline=None)
@given(granting())
def test_an_ar_is_refused_only_when_nothing_could_hold_it(case) -> None:
    cell_, running, asked = case
    booked: list[Interval] = [s.held for s in running]
    limitless = limitless_instances(running)
    for ar, granted in grant_all(cell_, running, asked):
        if granted is None:
            assert ar.hlic or not could_hold(cell_, booked, limitless, ar), (
                "AR refused although its resources are free", ar, booked)
        else:
            booked.append(granted.interval())


# ---- 3: dispatch cycles around ARs ---------------------------------------------------------


@dataclass
class Pending:
    job: SchedJob
    arrival: float
    runtime: float  # how long each task really runs
    license: int
    hlic: int = 0


@dataclass
class Record:
    """A task started by a cycle: where, from when to when it really held it."""

    job_id: int
    task_id: int
    ar: int
    no_h_rt: bool
    interval: Interval


@dataclass
class Sim:
    cell: Cell
    ars: dict[int, Granted]
    jobs: dict[int, Pending]
    cycles: list[float]
    initial: list[Started]
    records: list[Record] = field(default_factory=list)


@st.composite
def simulations(draw: st.DrawFn) -> Sim:
    cell_ = draw(cells())
    running = draw(running_tasks(cell_, limitless=False))
    granted = {g.ar_id: g for _, g in grant_all(cell_, running, draw(asked_ars(cell_))) if g}
    jobs: dict[int, Pending] = {}
    for job_id in range(1, draw(st.integers(1, 8)) + 1):
        ar = draw(st.sampled_from(list(granted))) if granted and _chance(draw, 60) else 0
        hard: dict[str, str] = {}
        if ar:
            window = granted[ar].asked.end - granted[ar].asked.start
            fitting = [h for h in JOB_H_RT if h <= window]
            if fitting and _chance(draw, 70):
                hard["h_rt"] = str(draw(st.sampled_from(fitting)))
        elif _chance(draw, 75):
            hard["h_rt"] = str(draw(st.sampled_from(JOB_H_RT)))
        # inside an AR mostly what it holds (sometimes what it does not: never runs)
        wants = _chance(draw, 50 if ar and granted[ar].asked.license else 15 if ar else 30)
        lic = draw(st.integers(1, 2)) if LICENSE in cell_.capacity and wants else 0
        if lic:
            hard["license"] = str(lic)
        wants = _chance(draw, 50 if ar and granted[ar].asked.hlic else 15 if ar else 30)
        hlic = 1 if _hlic(cell_) and wants else 0
        if hlic:
            hard["hlic"] = str(hlic)
        pe, pe_min, pe_max = "", 0, 0
        if _chance(draw, 35):
            pe, pe_min = "mpi", draw(st.integers(1, 3))
            pe_max = pe_min + draw(st.integers(0, 1))
        if "h_rt" in hard:
            runtime = float(hard["h_rt"])  # runs its whole h_rt: the strictest case
        else:
            runtime = float(draw(st.sampled_from((15, 100, 400, math.inf))))
        tasks = draw(st.integers(1, 2)) if not pe else 1
        jobs[job_id] = Pending(
            SchedJob(job_id=job_id, pending=list(range(1, tasks + 1)),
                       priority=draw(st.integers(0, 2)), submit_time=float(job_id),
                       hard=hard, pe=pe, pe_min=pe_min, pe_max=pe_max, owner="alice",
                       reserve=_chance(draw, 40), ar=ar),
            NOW + draw(st.sampled_from((0, 0, 20, 100, 300))), runtime, lic, hlic)
    step = draw(st.sampled_from((5, 10, 25, 60)))
    cycles = [NOW + k * step for k in range(draw(st.integers(3, 14)))]
    # and the ARs' starts and ends, as the master's tick comes then
    for g in granted.values():
        cycles += [g.asked.start, g.asked.end]
    return Sim(cell_, granted, jobs, sorted(set(cycles)), running)


def simulate(sim: Sim) -> None:
    """Cycles at the given times; before each, what the master's tick and execd reports
    would have done: tasks past their real end gone, ARs past their end gone with their
    jobs (pending ones removed, running ones killed)."""
    view = sim.cell.view
    planner = Planner()
    live = dict(sim.ars)
    pending = {j: msgspec.structs.replace(x.job, pending=list(x.job.pending))
               for j, x in sim.jobs.items()}
    running: dict[tuple[int, int], tuple[Running, float, Record | None]] = {
        (s.running.job_id, 1): (s.running, s.real_end, None) for s in sim.initial}
    for now in sim.cycles:
        for ar_id in [a for a, g in live.items() if g.asked.end <= now]:
            del live[ar_id]
            for key, (task, _, record) in list(running.items()):
                if task.ar == ar_id:
                    assert record is not None
                    record.interval.end = min(record.interval.end, now)
                    del running[key]
            for job_id in [j for j, job in pending.items() if job.ar == ar_id]:
                del pending[job_id]
        for key, (_, end, _) in list(running.items()):
            if end <= now:
                del running[key]
        view.ars = {a: g.booking(now) for a, g in live.items()}
        view.running = {key: task for key, (task, _, _) in running.items()}
        view.jobs = {j: job for j, job in pending.items() if sim.jobs[j].arrival <= now}
        plan = planner.plan(view, now)
        for order in plan.orders:
            job = pending[order.job_id]
            info = sim.jobs[order.job_id]
            slots = sum(n for _, n in order.granted)
            end = now + info.runtime
            record = Record(order.job_id, order.task_id, job.ar, "h_rt" not in job.hard,
                            Interval(now, end, list(order.granted),
                                     float(info.license * slots), order.pe, info.hlic))
            sim.records.append(record)
            task = Running(order.job_id, order.task_id, job.hard, order.granted, order.pe,
                           "alice", start=now, submit=job.submit_time, ar=job.ar)
            running[(order.job_id, order.task_id)] = (task, end, record)
            job.pending.remove(order.task_id)
            if not job.pending:
                del pending[order.job_id]


def check_simulation(sim: Sim) -> None:
    cell_ = sim.cell
    initial = [Interval(s.held.start, s.real_end, s.held.granted, s.held.license, s.held.pe,
                        s.held.hlic) for s in sim.initial]
    outside = initial + [r.interval for r in sim.records if not r.ar]
    inside = [r for r in sim.records if r.ar]
    holds = [g.interval() for g in sim.ars.values()]
    everything = [*outside, *(r.interval for r in inside), *holds]

    for at in instants(everything, NOW, math.inf):
        # jobs outside ARs and the ARs open now together fit the cell
        total = usage(cell_, [*outside, *holds], at)
        for key, amount in total.items():
            assert amount <= cell_.capacity[key] + 1e-9, (
                "a job outside an AR uses what an open AR holds", key, at, amount,
                [x for x in outside if x.active(at)], [h for h in holds if h.active(at)])
        # and with the jobs inside ARs too, nothing is over-booked
        total = usage(cell_, [*outside, *(r.interval for r in inside)], at)
        for key, amount in total.items():
            assert amount <= cell_.capacity[key] + 1e-9, ("over-booked", key, at, amount)
        # the jobs of an AR stay within what it holds
        for ar_id, g in sim.ars.items():
            mine = [r.interval for r in inside if r.ar == ar_id and r.interval.active(at)]
            held = dict(g.granted)
            used: dict[str, int] = {}
            for item in mine:
                for name, n in item.granted:
                    used[name] = used.get(name, 0) + n
            for name, n in used.items():
                assert n <= held.get(name, 0), (
                    "AR jobs beyond the AR's slots", ar_id, name, n, held, at)
            budget = g.interval().license
            assert sum(item.license for item in mine) <= budget + 1e-9, (
                "AR jobs beyond the AR's licenses", ar_id, at)
            holds_hlic = uses(cell_, g.interval())
            for key, amount in usage(cell_, mine, at).items():
                if key[2] == "hlic":
                    assert amount <= holds_hlic.get(key, 0.0) + 1e-9, (
                        "AR jobs beyond what the AR holds of hlic", ar_id, key, amount,
                        holds_hlic, at)

    for record in inside:
        g = sim.ars[record.ar]
        assert g.asked.start <= record.interval.start < g.asked.end, (
            "an AR job started outside its AR's window", record, g.asked)
        held = dict(g.granted)
        assert all(name in held for name, _ in record.interval.granted), (record, held)
        if record.interval.pe:
            assert record.interval.pe == g.pe, (
                "an AR job in a PE its AR did not reserve", record, g.pe)

    for record in sim.records:
        if record.ar or not record.no_h_rt:
            continue
        for g in sim.ars.values():
            if g.asked.end > record.interval.start:
                clash = {n for n, _ in g.granted} & {n for n, _ in record.interval.granted}
                assert not clash, ("a job without h_rt on an instance an AR holds", record, g)


@settings(max_examples=150, deadline=None, report_multiple_bugs=False)
@given(simulations())
def test_cycles_keep_jobs_outside_ars_clear_and_jobs_inside_within_them(sim) -> None:
    simulate(sim)
    event(f"ARs granted: {min(len(sim.ars), 3)}{'+' if len(sim.ars) > 3 else ''}")
    inside = sum(1 for r in sim.records if r.ar)
    event(f"tasks started in ARs: {min(inside, 3)}{'+' if inside > 3 else ''}")
    beside = {n for g in sim.ars.values() for n, _ in g.granted}
    if any(not r.ar and {n for n, _ in r.interval.granted} & beside for r in sim.records):
        event("a job outside ARs on an instance an AR holds")
    check_simulation(sim)

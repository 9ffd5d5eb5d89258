"""Invariants of the dispatch planner (gridd.sched.plan) over random cells and workloads.

A cell has 1-6 hosts, 1-3 cluster queues with random slots per instance, consumables on
every level (a global `license`, a host `mem` MEMORY consumable, a queue `qint`, a
defaulted `tok`, a `consumable JOB` attribute `jlic`, a `consumable HOST` attribute `hlic`),
fixed values (arch, fast, h_rt),
some hosts down, some instances disabled, suspended or in alarm, and running tasks
already booked. The workload mixes sequential and parallel jobs (every allocation rule,
PE names and wildcards, ranges), array tasks, -q lists, hard and soft requests.

Every property re-derives what it checks from fresh levels, with `Matcher.fits` and plain
arithmetic, so it does not trust the planner's own bookkeeping.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Iterable

import msgspec
from hypothesis import event, given, settings
from hypothesis import strategies as st

from gridd.model.cluster import Instance, PlanConf, Running
from gridd.model.complexes import DEFAULT_COMPLEXES, ComplexAttr
from gridd.model.pe import FILL_UP, PE_SLOTS, ROUND_ROBIN, ParallelEnv
from gridd.model.planning import SchedJob
from gridd.sched.levels import Levels, build_levels, debit, dropped_reason, instance_states
from gridd.sched.match import first_parts
from gridd.sched.plan import Plan, Planner
from gridd.sched.view import SchedView

USER_ATTRS = (
    ComplexAttr("license", "lic", "INT", "<=", "YES", "YES", "0", "0"),
    ComplexAttr("mem", "mem", "MEMORY", "<=", "YES", "YES", "0", "0"),
    ComplexAttr("qint", "qint", "INT", "<=", "YES", "YES", "0", "0"),
    # A default: jobs that do not ask for tok take one per slot where it is offered.
    ComplexAttr("tok", "tok", "INT", "<=", "YES", "YES", "1", "0"),
    ComplexAttr("jlic", "jlic", "INT", "<=", "YES", "JOB", "0", "0"),
    ComplexAttr("hlic", "hlic", "INT", "<=", "YES", "HOST", "0", "0"),
    ComplexAttr("fast", "fast", "BOOL", "==", "YES", "NO", "0", "0"),
    # Exclusive scheduling: every job asks for excl, not to be exclusive unless it says so.
    ComplexAttr("excl", "excl", "BOOL", "EXCL", "YES", "YES", "0", "0"),
)
# The built-in attributes the cells use, so that a failing example stays readable.
BUILTINS = ("arch", "h_rt", "hostname", "np_load_avg", "qname", "slots")
COMPLEXES = [*(a for a in DEFAULT_COMPLEXES if a.name in BUILTINS), *USER_ATTRS]
CONSUMABLES = ("slots", "license", "mem", "qint", "tok", "jlic", "hlic", "excl")

ARCHES = ("lx-amd64", "lx-arm64")
PE_RULES = {"smp": PE_SLOTS, "mpi": FILL_UP, "rr": ROUND_ROBIN, "two": "2", "one": "1"}
PE_REFS = (*PE_RULES, "*", "m*", "[rt]*")

# What a job may ask for; values are drawn from short lists so that some fit and some not.
REQUESTS = {
    "arch": st.sampled_from(ARCHES),
    "license": st.sampled_from(("1", "2", "3")),
    "mem": st.sampled_from(("512M", "1G", "2G")),
    "qint": st.sampled_from(("1", "2")),
    "tok": st.sampled_from(("0", "1", "2")),
    "jlic": st.sampled_from(("1", "2")),
    "hlic": st.sampled_from(("1", "2")),
    "fast": st.sampled_from(("true", "false")),
    "excl": st.sampled_from(("true", "false")),
    "h_rt": st.sampled_from(("0:30:0", "2:0:0")),
    "hostname": st.sampled_from([f"h{i}" for i in range(6)]),
    "qname": st.sampled_from(("q0", "q1", "q2")),
}
RUNNING_REQUESTS = ("license", "mem", "qint", "tok", "jlic", "hlic", "excl")


def _chance(draw: st.DrawFn, percent: int) -> bool:
    """True `percent` percent of the time; shrinks towards False (the simpler cell)."""
    return draw(st.integers(0, 99)) >= 100 - percent


def _some(draw: st.DrawFn, options: dict[str, tuple[int, tuple[str, ...]]]) -> dict[str, str]:
    """Each attribute with its chance in percent and the values it may take."""
    return {name: draw(st.sampled_from(values))
            for name, (percent, values) in options.items() if _chance(draw, percent)}


@st.composite
def cells(draw: st.DrawFn) -> SchedView:
    hosts = [f"h{i}" for i in range(draw(st.integers(1, 6)))]
    glob = _some(draw, {"license": (80, ("0", "2", "4", "8", "20")),
                        "jlic": (40, ("0", "1", "3")),
                        "hlic": (30, ("1", "3"))})
    host_values: dict[str, dict[str, str]] = {}
    loads: dict[str, dict[str, str]] = {}
    for host in hosts:
        host_values[host] = _some(draw, {
            "mem": (60, ("0", "2G", "4G", "8G")),
            "arch": (50, ARCHES),
            "fast": (40, ("true", "false")),
            "jlic": (30, ("0", "1", "2")),
            "hlic": (30, ("0", "1", "2")),
            "slots": (20, ("0", "2", "4", "8")),  # a host-wide slot limit
            "excl": (25, ("true", "false")),
        })
        loads[host] = {
            "np_load_avg": draw(st.sampled_from(("0.10", "0.50", "1.20", "2.00"))),
            # arch as a load value; mem as the load value of a consumable caps it.
            **_some(draw, {"arch": (40, ARCHES), "mem": (15, ("1G", "3G"))}),
        }
    hostgroups = {"@grp": sorted(draw(st.sets(st.sampled_from(hosts))))}
    instances = []
    for index in range(draw(st.integers(1, 3))):
        queue = f"q{index}"
        on = [h for h in hosts if not _chance(draw, 20)] or hosts[:1]
        seq_no = draw(st.integers(0, 3))
        pe_list = [name for name in sorted(PE_RULES) if _chance(draw, 50)]
        batch = not _chance(draw, 10)
        for host in on:
            slots = 0 if _chance(draw, 10) else draw(st.integers(1, 6))
            values = {"qname": queue, "hostname": host, "slots": str(slots)}
            values |= _some(draw, {"qint": (50, ("0", "1", "2", "4")),
                                   "tok": (30, ("0", "1", "3")),
                                   "h_rt": (40, ("INFINITY", "1:0:0"))})
            thresholds = {"np_load_avg": "1.75"} if _chance(draw, 15) else {}
            instances.append(Instance(
                name=f"{queue}@{host}", queue=queue, host=host, slots=slots, seq_no=seq_no,
                batch=batch, pe_list=pe_list, values=values, load_thresholds=thresholds,
            ))
    pes = {name: ParallelEnv(name, draw(st.sampled_from((99, 0, 2, 4, 8))), rule)
           for name, rule in PE_RULES.items()}
    conf = PlanConf(
        complexes=COMPLEXES, global_values=glob, host_values=host_values,
        instances=instances, pes=pes, hostgroups=hostgroups,
        queue_sort_method=draw(st.sampled_from(("load", "seqno"))),
    )
    view = SchedView(conf=conf, loads=loads)
    view.hosts_up = {h for h in hosts if not _chance(draw, 10)}
    view.flags = {qi.name: draw(st.sampled_from(("d", "s", "E")))
                  for qi in instances if _chance(draw, 10)}
    for number in range(draw(st.integers(0, 4))):
        qi = draw(st.sampled_from(instances))
        granted = [(qi.name, draw(st.integers(1, 2)))]
        pe = ""
        if _chance(draw, 50):
            other = draw(st.sampled_from(instances))
            if other.name != qi.name:
                granted.append((other.name, 1))
            pe = draw(st.sampled_from(sorted(PE_RULES)))
        hard = {}
        for name in draw(st.sets(st.sampled_from(RUNNING_REQUESTS), max_size=2)):
            hard[name] = draw(REQUESTS[name])
        job_id = 1000 + number
        view.running[(job_id, 1)] = Running(job_id, 1, hard, granted, pe)
    # Jobs share a few request shapes, as real workloads do: categories are what the
    # caches work on, and their jobs are interleaved with other categories' by priority.
    shapes = draw(st.lists(job_shapes(), min_size=1, max_size=5))
    for job_id in range(1, draw(st.integers(1, 12)) + 1):
        shape = shapes[draw(st.integers(0, len(shapes) - 1))]
        view.jobs[job_id] = msgspec.structs.replace(
            shape, job_id=job_id, submit_time=float(job_id),
            pending=list(range(1, draw(st.integers(1, 3)) + 1)),
            priority=draw(st.integers(-2, 2)), immediate=_chance(draw, 10))
    return view


def _requests(draw: st.DrawFn, most: int) -> dict[str, str]:
    names = draw(st.lists(st.sampled_from(sorted(REQUESTS)), max_size=most, unique=True))
    return {name: draw(REQUESTS[name]) for name in names}


@st.composite
def job_shapes(draw: st.DrawFn) -> SchedJob:
    """The requests of a job category (ids, tasks and priority are drawn per job)."""
    hard = _requests(draw, 2) if _chance(draw, 60) else {}
    soft = _requests(draw, 2) if _chance(draw, 25) else {}
    queues: list[str] = []
    if _chance(draw, 25):
        queues = draw(st.lists(st.sampled_from(("q0", "q1", "q1@h2", "*@h0", "q0@@grp",
                                                "*@@grp", "q*")),
                               min_size=1, max_size=2, unique=True))
    soft_queues = [draw(st.sampled_from(("q0", "q2", "*@h1")))] if _chance(draw, 10) else []
    pe, pe_min, pe_max = "", 0, 0
    master_queues: list[str] = []
    if _chance(draw, 40):
        pe = draw(st.sampled_from(PE_REFS))
        pe_min = draw(st.integers(1, 3))
        pe_max = pe_min + draw(st.integers(0, 3))
        if _chance(draw, 25):
            master_queues = draw(st.lists(st.sampled_from(("q0", "q1@h1", "*@h0", "q2",
                                                            "q*@@grp")),
                                          min_size=1, max_size=2, unique=True))
    return SchedJob(
        job_id=0, pending=[], priority=0, submit_time=0.0, hard=hard, soft=soft,
        queues=queues, soft_queues=soft_queues, pe=pe, pe_min=pe_min, pe_max=pe_max,
        master_queues=master_queues,
    )


# ---- helpers ---------------------------------------------------------------------------------


def fresh(view: SchedView, extra: Iterable[Running] = ()) -> Levels:
    """Levels from the configuration and loads, the running tasks (and `extra`) debited."""
    return build_levels(view.conf, view.loads, [*view.running.values(), *extra])


def booked(view: SchedView, plan: Plan) -> list[Running]:
    """The plan's orders as the running tasks they become (hard requests, master first)."""
    return [Running(o.job_id, o.task_id, view.jobs[o.job_id].hard, o.granted, o.pe)
            for o in plan.orders]


def free_amounts(levels: Levels) -> dict[tuple[str, str, str], float]:
    everything = [levels.global_level, *levels.hosts.values(), *levels.queues.values()]
    return {(level.kind, level.name, name): amount
            for level in everything for name, amount in level.free.items()}


def usable_names(view: SchedView) -> set[str]:
    """Batch instances that may take jobs this cycle: state without a dropping letter,
    host up, and a free slot once the running tasks are debited."""
    levels = fresh(view)
    states = instance_states(view.conf, view.loads, view.hosts_up, view.flags)
    return {qi.name for qi in view.conf.instances
            if qi.batch and qi.host in view.hosts_up
            and dropped_reason(states.get(qi.name, "")) is None
            and levels.queues[qi.name].free["slots"] > 0}


def in_queue_list(ref: str, qi: Instance, groups: dict[str, list[str]]) -> bool:
    """The -q references the workload uses, spelled out independently of the planner."""
    queue, _, host = ref.partition("@")
    if not fnmatch.fnmatchcase(qi.queue, queue):
        return False
    if not host:
        return True
    if host.startswith("@"):
        return qi.host in groups.get(host, [])
    return qi.host == host


def pes_of(view: SchedView, job: SchedJob) -> list[str]:
    return sorted(n for n in view.conf.pes if fnmatch.fnmatchcase(n, job.pe))


# ---- the invariants -----------------------------------------------------------------------


def check_no_overbooking(view: SchedView, plan: Plan) -> None:
    """(a) Booking the running tasks and then every order of the plan on fresh levels
    leaves no level below zero that was not below zero already (and those unchanged)."""
    before = free_amounts(fresh(view))
    after = free_amounts(fresh(view, booked(view, plan)))
    for key, amount in before.items():
        assert after[key] >= min(amount, 0), ("overbooked", key, amount, after[key])


def check_fits(view: SchedView, plan: Plan) -> None:
    """(b) Each granted instance fits the job's hard requests with its slot count on the
    levels the cycle started from; -q lists hold, but for a master task (the first
    instance) in an instance of the -masterq list, which holds it alone unless -q names
    the instance too; hosts are up; instances usable."""
    levels = fresh(view)
    usable = usable_names(view)
    instances = {qi.name: qi for qi in view.conf.instances}
    seen = set()
    for order in plan.orders:
        job = view.jobs[order.job_id]
        assert order.task_id in job.pending
        assert (order.job_id, order.task_id) not in seen
        seen.add((order.job_id, order.task_id))
        req = levels.matcher.request(job.hard)
        firsts = first_parts([name.partition("@")[2] for name, _ in order.granted])
        for index, ((name, slots), first) in enumerate(zip(order.granted, firsts, strict=True)):
            qi = instances[name]
            assert name in usable, ("not usable", name, order)
            assert qi.host in view.hosts_up
            result = levels.matcher.fits(req, slots, *levels.of(qi), master=index == 0,
                                         first_on_host=first)
            assert result.ok, ("does not fit", order, result.reason)
            groups = view.conf.hostgroups
            if job.master_queues and index == 0:
                assert any(in_queue_list(ref, qi, groups) for ref in job.master_queues)
                event("parallel order with -masterq")
                if job.queues and not any(in_queue_list(ref, qi, groups) for ref in job.queues):
                    assert slots == 1, ("master-only instance with slaves", order)
            elif job.queues:
                assert any(in_queue_list(ref, qi, groups) for ref in job.queues)
            if job.pe:
                assert order.pe in qi.pe_list


def check_slot_counts(view: SchedView, plan: Plan) -> None:
    """(c) Sequential tasks take one slot; parallel ones a total in [pe_min, pe_max], spread
    as their PE's allocation rule says, within the PE's slot limit."""
    pe_used: dict[str, int] = {}
    for task in view.running.values():
        if task.pe:
            pe_used[task.pe] = pe_used.get(task.pe, 0) + sum(n for _, n in task.granted)
    limit_held = {name: pe_used.get(name, 0) <= pe.slots for name, pe in view.conf.pes.items()}
    for order in plan.orders:
        job = view.jobs[order.job_id]
        assert all(n > 0 for _, n in order.granted)
        total = sum(n for _, n in order.granted)
        if not job.pe:
            assert len(order.granted) == 1 and order.granted[0][1] == 1 and order.pe == ""
            continue
        assert order.pe in pes_of(view, job)
        assert job.pe_min <= total <= job.pe_max, ("slot count", order)
        per_host: dict[str, int] = {}
        for name, n in order.granted:
            host = name.partition("@")[2]
            per_host[host] = per_host.get(host, 0) + n
        rule = view.conf.pes[order.pe].allocation_rule
        if rule == PE_SLOTS:
            assert len(per_host) == 1, ("$pe_slots on one host", order)
        elif rule.isdigit():
            assert set(per_host.values()) == {int(rule)}, ("integer rule", order)
        pe_used[order.pe] = pe_used.get(order.pe, 0) + total
        event(f"parallel order ({rule}{', wildcard' if job.pe not in PE_RULES else ''})")
    for name, pe in view.conf.pes.items():
        if limit_held[name]:
            assert pe_used.get(name, 0) <= pe.slots, ("PE slot limit", name)


def check_waiting_jobs_fit_nowhere(view: SchedView, plan: Plan) -> None:
    """(d) A sequential job with neither -q nor soft requests that is left waiting fits no
    usable instance once the plan is booked: nothing was skipped that could have run.
    (Load adjustments put instances in alarm that the loads reported do not, as the cycle
    begins or once it has placed jobs on their hosts: those the plan says it dropped as
    overloaded are not usable.)"""
    started: dict[int, int] = {}
    for order in plan.orders:
        started[order.job_id] = started.get(order.job_id, 0) + 1
    levels = fresh(view, booked(view, plan))
    overloaded = {line.split('"')[1] for line in plan.global_info
                  if "dropped because it is overloaded" in line}
    usable = [qi for qi in view.conf.instances
              if qi.name in usable_names(view) and qi.name not in overloaded]
    for job in view.jobs.values():
        if job.pe or job.queues or job.soft or job.soft_queues:
            continue
        if started.get(job.job_id, 0) == len(job.pending):
            continue
        event("plain sequential job left waiting")
        req = levels.matcher.request(job.hard)
        for qi in usable:
            result = levels.matcher.fits(req, 1, *levels.of(qi))
            assert not result.ok, ("waits but fits", job.job_id, qi.name)


def check_caches_change_nothing(view: SchedView, plan: Plan) -> None:
    """(e) The plan with category caches equals the plan of a cycle without them: the same
    orders in the same order, the same unschedulable immediate jobs and global messages,
    and the same jobs with scheduling info. (The info text may differ: a cached refusal
    shows the amount left when the category learned it.)"""
    reference = Planner().plan(view, 100.0, categories=False)
    assert plan.orders == reference.orders, "caches changed the orders"
    assert plan.unschedulable == reference.unschedulable
    assert plan.global_info == reference.global_info
    assert set(plan.info) == set(reference.info)


# The cells are costly to draw (most of the time goes there), so every invariant is checked
# on every cell by one test; each assertion says which invariant failed.
@settings(max_examples=300, deadline=None)
@given(cells())
def test_plan_invariants(view: SchedView) -> None:
    jobs_before = {j: (list(job.pending), dict(job.hard)) for j, job in view.jobs.items()}
    plan = Planner().plan(view, 100.0)
    event("orders: " + ("none" if not plan.orders else "1-4" if len(plan.orders) < 5 else "5+"))
    check_no_overbooking(view, plan)
    check_fits(view, plan)
    check_slot_counts(view, plan)
    check_waiting_jobs_fit_nowhere(view, plan)
    check_caches_change_nothing(view, plan)
    # The scheduler plans from its mirror again after the master answers: planning must
    # leave the view alone, and the same view gives the same plan.
    assert {j: (list(job.pending), dict(job.hard)) for j, job in view.jobs.items()} == (
        jobs_before)
    assert Planner().plan(view, 100.0) == plan


def test_booking_a_plan_on_fresh_levels_is_what_the_cycle_booked() -> None:
    """The helper `debit` and the cycle's own booking agree (so (a) checks the real thing)."""
    conf = PlanConf(
        complexes=COMPLEXES, global_values={"license": "4"},
        instances=[Instance(name="q0@h0", queue="q0", host="h0", slots=2,
                            values={"slots": "2"})],
    )
    levels = build_levels(conf, {}, [])
    debit(levels, Running(1, 1, {"license": "2"}, [("q0@h0", 2)]))
    assert levels.global_level.free["license"] == 0
    assert levels.queues["q0@h0"].free["slots"] == 0

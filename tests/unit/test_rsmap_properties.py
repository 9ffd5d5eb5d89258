"""RSMAP ids under random job mixes (issue 35): cycles start jobs, running jobs end at
random, and the scheduler is restarted in between (a new planner knowing only the running
tasks and the ids they hold, as after a master restart). At every point:

- the ids held are disjoint: no id is held more often than its host lists it;
- every id held is one its host (or the global host) is configured with;
- each task holds exactly the amount it was granted, level by level: per slot (YES),
  once on the master task's host (JOB), once per host (HOST), and of the global host's
  per slot, or once per job for JOB and HOST;
- no job waits because fewer ids are free than the counts say (ids and counts agree).

The amounts are worked out here from the requests and the placement alone, not by the
scheduler's own walk (gridd.sched.rsmap_ids).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator

from hypothesis import given, settings
from hypothesis import strategies as st

from gridd.model.ar import ArBooking, ArPlace
from gridd.model.cluster import Instance, PlanConf, Running
from gridd.model.complexes import DEFAULT_COMPLEXES, ComplexAttr
from gridd.model.pe import FILL_UP, PE_SLOTS, ROUND_ROBIN, ParallelEnv
from gridd.model.planning import SchedJob
from gridd.model.rsmap import parse
from gridd.sched.cycle import Plan
from gridd.sched.grant import grant_ar
from gridd.sched.plan import Planner
from gridd.sched.rsmap_ids import NO_IDS
from gridd.sched.view import SchedView

RSMAPS = {"gpu": "YES", "jgpu": "JOB", "hgpu": "HOST", "tok": "YES"}
DEFAULTS = {"tok": "1"}  # every job takes one tok per slot unless it asks otherwise
COMPLEXES = [*(a for a in DEFAULT_COMPLEXES if a.name in ("h_rt", "hostname", "qname", "slots")),
             *(ComplexAttr(name, name, "RSMAP", "<=", "YES", kind, DEFAULTS.get(name, "0"),
                           "0") for name, kind in RSMAPS.items())]
PES = {"mpi": ParallelEnv("mpi", 99, FILL_UP), "smp": ParallelEnv("smp", 99, PE_SLOTS),
       "rr": ParallelEnv("rr", 99, ROUND_ROBIN)}
WORDS = ("0", "1", "2", "3", "a", "b")


@st.composite
def id_lists(draw: st.DrawFn) -> str:
    """An RSMAP value: a few ids, some listed twice (shared)."""
    ids = draw(st.lists(st.sampled_from(WORDS), min_size=1, max_size=5))
    return f"{len(ids)}({' '.join(ids)})"


@st.composite
def cells(draw: st.DrawFn) -> SchedView:
    hosts = [f"h{i}" for i in range(draw(st.integers(1, 3)))]
    host_values = {host: {name: draw(id_lists()) for name in RSMAPS if draw(st.booleans())}
                   for host in hosts}
    global_values = {name: draw(id_lists()) for name in RSMAPS
                     if draw(st.integers(0, 3)) == 0}
    instances = []
    for host in hosts:
        slots = draw(st.integers(1, 4))
        instances.append(Instance(name=f"q@{host}", queue="q", host=host, slots=slots,
                                  pe_list=sorted(PES),
                                  values={"qname": "q", "hostname": host,
                                          "slots": str(slots), "h_rt": "INFINITY"}))
    conf = PlanConf(complexes=COMPLEXES, global_values=global_values,
                    host_values=host_values, instances=instances, pes=PES,
                    queue_sort_method="seqno", job_info=draw(st.booleans()))
    view = SchedView(conf=conf)
    view.hosts_up = set(hosts)
    return view


@st.composite
def jobs(draw: st.DrawFn) -> list[SchedJob]:
    made = []
    for job_id in range(1, draw(st.integers(1, 12)) + 1):
        hard = {name: str(draw(st.integers(0, 2))) for name in RSMAPS
                if draw(st.integers(0, 2)) == 0}
        pe, slots = "", 0
        if draw(st.booleans()):
            pe, slots = draw(st.sampled_from(sorted(PES))), draw(st.integers(1, 4))
        made.append(SchedJob(job_id=job_id, pending=list(range(1, draw(st.integers(1, 4)) + 1)),
                             priority=0, submit_time=float(job_id), hard=hard, pe=pe,
                             pe_min=slots, pe_max=slots))
    return made


# Between cycles: which running tasks end (a mask over them, in the order they started),
# and whether the scheduler restarts.
steps = st.lists(st.tuples(st.lists(st.booleans(), max_size=8), st.booleans()),
                 min_size=1, max_size=6)


def configured(view: SchedView, name: str, host: str) -> Counter[str] | None:
    values = view.conf.global_values if host == "global" else view.conf.host_values[host]
    return Counter(parse(name, values[name])) if name in values else None


def expected(view: SchedView, task: Running) -> Counter[tuple[str, str]]:
    """How many ids of each RSMAP on each host the task takes, from its requests and
    placement alone."""
    asked = {name: text for name, text in {**DEFAULTS, **task.hard}.items() if name in RSMAPS}
    want: Counter[tuple[str, str]] = Counter()
    seen: set[str] = set()
    for index, (queue, slots) in enumerate(task.granted):
        host = queue.partition("@")[2]
        first_on_host = host not in seen
        seen.add(host)
        for name, text in asked.items():
            kind, amount = RSMAPS[name], int(text)
            times = {"YES": slots, "JOB": int(index == 0), "HOST": int(first_on_host)}[kind]
            if configured(view, name, host) is not None:
                want[(name, host)] += amount * times
            if configured(view, name, "global") is not None:
                # the global host: per slot, or once per job (with the master task)
                want[(name, "global")] += amount * (slots if kind == "YES" else int(index == 0))
    return +want


def check(view: SchedView) -> None:
    held: Counter[tuple[str, str, str]] = Counter()
    for task in view.running.values():
        got: Counter[tuple[str, str]] = Counter()
        for name, host, ids in task.resource_map:
            got[(name, host)] += len(ids)
            pool = configured(view, name, host)
            assert pool is not None, (task, name, host)
            assert set(ids) <= pool.keys(), (task, pool)
            held.update((name, host, i) for i in ids)
        assert got == expected(view, task), task
    for (name, host, item), count in held.items():
        pool = configured(view, name, host)
        assert pool is not None and count <= pool[item], (name, host, item, count)


def replay(view: SchedView, between: list[tuple[list[bool], bool]], now: float
           ) -> Iterator[tuple[float, Plan]]:
    """Cycles one second apart: before each, the running tasks drawn end, and the
    scheduler restarts where drawn (a new Planner knows only the running tasks); the
    orders of each start, as the master starts them, with their ids."""
    planner = Planner()
    for ending, restart in [([], False), *between]:
        now += 1
        for key, ends in zip(list(view.running), ending, strict=False):
            if ends:
                del view.running[key]
        if restart:
            planner = Planner()
        plan = planner.plan(view, now)
        for order in plan.orders:
            job = view.jobs[order.job_id]
            view.running[(order.job_id, order.task_id)] = Running(
                order.job_id, order.task_id, job.hard, order.granted, order.pe,
                start=now, ar=job.ar, resource_map=order.resource_map)
            job.pending.remove(order.task_id)
            if not job.pending:
                del view.jobs[order.job_id]
        yield now, plan


@settings(max_examples=150, deadline=None)
@given(cells(), jobs(), steps)
def test_ids_held_are_disjoint_configured_and_what_was_granted(
        view: SchedView, mix: list[SchedJob], between: list[tuple[list[bool], bool]]) -> None:
    view.jobs = {job.job_id: job for job in mix}
    for _, plan in replay(view, between, 100.0):
        # (why jobs wait is kept with job_info: never for want of ids the counts let fit)
        assert not any(NO_IDS in why for why in plan.info.values())
        check(view)


# ---- advance reservations -----------------------------------------------------------------


@st.composite
def ar_requests(draw: st.DrawFn) -> list[SchedJob]:
    """What qrsub asks for: RSMAP amounts, and slots of a PE or one slot."""
    asked = []
    for _ in range(draw(st.integers(1, 2))):
        hard = {name: str(draw(st.integers(1, 2))) for name in RSMAPS
                if draw(st.integers(0, 1)) == 0}
        pe, slots = "", 0
        if draw(st.booleans()):
            pe, slots = draw(st.sampled_from(sorted(PES))), draw(st.integers(1, 3))
        asked.append(SchedJob(job_id=0, pending=[1], priority=0, submit_time=0.0, hard=hard,
                              pe=pe, pe_min=slots, pe_max=slots))
    return asked


def check_ars(view: SchedView, now: float) -> None:
    """The ids of the ARs and of the tasks outside them that run at the same time are
    disjoint (a task may use an AR's ids before the AR starts only if it ends by then);
    a task in an AR holds ids of its AR's, disjoint from its other tasks'; an AR holds
    what it asked for."""
    outside: list[tuple[float, Counter[tuple[str, str, str]]]] = []  # expected end, ids
    inside: dict[int, Counter[tuple[str, str, str]]] = {}
    for task in view.running.values():
        ids = Counter((name, host, i) for name, host, got in task.resource_map for i in got)
        if task.ar:
            inside.setdefault(task.ar, Counter()).update(ids)
        else:
            limit = float(task.hard.get("h_rt", "inf"))
            outside.append((task.start + limit + view.conf.duration_offset, ids))
    for ar in view.ars.values():
        own = Counter((name, host, i) for name, host, ids in ar.resource_map for i in ids)
        got = Counter({(name, host): len(ids) for name, host, ids in ar.resource_map})
        assert +got == expected(view, Running(-ar.ar_id, 1, ar.hard, ar.granted, ar.pe)), ar
        assert not inside.get(ar.ar_id, Counter()) - own, ar
    moments = [now, *(ar.start for ar in view.ars.values() if ar.start > now)]
    for moment in moments:
        held: Counter[tuple[str, str, str]] = Counter()
        for end, ids in outside:
            if end > moment:
                held.update(ids)
        for ar in view.ars.values():
            if ar.start <= moment < ar.end:
                held.update((name, host, i) for name, host, ids in ar.resource_map for i in ids)
        for (name, host, item), count in held.items():
            pool = configured(view, name, host)
            assert pool is not None and count <= pool[item], (moment, name, host, item, count)


@settings(max_examples=100, deadline=None)
@given(cells(), jobs(), ar_requests(), steps, st.data())
def test_ars_hold_ids_apart_and_their_jobs_take_theirs(
        view: SchedView, mix: list[SchedJob], asked: list[SchedJob],
        between: list[tuple[list[bool], bool]], data: st.DataObject) -> None:
    now = 100.0
    for ar_id, request in enumerate(asked, 1):
        # open now, opening during the cycles, or after the short jobs would end
        start = now + data.draw(st.sampled_from((0, 3, 5_000)))
        got = grant_ar(Planner(), view.conf, view.loads, view.running.values(), view.ars, {},
                       request, ArPlace(users=["u"]), start, start + 10_000, now)
        if got is not None:
            view.ars[ar_id] = ArBooking(ar_id, start, start + 10_000, got[0], request.hard,
                                        got[1], usable=True, resource_map=got[2])
    for job in mix:  # most jobs are submitted into an AR, asking one of what it holds
        job.ar = data.draw(st.sampled_from([0, *view.ars, *view.ars]))
        if job.ar:
            ar = view.ars[job.ar]
            job.hard = {name: "1" for name in ar.hard if data.draw(st.booleans())}
            job.pe, job.pe_min = ar.pe, int(bool(ar.pe))
            job.pe_max = job.pe_min
        elif data.draw(st.booleans()):  # it may run beside ARs (and end before they do)
            job.hard = {**job.hard, "h_rt": "100"}
    view.jobs = {job.job_id: job for job in mix}
    for when, _ in replay(view, between, now):
        check(view)
        check_ars(view, when)

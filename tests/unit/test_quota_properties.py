"""Resource quotas under random users, projects, PEs, hosts, rule sets and jobs:

- no enabled limit is exceeded once a cycle's orders run (unless running tasks alone
  already exceeded it, after a configuration change);
- a sequential job left waiting is refused on every instance, by its resources or by a
  limit that would be exceeded;
- the planner's caches change nothing: the plan equals the uncached planner's.
"""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gridd.model.cluster import Instance, PlanConf, Running
from gridd.model.complexes import DEFAULT_COMPLEXES, ComplexAttr
from gridd.model.pe import FILL_UP, PE_SLOTS, ParallelEnv
from gridd.model.planning import SchedJob
from gridd.model.rqs import Filter, Limit, Rule, RuleSet, Term
from gridd.sched.cycle import Cycle
from gridd.sched.levels import build_levels
from gridd.sched.quota import Quotas, RoomMemo, Who

USERS = ("u0", "u1", "u2", "u3")
HOSTS = ("h0", "h1", "h2", "h3")
COMPLEXES = [*DEFAULT_COMPLEXES,
             ComplexAttr("lic", "lic", "INT", "<=", "YES", "YES", "0", "0")]


def filters(names: tuple[str, ...]) -> st.SearchStrategy[Filter | None]:
    items = st.lists(st.sampled_from(("*", *names)), min_size=1, max_size=2, unique=True)
    excluded = st.lists(st.sampled_from(names), max_size=1)
    return st.one_of(st.none(), st.builds(Filter, st.booleans(), items, excluded))


@st.composite
def rule(draw: st.DrawFn) -> Rule:
    hosts = draw(filters((*HOSTS[:2], "@g")))
    limits = []
    if draw(st.booleans()) or True:
        dynamic = hosts is not None and hosts.expand and draw(st.booleans())
        limits.append(Limit("slots", "$num_proc*1", [Term(1.0, "num_proc")]) if dynamic
                      else Limit("slots", str(draw(st.integers(0, 4)))))
    if draw(st.booleans()):
        limits.append(Limit("lic", str(draw(st.integers(0, 3)))))
    return Rule(users=draw(filters((*USERS[:2], "@staff"))),
                projects=draw(filters(("p1",))), pes=draw(filters(("mpi",))),
                queues=draw(filters(("a.q",))), hosts=hosts, limits=limits)


@st.composite
def cells(draw: st.DrawFn) -> tuple[PlanConf, dict, list[Running], list[SchedJob]]:
    hosts = HOSTS[:draw(st.integers(1, 4))]
    instances = []
    for queue in draw(st.sampled_from((("a.q",), ("a.q", "b.q")))):
        for host in hosts:
            slots = draw(st.integers(0, 5))
            instances.append(Instance(name=f"{queue}@{host}", queue=queue, host=host,
                                      slots=slots, pe_list=["mpi", "smp"],
                                      values={"qname": queue, "hostname": host,
                                              "slots": str(slots)}))
    sets = [RuleSet(name=f"s{i}", rules=draw(st.lists(rule(), min_size=1, max_size=3)))
            for i in range(draw(st.integers(1, 3)))]
    conf = PlanConf(
        complexes=COMPLEXES, global_values={"lic": "6"}, instances=instances,
        hostgroups={"@g": list(hosts[::2])}, usersets={"staff": ["u0", "u2"]},
        pes={"mpi": ParallelEnv("mpi", 99, FILL_UP), "smp": ParallelEnv("smp", 99, PE_SLOTS)},
        queue_sort_method="seqno", rqs=sets)
    loads = {h: {"num_proc": str(draw(st.integers(1, 3)))} for h in hosts}

    def who() -> tuple[str, str]:
        return draw(st.sampled_from(USERS)), draw(st.sampled_from(("", "p1")))

    running = []
    for job_id in range(100, 100 + draw(st.integers(0, 3))):
        qi = draw(st.sampled_from(instances))
        user, project = who()
        running.append(Running(job_id, 0, {}, [(qi.name, 1)], owner=user, project=project))
    # A few request shapes, so that jobs of different askers share categories: what a
    # category learns for one asker must not hold back another.
    shapes = draw(st.lists(st.tuples(st.sampled_from(("", "", "mpi", "smp")),
                                     st.integers(1, 5), st.integers(0, 2),
                                     st.sampled_from(({}, {}, {"lic": "1"}, {"lic": "2"}))),
                           min_size=1, max_size=3))
    jobs = []
    for job_id in range(1, draw(st.integers(1, 16)) + 1):
        user, project = who()
        pe, low, spread, hard = draw(st.sampled_from(shapes))
        jobs.append(SchedJob(job_id=job_id, pending=list(range(1, draw(st.integers(1, 2)) + 1)),
                             priority=0, submit_time=float(job_id), hard=dict(hard), owner=user,
                             project=project, pe=pe, pe_min=low if pe else 0,
                             pe_max=low + spread if pe else 0))
    return conf, loads, running, jobs


def plan(cell, categories: bool):
    conf, loads, running, jobs = cell
    cycle = Cycle(conf, build_levels(conf, loads, running), loads, running, {},
                  categories=categories)
    return cycle.run(jobs), cycle


def booked(conf: PlanConf, loads: dict, running: list[Running]) -> Quotas:
    matcher = build_levels(conf, loads, []).matcher
    quotas = Quotas.fresh(conf, matcher.table, loads)
    quotas.book_running(running, {qi.name: qi for qi in conf.instances}, matcher)
    return quotas


def over(quotas: Quotas) -> set[tuple]:
    return {(line.key, line.resource) for line in quotas.usage_lines()
            if line.used > line.cap + 1e-9}


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(cells())
def test_limits_hold_and_caches_change_nothing(cell) -> None:
    conf, loads, running, jobs = cell
    result, cycle = plan(cell, categories=True)
    uncached, _ = plan(cell, categories=False)
    assert result.orders == uncached.orders, "the caches changed the plan"

    by_id = {job.job_id: job for job in jobs}
    started = [Running(o.job_id, o.task_id, by_id[o.job_id].hard, o.granted, o.pe,
                       by_id[o.job_id].owner, "", by_id[o.job_id].project)
               for o in result.orders]
    before = over(booked(conf, loads, running))
    after = over(booked(conf, loads, running + started))
    assert after <= before, f"limits exceeded: {after - before}"

    # A waiting sequential job: every instance refuses it, by resources or by a limit.
    final = build_levels(conf, loads, running + started)
    quotas = booked(conf, loads, running + started)
    left = {job.job_id for job in jobs} - {o.job_id for o in result.orders}
    for job in jobs:
        if job.pe or job.job_id not in left:
            continue
        req = final.matcher.request(job.hard)
        who = Who(job.owner, "", job.project)
        for qi in conf.instances:
            g, h, q = final.of(qi)
            fits = final.matcher.fits(req, 1, g, h, q).ok
            assert not fits or quotas.asker(who, req).refusal(qi) is not None, (
                f"job {job.job_id} waits although {qi.name} takes it")


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(cells())
def test_rooms_kept_for_an_attempt_are_the_rooms(cell) -> None:
    """Asker.room with one memo for all instances (as a placement attempt asks, rooms kept
    by signature and by group of shared checks) answers what it answers afresh for each."""
    conf, loads, running, jobs = cell
    levels = build_levels(conf, loads, running)
    quotas = booked(conf, loads, running)
    instances = conf.instances * 2  # each asked twice, the second time from the memo
    for job in jobs:
        who = Who(job.owner, "", job.project, job.pe if job.pe else "")
        req = levels.matcher.request(job.hard)
        asker = quotas.asker(who, req)
        memo = RoomMemo({}, {})
        kept = [asker.room(qi, memo) for qi in instances]
        fresh = [quotas.asker(who, req).room(qi, RoomMemo({}, {})) for qi in instances]
        assert kept == fresh


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(cells(), st.data())
def test_marks_booked_alike_keep_each_marks_usage(cell, data) -> None:
    """Usage kept per class of marks (QuotaRules.rep) is each mark's own: claims and
    bookings by askers met one after another (their groups split the classes as they
    come) answer and count as checks kept per mark would, in the order checked."""
    conf, loads, _, jobs = cell
    levels = build_levels(conf, loads, [])
    quotas = Quotas.fresh(conf, levels.matcher.table, loads)
    rules = quotas.rules
    own: dict[int, float] = {}  # per mark, what its checks booked

    def refused(asker, qi) -> str | None:
        _, shared, local = asker.at(qi)
        for group in (shared, local):
            for check in group.all:
                if check.limit is not None:
                    top = rules.entries(check).fixed[1]
                    if own.get(check.mark, 0.0) > top:
                        return check.why
            for check in group.all:
                amount = check.per_slot + check.per_job + check.per_host
                if check.limit is None and \
                        own.get(check.mark, 0.0) + amount > quotas.limit(check) + 1e-9:
                    return check.why
        return None

    for _ in range(data.draw(st.integers(1, 25))):
        job = data.draw(st.sampled_from(jobs))
        qi = data.draw(st.sampled_from(conf.instances))
        claims = data.draw(st.booleans())
        if claims:  # answered afresh (no refusal remembered): the first refusing, in order
            quotas.askers.clear()
        asker = quotas.asker(Who(job.owner, "", job.project, job.pe),
                             levels.matcher.request(job.hard))
        if claims:
            expected = refused(asker, qi)
            assert asker.claim(qi) == expected
            slots, master, first = (0, False, False) if expected else (1, True, True)
        else:
            slots, master, first = (data.draw(st.integers(1, 3)), data.draw(st.booleans()),
                                    data.draw(st.booleans()))
            asker.book(qi, slots, master, first)
        for check in asker.checks(qi):
            own[check.mark] = own.get(check.mark, 0.0) + check.amount(slots, master, first)
    lines = {(line.key, line.resource): line.used for line in quotas.usage_lines()}
    assert lines == {rules.marks[mark]: used for mark, used in own.items() if used}

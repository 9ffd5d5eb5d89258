"""`consumable HOST` (Open Cluster Scheduler's per-host consumables): taken once per host
a job runs on, whatever its slots there, on the job's first part on each host; a global
value gives once per job, with the master task, as OCS books it (its per_host_consumables
test: a 2-host job leaves 3 of a global 4); a queue value once per host, on the first
queue instance there.
Validation, matching, planning (sequential, array, parallel jobs), what running tasks hold,
reservations, advance reservations' budgets and resource quotas, without daemons."""

from __future__ import annotations

import msgspec

from gridd.formats.complex_table import parse_complex_table
from gridd.formats.rqs import check_limits, parse_limit_list
from gridd.model.ar import ArBooking, ArPlace
from gridd.model.cluster import Instance, PlanConf, Running
from gridd.model.complexes import DEFAULT_COMPLEXES, ComplexAttr, ComplexTable, validate_attr
from gridd.model.pe import FILL_UP, PE_SLOTS, ROUND_ROBIN, ParallelEnv
from gridd.model.planning import SchedJob
from gridd.model.priority import ResourceUrgency
from gridd.model.rqs import Filter, Rule, RuleSet
from gridd.sched.cycle import Cycle
from gridd.sched.grant import grant_ar
from gridd.sched.levels import build_levels
from gridd.sched.match import GLOBAL, HOST, QUEUE, Matcher, first_parts
from gridd.sched.plan import Planner
from gridd.sched.reserve import Use, uses
from gridd.sched.view import SchedView
from tests.unit.test_plan import cell, job, plan, qi, where

NOW = 1_795_327_298.0
LIC = ComplexAttr("lic", "lic", "INT", "<=", "YES", "HOST", "0", "100")
COMPLEXES = [*DEFAULT_COMPLEXES, LIC]


def _view(hosts: int, slots: int = 4, rule: str = FILL_UP, **kw):  # type: ignore[no-untyped-def]
    return cell(*(qi(f"all.q@h{i}", slots, pe_list=["pe"]) for i in range(hosts)),
                pes=[ParallelEnv("pe", 99, rule)], complexes=COMPLEXES, **kw)


def _after(view, result, running=()):  # type: ignore[no-untyped-def]
    booked = [Running(o.job_id, o.task_id, view.jobs[o.job_id].hard, o.granted, o.pe)
              for o in result.orders]
    return build_levels(view.conf, view.loads, [*running, *booked])


# ---- validation ---------------------------------------------------------------------------


def test_host_is_a_consumable_value_for_the_types_job_is() -> None:
    for type_ in ("INT", "DOUBLE", "MEMORY", "TIME"):
        assert validate_attr(ComplexAttr("c", "c", type_, "<=", "YES", "HOST", "0", "0")) == []
    assert validate_attr(ComplexAttr("c", "c", "STRING", "==", "YES", "HOST", "0", "0")) == [
        'Complex "c" of type "STRING" cannot be a consumable',
        'Consumable "c" can have only <= as an relational operator']
    assert validate_attr(ComplexAttr("c", "c", "INT", "<=", "YES", "PER", "0", "0")) == [
        'invalid consumable value "PER" for complex "c" (YES, NO, JOB or HOST)']


def test_the_complex_table_reads_host_in_the_consumable_column() -> None:
    rows = parse_complex_table("lic  lic  INT  <=  YES  HOST  0  0\n")
    assert rows[0].consumable == "HOST"


# ---- matching -------------------------------------------------------------------------------


def test_only_a_hosts_first_part_takes_it() -> None:
    m = Matcher(ComplexTable(COMPLEXES))
    g = m.level(GLOBAL, "global", {"lic": "2"})
    h = m.level(HOST, "h0", {"lic": "1"})
    q = m.level(QUEUE, "all.q@h0", {"slots": "16"})
    req = m.request({"lic": "1"})
    assert req.per_host and not req.per_job
    assert m.fits(req, 4, g, h, q).ok  # 1, not 4 slots' worth
    m.debit(req, 4, g, h, q, master=False, first_on_host=False)
    assert (g.free["lic"], h.free["lic"]) == (2, 1)  # a further part on the host: nothing
    m.debit(req, 4, g, h, q, master=False, first_on_host=True)
    assert (g.free["lic"], h.free["lic"]) == (2, 0)  # the global value: the master's part
    m.debit(req, 4, g, h, q)
    assert (g.free["lic"], h.free["lic"]) == (1, -1)
    assert not m.fits(req, 1, g, h, q, master=False, first_on_host=True).ok
    assert m.fits(req, 1, g, h, q, master=False, first_on_host=False).ok
    assert m.slot_room(req, h) == 0  # all the slots there or none
    g.free["lic"] = 0
    assert m.fits(req, 1, g, master=False, first_on_host=True).ok
    assert m.fits(req, 1, g).reason == (
        "(-l lic=1) cannot run globally because it offers only gc:lic=0.000000")


def test_first_parts() -> None:
    assert first_parts(["a", "b", "a", "c", "b"]) == [True, True, False, True, False]
    assert first_parts(["a"]) == [True]
    assert first_parts([]) == []


# ---- planning ----------------------------------------------------------------------------------


def test_a_pe_slots_job_takes_one_on_its_host() -> None:
    view = _view(2, rule=PE_SLOTS, host_values={"h0": {"lic": "1"}, "h1": {"lic": "1"}})
    result = plan(view, job(1, pe="pe", slots=(4, 4), hard={"lic": "1"}),
                  job(2, pe="pe", slots=(2, 2), hard={"lic": "1"}),
                  job(3, pe="pe", slots=(1, 1), hard={"lic": "1"}))
    assert where(result) == {(1, 1): [("all.q@h0", 4)], (2, 1): [("all.q@h1", 2)]}
    levels = _after(view, result)
    assert levels.hosts["h0"].free["lic"] == levels.hosts["h1"].free["lic"] == 0
    assert 3 not in {o.job_id for o in result.orders}


def test_a_job_over_three_hosts_takes_one_on_each_and_one_globally() -> None:
    view = _view(3, slots=2, rule=ROUND_ROBIN, global_values={"lic": "4"},
                 host_values={f"h{i}": {"lic": "1"} for i in range(3)})
    result = plan(view, job(1, pe="pe", slots=(6, 6), hard={"lic": "1"}))
    assert sorted(where(result)[(1, 1)]) == [("all.q@h0", 2), ("all.q@h1", 2), ("all.q@h2", 2)]
    levels = _after(view, result)
    assert levels.global_level.free["lic"] == 3
    assert [levels.hosts[f"h{i}"].free["lic"] for i in range(3)] == [0, 0, 0]
    # Given back exactly when the task ends.
    running = [Running(1, 1, {"lic": "1"}, where(result)[(1, 1)], "pe")]
    levels = build_levels(view.conf, view.loads, running)
    assert levels.global_level.free["lic"] == 3
    assert build_levels(view.conf, view.loads, []).global_level.free["lic"] == 4


def test_a_global_value_gives_once_per_job() -> None:
    view = _view(3, slots=1, global_values={"lic": "2"})
    result = plan(view, job(1, pe="pe", slots=(3, 3), hard={"lic": "1"}),
                  job(2, tasks=3, hard={"lic": "1"}))
    assert where(result) == {(1, 1): [("all.q@h0", 1), ("all.q@h1", 1), ("all.q@h2", 1)]}
    assert _after(view, result).global_level.free["lic"] == 1
    view = _view(3, slots=1, global_values={"lic": "2"})
    result = plan(view, job(2, tasks=3, hard={"lic": "1"}))
    assert sorted(where(result)) == [(2, 1), (2, 2)]  # a task is a job's part on its host
    assert result.info[2][-1] == (
        "(-l lic=1) cannot run globally because it offers only gc:lic=0.000000")


def test_a_queue_value_is_taken_on_the_first_instance_on_the_host() -> None:
    view = cell(qi("a.q@h0", 2, pe_list=["pe"], lic="1"),
                qi("b.q@h0", 2, pe_list=["pe"], lic="1"),
                pes=[ParallelEnv("pe", 99, PE_SLOTS)], complexes=COMPLEXES)
    result = plan(view, job(1, pe="pe", slots=(4, 4), hard={"lic": "1"}))
    granted = where(result)[(1, 1)]
    assert sorted(granted) == [("a.q@h0", 2), ("b.q@h0", 2)]
    levels = _after(view, result)
    first = granted[0][0]
    assert {name: levels.queues[name].free["lic"] for name, _ in granted} == {
        name: 0 if name == first else 1 for name, _ in granted}


def test_sequential_and_array_tasks_take_one_each() -> None:
    view = _view(2, host_values={"h0": {"lic": "2"}, "h1": {"lic": "1"}})
    result = plan(view, job(1, tasks=4, hard={"lic": "1"}))
    assert sorted(where(result)) == [(1, 1), (1, 2), (1, 3)]
    levels = _after(view, result)
    assert levels.hosts["h0"].free["lic"] == levels.hosts["h1"].free["lic"] == 0


def test_urgency_counts_it_once() -> None:
    urgency = ResourceUrgency(COMPLEXES)
    for slots in (1, 4):  # beside the slots' own urgency
        assert urgency.of({"lic": "2"}, slots) - urgency.of({}, slots) == 200


# ---- reservations, advance reservations, quotas ----------------------------------------------


def test_a_reservation_books_it_once_per_host() -> None:
    m = Matcher(ComplexTable(COMPLEXES))
    g = m.level(GLOBAL, "global", {"lic": "5"})
    h0, h1 = m.level(HOST, "h0", {"lic": "1"}), m.level(HOST, "h1", {"lic": "1"})
    a0, b0 = m.level(QUEUE, "a.q@h0"), m.level(QUEUE, "b.q@h0")
    a1 = m.level(QUEUE, "a.q@h1")
    booked = uses(m.request({"lic": "1"}), [((g, h0, a0), 2), ((g, h0, b0), 2), ((g, h1, a1), 1)])
    assert booked == (Use("G", "global", "lic", 1.0), Use("H", "h0", "lic", 1.0),
                      Use("H", "h1", "lic", 1.0))


def test_an_rqs_limit_counts_it_once_per_host() -> None:
    instances = [Instance(name=f"all.q@h{i}", queue="all.q", host=f"h{i}", slots=4,
                          pe_list=["mpi"], values={"qname": "all.q", "hostname": f"h{i}",
                                                   "slots": "4"})
                 for i in range(3)]
    limit = Rule(users=Filter(False, ["*"], []))
    table = ComplexTable(COMPLEXES)
    limit.limits = check_limits(table, limit, parse_limit_list("lic=2"))
    conf = PlanConf(complexes=COMPLEXES, instances=instances,
                    global_values={"lic": "10"},
                    pes={"mpi": ParallelEnv("mpi", 999, ROUND_ROBIN)},
                    queue_sort_method="seqno", rqs=[RuleSet(name="lics", rules=[limit])])
    loads: dict[str, dict[str, str]] = {}

    def pjob(job_id: int, slots: int) -> SchedJob:
        return SchedJob(job_id=job_id, pending=[1], priority=0, submit_time=float(job_id),
                        owner="u", hard={"lic": "1"}, pe="mpi", pe_min=slots, pe_max=slots)

    cycle = Cycle(conf, build_levels(conf, loads, []), loads, [], {})
    result = cycle.run([pjob(1, 3)])  # three hosts: 3 > 2
    assert result.orders == []
    cycle = Cycle(conf, build_levels(conf, loads, []), loads, [], {})
    result = cycle.run([pjob(1, 2), pjob(2, 1)])  # two hosts: 2; then nothing left
    assert [o.job_id for o in result.orders] == [1]
    running = [Running(1, 1, {"lic": "1"}, result.orders[0].granted, "mpi", owner="u")]
    cycle = Cycle(conf, build_levels(conf, loads, running), loads, running, {})
    assert [(u.resource, u.used) for u in cycle.quotas.usage_lines()] == [("lic", 2.0)]


def test_a_reservation_and_backfilling_count_it_once_per_host() -> None:
    view = cell(*(qi(f"all.q@h{i}", 2, pe_list=["pe"], h_rt="INFINITY") for i in range(2)),
                host_values={"h0": {"lic": "1"}, "h1": {"lic": "1"}},
                pes=[ParallelEnv("pe", 99, FILL_UP)], complexes=COMPLEXES,
                running=[Running(1, 1, {"h_rt": "100", "lic": "1"}, [("all.q@h0", 1)],
                                 start=NOW)])
    view.conf = msgspec.structs.replace(view.conf, max_reservation=10, monitor=True)

    def timed(job_id: int, h_rt: int, **kw) -> SchedJob:  # type: ignore[no-untyped-def]
        return SchedJob(job_id=job_id, pending=[1], priority=10 - job_id,
                        submit_time=float(job_id), hard={"h_rt": str(h_rt), "lic": "1"}, **kw)

    view.jobs = {j.job_id: j for j in (timed(2, 100, pe="pe", pe_min=3, pe_max=3, reserve=True),
                                       timed(3, 50), timed(4, 500))}
    result = Planner().plan(view, NOW)
    assert where(result) == {(3, 1): [("all.q@h1", 1)]}  # ends before the reservation
    assert result.reserved[2][0] == NOW + 160  # its end: h_rt and duration_offset (60 s)
    booked = [line.split(":", 5)[5] for line in result.schedule if line.startswith("2:")]
    assert sorted(b for b in booked if ":lic:" in b) == ["H:h0:lic:1.000000",
                                                          "H:h1:lic:1.000000"]
    # 2 of its slots on h0, 1 on h1: the license once on each
    assert sorted(b for b in booked if ":slots:" in b) == [
        "P:pe:slots:3.000000", "Q:all.q@h0:slots:2.000000", "Q:all.q@h1:slots:1.000000"]
    assert result.info[4][-1] == ('(-l h_rt=500,lic=1) cannot run in queue "h1" because it '
                                  "offers only hc:lic=0.000000")


def _ar_view(**kw) -> SchedView:  # type: ignore[no-untyped-def]
    """Three hosts of 2 slots, h0's and h1's held by AR 7 with lic=1 (as qrsub -pe pe 4
    -l lic=1 grants it)."""
    view = _view(3, slots=2, **kw)
    view.ars = {7: ArBooking(7, 50.0, 1000.0, [("all.q@h0", 2), ("all.q@h1", 2)],
                             {"lic": "1"}, "pe", usable=True)}
    return view


def _in_ar(*jobs: SchedJob) -> list[SchedJob]:
    return [msgspec.structs.replace(j, ar=7) for j in jobs]


ONE_EACH = {f"h{i}": {"lic": "1"} for i in range(3)}


def test_an_advance_reservation_holds_it_on_each_of_its_hosts() -> None:
    """What an AR holds of a host value is a budget per host (as Open Cluster Scheduler's
    AR holds it in its own copy of each host), not one amount over its hosts: its job
    over both hosts takes the one on each, its sequential tasks one per host."""
    result = plan(_ar_view(host_values=ONE_EACH),
                  *_in_ar(job(1, pe="pe", slots=(4, 4), hard={"lic": "1"})))
    assert where(result) == {(1, 1): [("all.q@h0", 2), ("all.q@h1", 2)]}
    result = plan(_ar_view(host_values=ONE_EACH), *_in_ar(job(2, tasks=3, hard={"lic": "1"})))
    assert where(result) == {(2, 1): [("all.q@h0", 1)], (2, 2): [("all.q@h1", 1)]}
    assert "cannot run because the advance reservation 7 has no slot left for it" in \
        result.info[2]


def test_a_job_in_an_advance_reservation_wants_no_more_hosts_than_it_has_left() -> None:
    """A task of the AR's holds h0's: a 2-host job waits (it would take 1 on h0 too, which
    one amount of 2, 1 left, let it), a job that fits on h1 runs there."""
    view = _ar_view(host_values=ONE_EACH,
                    running=[Running(1, 1, {"lic": "1"}, [("all.q@h0", 1)], ar=7)])
    wide, narrow = _in_ar(job(2, pe="pe", slots=(3, 3), hard={"lic": "1"}),
                          job(3, pe="pe", slots=(2, 2), hard={"lic": "1"}))
    result = plan(view, wide, narrow)
    assert where(result) == {(3, 1): [("all.q@h1", 2)]}
    assert 'cannot run in PE "pe" because it only offers 2 slots' in result.info[2]


def test_an_advance_reservation_holds_a_global_value_once_per_host() -> None:
    """As Open Cluster Scheduler books an AR's (its per_host_consumables test, global
    level granted to an AR: an AR of phc_int=2 on 2 hosts runs 4 jobs of phc_int=1): the
    global value once per host of the AR, each job in it taking it once; a job outside
    finds none left."""
    outside = job(9, hard={"lic": "1"})
    result = plan(_ar_view(global_values={"lic": "2"}),
                  *_in_ar(job(1, pe="pe", slots=(4, 4), hard={"lic": "1"}),
                          job(2, pe="pe", slots=(2, 2), hard={"lic": "1"})), outside)
    assert where(result) == {(1, 1): [("all.q@h0", 2), ("all.q@h1", 2)]}
    assert result.info[9][-1] == (
        "(-l lic=1) cannot run globally because it offers only gc:lic=0.000000")
    result = plan(_ar_view(global_values={"lic": "2"}),
                  *_in_ar(job(1, tasks=3, hard={"lic": "1"})))
    assert sorted(where(result)) == [(1, 1), (1, 2)]
    view = _ar_view(global_values={"lic": "2"})
    view.ars[7].hard = {}  # an AR that holds none: its job takes none
    assert plan(view, *_in_ar(job(1, hard={"lic": "1"}))).orders == []


def test_an_advance_reservation_holds_a_per_slot_value_on_each_of_its_hosts() -> None:
    """A per-slot amount too is held where the AR's slots are (qrsub -pe pe 4 -l tok=1 over
    two hosts: two on each), not as one amount over its hosts: a job of it asking two a
    slot has one slot on each host, not both on one (which would take four of a host
    that has two)."""
    tok = ComplexAttr("tok", "tok", "INT", "<=", "YES", "YES", "0", "0")
    view = cell(*(qi(f"all.q@h{i}", 2, pe_list=["pe"]) for i in range(3)),
                pes=[ParallelEnv("pe", 99, FILL_UP)], complexes=[*DEFAULT_COMPLEXES, tok],
                host_values={f"h{i}": {"tok": "2"} for i in range(3)})
    view.ars = {7: ArBooking(7, 50.0, 1000.0, [("all.q@h0", 2), ("all.q@h1", 2)],
                             {"tok": "1"}, "pe", usable=True)}
    result = plan(view, *_in_ar(job(1, pe="pe", slots=(2, 2), hard={"tok": "2"})))
    assert where(result) == {(1, 1): [("all.q@h0", 1), ("all.q@h1", 1)]}
    # a sequential job asking two takes one slot of a host, two tasks one on each
    result = plan(view, *_in_ar(job(2, tasks=3, hard={"tok": "2"})))
    assert sorted(where(result).items()) == [((2, 1), [("all.q@h0", 1)]),
                                             ((2, 2), [("all.q@h1", 1)])]
    assert {f"cannot run because advance reservation 7 has too little tok left on host h{i}"
            for i in (0, 1)} <= set(result.info[2])


def test_an_advance_reservation_is_granted_the_global_value_once_per_host() -> None:
    def grant(lic: str, slots: int) -> tuple[list[tuple[str, int]], str] | None:
        view = _view(2, slots=2, global_values={"lic": lic})
        return grant_ar(Planner(), view.conf, view.loads, [], {}, {},
                        job(1, pe="pe", slots=(slots, slots), hard={"lic": "1"}),
                        ArPlace(users=["u"]), NOW, NOW + 100, NOW)

    assert grant("1", 4) is None  # 1 for 2 hosts
    assert grant("2", 4) == ([("all.q@h0", 2), ("all.q@h1", 2)], "pe", [])
    assert grant("1", 2) == ([("all.q@h0", 2)], "pe", [])


def test_a_parallel_job_is_refused_what_no_level_or_only_the_global_one_lacks() -> None:
    """(Found by test_plan_properties: a host's first part skips the global level, so the
    master task's part must be checked for it, and an unknown name still refuses.)"""
    view = _view(2, rule=PE_SLOTS)
    result = plan(view, job(1, pe="pe", slots=(1, 1), hard={"lic": "1"}))
    assert result.orders == []
    assert "job requests unknown resource (lic)" in result.info[1][0]
    view = _view(2, global_values={"lic": "0"})
    result = plan(view, job(1, pe="pe", slots=(2, 2), hard={"lic": "1"}))
    assert result.orders == []
    assert result.info[1] == ['cannot run in PE "pe" because it only offers 0 slots']

"""RSMAP ids in the scheduler: which ids an order grants, out of what running tasks, the
cycle's earlier orders and advance reservations hold (gridd.sched.rsmap_ids)."""

from __future__ import annotations

from collections import Counter

import msgspec

from gridd.model.ar import ArBooking, ArPlace
from gridd.model.cluster import Instance, PlanConf, Running
from gridd.model.complexes import DEFAULT_COMPLEXES, ComplexAttr
from gridd.model.pe import FILL_UP, PE_SLOTS, ROUND_ROBIN, ParallelEnv
from gridd.model.planning import Order, SchedJob
from gridd.model.rqs import Filter, Limit, Rule, RuleSet
from gridd.sched.grant import grant_ar
from gridd.sched.levels import build_levels
from gridd.sched.plan import Planner
from gridd.sched.view import SchedView

BUILTINS = ("hostname", "qname", "slots", "h_rt")
USER_ATTRS = (
    ComplexAttr("gpu", "gpu", "RSMAP", "<=", "YES", "YES", "0", "0"),
    ComplexAttr("jgpu", "jgpu", "RSMAP", "<=", "YES", "JOB", "0", "0"),
    ComplexAttr("hgpu", "hgpu", "RSMAP", "<=", "YES", "HOST", "0", "0"),
    ComplexAttr("port", "port", "RSMAP", "<=", "YES", "YES", "0", "0"),
    # a default: every job takes one unless it asks otherwise
    ComplexAttr("tok", "tok", "RSMAP", "<=", "YES", "YES", "1", "0"),
)
COMPLEXES = [*(a for a in DEFAULT_COMPLEXES if a.name in BUILTINS), *USER_ATTRS]
PES = {"mpi": ParallelEnv("mpi", 99, FILL_UP), "smp": ParallelEnv("smp", 99, PE_SLOTS),
       "rr": ParallelEnv("rr", 99, ROUND_ROBIN)}


def view_of(host_values: dict[str, dict[str, str]], global_values: dict[str, str] | None = None,
            slots: int = 8, **conf: object) -> SchedView:
    instances = [Instance(name=f"q@{host}", queue="q", host=host, slots=slots,
                          pe_list=sorted(PES),
                          values={"qname": "q", "hostname": host, "slots": str(slots),
                                  "h_rt": "INFINITY"})
                 for host in host_values]
    plan_conf = PlanConf(complexes=COMPLEXES, global_values=global_values or {},
                         host_values=host_values, instances=instances, pes=PES,
                         queue_sort_method="seqno", **conf)  # type: ignore[arg-type]
    view = SchedView(conf=plan_conf)
    view.hosts_up = set(host_values)
    return view


def job(job_id: int, hard: dict[str, str], *, tasks: int = 1, pe: str = "", slots: int = 0,
        **more: object) -> SchedJob:
    return SchedJob(job_id=job_id, pending=list(range(1, tasks + 1)), priority=0,
                    submit_time=float(job_id), hard=hard, pe=pe, pe_min=slots, pe_max=slots,
                    **more)  # type: ignore[arg-type]


def plan(view: SchedView, *jobs: SchedJob, now: float = 100.0) -> list[Order]:
    view.jobs = {j.job_id: j for j in jobs}
    return Planner().plan(view, now).orders


def ids_of(order: Order) -> dict[tuple[str, str], list[str]]:
    return {(name, host): ids for name, host, ids in order.resource_map}


def start(view: SchedView, orders: list[Order]) -> None:
    """The orders as running tasks, as the master makes them (with their ids)."""
    for o in orders:
        view.running[(o.job_id, o.task_id)] = Running(
            o.job_id, o.task_id, view.jobs[o.job_id].hard, o.granted, o.pe, start=100.0,
            resource_map=o.resource_map)
        view.jobs.pop(o.job_id, None)


def test_sequential_jobs_get_the_first_free_ids_in_the_hosts_order() -> None:
    view = view_of({"h0": {"gpu": "3(GPU2 GPU0 GPU1)"}})
    orders = plan(view, job(1, {"gpu": "2"}), job(2, {"gpu": "1"}), job(3, {"gpu": "1"}))
    assert [ids_of(o) for o in orders] == [{("gpu", "h0"): ["GPU2", "GPU0"]},
                                           {("gpu", "h0"): ["GPU1"]}]


def test_a_job_without_rsmap_requests_holds_no_ids() -> None:
    view = view_of({"h0": {"gpu": "2(0 1)"}})
    assert [o.resource_map for o in plan(view, job(1, {}))] == [[]]


def test_running_tasks_keep_their_ids_across_a_new_scheduler() -> None:
    view = view_of({"h0": {"gpu": "4(0-3)"}})
    view.running[(7, 1)] = Running(7, 1, {"gpu": "2"}, [("q@h0", 1)],
                                   resource_map=[("gpu", "h0", ["0", "2"])])
    orders = plan(view, job(1, {"gpu": "1"}), job(2, {"gpu": "1"}), job(3, {"gpu": "1"}))
    assert [ids_of(o)[("gpu", "h0")] for o in orders] == [["1"], ["3"]]


def test_per_slot_ids_are_slots_times_the_amount() -> None:
    view = view_of({"h0": {"gpu": "8(0-7)"}})
    (order,) = plan(view, job(1, {"gpu": "2"}, pe="smp", slots=3))
    assert ids_of(order) == {("gpu", "h0"): ["0", "1", "2", "3", "4", "5"]}


def test_per_job_ids_are_taken_once_on_the_master_host() -> None:
    view = view_of({"h0": {"jgpu": "2(a b)"}, "h1": {"jgpu": "2(c d)"}}, slots=2)
    (order,) = plan(view, job(1, {"jgpu": "1"}, pe="rr", slots=4))
    master_host = order.granted[0][0].partition("@")[2]
    assert {host for _, host, _ in order.resource_map} == {master_host}
    assert sum(len(ids) for _, _, ids in order.resource_map) == 1


def test_per_host_ids_are_taken_once_on_each_host() -> None:
    view = view_of({"h0": {"hgpu": "1(a)"}, "h1": {"hgpu": "1(b)"}}, slots=2)
    (order,) = plan(view, job(1, {"hgpu": "1"}, pe="mpi", slots=4))
    assert sorted(order.granted) == [("q@h0", 2), ("q@h1", 2)]
    assert ids_of(order) == {("hgpu", "h0"): ["a"], ("hgpu", "h1"): ["b"]}


def test_a_parallel_job_over_two_hosts_takes_per_slot_ids_on_each() -> None:
    view = view_of({"h0": {"gpu": "4(0-3)"}, "h1": {"gpu": "4(0-3)"}}, slots=3)
    (order,) = plan(view, job(1, {"gpu": "1"}, pe="mpi", slots=5))
    assert dict(order.granted) == {"q@h0": 3, "q@h1": 2}
    assert ids_of(order) == {("gpu", "h0"): ["0", "1", "2"], ("gpu", "h1"): ["0", "1"]}


def test_global_ids_are_taken_once_per_job_for_per_host_and_per_slot_per_slot() -> None:
    view = view_of({"h0": {}, "h1": {}}, {"hgpu": "3(x y z)", "gpu": "4(0-3)"}, slots=1)
    (order,) = plan(view, job(1, {"hgpu": "1", "gpu": "1"}, pe="mpi", slots=2))
    assert ids_of(order) == {("hgpu", "global"): ["x"], ("gpu", "global"): ["0", "1"]}


def test_global_and_host_ids_are_both_taken() -> None:
    view = view_of({"h0": {"port": "2(80 81)"}}, {"port": "2(a b)"})
    orders = plan(view, job(1, {"port": "1"}), job(2, {"port": "1"}), job(3, {"port": "1"}))
    assert [ids_of(o) for o in orders] == [
        {("port", "global"): ["a"], ("port", "h0"): ["80"]},
        {("port", "global"): ["b"], ("port", "h0"): ["81"]}]


def test_an_id_listed_twice_is_shared_by_two_jobs() -> None:
    view = view_of({"h0": {"gpu": "2(a a)"}})
    orders = plan(view, job(1, {"gpu": "1"}), job(2, {"gpu": "1"}), job(3, {"gpu": "1"}))
    assert [ids_of(o) for o in orders] == [{("gpu", "h0"): ["a"]}] * 2


def test_a_default_request_takes_ids_as_one_asked_for() -> None:
    view = view_of({"h0": {"tok": "2(t0 t1)"}})
    orders = plan(view, job(1, {}), job(2, {"tok": "0"}), job(3, {}), job(4, {}))
    assert [ids_of(o) for o in orders] == [{("tok", "h0"): ["t0"]}, {},
                                           {("tok", "h0"): ["t1"]}]


def test_an_array_job_takes_ids_task_by_task() -> None:
    view = view_of({"h0": {"gpu": "3(0-2)"}})
    orders = plan(view, job(1, {"gpu": "1"}, tasks=4))
    assert [(o.task_id, ids_of(o)[("gpu", "h0")]) for o in orders] == [
        (1, ["0"]), (2, ["1"]), (3, ["2"])]


def test_ids_held_but_no_longer_configured_stay_held_and_the_count_decides() -> None:
    """An admin changed the ids under a running task: it keeps them; they are not free
    when they come back, and the other ids go by the count as before."""
    view = view_of({"h0": {"gpu": "2(2 3)"}})
    view.running[(7, 1)] = Running(7, 1, {"gpu": "1"}, [("q@h0", 1)],
                                   resource_map=[("gpu", "h0", ["0"])])
    orders = plan(view, job(1, {"gpu": "1"}), job(2, {"gpu": "1"}))
    assert [ids_of(o) for o in orders] == [{("gpu", "h0"): ["2"]}]
    view = view_of({"h0": {"gpu": "3(0 2 3)"}})
    view.running[(7, 1)] = Running(7, 1, {"gpu": "1"}, [("q@h0", 1)],
                                   resource_map=[("gpu", "h0", ["0"])])
    orders = plan(view, job(1, {"gpu": "1"}), job(2, {"gpu": "1"}), job(3, {"gpu": "1"}))
    assert [ids_of(o) for o in orders] == [{("gpu", "h0"): ["2"]}, {("gpu", "h0"): ["3"]}]


def test_a_value_without_ids_offers_its_amount_alone() -> None:
    """What the master refuses (`gpu=2` of an RSMAP, ids not its amount) neither stops a
    cycle nor grants ids: the count decides."""
    view = view_of({"h0": {"gpu": "2"}, "h1": {"gpu": "2(0)"}}, slots=1)
    orders = plan(view, job(1, {"gpu": "1"}), job(2, {"gpu": "1"}), job(3, {"gpu": "1"}))
    assert [(o.granted, o.resource_map) for o in orders] == [([("q@h0", 1)], []),
                                                             ([("q@h1", 1)], [])]


def test_when_ids_and_counts_disagree_the_order_is_not_given() -> None:
    """Running tasks holding more ids than their amounts (which the scheduler never
    grants): the count says one is free, no id is; the job waits, saying why, and
    nothing crashes."""
    view = view_of({"h0": {"gpu": "3(0-2)"}}, job_info=True)
    for n, ids in ((7, ["0", "1"]), (8, ["2"])):
        view.running[(n, 1)] = Running(n, 1, {"gpu": "1"}, [("q@h0", 1)],
                                       resource_map=[("gpu", "h0", ids)])
    view.jobs = {1: job(1, {"gpu": "1"})}
    result = Planner().plan(view, 100.0)
    assert result.orders == []
    assert any("RSMAP ids" in why for why in result.info[1])


def test_ended_tasks_give_their_ids_back_to_the_next_cycle() -> None:
    view = view_of({"h0": {"gpu": "2(0 1)"}})
    planner = Planner()
    view.jobs = {1: job(1, {"gpu": "1"}), 2: job(2, {"gpu": "1"})}
    start(view, planner.plan(view, 100.0).orders)
    del view.running[(1, 1)]
    view.jobs = {3: job(3, {"gpu": "1"})}
    (order,) = planner.plan(view, 101.0).orders
    assert ids_of(order) == {("gpu", "h0"): ["0"]}


def test_levels_copies_hold_their_ids_apart() -> None:
    view = view_of({"h0": {"gpu": "2(0 1)"}})
    levels = build_levels(view.conf, {}, [])
    copy = levels.copy()
    copy.hosts["h0"].held["gpu"].update(["0"])
    assert levels.hosts["h0"].held["gpu"] == Counter()
    assert copy.hosts["h0"].ids is levels.hosts["h0"].ids


def test_a_resource_quota_limits_the_count_and_ids_follow() -> None:
    rqs = [RuleSet(name="g", rules=[Rule(users=Filter(True, ["*"]),
                                         limits=[Limit("gpu", "1")])])]
    view = view_of({"h0": {"gpu": "4(0-3)"}}, rqs=rqs)
    orders = plan(view, job(1, {"gpu": "1"}, owner="a"), job(2, {"gpu": "1"}, owner="a"),
                  job(3, {"gpu": "1"}, owner="b"))
    assert [(o.job_id, ids_of(o)[("gpu", "h0")]) for o in orders] == [(1, ["0"]), (3, ["1"])]


# ---- advance reservations -----------------------------------------------------------------


def grant(view: SchedView, request: SchedJob, start: float, end: float,
          ars: dict[int, ArBooking] | None = None, now: float = 100.0):  # type: ignore[no-untyped-def]
    return grant_ar(Planner(), view.conf, view.loads, view.running.values(), ars or {}, {},
                    request, ArPlace(users=["u"]), start, end, now)


def test_an_ar_is_granted_ids_free_in_its_window() -> None:
    view = view_of({"h0": {"gpu": "3(0-2)"}})
    # runs until 100 + 3600: into a window from 200, not into one from 10000
    view.running[(7, 1)] = Running(7, 1, {"gpu": "1", "h_rt": "3600"}, [("q@h0", 1)],
                                   start=100.0, resource_map=[("gpu", "h0", ["0"])])
    other = ArBooking(5, 150.0, 400.0, [("q@h0", 1)], {"gpu": "1"},
                      resource_map=[("gpu", "h0", ["1"])])
    granted = grant(view, job(0, {"gpu": "1"}), 200.0, 300.0, {5: other})
    assert granted == ([("q@h0", 1)], "", [("gpu", "h0", ["2"])])
    granted = grant(view, job(0, {"gpu": "2"}), 10_000.0, 10_100.0, {5: other})
    assert granted == ([("q@h0", 1)], "", [("gpu", "h0", ["0", "1"])])
    assert grant(view, job(0, {"gpu": "2"}), 200.0, 300.0, {5: other}) is None


def test_a_job_in_an_ar_gets_the_ars_ids_and_others_do_not() -> None:
    view = view_of({"h0": {"gpu": "4(0-3)"}})
    ar = ArBooking(5, 50.0, 10_000.0, [("q@h0", 2)], {"gpu": "1"}, usable=True,
                   resource_map=[("gpu", "h0", ["1", "3"])])
    view.ars = {5: ar}
    orders = plan(view, job(1, {"gpu": "1"}, ar=5, tasks=3),
                  job(2, {"gpu": "1", "h_rt": "100"}, tasks=3))
    got = [(o.job_id, ids_of(o)[("gpu", "h0")]) for o in orders]
    assert got == [(1, ["1"]), (1, ["3"]), (2, ["0"]), (2, ["2"])]


def test_a_job_in_an_ar_takes_what_its_other_jobs_leave() -> None:
    view = view_of({"h0": {"gpu": "4(0-3)"}})
    view.ars = {5: ArBooking(5, 50.0, 10_000.0, [("q@h0", 2)], {"gpu": "1"}, usable=True,
                             resource_map=[("gpu", "h0", ["1", "3"])])}
    view.running[(7, 1)] = Running(7, 1, {"gpu": "1"}, [("q@h0", 1)], ar=5,
                                   resource_map=[("gpu", "h0", ["1"])])
    (order,) = plan(view, job(1, {"gpu": "1"}, ar=5))
    assert ids_of(order) == {("gpu", "h0"): ["3"]}


def test_a_parallel_ar_or_reservation_has_its_master_task_where_its_per_job_ids_are() -> None:
    # h0 offers no jgpu: a master task there could not hold the one asked for
    view = view_of({"h0": {}, "h1": {"jgpu": "1(0)"}}, slots=1)
    for slots, placed in ((2, [("q@h1", 1), ("q@h0", 1)]), (1, [("q@h1", 1)])):
        request = job(0, {"jgpu": "1"}, pe="mpi", slots=slots)
        assert grant(view, request, 100.0, 200.0) == (placed, "mpi", [("jgpu", "h1", ["0"])])
    view.conf.max_reservation = 10
    view.running[(7, 1)] = Running(7, 1, {"h_rt": "100"}, [("q@h1", 1), ("q@h0", 1)], "mpi",
                                   start=100.0)
    view.jobs = {1: job(1, {"jgpu": "1"}, pe="mpi", slots=2, reserve=True)}
    reserved = Planner().plan(view, 100.0).reserved[1]
    assert reserved[1:] == ([("q@h1", 1), ("q@h0", 1)], [("jgpu", "h1", ["0"])])


def test_a_job_in_an_ar_runs_only_where_the_ar_holds_the_ids_it_takes() -> None:
    # The AR's master task holds h1's jgpu; h0's it does not hold.
    view = view_of({"h0": {"jgpu": "1(0)"}, "h1": {"jgpu": "1(1)"}}, slots=1)
    view.ars = {5: ArBooking(5, 50.0, 10_000.0, [("q@h1", 1), ("q@h0", 1)], {"jgpu": "1"},
                             pe="mpi", usable=True, resource_map=[("jgpu", "h1", ["1"])])}
    for asked in (job(1, {"jgpu": "1"}, ar=5), job(2, {"jgpu": "1"}, ar=5, pe="mpi", slots=1)):
        (order,) = plan(view, asked)
        assert (order.granted, order.resource_map) == ([("q@h1", 1)], [("jgpu", "h1", ["1"])])
    (order,) = plan(view, job(3, {"jgpu": "1"}, ar=5, pe="mpi", slots=2))
    assert (order.granted, order.resource_map) == ([("q@h1", 1), ("q@h0", 1)],
                                                   [("jgpu", "h1", ["1"])])
    # with the AR's slot on h1 taken by a job that asks none, none starts on h0
    view.running[(7, 1)] = Running(7, 1, {}, [("q@h1", 1)], "mpi", ar=5)
    view.conf.job_info = True
    view.jobs = {4: job(4, {"jgpu": "1"}, ar=5, pe="mpi", slots=1)}
    result = Planner().plan(view, 100.0)
    assert result.orders == []
    assert result.info[4] == ["cannot run because advance reservation 5 has too little jgpu "
                              "left on host h0"]


def test_ids_of_an_ar_still_to_start_go_only_to_jobs_ending_before_it() -> None:
    view = view_of({"h0": {"gpu": "2(0 1)"}})
    view.ars = {5: ArBooking(5, 5_000.0, 10_000.0, [("q@h0", 1)], {"gpu": "1"},
                             resource_map=[("gpu", "h0", ["0"])])}
    (order,) = plan(view, job(1, {"gpu": "1", "h_rt": "100"}))
    assert ids_of(order) == {("gpu", "h0"): ["0"]}
    (order,) = plan(view, job(2, {"gpu": "1", "h_rt": "20000"}))
    assert ids_of(order) == {("gpu", "h0"): ["1"]}


def test_orders_carry_ids_through_the_wire() -> None:
    order = Order(1, 1, [("q@h0", 1)], "", [("gpu", "h0", ["0", "1"])])
    assert msgspec.msgpack.decode(msgspec.msgpack.encode(order), type=Order) == order


def test_a_reservation_books_the_ids_free_at_its_start() -> None:
    """A waiting job reserved for gets the ids free when it is planned to start: not those
    of a task that runs past then, and not those of an earlier reservation overlapping."""
    view = view_of({"h0": {"gpu": "3(a b c)"}}, duration_offset=0.0, max_reservation=10)
    view.running[(90, 1)] = Running(90, 1, {"gpu": "1", "h_rt": "1000"}, [("q@h0", 1)],
                                    start=100.0, resource_map=[("gpu", "h0", ["a"])])
    view.running[(91, 1)] = Running(91, 1, {"gpu": "2", "h_rt": "100"}, [("q@h0", 1)],
                                    start=100.0, resource_map=[("gpu", "h0", ["b", "c"])])
    view.jobs = {j.job_id: j for j in (job(1, {"gpu": "2", "h_rt": "50"}, reserve=True),
                                       job(2, {"gpu": "1", "h_rt": "50"}, reserve=True))}
    reserved = Planner().plan(view, 100.0).reserved
    assert reserved[1] == (200.0, [("q@h0", 1)], [("gpu", "h0", ["b", "c"])])
    when, _, ids = reserved[2]
    assert when == 250.0 and ids == [("gpu", "h0", ["b"])]

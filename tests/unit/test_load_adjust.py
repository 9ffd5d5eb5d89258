"""Load adjustments in the planner (sched_conf job_load_adjustments and
load_adjustment_decay_time, gridd.sched.adjust), as a real 8.1.9 applies them (seen on the
one here, with a queue whose load threshold the adjusted load reached and the reported one
did not): each slot of a job started lately adds the amount to its host's value, an np_*
value divided by num_proc, less and less over the decay time; a slot placed in the cycle
adds all of it at once; a decay time of 0 turns them off. The messages and figures below
are 8.1.9's own."""

from __future__ import annotations

from typing import Any
from unittest import mock

import msgspec
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from gridd.master.bootstrap import CellConfig, initial_config
from gridd.master.state import MasterState
from gridd.master.views import plan_conf
from gridd.model.ar import ArBooking
from gridd.model.cluster import Instance, PlanConf, Running
from gridd.model.pe import FILL_UP, PE_SLOTS, ParallelEnv
from gridd.model.rqs import Filter, Limit, Rule, RuleSet
from gridd.sched import order as order_module
from gridd.sched.adjust import Adjustments
from gridd.sched.cycle import Cycle
from gridd.sched.levels import build_levels, instance_states
from gridd.sched.plan import Plan, Planner
from gridd.sched.view import SchedView
from tests.unit.test_plan import cell, job, qi
from tests.unit.test_quota_properties import COMPLEXES as QUOTA_COMPLEXES
from tests.unit.test_quota_properties import cells as quota_cells

NOW = 1000.0


def adjusted(view: SchedView, adjustments: dict[str, str] | None = None,
             decay: float = 450.0) -> SchedView:
    """The view with these adjustments (8.1.9's default: np_load_avg=0.50 over 0:7:30)."""
    view.conf = msgspec.structs.replace(
        view.conf, load_adjustments={"np_load_avg": "0.50"} if adjustments is None
        else adjustments, load_adjustment_decay=decay)
    return view


def two_hosts(slots: int = 4, low: str = "0.100000", high: str = "0.100000") -> SchedView:
    """Two idle two-processor hosts reporting these loads, sorted by load, with the PE
    smp ($pe_slots)."""
    return cell(*(qi(f"all.q@{host}", slots, pe_list=["smp"], h_rt="INFINITY")
                  for host in ("h1", "h2")),
                sort="load", pes=[ParallelEnv("smp", 99, PE_SLOTS)],
                loads={"h1": {"np_load_avg": low, "num_proc": "2"},
                       "h2": {"np_load_avg": high, "num_proc": "2"}})


def planned(view: SchedView, *jobs: object, now: float = NOW) -> Plan:
    """The plan, which planning without category caches must agree with."""
    view.jobs = {j.job_id: j for j in jobs}  # type: ignore[attr-defined]
    result = Planner().plan(view, now)
    reference = Planner().plan(view, now, categories=False)
    assert (result.orders, result.global_info, result.reserved) == (
        reference.orders, reference.global_info, reference.reserved)
    return result


def hosts(result: Plan) -> list[str]:
    return [o.granted[0][0].partition("@")[2] for o in result.orders]


def test_equally_loaded_hosts_take_turns_within_a_cycle() -> None:
    """Each job placed raises its host's np_load_avg by 0.50 / 2 processors at once: the
    next goes to the other host, jobs and an array's tasks alike."""
    view = adjusted(two_hosts())
    assert hosts(planned(view, *(job(n) for n in range(1, 5)))) == ["h1", "h2", "h1", "h2"]
    assert hosts(planned(view, job(1, tasks=4))) == ["h1", "h2", "h1", "h2"]
    # A two-slot job weighs twice: the next two one-slot jobs go to the other host.
    result = planned(view, job(1, pe="smp", slots=(2, 2)), job(2), job(3), job(4))
    assert hosts(result) == ["h1", "h2", "h2", "h1"]


def test_none_or_no_decay_time_turns_them_off() -> None:
    """Without adjustments the least loaded host (the first among equals) takes them all;
    so it does with a decay time of 0, as in 8.1.9."""
    for view in (adjusted(two_hosts(), {}), adjusted(two_hosts(), decay=0.0)):
        assert hosts(planned(view, job(1, tasks=4))) == ["h1"] * 4


def test_a_job_started_lately_weighs_on_its_host_until_the_decay_time() -> None:
    """h1 reports 0.10 and h2 0.30, but a two-slot job started on h1 adds 0.50 * 2 / 2
    processors, decaying to nothing over 450 s: more than the 0.20 between them for 270 s
    (in hundredths of a slot: 84 after 260 s, 75 after 280 s)."""
    view = adjusted(two_hosts(high="0.300000"))
    view.running = {(9, 1): Running(9, 1, {}, [("all.q@h1", 2)], start=NOW)}
    for elapsed, host in ((0, "h2"), (260, "h2"), (280, "h1"), (450, "h1"), (5000, "h1")):
        assert hosts(planned(view, job(1), now=NOW + elapsed)) == [host], elapsed


def test_adjusted_loads_reach_load_thresholds_in_8_1_9s_words() -> None:
    """probe2.q@vm runs a two-slot job started 60 s ago (1.73 slots left to weigh: 2 *
    390 / 450); probe.q@vm, on the same host, is dropped though the load reported is below
    its threshold. The threshold of another attribute is said without nproc, and one
    with no adjustment says so."""
    running = [Running(44, 1, {}, [("probe2.q@vm", 2)], "smp", start=NOW - 60)]
    load = {"np_load_avg": "1.837158", "load_avg": "3.674316", "num_proc": "2"}
    view = adjusted(cell(qi("probe.q@vm", 1, thresholds={"np_load_avg": "2.2"}),
                         qi("probe2.q@vm", 2, pe_list=["smp"]), qi("all.q@vm", 4),
                         pes=[ParallelEnv("smp", 99, PE_SLOTS)], loads={"vm": load},
                         running=running))
    result = planned(view, job(45, queues=["probe.q"]))
    assert result.global_info + result.info[45] == [
        'queue instance "probe.q@vm" dropped because it is overloaded: np_load_avg=2.269658 '
        "(= 1.837158 + 0.50 * 1.730000 with nproc=2) >= 2.2",
        'queue instance "probe2.q@vm" dropped because it is full',
        'cannot run in queue "all.q" because it is not contained in its hard queue list (-q)']
    # qstat -f shows the state the loads reported make: no alarm.
    assert instance_states(view.conf, view.loads, {"vm"}, {})["probe.q@vm"] == ""
    running[0].start = NOW - 139  # 1.38 left
    view = adjusted(view, {"np_load_avg": "0.50", "load_avg": "0.25"})
    view.conf.instances[0].load_thresholds = {"load_avg": "0.1"}
    assert planned(view, job(45, queues=["probe.q"])).global_info[0] == (
        'queue instance "probe.q@vm" dropped because it is overloaded: load_avg=4.019316 '
        "(= 3.674316 + 0.25 * 1.380000) >= 0.1")
    view = adjusted(view, {"np_load_avg": "0.50"})
    assert planned(view, job(45, queues=["probe.q"])).global_info[0] == (
        'queue instance "probe.q@vm" dropped because it is overloaded: load_avg=3.674316 '
        "(no load adjustment) >= 0.1")


def test_an_instance_reaches_its_threshold_within_the_cycle() -> None:
    """Each job placed raises the load at once: once it reaches the threshold the instance
    takes no more jobs, and 8.1.9 says so after the instances dropped at the start."""
    view = adjusted(cell(qi("all.q@vm", 4, thresholds={"np_load_avg": "1.75"}),
                         qi("full.q@vm", 1), loads={"vm": {"np_load_avg": "1.000000"}},
                         running=[Running(9, 1, {}, [("full.q@vm", 1)], start=NOW - 450)]))
    result = planned(view, job(1, tasks=4))
    assert [o.task_id for o in result.orders] == [1, 2]
    assert result.global_info == [
        'queue instance "full.q@vm" dropped because it is full',
        'queue instance "all.q@vm" dropped because it is overloaded: np_load_avg=2.000000 '
        "(= 1.000000 + 0.50 * 2.000000 with nproc=1) >= 1.75"]


def test_an_instance_in_alarm_stays_out_of_a_list_that_follows_late() -> None:
    """The jobs that ask for -q q1,q2 follow the order only when next placed: by then q1@vm
    reached its threshold (and its key moved again with its host's load), and it is not
    taken back. (Followed move by move, as long lists are.)"""
    view = adjusted(cell(qi("q1@vm", 4, thresholds={"np_load_avg": "1.0"}),
                         qi("q2@vm", 4, seq_no=1), loads={"vm": {"np_load_avg": "0.100000"}}))
    listed = [job(1, queues=["q1", "q2"]), job(2), job(3), job(4, queues=["q1", "q2"])]
    with mock.patch.object(order_module, "_MOVES_PER_PASS", 0):
        result = planned(view, *listed)
    assert [o.granted[0][0] for o in result.orders] == ["q1@vm", "q1@vm", "q2@vm", "q2@vm"]


def test_reservations_follow_the_order_the_placements_left() -> None:
    """A job that cannot start reserves where the earliest start is, the first instance in
    the order its predecessors' placements left among equals, though a job of its
    category was placed before that order: on h2 (0.20 + 0.25 after a one-slot job) rather
    than h1 (0.10 + 0.50 after a two-slot job), both free once their jobs' 100 s and
    DURATION_OFFSET are over."""
    view = adjusted(two_hosts(slots=2, high="0.200000"))
    view.conf = msgspec.structs.replace(view.conf, max_reservation=1)
    pair = [msgspec.structs.replace(job(n, hard={"h_rt": "100"}, pe="smp", slots=(2, 2)),
                                    reserve=True) for n in (1, 3)]
    result = planned(view, pair[0], job(2, hard={"h_rt": "100"}), pair[1])
    assert hosts(result) == ["h1", "h2"]
    assert result.reserved == {3: (NOW + 160, [("all.q@h2", 2)], [])}


def test_the_tasks_of_a_job_in_an_advance_reservation_follow_the_order_too() -> None:
    """In an AR as outside one, each task placed raises its host's load: an array job's
    tasks take turns between the AR's hosts, as four jobs do, and stop at the instance
    that reached its threshold (they went where the job's first task found room)."""
    booking = ArBooking(7, NOW - 10, NOW + 1000, [("all.q@h1", 2), ("all.q@h2", 2)], {},
                        usable=True)
    view = adjusted(two_hosts())
    view.ars = {7: booking}
    in_ar = [msgspec.structs.replace(job(1, tasks=4), ar=7),
             *(msgspec.structs.replace(job(n), ar=7) for n in range(2, 6))]
    assert hosts(planned(view, in_ar[0])) == hosts(planned(view, *in_ar[1:])) == [
        "h1", "h2", "h1", "h2"]
    view = adjusted(cell(qi("all.q@vm", 8, thresholds={"np_load_avg": "1.75"}),
                         loads={"vm": {"np_load_avg": "1.000000"}}))
    view.ars = {7: msgspec.structs.replace(booking, granted=[("all.q@vm", 4)])}
    result = planned(view, in_ar[0])
    assert [o.task_id for o in result.orders] == [1, 2]
    assert result.global_info == [
        'queue instance "all.q@vm" dropped because it is overloaded: np_load_avg=2.000000 '
        "(= 1.000000 + 0.50 * 2.000000 with nproc=1) >= 1.75"]


def test_what_a_moved_order_made_is_not_kept_for_the_next_cycle() -> None:
    """The placement on a.q@h1 moves it behind a.q@h2, and the -q b.q category is made
    after that, for the order of the moment; the next cycle, with every instance disabled
    (none usable, none open, as the order the first was left in was not), may not take it
    up: its job started in the disabled b.q@h3."""
    load = {"np_load_avg": "0.100000", "num_proc": "1"}
    view = adjusted(cell(qi("a.q@h1", 2), qi("a.q@h2", 2), qi("b.q@h3", 2, seq_no=1),
                         loads={host: dict(load) for host in ("h1", "h2", "h3")}))
    planner = Planner()
    view.jobs = {1: job(1, queues=["a.q"]), 2: job(2, queues=["b.q"])}
    assert hosts(planner.plan(view, NOW)) == ["h1", "h3"]
    view.flags = {qi.name: "d" for qi in view.conf.instances}
    view.jobs = {3: job(3, queues=["b.q"])}
    assert planner.plan(view, NOW + 1).orders == []


def test_a_quota_refusal_passed_over_still_counts_once_the_order_moved() -> None:
    """Quotas keep project p1 off h1 (0 slots per host). Job 1's first task passes over
    a.q@h1, refused by the quota, for a.q@h0; its booking moves h0's two instances one
    after the other, the order changes twice and is back as it was, and what the quotas
    closed to p1 is let go (Cycle._follow_load). Its second task went on where the first
    stopped, found a.q@h0 full and nothing after it, and that was held against the whole
    category rather than against p1: job 2, of no project, waited with a.q@h1 free. The
    uncached planner starts it there. (test_under_quotas_the_caches_follow_the_order_too's
    counterexample, shrunk.)"""
    load = {"np_load_avg": "0.100000", "num_proc": "1"}
    view = adjusted(cell(qi("a.q@h1", 1), qi("a.q@h0", 1), qi("b.q@h0", 0),
                         loads={"h0": dict(load), "h1": dict(load)}))
    view.conf = msgspec.structs.replace(view.conf, rqs=[RuleSet(name="p1", rules=[
        Rule(projects=Filter(False, ["p1"], []), hosts=Filter(True, ["h1"], []),
             limits=[Limit("slots", "0")])])])
    jobs = [msgspec.structs.replace(job(1, tasks=2), project="p1"), job(2)]
    for per_pass in (0, 10**9):
        with mock.patch.object(order_module, "_MOVES_PER_PASS", per_pass):
            result = planned(view, *jobs)
        assert [(o.job_id, o.task_id, o.granted) for o in result.orders] == [
            (1, 1, [("a.q@h0", 1)]), (2, 1, [("a.q@h1", 1)])], per_pass


def test_plan_conf_reads_the_adjustments() -> None:
    state = MasterState()
    initial_config(state, CellConfig(hosts=["h1"], slots=1))
    conf = plan_conf(state.config)
    assert (conf.load_adjustments, conf.load_adjustment_decay) == ({"np_load_avg": "0.50"},
                                                                   450.0)
    state.config.sched.job_load_adjustments = "NONE"
    state.config.sched.load_adjustment_decay_time = "0:0:0"
    conf = plan_conf(state.config)
    assert (conf.load_adjustments, conf.load_adjustment_decay) == ({}, 0.0)
    state.config.sched.job_load_adjustments = "nla=0.25,nosuch=1,load_avg=lots"
    assert plan_conf(state.config).load_adjustments == {"np_load_avg": "0.25"}


# ---- against a reference written apart from the planner -----------------------------------


@st.composite
def busy_cells(draw: st.DrawFn) -> SchedView:
    """Hosts of one or two processors with loads that often tie, queues on them with
    sequence numbers and sometimes a threshold, tasks that started lately or long ago,
    and plain sequential jobs."""
    hosts = [f"h{i}" for i in range(draw(st.integers(1, 4)))]
    instances = []
    for queue in ("a.q", "b.q")[:draw(st.integers(1, 2))]:
        seq_no = draw(st.integers(0, 1))
        for host in hosts:
            threshold = draw(st.sampled_from((None, None, "1.0", "1.5")))
            instances.append(qi(f"{queue}@{host}", draw(st.integers(0, 3)), seq_no=seq_no,
                                thresholds={"np_load_avg": threshold} if threshold else None))
    loads = {host: {"np_load_avg": draw(st.sampled_from(("0.100000", "0.200000"))),
                    "num_proc": draw(st.sampled_from(("1", "2")))} for host in hosts}
    view = adjusted(cell(*instances, sort=draw(st.sampled_from(("load", "seqno"))),
                         loads=loads))
    for number in range(draw(st.integers(0, 3))):
        where = draw(st.sampled_from(instances))
        view.running[(900 + number, 1)] = Running(
            900 + number, 1, {}, [(where.name, 1)],
            start=NOW - draw(st.sampled_from((0.0, 100.0, 449.0, 1000.0))))
    view.jobs = {n: job(n, tasks=draw(st.integers(1, 3)))
                 for n in range(1, draw(st.integers(1, 6)) + 1)}
    return view


def reference(view: SchedView) -> tuple[list[tuple[int, int, str]], list[str]]:
    """Where each task goes and which instances drop in alarm, worked out afresh before
    every placement: a host's np_load_avg is its report plus 0.50 per slot (the slots of
    tasks started lately weighed by what is left of 450 s, in hundredths), divided by its
    processors; instances go by that load and sequence number (seqno: the other way
    round), then as configured; an instance whose host reaches its threshold drops out
    for the rest of the cycle (one full from the start is not judged again); a task goes
    to the first with a free slot."""
    conf = view.conf
    factor = {host: 0 for host in view.loads}
    used = {qi.name: 0 for qi in conf.instances}
    for task in view.running.values():
        name, slots = task.granted[0]
        used[name] += slots
        left = 450 - (NOW - task.start)
        if left > 0:
            factor[name.partition("@")[2]] += int(100 * slots * left / 450)

    def load(host: str) -> float:
        values = view.loads[host]
        return float(values["np_load_avg"]) + 0.5 * factor[host] / 100 / int(values["num_proc"])

    def over(qi: Instance) -> bool:
        limit = qi.load_thresholds.get("np_load_avg")
        return limit is not None and load(qi.host) >= float(limit)

    def key(index: int) -> tuple[float, float, int]:
        qi = conf.instances[index]
        by_load = (round(load(qi.host), 6), qi.seq_no, index)
        return by_load if conf.queue_sort_method == "load" else (qi.seq_no, by_load[0], index)

    dropped = [conf.instances[i].name for i in sorted(range(len(conf.instances)), key=key)
               if over(conf.instances[i])]  # said in the order, as the cycle begins
    # Those full at the start are dropped as full, once: they are not judged again.
    full = {qi.name for qi in conf.instances if used[qi.name] >= qi.slots}
    placed = []
    for number in sorted(view.jobs):
        for task in view.jobs[number].pending:
            free = [i for i in sorted(range(len(conf.instances)), key=key)
                    if conf.instances[i].name not in dropped
                    and used[conf.instances[i].name] < conf.instances[i].slots]
            if not free:
                break
            qi = conf.instances[free[0]]
            placed.append((number, task, qi.name))
            used[qi.name] += 1
            factor[qi.host] += 100
            dropped += [other.name for other in conf.instances if other.host == qi.host
                        and other.name not in dropped and other.name not in full
                        and over(other)]
    return placed, dropped


# Lists follow the order move by move, or sorted afresh (gridd.sched.order): both ways.
FOLLOWING = pytest.mark.parametrize("per_pass", [0, 10**9])


@FOLLOWING
@settings(max_examples=300, deadline=None)
@given(view=busy_cells())
def test_placements_follow_the_adjusted_order(per_pass: int, view: SchedView) -> None:
    placed, dropped = reference(view)
    with mock.patch.object(order_module, "_MOVES_PER_PASS", per_pass):
        result = planned(view, *view.jobs.values())
    assert [(o.job_id, o.task_id, o.granted[0][0]) for o in result.orders] == placed
    assert [line.split('"')[1] for line in result.global_info
            if "overloaded" in line] == dropped


def _quota_cell_found() -> tuple[PlanConf, dict, list[Running], list[Any]]:
    """The cell test_under_quotas_the_caches_follow_the_order_too failed on (see
    test_a_quota_refusal_passed_over_still_counts_once_the_order_moved), as it printed it."""

    def instance(name: str, slots: int) -> Instance:
        queue, _, host = name.partition("@")
        return Instance(name=name, queue=queue, host=host, slots=slots, pe_list=["mpi", "smp"],
                        values={"qname": queue, "hostname": host, "slots": str(slots)})

    every = Filter(False, ["*"], [])
    sets = [RuleSet(name="s0", rules=[
                Rule(projects=Filter(False, ["*"], ["p1"]), limits=[Limit("slots", "0")]),
                Rule(pes=every, limits=[Limit("slots", "0"), Limit("lic", "0")]),
                Rule(projects=every, hosts=Filter(True, ["*"], ["h0"]),
                     limits=[Limit("slots", "0")])]),
            RuleSet(name="s1", rules=[Rule(pes=every, limits=[Limit("slots", "0")])])]
    conf = PlanConf(
        complexes=QUOTA_COMPLEXES, global_values={"lic": "6"},
        instances=[instance("a.q@h0", 2), instance("a.q@h1", 0), instance("b.q@h0", 2),
                   instance("b.q@h1", 5)],
        hostgroups={"@g": ["h0"]}, usersets={"staff": ["u0", "u2"]},
        pes={"mpi": ParallelEnv("mpi", 99, FILL_UP), "smp": ParallelEnv("smp", 99, PE_SLOTS)},
        queue_sort_method="seqno", rqs=sets)
    tasks = {1: 2, 2: 2, 3: 1, 4: 2, 5: 1, 6: 1, 7: 1, 8: 1}
    jobs = [msgspec.structs.replace(job(n, tasks=k), owner="u0",
                                    project="p1" if n == 4 else "") for n, k in tasks.items()]
    return conf, {"h0": {"num_proc": "1"}, "h1": {"num_proc": "1"}}, [], jobs


@FOLLOWING
@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(cell=quota_cells(), load=st.sampled_from(("0.100000", "0.500000")))
@example(cell=_quota_cell_found(), load="0.100000")
def test_under_quotas_the_caches_follow_the_order_too(per_pass: int, cell: tuple[Any, ...],
                                                      load: str) -> None:
    """Resource quotas keep what they learn per candidate list (its signatures, what they
    closed to an asker): with every host equally loaded each placement moves its host, and
    the plan is still the uncached planner's."""
    conf, loads, running, jobs = cell
    loads = {host: {**values, "np_load_avg": load} for host, values in loads.items()}
    table = build_levels(conf, loads, []).matcher.table

    def planned_by(categories: bool) -> Plan:
        adjust = Adjustments.of(conf, loads, running, NOW, table)
        assert adjust is not None
        cycle = Cycle(conf, build_levels(conf, loads, running), loads, running, {},
                      categories=categories, adjust=adjust, now=NOW)
        return cycle.run(jobs)

    with mock.patch.object(order_module, "_MOVES_PER_PASS", per_pass):
        assert planned_by(True).orders == planned_by(False).orders

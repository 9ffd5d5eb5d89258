"""The dispatch planner (gridd.sched.plan) by example: where jobs go and what it says.

Placement follows Grid Engine 8.1.9: first fit in queue_sort_method order, fewest soft
violations when a job has soft requests, parallel jobs spread by their PE's allocation
rule with the largest slot count of their range. Messages are compared with the
scheduling-info lines in reference/sge-8.1.9/transcripts (jobs.txt, queues_pe.txt), and
E1/E2 are the examples of spec/complex-attributes.txt section 1.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import msgspec

from gridd.master.bootstrap import CellConfig, initial_config
from gridd.master.state import MasterState
from gridd.master.views import plan_conf
from gridd.model.cluster import Instance, PlanConf, Running
from gridd.model.complexes import DEFAULT_COMPLEXES, ComplexAttr
from gridd.model.pe import FILL_UP, PE_SLOTS, ROUND_ROBIN, ParallelEnv
from gridd.model.planning import Order, SchedJob
from gridd.sched.levels import Levels, build_levels
from gridd.sched.plan import Plan, Planner, verify
from gridd.sched.view import SchedView


def _attr(name: str, type_: str, consumable: str = "NO", default: str = "0",
          relop: str = "<=") -> ComplexAttr:
    return ComplexAttr(name, name, type_, relop, "YES", consumable, default, "0")


COMPLEXES = [
    *DEFAULT_COMPLEXES,
    _attr("license", "INT", "YES"),
    _attr("t01", "INT"),  # E1: a fixed value, compared per slot
    _attr("t02", "INT", "YES"),  # E2 and the transcripts: a queue consumable
    _attr("jlic", "INT", "JOB"),
    _attr("mem", "MEMORY", "YES"),
]
# With a defaulted consumable every job asks for it, and messages name it: "(-l tok=1)".
WITH_TOK = [*COMPLEXES, _attr("tok", "INT", "YES", default="1")]


def qi(name: str, slots: int = 4, seq_no: int = 0, pe_list: Iterable[str] = (),
       batch: bool = True, thresholds: dict[str, str] | None = None, **values: str) -> Instance:
    """A queue instance as plan_conf() derives it: qname, hostname and slots offered."""
    queue, _, host = name.partition("@")
    offered = {"qname": queue, "hostname": host, "slots": str(slots), **values}
    return Instance(name=name, queue=queue, host=host, slots=slots, seq_no=seq_no,
                    batch=batch, pe_list=list(pe_list), values=offered,
                    load_thresholds=thresholds or {})


def cell(*instances: Instance, sort: str = "seqno", formula: str = "np_load_avg",
         global_values: dict[str, str] | None = None,
         host_values: dict[str, dict[str, str]] | None = None,
         pes: Iterable[ParallelEnv] = (), loads: dict[str, dict[str, str]] | None = None,
         down: Iterable[str] = (), flags: dict[str, str] | None = None,
         running: Iterable[Running] = (), job_info: bool = True,
         complexes: list[ComplexAttr] = COMPLEXES) -> SchedView:
    conf = PlanConf(complexes=complexes, global_values=global_values or {},
                    host_values=host_values or {}, instances=list(instances),
                    pes={pe.name: pe for pe in pes}, queue_sort_method=sort,
                    load_formula=formula, job_info=job_info,
                    hostgroups={"@even": ["h0", "h2"]},
                    # -p alone orders jobs (then submission, then number), so that tests
                    # say orders plainly; Grid Engine's default weights: test_priority.py.
                    weight_priority=1.0, weight_urgency=0.0, weight_ticket=0.0)
    hosts = {i.host for i in instances}
    view = SchedView(conf=conf, loads=loads or {}, hosts_up=hosts - set(down),
                     flags=flags or {})
    view.running = {(r.job_id, r.task_id): r for r in running}
    return view


def job(job_id: int, *, tasks: int = 1, priority: int = 0, hard: dict[str, str] | None = None,
        soft: dict[str, str] | None = None, queues: Iterable[str] = (),
        soft_queues: Iterable[str] = (), pe: str = "", slots: tuple[int, int] = (0, 0),
        immediate: bool = False) -> SchedJob:
    return SchedJob(job_id=job_id, pending=list(range(1, tasks + 1)), priority=priority,
                      submit_time=float(job_id), hard=hard or {}, soft=soft or {},
                      queues=list(queues), soft_queues=list(soft_queues), pe=pe,
                      pe_min=slots[0], pe_max=slots[1], immediate=immediate)


def plan(view: SchedView, *jobs: SchedJob) -> Plan:
    view.jobs = {j.job_id: j for j in jobs}
    return Planner().plan(view, 100.0)


def where(result: Plan) -> dict[tuple[int, int], list[tuple[str, int]]]:
    return {(o.job_id, o.task_id): o.granted for o in result.orders}


def after(view: SchedView, result: Plan) -> Levels:
    """Fresh levels with the running tasks and the plan's orders booked."""
    booked = [Running(o.job_id, o.task_id, view.jobs[o.job_id].hard, o.granted, o.pe)
              for o in result.orders]
    return build_levels(view.conf, view.loads, [*view.running.values(), *booked])


def uncached(view: SchedView) -> Plan:
    """The same cycle without category caches."""
    return Planner().plan(view, 100.0, categories=False)


# ---- sequential jobs: first fit in queue_sort_method order ---------------------------------


def test_seqno_orders_instances_by_sequence_number_before_load() -> None:
    view = cell(qi("a.q@h0", 1, seq_no=2), qi("b.q@h1", 1, seq_no=1), qi("c.q@h2", 1),
                sort="seqno", loads={"h2": {"np_load_avg": "3.0"}})
    result = plan(view, job(1, tasks=3))
    assert [g for g in where(result).values()] == [
        [("c.q@h2", 1)], [("b.q@h1", 1)], [("a.q@h0", 1)]]


def test_load_orders_instances_by_the_load_formula_then_sequence_number() -> None:
    loads = {"h0": {"np_load_avg": "0.90", "load_avg": "1.0"},
             "h1": {"np_load_avg": "0.10", "load_avg": "4.0"},
             "h2": {"np_load_avg": "0.10", "load_avg": "2.0"}}
    instances = (qi("all.q@h0", 1), qi("all.q@h1", 1, seq_no=5), qi("all.q@h2", 1, seq_no=3))
    result = plan(cell(*instances, sort="load", loads=loads), job(1, tasks=3))
    # Least loaded first; h1 and h2 tie on np_load_avg and seq_no decides.
    assert [g[0][0] for g in where(result).values()] == ["all.q@h2", "all.q@h1", "all.q@h0"]
    result = plan(cell(*instances, sort="load", formula="load_avg", loads=loads),
                  job(1, tasks=3))
    assert [g[0][0] for g in where(result).values()] == ["all.q@h0", "all.q@h2", "all.q@h1"]
    result = plan(cell(*instances, sort="load", formula="np_load_avg*10-load_avg",
                       loads=loads), job(1, tasks=3))
    assert [g[0][0] for g in where(result).values()] == ["all.q@h1", "all.q@h2", "all.q@h0"]
    # seqno ignores the load except to break ties.
    result = plan(cell(*instances, sort="seqno", loads=loads), job(1, tasks=3))
    assert [g[0][0] for g in where(result).values()] == ["all.q@h0", "all.q@h2", "all.q@h1"]


def test_jobs_go_in_priority_order_then_submission_order() -> None:
    view = cell(qi("all.q@h0", 2))
    result = plan(view, job(1), job(2, priority=5), job(3, priority=5))
    assert [o.job_id for o in result.orders] == [2, 3]
    assert result.info[1] == ['(-l slots=1) cannot run in queue "all.q@h0" because it offers '
                              "only qc:slots=0.000000"]


def test_hard_queue_list_and_hostgroups() -> None:
    view = cell(qi("a.q@h0", 2), qi("a.q@h1", 2), qi("b.q@h2", 2))
    result = plan(view, job(1, queues=["b.q"]), job(2, queues=["*@h1"]),
                  job(3, queues=["a.q@@even"]), job(4, queues=["a.q@h2"]))
    assert where(result) == {(1, 1): [("b.q@h2", 1)], (2, 1): [("a.q@h1", 1)],
                             (3, 1): [("a.q@h0", 1)]}
    # 8.1.9 names the cluster queue when no reference names it (seen with -q big.q@vm).
    assert result.info[4] == [
        f"cannot run in {where} because it is not contained in its hard queue list (-q)"
        for where in ('queue instance "a.q@h0"', 'queue instance "a.q@h1"', 'queue "b.q"')]


# ---- soft requests ------------------------------------------------------------------------


def test_soft_requests_pick_the_instance_with_fewest_violations() -> None:
    view = cell(qi("all.q@h0", 2), qi("all.q@h1", 2), qi("all.q@h2", 2),
                host_values={"h0": {"arch": "sol"}, "h1": {"arch": "lx-amd64"},
                             "h2": {"arch": "lx-amd64", "mem": "4G"}},
                loads={"h1": {"mem_free": "8G"}, "h2": {"mem_free": "16G"}})
    one = plan(view, job(1, soft={"arch": "lx-amd64"}))
    assert where(one) == {(1, 1): [("all.q@h1", 1)]}  # first of the two without violations
    two = plan(view, job(1, soft={"arch": "lx-amd64", "mem_free": "12G"}))
    assert where(two) == {(1, 1): [("all.q@h2", 1)]}
    # Soft requests never keep a job waiting: nothing satisfies them, the first fit wins.
    none = plan(view, job(1, soft={"arch": "aix", "nosuch": "1"}))
    assert where(none) == {(1, 1): [("all.q@h0", 1)]}
    # Hard requests still rule out instances before soft ones are counted.
    hard = plan(view, job(1, hard={"arch": "lx-amd64"}, soft={"mem": "1G"}))
    assert where(hard) == {(1, 1): [("all.q@h2", 1)]}


def test_soft_queue_list() -> None:
    view = cell(qi("a.q@h0", 2), qi("b.q@h0", 2), qi("b.q@h1", 2))
    result = plan(view, job(1, tasks=3, soft_queues=["b.q"]), job(2, soft_queues=["*@h1"]))
    assert where(result) == {(1, 1): [("b.q@h0", 1)], (1, 2): [("b.q@h0", 1)],
                             (1, 3): [("b.q@h1", 1)], (2, 1): [("b.q@h1", 1)]}
    # A soft -q that cannot be had leaves the job to first fit.
    result = plan(view, job(1, soft_queues=["c.q"]))
    assert where(result) == {(1, 1): [("a.q@h0", 1)]}


def test_a_soft_request_does_not_lift_a_consumables_default() -> None:
    """tok defaults to 1 per slot; asking for it softly (even tok=0) must not make the job
    take none: the running task will hold the default, so the plan must book it.
    (Before the fix the soft name suppressed the default and two jobs shared one tok.)"""
    view = cell(qi("all.q@h0", 4, tok="1"), complexes=WITH_TOK)
    result = plan(view, job(1, soft={"tok": "0"}), job(2, soft={"slots": "1"}))
    assert [o.job_id for o in result.orders] == [1]
    levels = after(view, result)
    assert levels.queues["all.q@h0"].free == {"slots": 3, "tok": 0}
    # A hard request replaces the default.
    result = plan(view, job(1, tasks=3, hard={"tok": "0"}))
    assert len(result.orders) == 3


def test_soft_consumable_violations_are_counted_afresh() -> None:
    """What is left of a consumable shrinks within a cycle: a category's soft violation
    counts must follow it. (Before the fix job 3 reused job 1's count for h0 and went
    there although h0's mem was gone and h1 still had it.)"""
    view = cell(qi("all.q@h0", 4), qi("all.q@h1", 4),
                host_values={"h0": {"mem": "2G"}, "h1": {"mem": "2G"}})
    jobs = (job(1, priority=3, soft={"mem": "2G"}), job(2, priority=2, hard={"mem": "2G"}),
            job(3, priority=1, soft={"mem": "2G"}))
    result = plan(view, *jobs)
    assert where(result) == {(1, 1): [("all.q@h0", 1)], (2, 1): [("all.q@h0", 1)],
                             (3, 1): [("all.q@h1", 1)]}
    assert uncached(view).orders == result.orders


# ---- parallel jobs: allocation rules and ranges -------------------------------------------


def _spread(rule: str, *slots: int, pe_slots: int = 99) -> SchedView:
    return cell(*(qi(f"all.q@h{i}", n, pe_list=["pe"]) for i, n in enumerate(slots)),
                pes=[ParallelEnv("pe", pe_slots, rule)])


def test_pe_slots_takes_the_largest_count_on_one_host() -> None:
    view = _spread(PE_SLOTS, 2, 4, 3)
    assert where(plan(view, job(1, pe="pe", slots=(1, 8)))) == {(1, 1): [("all.q@h1", 4)]}
    assert where(plan(view, job(1, pe="pe", slots=(3, 3)))) == {(1, 1): [("all.q@h1", 3)]}
    result = plan(view, job(1, pe="pe", slots=(5, 6)))
    assert result.orders == []
    assert result.info[1] == ['cannot run in PE "pe" because it only offers 4 slots']


def test_pe_slots_counts_every_queue_instance_of_the_host() -> None:
    view = cell(qi("a.q@h0", 2, pe_list=["smp"]), qi("b.q@h0", 3, pe_list=["smp"]),
                qi("a.q@h1", 4, pe_list=["smp"]), host_values={"h0": {"slots": "4"}},
                pes=[ParallelEnv("smp", 99, PE_SLOTS)])
    result = plan(view, job(1, pe="smp", slots=(4, 5)))
    # h0 offers 2+3 in its queues but only 4 by its own slots; h1 offers 4: h0 comes first.
    assert where(result) == {(1, 1): [("a.q@h0", 2), ("b.q@h0", 2)]}


def test_fill_up_fills_each_host_before_the_next() -> None:
    view = _spread(FILL_UP, 2, 3, 3)
    assert where(plan(view, job(1, pe="pe", slots=(6, 6)))) == {
        (1, 1): [("all.q@h0", 2), ("all.q@h1", 3), ("all.q@h2", 1)]}
    # A range takes as many as there are.
    assert where(plan(view, job(1, pe="pe", slots=(2, 20)))) == {
        (1, 1): [("all.q@h0", 2), ("all.q@h1", 3), ("all.q@h2", 3)]}


def test_round_robin_deals_one_slot_per_host_in_turn() -> None:
    view = _spread(ROUND_ROBIN, 2, 3, 3)
    assert where(plan(view, job(1, pe="pe", slots=(5, 5)))) == {
        (1, 1): [("all.q@h0", 2), ("all.q@h1", 2), ("all.q@h2", 1)]}
    assert where(plan(view, job(1, pe="pe", slots=(7, 7)))) == {
        (1, 1): [("all.q@h0", 2), ("all.q@h1", 3), ("all.q@h2", 2)]}


def test_integer_rule_places_exactly_that_many_per_host() -> None:
    view = _spread("2", 3, 1, 2, 2)
    assert where(plan(view, job(1, pe="pe", slots=(2, 6)))) == {
        (1, 1): [("all.q@h0", 2), ("all.q@h2", 2), ("all.q@h3", 2)]}
    assert where(plan(view, job(1, pe="pe", slots=(3, 5)))) == {
        (1, 1): [("all.q@h0", 2), ("all.q@h2", 2)]}  # the largest multiple of 2 in range
    result = plan(view, job(1, pe="pe", slots=(3, 3)))  # no multiple of 2 in range
    assert result.orders == []
    assert result.info[1] == ['cannot run in PE "pe" because it only offers 2 slots']
    view = _spread("1", 3, 1, 2)
    assert where(plan(view, job(1, pe="pe", slots=(1, 8)))) == {
        (1, 1): [("all.q@h0", 1), ("all.q@h1", 1), ("all.q@h2", 1)]}


def test_pe_slot_limit_and_running_pe_tasks() -> None:
    running = [Running(50, 1, {}, [("all.q@h0", 2)], "pe")]
    view = cell(*(qi(f"all.q@h{i}", 4, pe_list=["pe"]) for i in range(3)),
                pes=[ParallelEnv("pe", 7, FILL_UP)], running=running)
    result = plan(view, job(1, pe="pe", slots=(2, 10)), job(2, pe="pe", slots=(1, 1)))
    # 2 of the PE's 7 slots are in use: job 1 takes the other 5, job 2 finds none left.
    assert where(result) == {(1, 1): [("all.q@h0", 2), ("all.q@h1", 3)]}
    assert result.info[2] == [
        '(-l slots=1) cannot run in queue "all.q@h0" because it offers only qc:slots=0.000000',
        'cannot run in PE "pe" because it only offers 0 slots']


def test_a_wildcard_pe_books_the_pe_it_was_placed_in() -> None:
    """-pe "*": mpi (tried first, by name) is at its slot limit, so the job is placed in
    `one` on the same instance; the order must name and debit `one`. (Before the fix the
    order named the first PE the instance lists, mpi, and overbooked it.)"""
    view = cell(qi("all.q@h0", 4, pe_list=["mpi", "one"]),
                pes=[ParallelEnv("mpi", 0, FILL_UP), ParallelEnv("one", 10, "1")])
    result = plan(view, job(1, pe="*", slots=(1, 1)), job(2, pe="m*", slots=(1, 1)))
    assert result.orders == [Order(1, 1, [("all.q@h0", 1)], "one")]
    assert result.info[2] == ['cannot run in PE "mpi" because it only offers 0 slots']


def test_pe_not_in_pe_list() -> None:
    view = cell(qi("all.q@vm", 4, pe_list=["smp"]), qi("short.q@vm", 2),
                pes=[ParallelEnv("smp", 99, PE_SLOTS)])
    result = plan(view, job(1, pe="smp", slots=(6, 6)))
    assert result.info[1] == ['cannot run in queue "short.q" because PE "smp" is not in PE '
                              "list", 'cannot run in PE "smp" because it only offers 4 slots']


# ---- consumables: per slot, per job -------------------------------------------------------


def test_job_consumables_only_on_the_master_instance() -> None:
    view = cell(*(qi(f"all.q@h{i}", 2, pe_list=["mpi"]) for i in range(3)),
                global_values={"license": "10", "jlic": "1"},
                host_values={"h0": {"jlic": "0"}, "h1": {"jlic": "1"}, "h2": {"jlic": "1"}},
                pes=[ParallelEnv("mpi", 99, FILL_UP)])
    result = plan(view, job(1, pe="mpi", slots=(4, 4), hard={"license": "1", "jlic": "1"}))
    # h0 cannot hold the master task (no jlic there): the first instance that can leads.
    assert where(result) == {(1, 1): [("all.q@h1", 2), ("all.q@h0", 2)]}
    levels = after(view, result)
    assert levels.global_level.free == {"license": 6, "jlic": 0}  # 4 per slot, 1 per job
    assert levels.hosts["h0"].free == {"jlic": 0}
    assert levels.hosts["h1"].free == {"jlic": 0}
    assert levels.hosts["h2"].free == {"jlic": 1}
    # The one per-job license is gone: the next job cannot have a master anywhere.
    result = plan(view, job(1, pe="mpi", slots=(2, 2), hard={"jlic": "1"}),
                  job(2, pe="mpi", slots=(2, 2), hard={"jlic": "1"}))
    assert [o.job_id for o in result.orders] == [1]
    assert result.info[2] == [
        '(-l jlic=1) cannot run in queue "all.q@h1" because it offers only qc:slots=0.000000',
        "(-l jlic=1) cannot run globally because it offers only gc:jlic=0.000000"]


def test_a_job_consumable_short_on_the_chosen_host_moves_the_job() -> None:
    """$pe_slots prefers h0 (4 free slots) but only h1 (2 slots) has the per-job license:
    the job runs on h1 with 2 slots rather than waiting. (Before the fix it waited, and a
    later job of its category was skipped although it fit: caches changed the plan.)"""
    view = cell(qi("all.q@h0", 4, pe_list=["smp"]), qi("all.q@h1", 2, pe_list=["smp"]),
                host_values={"h0": {"jlic": "0"}, "h1": {"jlic": "1"}},
                pes=[ParallelEnv("smp", 99, PE_SLOTS)])
    first = job(1, priority=3, pe="smp", slots=(1, 4), hard={"jlic": "1"})
    result = plan(view, first, job(2, priority=2, tasks=3),
                  job(3, priority=1, pe="smp", slots=(1, 4), hard={"jlic": "1"}))
    assert where(result)[(1, 1)] == [("all.q@h1", 2)]
    assert result.info[3] == [
        '(-l jlic=1) cannot run in queue "all.q@h1" because it offers only qc:slots=0.000000',
        '(-l jlic=1) cannot run in queue "h0" because it offers only hc:jlic=0.000000']
    assert uncached(view).orders == result.orders


def test_e1_fixed_values_are_compared_per_slot() -> None:
    """E1: j1 asks t01=10 with 4 slots; q1 has 5 slots and t01<=20: it fits, and
    afterwards q1 has 1 slot left and still t01<=20."""
    view = cell(qi("q1@h", 5, pe_list=["pe"], t01="20"), pes=[ParallelEnv("pe", 99, PE_SLOTS)])
    result = plan(view, job(1, pe="pe", slots=(4, 4), hard={"t01": "10"}))
    assert where(result) == {(1, 1): [("q1@h", 4)]}
    queue = after(view, result).queues["q1@h"]
    assert queue.free == {"slots": 1}
    assert queue.offers["t01"].text == "20"
    # A request above the fixed value fits nowhere, whatever the slot count.
    result = plan(view, job(1, pe="pe", slots=(1, 1), hard={"t01": "21"}))
    assert result.info[1][0] == ('(-l t01=21) cannot run in queue "q1@h" because it offers '
                                 "only qf:t01=20.000000")


def test_e2_consumables_are_taken_per_slot() -> None:
    """E2 (its intent; the spec's text garbles queue names and arithmetic): j2 asks
    t02=20 with 4 slots; q2 offers 5 slots and t02<=40, q3 1 slot, q4 3 slots, both
    t02<=40. Two slots start on q2, one on q3, one on q4; afterwards q2 has 3 slots and
    t02 0 left, q3 0 slots and 20, q4 2 slots and 20."""
    view = cell(qi("q2@h", 5, seq_no=1, pe_list=["pe"], t02="40"),
                qi("q3@h", 1, seq_no=2, pe_list=["pe"], t02="40"),
                qi("q4@h", 3, seq_no=3, pe_list=["pe"], t02="40"),
                pes=[ParallelEnv("pe", 99, FILL_UP)])
    result = plan(view, job(2, pe="pe", slots=(4, 4), hard={"t02": "20"}))
    assert where(result) == {(2, 1): [("q2@h", 2), ("q3@h", 1), ("q4@h", 1)]}
    levels = after(view, result)
    assert levels.queues["q2@h"].free == {"slots": 3, "t02": 0}
    assert levels.queues["q3@h"].free == {"slots": 0, "t02": 20}
    assert levels.queues["q4@h"].free == {"slots": 2, "t02": 20}


def test_memory_consumable_on_the_host_is_shared_by_its_queues() -> None:
    view = cell(qi("a.q@h0", 4), qi("b.q@h0", 4), qi("a.q@h1", 4),
                host_values={"h0": {"mem": "3G"}, "h1": {"mem": "1G"}})
    result = plan(view, job(1, tasks=5, hard={"mem": "1G"}))
    assert [g[0][0] for g in where(result).values()] == [
        "a.q@h0", "a.q@h0", "a.q@h0", "a.q@h1"]
    assert result.info[1] == [
        '(-l mem=1G) cannot run in queue "h0" because it offers only hc:mem=0.000',
        '(-l mem=1G) cannot run in queue "h1" because it offers only hc:mem=0.000']


# ---- queue instance states ----------------------------------------------------------------


def test_instances_in_states_are_dropped_with_grid_engine_messages() -> None:
    view = cell(qi("all.q@vm", 1), qi("dis.q@vm"), qi("sus.q@vm"), qi("err.q@vm"),
                qi("all.q@busy", thresholds={"np_load_avg": "1.75"}), qi("all.q@gone"),
                qi("ok.q@vm", 2),
                running=[Running(9, 1, {}, [("all.q@vm", 1)])],
                flags={"dis.q@vm": "d", "sus.q@vm": "s", "err.q@vm": "E"},
                loads={"busy": {"np_load_avg": "2.00"}}, down=["gone"])
    result = plan(view, job(1, tasks=3))
    assert result.global_info == [
        'queue instance "all.q@vm" dropped because it is full',
        'queue instance "dis.q@vm" dropped because it is disabled',
        'queue instance "sus.q@vm" dropped because it is suspended',
        'queue instance "err.q@vm" dropped because it is in error state',
        'queue instance "all.q@gone" dropped because it is temporarily not available',
        # Last: with queue_sort_method seqno, equal sequence numbers go by load. As
        # 8.1.9's scheduler says it, with the threshold reached (no job started there
        # lately: the value reported).
        'queue instance "all.q@busy" dropped because it is overloaded: '
        "np_load_avg=2.00 (no load adjustment) >= 1.75",
    ]
    assert [g[0][0] for g in where(result).values()] == ["ok.q@vm", "ok.q@vm"]
    assert result.info[1] == ['(-l slots=1) cannot run in queue "ok.q@vm" because it offers '
                              "only qc:slots=0.000000"]


def test_with_every_instance_dropped_8_1_9_says_so_after_them() -> None:
    """As a real 8.1.9 says it (run here) when its only queue is full, or disabled."""
    view = cell(qi("all.q@vm", 1), qi("dis.q@vm"), flags={"dis.q@vm": "d"},
                running=[Running(9, 1, {}, [("all.q@vm", 1)])])
    result = plan(view, job(1))
    assert result.global_info == [
        'queue instance "all.q@vm" dropped because it is full',
        'queue instance "dis.q@vm" dropped because it is disabled',
        "All queues dropped because of overload or full",
    ]
    assert not result.orders and not result.info.get(1)  # nothing of its own


def test_pe_job_on_a_full_host_as_in_the_transcript() -> None:
    """jobs.txt, job 6 (-pe mpi 3): host vm has slots=4, all.q@vm is full."""
    view = cell(qi("all.q@vm", 4, pe_list=["mpi"]), qi("short.q@vm", 2, pe_list=["mpi"]),
                host_values={"vm": {"slots": "4"}}, pes=[ParallelEnv("mpi", 99, FILL_UP)],
                running=[Running(3, 1, {}, [("all.q@vm", 4)], "mpi")])
    result = plan(view, job(6, pe="mpi", slots=(3, 3)))
    lines = result.global_info + result.info[6]
    assert lines == [
        'queue instance "all.q@vm" dropped because it is full',
        '(-l slots=1) cannot run in queue "vm" because it offers only hc:slots=0.000000',
        'cannot run in PE "mpi" because it only offers 0 slots',
    ]


def test_queue_consumable_reasons_as_in_the_transcript() -> None:
    """queues_pe.txt, job t02c: all.q has t02=2 and two t02=1 jobs run there."""
    running = [Running(n, 1, {"t02": "1"}, [("all.q@vm", 1)]) for n in (560, 561)]
    view = cell(qi("all.q@vm", 4, t02="2"), qi("short.q@vm", 2), qi("long.q@vm", 2, batch=True),
                running=running)
    result = plan(view, job(562, hard={"t02": "1"}))
    assert result.orders == []
    assert result.info[562] == [
        '(-l t02=1) cannot run in queue "all.q@vm" because it offers only qc:t02=0.000000',
        '(-l t02=1) cannot run in queue "short.q@vm" because job requests unknown resource '
        "(t02)",
        '(-l t02=1) cannot run in queue "long.q@vm" because job requests unknown resource '
        "(t02)",
    ]


def test_interactive_only_queues_take_no_batch_jobs() -> None:
    view = cell(qi("inter.q@vm", 2, batch=False))
    result = plan(view, job(1))
    assert result.info[1] == ['cannot run in queue instance "inter.q@vm" because it is not of '
                              "type batch"]


def test_a_rejected_category_shares_its_reasons_and_is_not_tried_again() -> None:
    view = cell(qi("all.q@h0", 1), global_values={"license": "1"})
    jobs = [job(n, hard={"license": "1"}) for n in range(1, 5)]
    result = plan(view, *jobs)
    assert [o.job_id for o in result.orders] == [1]
    why = ['(-l license=1) cannot run globally because it offers only gc:license=0.000000']
    assert result.info == {2: why, 3: why, 4: why}


def test_job_info_off_keeps_no_reasons() -> None:
    view = cell(qi("all.q@h0", 1), job_info=False)
    result = plan(view, job(1), job(2))
    assert len(result.orders) == 1 and result.info == {}


def test_immediate_jobs_that_cannot_start_are_reported() -> None:
    view = cell(qi("all.q@h0", 2))
    result = plan(view, job(1, immediate=True), job(2, immediate=True, hard={"license": "1"}),
                  job(3, tasks=3, immediate=True), job(4, immediate=True))
    assert [(o.job_id, o.task_id) for o in result.orders] == [(1, 1), (3, 1)]
    assert result.unschedulable == [2, 4]  # job 3 started a task, so it is not reported


def test_planning_with_and_without_category_caches_agree_on_a_busy_cell() -> None:
    hosts = range(8)
    view = cell(*(qi(f"{q}@h{i}", 2 + i % 3, pe_list=["mpi", "smp"]) for q in ("a.q", "b.q")
                  for i in hosts),
                global_values={"license": "12"},
                host_values={f"h{i}": {"mem": f"{2 + i % 4}G", "arch": "lx-amd64"
                                       if i % 2 else "lx-arm64"} for i in hosts},
                pes=[ParallelEnv("mpi", 20, FILL_UP), ParallelEnv("smp", 99, PE_SLOTS)])
    shapes: list[dict[str, Any]] = [
        {"hard": {"mem": "1G"}}, {"hard": {"license": "2", "arch": "lx-amd64"}},
        {"pe": "mpi", "slots": (2, 6), "hard": {"mem": "512M"}}, {"soft": {"mem": "2G"}},
        {"pe": "smp", "slots": (2, 4)}, {"queues": ["b.q"], "hard": {"license": "1"}},
    ]
    jobs = [job(n, priority=n % 3, tasks=1 + n % 2, **shapes[n % len(shapes)])
            for n in range(1, 61)]
    result = plan(view, *jobs)
    assert len(result.orders) >= 15
    reference = uncached(view)
    assert result.orders == reference.orders
    assert set(result.info) == set(reference.info)


# ---- verify: qsub -w v / -w p -------------------------------------------------------------


def test_verify_names_why_a_job_could_never_run() -> None:
    """jobs.txt: `qsub -w v -l license=10` with license=5 globally."""
    conf = cell(qi("all.q@vm", 4), global_values={"license": "5"}).conf
    assert verify(conf, {}, [], job(15, hard={"license": "10"})) == [
        "(-l license=10) cannot run globally because it offers only gc:license=5.000000"]
    assert verify(conf, {}, [], job(16)) is None


def test_verify_against_the_running_tasks_is_qsub_w_p() -> None:
    conf = cell(qi("all.q@vm", 2), global_values={"license": "5"}).conf
    running = [Running(1, 1, {"license": "4"}, [("all.q@vm", 1)])]
    assert verify(conf, {}, [], job(2, hard={"license": "2"})) is None
    assert verify(conf, {}, running, job(2, hard={"license": "2"})) == [
        "(-l license=2) cannot run globally because it offers only gc:license=1.000000"]


def test_max_aj_instances_bounds_the_running_tasks_of_an_array() -> None:
    """The global max_aj_instances: no more of an array's tasks run at once (those
    running already count), the rest wait with 8.1.9's reason, and other jobs go on."""
    view = cell(qi("all.q@h1", slots=10),
                running=[Running(1, 1, {}, [("all.q@h1", 1)], "")])
    view.conf = msgspec.structs.replace(view.conf, max_aj_instances=3)
    result = plan(view, job(1, tasks=6), job(2, tasks=4))
    assert sorted(where(result)) == [(1, 1), (1, 2), (2, 1), (2, 2), (2, 3)]
    assert result.info[1] == result.info[2] == [
        "not all array tasks may be started due to 'max_aj_instances'"]
    view.conf = msgspec.structs.replace(view.conf, max_aj_instances=0)  # no limit
    assert len(plan(view, job(1, tasks=6), job(2, tasks=4)).orders) == 9


def test_a_jobs_tc_bounds_its_running_tasks_below_max_aj_instances() -> None:
    """qsub -tc: the lower of the job's own limit and max_aj_instances holds, with the
    same reason (8.1.9 names max_aj_instances for both); a cycle gone on with for new
    jobs (they arrive after one that counted nothing) counts for a new -tc job too."""
    view = cell(qi("all.q@h1", slots=10),
                running=[Running(1, 1, {}, [("all.q@h1", 1)], "")])
    view.conf = msgspec.structs.replace(view.conf, max_aj_instances=3)
    limited = msgspec.structs.replace(job(1, tasks=6), task_concurrency=2)
    result = plan(view, limited, job(2, tasks=4))
    assert sorted(where(result)) == [(1, 1), (2, 1), (2, 2), (2, 3)]  # one more of job 1
    assert result.info[1] == ["not all array tasks may be started due to 'max_aj_instances'"]
    view.conf = msgspec.structs.replace(view.conf, max_aj_instances=0)
    assert sorted(where(plan(view, limited))) == [(1, 1)]
    planner = Planner()
    view.running, view.jobs = {}, {3: job(3, hard={"license": "1"})}  # cannot start
    view.conf = msgspec.structs.replace(view.conf, global_values={"license": "0"},
                                        job_info=False)
    assert planner.plan(view, 100.0).orders == []
    view.jobs[4] = msgspec.structs.replace(job(4, tasks=5), task_concurrency=2)
    assert sorted(where(planner.plan(view, 101.0))) == [(4, 1), (4, 2)]


def test_plan_conf_reads_max_aj_instances() -> None:
    state = MasterState()
    initial_config(state, CellConfig(hosts=["h1"], slots=1))
    assert plan_conf(state.config).max_aj_instances == 2000  # Grid Engine's default


def test_a_job_is_planned_from_its_a_time_on_and_a_deadline_raises_its_urgency() -> None:
    """qsub -a: not planned (nor ordered) before its time; qsub -dl: the deadline's
    contribution, weight_deadline over the seconds left, puts it first."""
    view = cell(qi("all.q@vm", 1))
    view.conf = msgspec.structs.replace(view.conf, weight_priority=0.0, weight_urgency=1.0)
    later = msgspec.structs.replace(job(1), start_time=150.0)
    assert plan(view, later).orders == []
    assert [o.job_id for o in Planner().plan(view, 150.0).orders] == [1]
    urgent = msgspec.structs.replace(job(3), deadline=200.0)
    view.jobs = {2: job(2), 3: urgent}
    assert [j.job_id for j in Planner().order(view, 100.0)] == [3, 2]

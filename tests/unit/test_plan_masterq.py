"""A parallel job's master queue (qsub -masterq) in the planner.

The one-host cases are those seen on the real 8.1.9 started here with
reference/sge-8.1.9/start.sh: queues all.q and big.q of 4 slots on host vm (all.q first in
planning order), PEs mpi ($pe_slots) and fill ($fill_up). There the master task took one
slot of the master queue and the other slots went where the rule put them, all.q first;
an instance of the master list outside the -q list took the master task and nothing more.
"""

from __future__ import annotations

import msgspec

from gridd.model.ar import ArBooking
from gridd.model.cluster import Running
from gridd.model.pe import FILL_UP, PE_SLOTS, ROUND_ROBIN, ParallelEnv
from gridd.model.planning import SchedJob
from gridd.sched.plan import Planner
from gridd.sched.view import SchedView
from tests.unit.test_plan import cell, plan, qi, uncached, where


def vm(*running: Running) -> SchedView:
    return cell(qi("all.q@vm", 4, pe_list=["mpi", "fill"], h_rt="INFINITY"),
                qi("big.q@vm", 4, pe_list=["mpi", "fill"], h_rt="INFINITY"),
                pes=[ParallelEnv("mpi", 8, PE_SLOTS), ParallelEnv("fill", 8, FILL_UP)],
                running=running)


def pe_job(job_id: int, pe: str, slots: int | tuple[int, int], masterq: list[str],
           queues: list[str] | None = None, **more: object) -> SchedJob:
    low, high = (slots, slots) if isinstance(slots, int) else slots
    return SchedJob(job_id=job_id, pending=[1], priority=0, submit_time=float(job_id),
                      pe=pe, pe_min=low, pe_max=high, master_queues=masterq,
                      queues=queues or [], **more)  # type: ignore[arg-type]


def test_the_master_task_takes_one_slot_of_the_master_queue_as_in_8_1_9() -> None:
    # Job 56 of the session holds 2 slots of all.q: job 57 (-pe mpi 2 -masterq big.q)
    # ran its master task in big.q and its slave in all.q.
    view = vm(Running(56, 1, {}, [("all.q@vm", 2)], "mpi"))
    assert where(plan(view, pe_job(57, "mpi", 2, ["big.q"]))) == {
        (57, 1): [("big.q@vm", 1), ("all.q@vm", 1)]}
    # On the empty host, -pe fill 6 -masterq big.q: master and one slave in big.q, four
    # slaves in all.q.
    assert where(plan(vm(), pe_job(60, "fill", 6, ["big.q"]))) == {
        (60, 1): [("big.q@vm", 2), ("all.q@vm", 4)]}
    # Without -masterq nothing changes: all.q first.
    assert where(plan(vm(), pe_job(61, "fill", 6, []))) == {
        (61, 1): [("all.q@vm", 4), ("big.q@vm", 2)]}


def test_a_master_queue_outside_the_q_list_takes_the_master_task_alone() -> None:
    view = vm(Running(62, 1, {}, [("all.q@vm", 2)], "mpi"))
    # -pe fill 2 -q all.q -masterq big.q: master in big.q, the slave in all.q.
    assert where(plan(view, pe_job(59, "fill", 2, ["big.q"], ["all.q"]))) == {
        (59, 1): [("big.q@vm", 1), ("all.q@vm", 1)]}
    # -pe fill 4 the same way: all.q has 2 slots left and big.q serves the master only,
    # so 3 are offered; 8.1.9 said so, and nothing about big.q's not being in -q.
    result = plan(view, pe_job(63, "fill", 4, ["big.q"], ["all.q"]))
    assert result.orders == []
    assert result.info[63] == ['cannot run in PE "fill" because it only offers 3 slots']
    # With -masterq all.q too, big.q is out, as 8.1.9 says.
    result = plan(view, pe_job(63, "fill", 4, ["all.q"], ["all.q"]))
    assert result.info[63] == [
        'cannot run in queue "big.q" because it is not contained in its hard queue list (-q)',
        'cannot run in PE "fill" because it only offers 2 slots']


def test_a_full_master_queue_keeps_the_job_waiting() -> None:
    view = vm(Running(63, 1, {}, [("all.q@vm", 4)], "fill"))
    result = plan(view, pe_job(64, "mpi", 2, ["all.q"]))
    assert result.orders == []
    assert result.global_info == ['queue instance "all.q@vm" dropped because it is full']
    assert result.info[64] == ['cannot run in PE "mpi" because it only offers 0 slots']
    assert where(plan(view, pe_job(66, "fill", 2, ["big.q@vm"]))) == {
        (66, 1): [("big.q@vm", 2)]}


def _hosts(rule: str, *slots: int) -> SchedView:
    """Hosts h0, h1, ... with a queue a.q each and, on the last host, a queue m.q of 2 slots:
    the one master queue."""
    last = len(slots) - 1
    return cell(*(qi(f"a.q@h{i}", n, pe_list=["pe"]) for i, n in enumerate(slots)),
                qi(f"m.q@h{last}", 2, seq_no=1, pe_list=["pe"]),
                pes=[ParallelEnv("pe", 99, rule)])


def test_each_rule_spreads_the_other_slots_as_without_a_master_queue() -> None:
    # $fill_up: the master on h2's m.q, the others filling h0, h1, h2 in order.
    assert where(plan(_hosts(FILL_UP, 2, 3, 3), pe_job(1, "pe", 6, ["m.q"]))) == {
        (1, 1): [("m.q@h2", 1), ("a.q@h0", 2), ("a.q@h1", 3)]}
    # $round_robin: one per host in turn for the five others.
    assert where(plan(_hosts(ROUND_ROBIN, 2, 3, 3), pe_job(1, "pe", 6, ["m.q"]))) == {
        (1, 1): [("m.q@h2", 1), ("a.q@h0", 2), ("a.q@h1", 2), ("a.q@h2", 1)]}
    # $pe_slots: everything on the master's host, though h0 has more room.
    assert where(plan(_hosts(PE_SLOTS, 6, 3), pe_job(1, "pe", (2, 8), ["m.q"]))) == {
        (1, 1): [("m.q@h1", 2), ("a.q@h1", 3)]}
    # An integer rule: 2 on each host, the master's among them.
    assert where(plan(_hosts("2", 2, 3, 3), pe_job(1, "pe", 4, ["m.q"]))) == {
        (1, 1): [("m.q@h2", 1), ("a.q@h2", 1), ("a.q@h0", 2)]}


def test_the_largest_count_wins_among_master_instances() -> None:
    """$pe_slots with a range: the master list names a queue on both hosts; h1 can give
    more slots, so its master instance leads, though h0's comes first."""
    view = cell(qi("a.q@h0", 1, pe_list=["pe"]), qi("a.q@h1", 4, pe_list=["pe"]),
                pes=[ParallelEnv("pe", 99, PE_SLOTS)])
    result = plan(view, pe_job(1, "pe", (1, 4), ["a.q"]))
    assert where(result) == {(1, 1): [("a.q@h1", 4)]}
    assert uncached(view).orders == result.orders


def test_a_reservation_waits_for_the_master_queue() -> None:
    """big.q is busy until 500, all.q free: a -R y job that must lead from big.q is
    reserved for 500 and keeps all.q's slots from a long job meanwhile; a short one runs."""
    view = vm(Running(1, 1, {"h_rt": "400"}, [("big.q@vm", 4)], "fill", start=100.0))
    view.conf = msgspec.structs.replace(view.conf, max_reservation=5, duration_offset=0.0)
    wanted = pe_job(2, "fill", 4, ["big.q"], hard={"h_rt": "100"}, reserve=True)
    long = pe_job(3, "fill", 4, [], hard={"h_rt": "1000"})
    short = SchedJob(job_id=4, pending=[1], priority=0, submit_time=4.0,
                       hard={"h_rt": "100"})
    view.jobs = {j.job_id: j for j in (wanted, long, short)}
    result = Planner().plan(view, 100.0)
    assert result.reserved[2] == (500.0, [("big.q@vm", 1), ("all.q@vm", 3)], [])
    assert where(result) == {(4, 1): [("all.q@vm", 1)]}


def test_a_job_in_an_advance_reservation_leads_from_its_master_list() -> None:
    """The AR holds 2 slots of each queue: the job's master task takes big.q's, the other
    slot all.q's, first in planning order."""
    view = vm()
    view.ars = {7: ArBooking(7, 50.0, 1000.0, [("all.q@vm", 2), ("big.q@vm", 2)], {},
                             "fill", usable=True)}
    result = plan(view, pe_job(1, "fill", 2, ["big.q"], ar=7))
    assert where(result) == {(1, 1): [("big.q@vm", 1), ("all.q@vm", 1)]}

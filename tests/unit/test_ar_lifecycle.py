"""Advance reservations in the pure master core: qrsub, qrdel, the w -> r -> x lifecycle on
time, qsub -ar, and how the planner treats AR jobs and the jobs around ARs.

No daemon, no socket, no sleep: `gridd.master.ars` and `Master` are called with an explicit
`now`, and dispatch cycles are `Planner.plan` over the master's `sched_state()`. What is
checked is spec/advance-reservation.txt (5.2.2: granting, arusers, max_advance_reservations,
window, resource quotas; 5.2.3.1: states; 5.3.2: job submission and scheduling), with the
messages of reference/sge-8.1.9/transcripts/advance_reservation.txt where it shows them.

The cells have enough hosts that every AR of a test can have an instance of its own, except
where a test is about sharing one.
"""

from __future__ import annotations

import pytest

from gridd import protocol as p
from gridd.master import ars
from gridd.master.core import Master
from gridd.master.state import Effects
from gridd.model.ar import MAX_AR_ID, ArSpec
from gridd.model.ar_lifecycle import DELETED, EXITED, RUNNING, WAITING
from gridd.model.config import Userset
from gridd.model.rqs import Filter, Limit, Rule, RuleSet
from gridd.model.task_lifecycle import DELETING, DONE, PENDING
from gridd.sched.info import Told
from gridd.sched.plan import Plan, Planner
from gridd.sched.view import SchedView
from tests.unit.test_master_core import make_master, spec

NOW = 1_795_327_142.0  # 2026-11-22 05:59:02 UTC, as in the transcript
HOUR = 3600.0
LIMIT_MSG = "rejected: only 1 advance reservations are allowed per cluster"


# ---- helpers -------------------------------------------------------------------------------

REPORTING = "accounting=true reporting=true flush_time=00:00:15 joblog=false sharelog=00:00:00"


def master(hosts: int = 2, slots: int = 2, reporting: bool = True) -> Master:
    """A master with registered execds (test_master_core.make_master) that writes the
    reporting file's AR records (reporting_params reporting=true) unless told not to."""
    m = make_master(hosts=hosts, slots=slots)
    if reporting:
        m.s.config.conf.reporting_params = REPORTING
    return m


def ar_spec(**kw) -> ArSpec:
    base: dict = dict(owner="root", group="root", duration=HOUR)
    base.update(kw)
    return ArSpec(**base)


def qrsub(m: Master, now: float = NOW, **kw) -> tuple[p.Msg, Effects]:
    fx = Effects()
    return ars.submit(m, p.ArSubmit(spec=ar_spec(**kw)), now, fx), fx


def grant(m: Master, now: float = NOW, **kw) -> int:
    reply, _ = qrsub(m, now, **kw)
    assert isinstance(reply, p.Ok), reply
    (line,) = reply.lines
    assert line.startswith("Your advance reservation ") and line.endswith(" has been granted")
    return int(line.split()[3])


def qrdel(m: Master, *targets: str, user: str = "root", now: float = NOW
          ) -> tuple[p.Ok, Effects]:
    fx = Effects()
    reply = ars.delete(m, p.ArDelete(targets=list(targets), user=user), now, fx)
    assert isinstance(reply, p.Ok)
    return reply, fx


def tick(m: Master, now: float) -> Effects:
    fx = Effects()
    m.tick(now, fx)
    return fx


def records(fx: Effects) -> list[tuple[int, str, str, str]]:
    """(AR, kind, state, event) of each reporting record the effects carry."""
    return [(r.ar.ar_id, r.kind, r.state, r.event) for _, r in fx.reports]


def qsub(m: Master, now: float = NOW, **kw) -> int:
    reply = m.submit(spec(**kw), now, Effects())
    assert isinstance(reply, p.Submitted), reply
    return reply.job_id


def refused(m: Master, now: float = NOW, **kw) -> str:
    before = (dict(m.s.jobs), m.s.next_job_id)
    reply = m.submit(spec(**kw), now, Effects())
    assert isinstance(reply, p.Error), reply
    assert (dict(m.s.jobs), m.s.next_job_id) == before  # nothing submitted, no id used
    return reply.text


def plan_now(m: Master, now: float) -> Plan:
    view = SchedView()
    view.reset(m.sched_state())
    return Planner().plan(view, now)


def cycle(m: Master, now: float) -> tuple[Plan, list[tuple[int, list[tuple[str, int]]]]]:
    """One dispatch cycle applied by the master: the plan and the tasks it started."""
    plan = plan_now(m, now)
    fx = Effects()
    m.dispatch(Told().dispatch(plan), now, fx)
    starts = [(msg.job.job_id, msg.granted) for _, msg in fx.to_execd
              if isinstance(msg, p.StartTask)]
    return plan, starts


def finish(m: Master, job_id: int, now: float) -> Effects:
    fx = Effects()
    task = m.s.jobs[job_id].tasks[0]
    m.task_finished(p.TaskReport(job_id=job_id, task_id=0, host=task.host,
                                 start_time=task.start_time, end_time=now, exit_status=0),
                    now, fx)
    return fx


def gone(m: Master, job_id: int) -> bool:
    """Whether a job is over: done, or (never having run, nothing to account) forgotten."""
    job = m.s.jobs.get(job_id)
    return job is None or all(t.state == DONE for t in job.tasks.values())


def kills(fx: Effects) -> list[tuple[str, int]]:
    return [(host, msg.job_id) for host, msg in fx.to_execd if isinstance(msg, p.KillTask)]


def unchanged(m: Master) -> None:
    """No AR made, no id used, nothing to report."""
    assert m.s.ars == {} and m.s.next_ar_id == 1 and m.s.reports == {}


# ---- qrsub -----------------------------------------------------------------------------------


def test_a_manager_is_granted_an_ar_that_runs_from_now() -> None:
    m = master(hosts=2, slots=2)
    reply, fx = qrsub(m, duration=600)
    assert reply == p.Ok(lines=["Your advance reservation 1 has been granted"])
    ar = m.s.ars[1]
    assert (ar.state, ar.start, ar.end, ar.submission_time) == (RUNNING, NOW, NOW + 600, NOW)
    assert sum(n for _, n in ar.granted) == 1 and ar.granted[0][0].startswith("all.q@")
    assert records(fx) == [(1, "new_ar", "", ""), (1, "ar_attr", "", ""),
                           (1, "ar_log", RUNNING, "START TIME REACHED")]
    assert fx.reports[-1][1].message == "start time of AR reached"
    # every record is in the durable outbox under its sequence number
    assert {seq: r for seq, r in fx.reports} == m.s.reports
    assert fx.dirty_ars == {1} and fx.counters_changed
    assert m.s.next_ar_id == 2
    (booking,) = m.sched_state().ars
    assert (booking.ar_id, booking.start, booking.end, booking.usable) == (1, NOW, NOW + 600,
                                                                           True)


def test_an_ar_for_later_waits() -> None:
    m = master(hosts=2, slots=2)
    ar_id = grant(m, start=NOW + HOUR, duration=HOUR, pe_name="mpi", pe_min=3, pe_max=3)
    ar = m.s.ars[ar_id]
    assert (ar.state, ar.start, ar.end, ar.granted_pe) == (WAITING, NOW + HOUR, NOW + 2 * HOUR,
                                                           "mpi")
    assert sum(n for _, n in ar.granted) == 3
    assert [(r.kind, r.state) for r in m.s.reports.values()] == [("new_ar", ""), ("ar_attr", "")]
    (booking,) = m.sched_state().ars
    assert not booking.usable  # its jobs may not run before it starts


def test_only_managers_and_arusers_may_reserve() -> None:
    m = master(hosts=2, slots=2)
    reply, fx = qrsub(m, owner="alice", group="staff")
    assert reply == p.Error(text='denied: "alice" must be manager or in userset "arusers"')
    unchanged(m)
    assert not fx.reports and not fx.dirty_ars
    m.s.config.usersets["arusers"].entries.append("alice")
    ar_id = grant(m, owner="alice", group="staff")
    assert m.s.ars[ar_id].spec.owner == "alice"


def test_max_advance_reservations_refuses_with_exit_status_25() -> None:
    m = master(hosts=3, slots=1)
    m.s.config.conf.max_advance_reservations = "1"
    m.s.config.usersets["arusers"].entries.append("alice")
    first = grant(m)
    for owner in ("root", "alice"):
        reply, fx = qrsub(m, owner=owner, duration=60)
        assert reply == p.Error(text=LIMIT_MSG, code=25)
        assert not fx.reports
    assert list(m.s.ars) == [first] and m.s.next_ar_id == 2
    # Changing the limit takes effect at once.
    m.s.config.conf.max_advance_reservations = "2"
    grant(m)
    reply, _ = qrsub(m)
    assert reply == p.Error(text="rejected: only 2 advance reservations are allowed per "
                                 "cluster", code=25)
    m.s.config.conf.max_advance_reservations = "0"  # 0: unlimited
    grant(m)
    assert len(m.s.ars) == 3


def test_a_deleted_ar_leaves_room_under_max_advance_reservations() -> None:
    m = master(hosts=2, slots=1)
    m.s.config.conf.max_advance_reservations = "1"
    grant(m)
    qrdel(m, "1")
    assert grant(m) == 2


@pytest.mark.parametrize("window", [
    dict(start=NOW + HOUR, end=NOW + 60, duration=None),  # end before start
    dict(start=NOW + HOUR, end=NOW + HOUR, duration=None),  # empty window
    dict(start=NOW + HOUR, end=NOW + 2 * HOUR, duration=2 * HOUR),  # -a, -e, -d disagree
    dict(start=NOW + HOUR, end=NOW + 2 * HOUR, duration=60),
    dict(start=NOW + HOUR, duration=None),  # neither -e nor -d
    dict(duration=None),
    dict(end=NOW - 60, duration=None),  # ends before it starts (now)
    dict(duration=0),
], ids=["end-before-start", "empty", "disagree-longer", "disagree-shorter", "start-only",
        "nothing", "end-in-past", "zero-duration"])
def test_window_checks_refuse_and_change_nothing(window) -> None:
    m = master(hosts=2, slots=2)
    reply, fx = qrsub(m, **window)
    assert isinstance(reply, p.Error) and reply.code == 1, reply
    unchanged(m)
    assert not fx.reports and not fx.dirty_ars


def test_a_start_in_the_past_is_refused_as_grid_engine_says() -> None:
    m = master(hosts=2, slots=2)
    reply, _ = qrsub(m, start=NOW - HOUR, duration=600)
    assert reply == p.Error(text="start time is in the past")
    unchanged(m)


@pytest.mark.parametrize("window,start,end", [
    (dict(start=NOW + HOUR, end=NOW + 2 * HOUR, duration=None), NOW + HOUR, NOW + 2 * HOUR),
    (dict(start=NOW + HOUR, duration=600), NOW + HOUR, NOW + HOUR + 600),
    (dict(end=NOW + 600, duration=None), NOW, NOW + 600),  # -e alone: from now
    (dict(start=NOW + HOUR, end=NOW + 2 * HOUR, duration=HOUR), NOW + HOUR, NOW + 2 * HOUR),
    (dict(start=NOW, duration=60), NOW, NOW + 60),  # -a now
])
def test_any_two_of_start_end_and_duration_make_the_window(window, start, end) -> None:
    m = master(hosts=2, slots=2)
    ar = m.s.ars[grant(m, **window)]
    assert (ar.start, ar.end, ar.duration) == (start, end, end - start)
    assert ar.state == (RUNNING if start <= NOW else WAITING)


def test_what_the_cluster_cannot_hold_is_refused() -> None:
    m = master(hosts=2, slots=2)
    for kw, text in [
        (dict(pe_name="mpi", pe_min=5, pe_max=5), "advance_reservation: no suitable queues"),
        (dict(pe_name="smp", pe_min=3, pe_max=3), "advance_reservation: no suitable queues"),
        (dict(queues=["nosuch.q"]), 'Job was rejected because job requests unknown queue '
                                    '"nosuch.q"'),
        (dict(pe_name="nosuch", pe_min=2, pe_max=2),
         'job rejected: the requested parallel environment "nosuch" does not exist'),
    ]:
        reply, _ = qrsub(m, **kw)
        assert reply == p.Error(text=text), kw
    unchanged(m)


def test_qrsub_w_v_only_verifies() -> None:
    m = master(hosts=2, slots=2)
    reply, fx = qrsub(m, verify="v", pe_name="mpi", pe_min=4, pe_max=4)
    assert reply == p.Ok(lines=["verification: found suitable queue(s)"])  # 8.1.9's words
    reply, fx = qrsub(m, verify="v", pe_name="mpi", pe_min=5, pe_max=5)
    assert reply == p.Error(text="verification: no suitable queues")
    unchanged(m)
    assert not fx.reports


@pytest.mark.parametrize(("window", "said"), [  # as 8.1.9 says them (checked there)
    (dict(start=NOW + HOUR, duration=None), 'missing value for "end time or duration" in '
                                            "advance reservation request"),
    (dict(duration=0), 'missing value for "end time or duration" in advance reservation '
                       "request"),
    (dict(start=NOW + HOUR, end=NOW + 2 * HOUR, duration=60),
     "difference between end and start time does not correspond to duration"),
    (dict(start=NOW + HOUR, end=NOW + HOUR - 60, duration=None),
     "start time is later than end time"),
    (dict(start=NOW - HOUR, duration=60), "start time is in the past"),
    (dict(name="1x"), 'denied: "1x" is not a valid object name (cannot start with a digit)'),
    (dict(name="a:b"), "Colon (':') not allowed in objectname"),  # qrsub -N, as qsub -N
    (dict(name="a@b*"), "At ('@') not allowed in objectname"),
])
def test_a_window_that_is_none(window, said) -> None:  # (and a name that is none)
    m = master(hosts=2, slots=2)
    reply, _ = qrsub(m, **window)
    assert reply == p.Error(text=said)
    unchanged(m)


def test_an_ar_is_not_granted_where_it_would_overbook() -> None:
    """One host, two slots: two one-slot ARs over the same hour fill it, a third is
    refused; one over another hour still fits."""
    m = master(hosts=1, slots=2)
    grant(m, start=NOW + HOUR, duration=HOUR)
    grant(m, start=NOW + HOUR, duration=HOUR)
    reply, _ = qrsub(m, start=NOW + HOUR + 600, duration=60)
    assert reply == p.Error(text="advance_reservation: no suitable queues")
    grant(m, start=NOW + 2 * HOUR, duration=HOUR)  # from the end of the others


def test_ars_share_an_instance_they_do_not_fill() -> None:
    """The transcript granted ARs 3 and 4 on all.q@vm, which ARs 1 and 2 already held a
    slot each of: ARs are limited by capacity, not kept apart. Here a second one-slot AR
    over the same window takes the instance's second slot, and one at another time the
    same instance."""
    m = master(hosts=1, slots=2)
    grant(m, start=NOW + HOUR, duration=HOUR)
    grant(m, start=NOW + HOUR, duration=HOUR)
    assert [ar.granted for ar in m.s.ars.values()] == [[("all.q@node1", 1)]] * 2


def test_an_ar_for_another_time_may_use_the_same_slots() -> None:
    m = master(hosts=1, slots=1)
    grant(m, start=NOW + HOUR, duration=HOUR)
    grant(m, start=NOW + 3 * HOUR, duration=HOUR)  # after the first ended
    grant(m, duration=HOUR)  # before the first starts
    assert len(m.s.ars) == 3


def test_no_ar_on_an_instance_running_a_job_without_h_rt() -> None:
    """5.2.2.1.3 (2): such a job might still run when the AR starts."""
    m = master(hosts=2, slots=2)
    forever = qsub(m)
    _, starts = cycle(m, NOW)
    ((_, [(where, _)]),) = starts
    ar = m.s.ars[grant(m, start=NOW + HOUR)]
    assert [name for name, _ in ar.granted] != [where]
    # Beside the first AR the other host has one slot left: two need the unlimited one's.
    reply, _ = qrsub(m, start=NOW + HOUR, pe_name="mpi", pe_min=2, pe_max=2)
    assert reply == p.Error(text="advance_reservation: no suitable queues")
    assert m.s.jobs[forever].tasks[0].state != DONE


# ---- time: w -> r -> x ---------------------------------------------------------------------


def test_tick_starts_a_waiting_ar_at_its_start_time() -> None:
    m = master(hosts=2, slots=2)
    ar_id = grant(m, start=NOW + HOUR)
    fx = tick(m, NOW + HOUR - 1)
    assert m.s.ars[ar_id].state == WAITING and not fx.reports and not fx.dirty_ars
    fx = tick(m, NOW + HOUR)
    assert m.s.ars[ar_id].state == RUNNING
    assert records(fx) == [(ar_id, "ar_log", RUNNING, "START TIME REACHED")]
    assert fx.reports[0][1].message == "start time of AR reached"
    assert fx.reports[0][1].time == NOW + HOUR
    assert fx.dirty_ars == {ar_id}
    assert m.sched_state().ars[0].usable
    fx = tick(m, NOW + HOUR + 30)  # once only
    assert not fx.reports and m.s.ars[ar_id].state == RUNNING


def test_tick_catches_up_a_start_and_end_it_slept_through() -> None:
    m = master(hosts=2, slots=2)
    ar_id = grant(m, start=NOW + HOUR, duration=600)
    fx = tick(m, NOW + 2 * HOUR)
    assert records(fx) == [(ar_id, "ar_log", RUNNING, "START TIME REACHED"),
                           (ar_id, "ar_log", EXITED, "TERMINATED"),
                           (ar_id, "ar_acct", "", "")]
    assert ar_id not in m.s.ars and fx.gone_ars == {ar_id}


def test_an_ar_without_jobs_goes_at_its_end() -> None:
    m = master(hosts=2, slots=2)
    ar_id = grant(m, duration=600, pe_name="mpi", pe_min=3, pe_max=3)
    granted = list(m.s.ars[ar_id].granted)
    assert not tick(m, NOW + 599).reports
    fx = tick(m, NOW + 600)
    assert records(fx)[0] == (ar_id, "ar_log", EXITED, "TERMINATED")
    assert fx.reports[0][1].message == "end time of AR reached"
    acct = [(r.queue, r.host, r.slots) for _, r in fx.reports if r.kind == "ar_acct"]
    assert acct == [(*name.split("@"), n) for name, n in granted]
    assert ar_id not in m.s.ars and fx.gone_ars == {ar_id}
    assert m.sched_state().ars == []
    assert not [r for _, r in fx.reports if r.event == "DELETED"]


def test_at_its_end_an_ar_removes_its_pending_jobs_and_stops_its_running_ones() -> None:
    m = master(hosts=1, slots=2)
    ar_id = grant(m, duration=HOUR, users=["alice"])  # one slot of two
    (instance, _), = m.s.ars[ar_id].granted
    inside = qsub(m, ar=ar_id)
    waiting = qsub(m, ar=ar_id)  # no slot left in the AR for it
    other = qsub(m, hard_resources={"h_rt": str(int(3 * HOUR))})  # the slot beside the AR
    _, starts = cycle(m, NOW + 1)
    assert sorted(job for job, _ in starts) == [inside, other]
    assert dict(starts)[inside] == [(instance, 1)]

    fx = tick(m, NOW + HOUR)
    ar = m.s.ars[ar_id]
    assert ar.state == EXITED
    assert records(fx) == [(ar_id, "ar_log", EXITED, "TERMINATED"), (ar_id, "ar_acct", "", "")]
    acct = fx.reports[1][1]
    assert (acct.queue, acct.host, acct.slots) == ("all.q", "node1", 1)
    assert gone(m, waiting) and (waiting, 0) in fx.sched_removed
    assert kills(fx) == [("node1", inside)]  # the job outside the AR goes on
    assert m.s.jobs[inside].tasks[0].state == DELETING
    assert m.s.jobs[other].tasks[0].state not in (DONE, DELETING)
    assert m.sched_state().ars == []  # the scheduler no longer keeps its slots apart

    # It stays (x) while its job is still there, and says so once.
    fx = tick(m, NOW + HOUR + 10)
    assert ar_id in m.s.ars and not fx.reports and not fx.gone_ars
    finish(m, inside, NOW + HOUR + 20)
    fx = tick(m, NOW + HOUR + 21)
    assert ar_id not in m.s.ars and fx.gone_ars == {ar_id}
    assert not fx.reports  # no DELETED record for an AR that ended


def test_without_reporting_the_lifecycle_writes_no_records() -> None:
    m = master(hosts=2, slots=2, reporting=False)
    reply, fx = qrsub(m, start=NOW + 60, duration=600)
    assert isinstance(reply, p.Ok)
    fx.reports += tick(m, NOW + 60).reports + tick(m, NOW + 660).reports
    assert m.s.ars == {} and not fx.reports and m.s.reports == {}


# ---- qrdel -----------------------------------------------------------------------------------


def test_qrdel_removes_an_ar_without_jobs_at_once() -> None:
    m = master(hosts=3, slots=1)
    first = grant(m, start=NOW + HOUR)
    second = grant(m)
    reply, fx = qrdel(m, str(first))
    assert reply == p.Ok(lines=[f"root has deleted advance_reservation {first}"])
    assert first not in m.s.ars and fx.gone_ars == {first}
    assert records(fx) == [(first, "ar_log", DELETED, "DELETED"), (first, "ar_acct", "", "")]
    assert fx.reports[0][1].message == "AR deleted"
    reply, fx = qrdel(m, str(second), "99")
    assert set(reply.lines) == {f"root has deleted advance_reservation {second}",
                                'denied: advance_reservation "99" does not exist'}
    assert reply.code == 1
    assert m.s.ars == {}


def test_qrdel_answers_in_the_order_the_ars_were_named() -> None:
    """5.1.3.3.2: ARs are deleted in the order given; the transcript's `qrdel 4 99`
    prints the deletion of 4 before the refusal of 99."""
    m = master(hosts=3, slots=1)
    grant(m)
    grant(m)
    reply, _ = qrdel(m, "2", "99", "1")
    assert reply == p.Ok(lines=["root has deleted advance_reservation 2",
                                'denied: advance_reservation "99" does not exist',
                                "root has deleted advance_reservation 1"], code=1)


def test_qrdel_by_name() -> None:
    m = master(hosts=3, slots=1)
    grant(m, name="night")
    grant(m, name="nightly")
    keep = grant(m, name="day")
    reply, _ = qrdel(m, "night*")
    assert reply.lines == ["root has deleted advance_reservation 1",
                           "root has deleted advance_reservation 2"]
    assert list(m.s.ars) == [keep]


def test_qrdel_of_an_ar_with_a_running_job_registers_it_for_deletion() -> None:
    m = master(hosts=2, slots=1)
    ar_id = grant(m, users=["alice"])
    running = qsub(m, ar=ar_id)
    pending = qsub(m, ar=ar_id)
    _, starts = cycle(m, NOW + 1)
    assert [job for job, _ in starts] == [running]
    reply, fx = qrdel(m, str(ar_id), now=NOW + 2)
    assert reply == p.Ok(lines=[f"root has registered the advance_reservation {ar_id} for "
                                "deletion"])
    assert m.s.ars[ar_id].state == DELETED
    assert [job for _, job in kills(fx)] == [running]
    assert gone(m, pending) and (pending, 0) in fx.sched_removed
    assert not fx.reports and not fx.gone_ars  # deleted once its jobs are gone
    assert m.sched_state().ars == []
    fx = tick(m, NOW + 3)
    assert ar_id in m.s.ars and m.s.ars[ar_id].state == DELETED
    finish(m, running, NOW + 4)
    fx = tick(m, NOW + 5)
    assert ar_id not in m.s.ars and fx.gone_ars == {ar_id}
    assert records(fx) == [(ar_id, "ar_log", DELETED, "DELETED"), (ar_id, "ar_acct", "", "")]
    # its end passing later changes nothing
    assert not tick(m, NOW + 2 * HOUR).reports


def test_qrdel_by_someone_else_is_refused() -> None:
    m = master(hosts=2, slots=1)
    m.s.config.usersets["arusers"].entries += ["alice", "bob"]
    ar_id = grant(m, owner="alice", group="staff")
    reply, fx = qrdel(m, str(ar_id), user="bob")
    assert reply == p.Ok(lines=["bob - you do not have the necessary privileges to delete the "
                                f'advance_reservation "{ar_id}"'], code=1)
    assert m.s.ars[ar_id].state == RUNNING and not fx.reports and not fx.dirty_ars
    reply, _ = qrdel(m, str(ar_id), user="alice")
    assert reply.lines == [f"alice has deleted advance_reservation {ar_id}"]
    assert m.s.ars == {}


def test_qrstat_query_selects_by_id_name_and_owner() -> None:
    m = master(hosts=3, slots=1)
    m.s.config.usersets["arusers"].entries.append("alice")
    grant(m, name="mine", owner="alice")
    grant(m, name="yours")
    reply = ars.query(m, p.QueryArs(), NOW)
    assert [ar.ar_id for ar in reply.ars] == [1, 2] and reply.now == NOW
    assert [ar.ar_id for ar in ars.query(m, p.QueryArs(ids=["y*"]), NOW).ars] == [2]
    assert [ar.ar_id for ar in ars.query(m, p.QueryArs(users=["alice"]), NOW).ars] == [1]
    assert [ar.ar_id for ar in ars.query(m, p.QueryArs(users=["*"]), NOW).ars] == [1, 2]


# ---- arseqnum --------------------------------------------------------------------------------


def test_ar_ids_wrap_from_9999999_to_1() -> None:
    m = master(hosts=3, slots=1)
    m.s.next_ar_id = MAX_AR_ID
    assert grant(m) == MAX_AR_ID
    assert m.s.next_ar_id == 1
    assert grant(m) == 1


def test_ar_ids_in_use_are_skipped() -> None:
    m = master(hosts=4, slots=1)
    assert (grant(m), grant(m)) == (1, 2)
    m.s.next_ar_id = MAX_AR_ID
    assert grant(m) == MAX_AR_ID
    assert m.s.next_ar_id == 3  # past 1 and 2, still held
    assert grant(m) == 3


# ---- qsub -ar --------------------------------------------------------------------------------


def test_qsub_ar_refuses_an_unknown_or_ended_ar() -> None:
    m = master(hosts=2, slots=1)
    assert refused(m, ar=99) == "Unable to run job: the advance reservation id 99 is invalid"
    ar_id = grant(m, users=["alice"], duration=600)
    qsub(m, ar=ar_id)  # keeps the AR in the master after its end
    cycle(m, NOW + 1)
    tick(m, NOW + 600)
    assert m.s.ars[ar_id].state == EXITED
    assert refused(m, NOW + 601, ar=ar_id) == (
        f"Unable to run job: the advance reservation id {ar_id} is invalid")


def test_qsub_ar_refuses_a_deleted_ar() -> None:
    m = master(hosts=2, slots=1)
    ar_id = grant(m, users=["alice"])
    qsub(m, ar=ar_id)
    cycle(m, NOW + 1)
    qrdel(m, str(ar_id))
    assert m.s.ars[ar_id].state == DELETED
    assert refused(m, ar=ar_id) == (
        f"Unable to run job: the advance reservation id {ar_id} is invalid")


def test_qsub_ar_refuses_a_run_time_longer_than_the_ar() -> None:
    m = master(hosts=2, slots=1)
    ar_id = grant(m, users=["alice"], start=NOW + HOUR, duration=HOUR)
    text = (f"Unable to run job: the job duration is longer than duration of the advance "
            f"reservation id {ar_id}")
    assert refused(m, ar=ar_id, hard_resources={"h_rt": "1:00:01"}) == text
    assert refused(m, ar=ar_id, hard_resources={"h_rt": "7200"}) == text
    qsub(m, ar=ar_id, hard_resources={"h_rt": "1:00:00"})
    # Once it runs, no longer than what is left of it.
    tick(m, NOW + HOUR)
    late = NOW + 2 * HOUR - 600
    assert refused(m, late, ar=ar_id, hard_resources={"h_rt": "1200"}) == text
    qsub(m, late, ar=ar_id, hard_resources={"h_rt": "600"})


def test_qsub_ar_refuses_users_outside_its_access_list() -> None:
    m = master(hosts=2, slots=1)
    m.s.config.usersets["staff"] = Userset("staff", entries=["carol"])
    ar_id = grant(m, users=["alice", "@staff"])
    assert refused(m, ar=ar_id, owner="bob") == (
        f'Unable to run job: the user "bob" has no access to the advance reservation id '
        f"{ar_id}")
    job = qsub(m, ar=ar_id, owner="alice")
    qsub(m, ar=ar_id, owner="carol")  # through the userset
    assert m.s.jobs[job].spec.ar == ar_id
    assert m.s.jobs[job].spec.ar_submission_time == NOW


def test_without_u_only_the_owner_may_use_the_ar() -> None:
    m = master(hosts=2, slots=1)
    m.s.config.usersets["arusers"].entries.append("alice")
    ar_id = grant(m, owner="alice", group="staff")
    qsub(m, ar=ar_id, owner="alice")
    assert "has no access to the advance reservation" in refused(m, ar=ar_id, owner="bob")


def test_qsub_ar_checks_the_job_against_the_ar_with_an_implicit_w_e() -> None:
    """5.3.2.1.1 (4): a job may not ask for more than the AR holds."""
    m = master(hosts=2, slots=2)
    ar_id = grant(m, users=["alice"], pe_name="mpi", pe_min=2, pe_max=2)
    assert refused(m, ar=ar_id, pe_name="mpi", pe_min=3, pe_max=3) == (
        "Unable to run job: error: no suitable queues")
    qsub(m, ar=ar_id, pe_name="mpi", pe_min=2, pe_max=2)
    qsub(m, ar=ar_id, pe_name="mpi", pe_min=3, pe_max=3, verify="n")  # -w n: accepted


# ---- scheduling ----------------------------------------------------------------------------


def test_an_ar_job_waits_for_its_ar_then_runs_only_inside_it() -> None:
    m = master(hosts=3, slots=2)
    ar_id = grant(m, users=["alice"], start=NOW + HOUR, duration=HOUR,
                  pe_name="mpi", pe_min=3, pe_max=3)
    held = dict(m.s.ars[ar_id].granted)
    assert sum(held.values()) == 3
    jobs = [qsub(m, ar=ar_id, hard_resources={"h_rt": "600"}) for _ in range(4)]

    plan, starts = cycle(m, NOW + 10)
    assert starts == []
    assert f"cannot run because advance reservation {ar_id} is not running" in plan.info[jobs[0]]

    tick(m, NOW + HOUR)
    _, starts = cycle(m, NOW + HOUR)
    assert sorted(job for job, _ in starts) == jobs[:3]  # as many as the AR holds
    used: dict[str, int] = {}
    for _, granted in starts:
        for name, n in granted:
            assert name in held
            used[name] = used.get(name, 0) + n
    assert used == held
    assert m.s.jobs[jobs[3]].tasks[0].state == PENDING

    # One ends: the last takes its slot, and only that one.
    first_where = dict(starts)[jobs[0]]
    finish(m, jobs[0], NOW + HOUR + 100)
    _, starts = cycle(m, NOW + HOUR + 101)
    assert starts == [(jobs[3], first_where)]


def test_a_parallel_ar_job_gets_no_more_slots_than_the_ar_holds() -> None:
    m = master(hosts=2, slots=2)
    ar_id = grant(m, users=["alice"], pe_name="mpi", pe_min=3, pe_max=3)
    big = qsub(m, ar=ar_id, pe_name="mpi", pe_min=2, pe_max=4)
    small = qsub(m, ar=ar_id, pe_name="mpi", pe_min=2, pe_max=2)
    _, starts = cycle(m, NOW + 1)
    assert [job for job, _ in starts] == [big]
    (granted,) = [g for _, g in starts]
    assert sum(n for _, n in granted) == 3
    assert m.s.jobs[small].tasks[0].state == PENDING


def _one_slot_ar_beside_a_two_slot_mpi() -> tuple[Master, int]:
    m = master(hosts=2, slots=2)
    m.s.config.pes["mpi"].slots = "2"
    m.refresh_views()
    return m, grant(m, users=["alice"])  # one slot, no PE


def test_qsub_ar_refuses_a_pe_its_ar_did_not_reserve() -> None:
    """5.3.2.1.1 (4): a job in an AR may use nothing the AR did not ask for; the implicit
    -w e refuses a -pe job in an AR granted without a PE."""
    m, ar_id = _one_slot_ar_beside_a_two_slot_mpi()
    assert refused(m, ar=ar_id, pe_name="mpi", pe_min=1, pe_max=1) == (
        "Unable to run job: error: no suitable queues")


def test_a_job_in_an_ar_gets_no_pe_its_ar_did_not_reserve() -> None:
    """The same job under -w n must not start: the AR holds none of mpi's slots, and
    jobs outside the AR have taken them all (it would over-book the PE)."""
    m, ar_id = _one_slot_ar_beside_a_two_slot_mpi()
    outside = qsub(m, pe_name="mpi", pe_min=2, pe_max=2, hard_resources={"h_rt": "600"})
    _, starts = cycle(m, NOW + 1)
    assert [job for job, _ in starts] == [outside]  # all of mpi's slots
    inside = qsub(m, ar=ar_id, pe_name="mpi", pe_min=1, pe_max=1, verify="n")
    plan = plan_now(m, NOW + 2)
    assert [o for o in plan.orders if o.job_id == inside] == []


def test_an_ar_job_longer_than_the_ar_less_duration_offset_is_not_scheduled() -> None:
    """5.2.2.1.1 (2): jobs in an AR get at most its duration less DURATION_OFFSET (60 s
    here); one asking for more is accepted (5.3.2.1.1 compares with the duration) but
    not scheduled, one within it is."""
    m = master(hosts=1, slots=2)
    assert m.plan.duration_offset == 60.0
    ar_id = grant(m, users=["alice"], duration=HOUR)
    too_long = qsub(m, ar=ar_id, hard_resources={"h_rt": str(int(HOUR - 59))})
    fitting = qsub(m, ar=ar_id, hard_resources={"h_rt": str(int(HOUR - 60))})
    _, starts = cycle(m, NOW)
    assert [job for job, _ in starts] == [fitting]
    assert m.s.jobs[too_long].tasks[0].state == PENDING


def test_ar_jobs_run_where_non_ar_jobs_may_not() -> None:
    """A job without h_rt in an AR is at home there."""
    m = master(hosts=1, slots=1)
    ar_id = grant(m, users=["alice"])
    job = qsub(m, ar=ar_id)
    _, starts = cycle(m, NOW + 1)
    assert starts == [(job, [("all.q@node1", 1)])]


def test_non_ar_jobs_never_take_the_slots_an_ar_holds() -> None:
    m = master(hosts=1, slots=2)
    ar_id = grant(m, start=NOW + HOUR, duration=HOUR, pe_name="mpi", pe_min=2, pe_max=2)
    short = qsub(m, hard_resources={"h_rt": "1800"})  # ends (h_rt + 60 s) before the AR
    long = qsub(m, hard_resources={"h_rt": "3600"})  # would run into it
    plan, starts = cycle(m, NOW)
    assert [job for job, _ in starts] == [short]
    assert long in plan.info
    finish(m, short, NOW + 1800)

    tick(m, NOW + HOUR)
    brief = qsub(m, NOW + HOUR, hard_resources={"h_rt": "60"})
    for now in (NOW + HOUR, NOW + HOUR + 1000, NOW + 2 * HOUR - 1):
        _, starts = cycle(m, now)
        assert starts == [], now  # the AR holds both slots while it runs, even unused

    tick(m, NOW + 2 * HOUR)
    assert ar_id not in m.s.ars
    _, starts = cycle(m, NOW + 2 * HOUR)
    assert sorted(job for job, _ in starts) == sorted([long, brief])


def test_a_job_without_h_rt_never_goes_to_an_instance_an_ar_holds() -> None:
    m = master(hosts=2, slots=2)
    ar_id = grant(m, start=NOW + HOUR)  # one slot of one host
    (held, _), = m.s.ars[ar_id].granted
    free = next(qi.name for qi in m.plan.instances if qi.name != held)
    jobs = [qsub(m) for _ in range(3)]
    plan, starts = cycle(m, NOW)
    assert sorted(job for job, _ in starts) == jobs[:2]
    assert all(granted == [(free, 1)] for _, granted in starts)
    assert (f'cannot run in queue instance "{held}" because it carries an advance reservation '
            "and the job has no run-time limit") in plan.info[jobs[2]]
    # with a run-time limit it may, beside the AR's slot
    limited = qsub(m, hard_resources={"h_rt": str(int(2 * HOUR))})
    _, starts = cycle(m, NOW + 1)
    assert starts == [(limited, [(held, 1)])]


def test_qsub_w_e_refuses_a_job_without_h_rt_when_only_ar_instances_exist() -> None:
    m = master(hosts=1, slots=2)
    grant(m, start=NOW + HOUR)
    assert refused(m, verify="e") == "Unable to run job: error: no suitable queues"
    qsub(m, verify="e", hard_resources={"h_rt": "600"})


def _alice_limited_to_one_slot(m: Master) -> None:
    m.s.config.rqs["alice1"] = RuleSet(name="alice1", rules=[
        Rule(users=Filter(False, ["alice"]), limits=[Limit("slots", "1")])])
    m.refresh_views()


def test_ar_jobs_do_not_use_up_resource_quotas() -> None:
    """5.2.2.1.3 (3): limit alice to one slot; her two AR jobs and one job outside run."""
    m = master(hosts=2, slots=2)
    _alice_limited_to_one_slot(m)
    ar_id = grant(m, users=["alice"], pe_name="mpi", pe_min=2, pe_max=2)
    in_ar = [qsub(m, ar=ar_id) for _ in range(2)]
    outside = [qsub(m, hard_resources={"h_rt": "600"}) for _ in range(2)]
    plan, starts = cycle(m, NOW + 1)
    assert sorted(job for job, _ in starts) == [*in_ar, outside[0]]
    assert any("alice1" in line for line in plan.info[outside[1]])


def test_a_used_up_quota_does_not_keep_ar_jobs_waiting() -> None:
    m = master(hosts=2, slots=2)
    _alice_limited_to_one_slot(m)
    outside = qsub(m, hard_resources={"h_rt": str(int(4 * HOUR))})
    _, starts = cycle(m, NOW)
    assert [job for job, _ in starts] == [outside]
    ar_id = grant(m, users=["alice"], pe_name="mpi", pe_min=2, pe_max=2)
    in_ar = [qsub(m, ar=ar_id) for _ in range(2)]
    _, starts = cycle(m, NOW + 1)
    assert sorted(job for job, _ in starts) == in_ar


def test_qquota_does_not_count_ar_jobs() -> None:
    """5.2.2.1.3 (3), second example: qquota shows the slots outside ARs only."""
    m = master(hosts=2, slots=2)
    _alice_limited_to_one_slot(m)
    ar_id = grant(m, users=["alice"], pe_name="mpi", pe_min=2, pe_max=2)
    for _ in range(2):
        qsub(m, ar=ar_id)
    qsub(m, hard_resources={"h_rt": "600"})
    _, starts = cycle(m, NOW + 1)
    assert len(starts) == 3
    (row,) = m.quota(p.QueryQuota()).rows
    assert (row.rule, row.resource, row.used, row.limit) == ("alice1/1", "slots", 1.0, "1")


def test_a_task_of_a_deleted_ar_still_holds_its_slot() -> None:
    """After qrdel, an AR job being killed still runs until execd says it ended: the
    planner must not place another job on its slot (whether or not some other AR is
    live)."""
    m = master(hosts=2, slots=1)
    doomed = grant(m, users=["alice"])
    job = qsub(m, ar=doomed)
    _, starts = cycle(m, NOW + 1)
    ((_, [(slot, _)]),) = starts
    grant(m, users=["alice"])  # the other host, live
    qrdel(m, str(doomed), now=NOW + 2)
    assert m.s.jobs[job].tasks[0].state == DELETING
    qsub(m, hard_resources={"h_rt": "60"})
    plan = plan_now(m, NOW + 3)
    assert [o.granted for o in plan.orders if o.granted[0][0] == slot] == []


def test_a_task_of_an_ended_ar_still_holds_its_slot() -> None:
    m = master(hosts=2, slots=1)
    ending = grant(m, users=["alice"], duration=600)
    job = qsub(m, ar=ending)
    _, starts = cycle(m, NOW + 1)
    ((_, [(slot, _)]),) = starts
    grant(m, users=["alice"], duration=HOUR)
    tick(m, NOW + 600)
    assert m.s.ars[ending].state == EXITED and m.s.jobs[job].tasks[0].state == DELETING
    qsub(m, NOW + 600, hard_resources={"h_rt": "60"})
    plan = plan_now(m, NOW + 601)
    assert [o.granted for o in plan.orders if o.granted[0][0] == slot] == []


def test_qrstat_is_told_which_names_named_no_ar() -> None:
    m = master(hosts=2, slots=2)
    ar_id = grant(m, name="night")
    reply = ars.query(m, p.QueryArs(ids=[str(ar_id), "nosuch*", "99"], users=["*"]), NOW)
    assert [ar.ar_id for ar in reply.ars] == [ar_id]
    assert reply.missing == ["nosuch*", "99"]
    reply = ars.query(m, p.QueryArs(ids=["night"], users=["someone"]), NOW)
    assert (reply.ars, reply.missing) == ([], ["night"])

"""Hosts lost and found again, in the master's core: which jobs reschedule_unknown
reschedules once a host has been unknown that long, and how a host that comes back is
reconciled, so that nothing runs twice and nothing is accounted twice.

Jobs start on node1 at 100, both hosts are last heard at 105, max_unheard is 10 s and
reschedule_unknown 20 s: node1, silent then, is unknown from 115 on and its jobs are
rescheduled at the first check from 135 on.
"""

from __future__ import annotations

import logging

from gridd import protocol as p
from gridd.master.core import Master
from gridd.master.state import Effects
from gridd.model.task_lifecycle import DONE, PENDING, RESCHEDULED, RUNNING, TRANSFERRING
from tests.unit.test_master_core import make_master, schedule, spec

HEARD, DUE = 105.0, 135.0


def cell(hosts: int = 2, slots: int = 2, reschedule_unknown: str = "0:0:20") -> Master:
    """A cell of `hosts` registered at 0; node2 (if any) unknown from 55 on, so that the
    jobs started at 100 run on node1."""
    master = make_master(hosts=hosts, slots=slots)
    master.s.config.conf.max_unheard = "0:0:10"
    master.s.config.conf.reschedule_unknown = reschedule_unknown
    heard(master, 50.0, "node1")
    master.check_hosts(55.0, Effects())
    assert master.host_up == {"node1"}
    return master


def run(master: Master, now: float, **kw) -> int:
    """Submit a job, dispatch it and confirm its start (at `now`); its number."""
    job_id = master.submit(spec(**kw), now, Effects()).job_id
    schedule(master, now)
    task = master.s.jobs[job_id].tasks[0]
    assert task.state == TRANSFERRING
    master.task_started(p.TaskStarted(host=task.host, job_id=job_id, task_id=0,
                                      start_time=now), now, Effects())
    return job_id


def heard(master: Master, now: float, *hosts: str, running=()) -> Effects:
    fx = Effects()
    for host in hosts:
        master.load_report(p.LoadReport(host=host, load={}, running=list(running)), now, fx)
    return fx


def ended(job_id: int, host: str, start: float, end: float) -> p.TaskReport:
    return p.TaskReport(job_id=job_id, task_id=0, host=host, start_time=start,
                        end_time=end, exit_status=0)


def accounted(master: Master) -> Effects:
    fx = Effects()
    master.accounted(sorted(master.s.outbox), fx)
    return fx


def lost_node1(master: Master, rerunnable: int, kept: int) -> Effects:
    """node1 silent past DUE while node2 reports; the checks that follow."""
    for now in (110.0, 116.0, 134.9):
        heard(master, now, "node2")
        master.check_hosts(now, Effects())
        assert master.s.jobs[rerunnable].tasks[0].state == RUNNING
    assert master.host_up == {"node2"}
    fx = Effects()
    master.check_hosts(DUE, fx)
    assert master.s.jobs[kept].tasks[0].state == RUNNING  # not rerunnable: kept
    return fx


def test_the_rerunnable_job_of_a_host_unknown_that_long_is_rescheduled_the_other_kept():
    master = cell()
    rerun = run(master, 100.0, restart="y")
    kept = run(master, 100.0, restart="n")
    heard(master, HEARD, "node1", "node2", running=[(rerun, 0), (kept, 0)])
    fx = lost_node1(master, rerun, kept)
    task = master.s.jobs[rerun].tasks[0]
    assert task.state == RESCHEDULED and task.failed == 25 and task.given_up == DUE
    assert [(h, m) for h, m in fx.to_execd if isinstance(m, p.KillTask)] == [
        ("node1", p.KillTask(job_id=rerun, task_id=0, reason="rescheduled"))]
    assert not any(isinstance(m, p.Ack) for _, m in fx.to_execd)
    assert [(j, t) for _, j, t in fx.outbox] == [(rerun, 0)]  # accounted as a run
    assert fx.notices == [(logging.WARNING, f"job {rerun}.0 rescheduled: its host node1 "
                           "has been unknown for reschedule_unknown")]
    fx = Effects()
    master.check_hosts(DUE + 5, fx)
    assert not fx.outbox and not fx.to_execd  # once
    accounted(master)
    assert task.state == PENDING and task.rerun and task.given_up == DUE
    fx = schedule(master, DUE + 6)
    assert [(h, m.job.job_id) for h, m in fx.to_execd if isinstance(m, p.StartTask)] == [
        ("node2", rerun)]  # not to node1, unknown


def test_the_queues_rerun_flag_decides_for_a_job_that_said_nothing_and_0_never():
    for rerun_flag, reschedule_unknown, rescheduled in (
            ("TRUE", "0:0:20", True), ("FALSE", "0:0:20", False), ("TRUE", "0", False)):
        master = cell(reschedule_unknown=reschedule_unknown)
        master.s.config.queues["all.q"].rerun = rerun_flag
        master.refresh_views()
        job = run(master, 100.0)
        heard(master, HEARD, "node1", "node2", running=[(job, 0)])
        master.check_hosts(DUE + 1000, Effects())
        state = master.s.jobs[job].tasks[0].state
        assert state == (RESCHEDULED if rescheduled else RUNNING), rerun_flag


def test_a_hosts_own_configuration_may_set_its_reschedule_unknown():
    for own, rescheduled in (("0:0:0", False), ("0:0:5", True)):
        master = cell(reschedule_unknown="0:1:0")
        master.s.config.host_confs["node1"] = {"reschedule_unknown": own}
        job = run(master, 100.0, restart="y")
        heard(master, HEARD, "node1", "node2", running=[(job, 0)])
        master.check_hosts(120.0, Effects())
        state = master.s.jobs[job].tasks[0].state
        assert state == (RESCHEDULED if rescheduled else RUNNING), own


def test_a_parallel_job_is_rescheduled_when_its_master_tasks_host_is_lost_alone():
    for lost_master_host in (False, True):
        master = cell()
        heard(master, 99.0, "node2")
        job = run(master, 100.0, restart="y", pe_name="mpi", pe_min=3, pe_max=3)
        task = master.s.jobs[job].tasks[0]
        hosts = {qi.split("@")[1] for qi, _ in task.granted}
        assert hosts == {"node1", "node2"}
        lost = task.host if lost_master_host else ({"node1", "node2"} - {task.host}).pop()
        heard(master, HEARD, "node1", "node2", running=[(job, 0)])
        for now in (120.0, 140.0):
            heard(master, now, *({"node1", "node2"} - {lost}), running=[(job, 0)])
            master.check_hosts(now, Effects())
        assert master.host_state(lost) == "unknown"
        assert task.state == (RESCHEDULED if lost_master_host else RUNNING)


def test_qmaster_params_widen_reschedule_unknown_as_8_1_9s_do():
    """ENABLE_RESCHEDULE_SLAVE: a slave task's host counts too; ENABLE_RESCHEDULE_KILL:
    a job that may not run again is ended, accounted as lost by its host."""
    master = cell()
    master.s.config.conf.qmaster_params = "ENABLE_RESCHEDULE_SLAVE=true ENABLE_RESCHEDULE_KILL"
    heard(master, 99.0, "node2")
    job = run(master, 100.0, restart="y", pe_name="mpi", pe_min=3, pe_max=3)
    kept = run(master, 100.0, restart="n")
    task, other = master.s.jobs[job].tasks[0], master.s.jobs[kept].tasks[0]
    slave = other.host  # the slot the parallel job left
    assert {qi for qi, _ in task.granted} == {"all.q@node1", "all.q@node2"} != task.host
    assert slave != task.host
    heard(master, HEARD, "node1", "node2", running=[(job, 0), (kept, 0)])
    fx = Effects()
    for now in (120.0, 140.0):
        heard(master, now, task.host, running=[(job, 0)])
        master.check_hosts(now, fx)
    assert task.state == RESCHEDULED
    assert (other.state, other.failed, other.exit_status) == (DONE, 100, 137)
    assert (slave, p.KillTask(job_id=kept, task_id=0)) in fx.to_execd
    assert [(j, t) for _, j, t in fx.outbox] == [(job, 0), (kept, 0)]


def test_a_host_coming_back_kills_what_was_rescheduled_and_accounts_each_run_once():
    master = cell()
    rerun = run(master, 100.0, restart="y")
    kept = run(master, 100.0, restart="n")
    heard(master, HEARD, "node1", "node2", running=[(rerun, 0), (kept, 0)])
    lost_node1(master, rerun, kept)
    accounted(master)
    schedule(master, 140.0)
    task = master.s.jobs[rerun].tasks[0]
    master.task_started(p.TaskStarted(host="node2", job_id=rerun, task_id=0,
                                      start_time=140.0), 140.0, Effects())
    assert (task.state, task.host) == (RUNNING, "node2")
    # node1's execd is heard again, both jobs still running there
    fx = heard(master, 150.0, "node1", running=[(rerun, 0), (kept, 0)])
    assert master.host_up == {"node1", "node2"}
    assert [(h, m) for h, m in fx.to_execd if isinstance(m, p.KillTask)] == [
        ("node1", p.KillTask(job_id=rerun, task_id=0, reason="not running here"))]
    assert master.s.jobs[kept].tasks[0].state == RUNNING
    # the killed run's report: acknowledged, neither accounted nor the end of the new run
    fx = Effects()
    master.task_finished(ended(rerun, "node1", 100.0, 151.0), 151.0, fx)
    assert fx.to_execd == [("node1", p.Ack(job_id=rerun, task_id=0))] and not fx.outbox
    assert (task.state, task.host) == (RUNNING, "node2")
    # the kept job ended while node1 was cut off: accounted once, however often said
    fx = Effects()
    master.register(p.Register(host="node1", load={}, running=[],
                               finished=[ended(kept, "node1", 100.0, 130.0),
                                         ended(rerun, "node1", 100.0, 151.0)]), 152.0, fx)
    master.task_finished(ended(kept, "node1", 100.0, 130.0), 152.5, fx)
    assert [(j, t) for _, j, t in fx.outbox] == [(kept, 0)]
    master.task_finished(ended(rerun, "node2", 140.0, 160.0), 160.0, fx)
    assert [(j, t) for _, j, t in fx.outbox] == [(kept, 0), (rerun, 0)]


def test_a_run_given_up_is_not_taken_for_the_end_of_the_next_run_on_the_same_host():
    master = cell(hosts=1)
    job = run(master, 100.0, restart="y")
    heard(master, HEARD, "node1", running=[(job, 0)])
    master.check_hosts(DUE, Effects())
    accounted(master)
    fx = heard(master, 150.0, "node1", running=[(job, 0)])  # back, the old run still on
    assert ("node1", p.KillTask(job_id=job, task_id=0, reason="not running here")) \
        in fx.to_execd
    assert [(j.job_id, j.pending) for j in fx.sched] == [(job, [])]  # not to start yet
    task = master.s.jobs[job].tasks[0]
    schedule(master, 150.5)
    assert task.state == PENDING
    fx = heard(master, 151.0, "node1")  # the old run is over
    assert [(j.job_id, j.pending) for j in fx.sched] == [(job, [0])]
    schedule(master, 151.0)
    assert (task.state, task.host) == (TRANSFERRING, "node1")
    fx = Effects()
    # the old run's report, resent late (its first one lost with a connection)
    master.task_finished(ended(job, "node1", 100.0, 151.5), 151.5, fx)
    assert not fx.outbox and task.state == TRANSFERRING
    master.task_started(p.TaskStarted(host="node1", job_id=job, task_id=0,
                                      start_time=152.0), 152.0, Effects())
    master.task_finished(ended(job, "node1", 152.0, 160.0), 160.0, fx)
    assert [(j, t) for _, j, t in fx.outbox] == [(job, 0)]


def test_a_host_unheard_since_the_master_started_counts_as_heard_at_its_first_check():
    master = cell()
    job = run(master, 100.0, restart="y")
    heard(master, HEARD, "node1", "node2", running=[(job, 0)])
    restarted = master.reloaded(master.s)
    restarted.host_up, restarted.unknown_since = set(), {}  # as a master started afresh
    restarted.check_hosts(1000.0, Effects())  # unknown since 1010, due at 1030
    restarted.check_hosts(1029.9, Effects())
    assert master.s.jobs[job].tasks[0].state == RUNNING
    restarted.check_hosts(1030.0, Effects())
    assert master.s.jobs[job].tasks[0].state == RESCHEDULED

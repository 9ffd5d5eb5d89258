"""qmod in the master's state machine: messages, flags, and the stop/continue orders
that suspension sends to execds."""

from __future__ import annotations

from gridd import protocol as p
from gridd.master.core import Master
from gridd.master.state import Effects
from gridd.model.task_lifecycle import PENDING, RUNNING
from tests.unit.test_master_core import make_master, schedule, spec


def qmod(master: Master, action: str, *targets: str) -> tuple[p.Msg, Effects]:
    fx = Effects()
    reply = master.qmod(p.Qmod(action=action, targets=list(targets), user="root", host="vm"),
                        0.0, fx)
    return reply, fx


def running_master() -> Master:
    master = make_master(hosts=2, slots=1)
    master.submit(spec(), 1.0, Effects())
    schedule(master, 2.0)
    master.task_started(p.TaskStarted(host="node1", job_id=1, task_id=0, start_time=2.0),
                        2.0, Effects())
    return master


def orders(fx: Effects) -> list[tuple[str, bool]]:
    return [(host, m.suspend) for host, m in fx.to_execd if isinstance(m, p.SuspendTask)]


def test_queue_states_are_set_once_with_grid_engine_messages():
    master = make_master(hosts=2)
    reply, fx = qmod(master, "d", "all.q@node1", "nosuch.q")
    assert reply.lines == ['root@vm changed state of "all.q@node1" (disabled)',
                           'invalid queue "nosuch.q"']
    assert reply.code == 1 and fx.flags_changed and master.s.flags == {"all.q@node1": "d"}
    reply, fx = qmod(master, "d", "*@node1")
    assert reply.lines == ['Queue instance "all.q@node1" is already in the specified state: '
                           "disabled"] and not fx.flags_changed
    assert master.instance_states() == {"all.q@node1": "d", "all.q@node2": ""}
    reply, _ = qmod(master, "e", "all.q")
    assert reply.lines == ['root@vm changed state of "all.q@node1" (enabled)',
                           'Queue instance "all.q@node2" is already in the specified state: '
                           "enabled"]
    assert master.s.flags == {}


def test_job_suspension_stops_the_task_once_and_shows_s():
    master = running_master()
    job = master.s.jobs[1]
    task = job.tasks[0]
    reply, fx = qmod(master, "s", "1")
    assert reply.lines == ["root - suspended job 1"] and orders(fx) == [("node1", True)]
    assert master.display_state(job, task) == "s" and task.state == RUNNING
    reply, fx = qmod(master, "sj", "1")
    assert reply.lines == ["root - job 1 is already suspended"] and orders(fx) == []


def test_queue_suspension_stops_its_jobs_and_both_show_ss():
    master = running_master()
    job, task = master.s.jobs[1], master.s.jobs[1].tasks[0]
    _, fx = qmod(master, "sq", "all.q@node1")
    assert orders(fx) == [("node1", True)] and master.display_state(job, task) == "S"
    _, fx = qmod(master, "sj", "1")
    assert orders(fx) == [] and master.display_state(job, task) == "Ss"
    _, fx = qmod(master, "usq", "all.q@node1")
    assert orders(fx) == [] and master.display_state(job, task) == "s"
    _, fx = qmod(master, "usj", "1")
    assert orders(fx) == [("node1", False)] and master.display_state(job, task) == RUNNING


def test_pending_jobs_cannot_be_suspended_and_unknown_targets_fail():
    master = make_master(hosts=1, slots=1)
    master.submit(spec(), 1.0, Effects())
    reply, _ = qmod(master, "sj", "1", "nosuch")
    assert reply.lines == [
        "Modify operation can not be applied on job-array task 1.1 in pending/hold state",
        'invalid queue or job "nosuch"']
    assert reply.code == 1


def test_suspend_threshold_suspends_jobs_while_the_load_reaches_it():
    master = running_master()
    cq = master.s.config.queues["all.q"]
    cq.suspend_thresholds = "np_load_avg=1.5"
    master.refresh_views()
    job, task = master.s.jobs[1], master.s.jobs[1].tasks[0]
    fx = Effects()
    master.load_report(p.LoadReport(host="node1", load={"np_load_avg": "2.0"},
                                    running=[(1, 0)]), 10.0, fx)
    assert orders(fx) == [("node1", True)] and master.display_state(job, task) == "T"
    assert master.instance_states()["all.q@node1"] == "A"
    fx = Effects()
    master.load_report(p.LoadReport(host="node1", load={"np_load_avg": "0.5"},
                                    running=[(1, 0)]), 20.0, fx)
    assert orders(fx) == [("node1", False)] and master.display_state(job, task) == RUNNING


def test_reconnecting_execd_is_told_again_to_keep_a_task_stopped():
    master = running_master()
    qmod(master, "sj", "1")
    fx = Effects()
    master.register(p.Register(host="node1", load={}, running=[(1, 0)]), 30.0, fx)
    assert orders(fx) == [("node1", True)]


def test_an_instance_removed_under_a_running_job_stays_orphaned_until_it_ends():
    master = running_master()
    master.s.config.queues["all.q"].hostlist = "node2"
    master.refresh_views()
    assert master.instance_states() == {"all.q@node1": "o", "all.q@node2": ""}
    assert "node1" in master.s.queues["all.q"].hostlist
    assert [qi.name for qi in master.plan.instances] == ["all.q@node2"]
    report = p.TaskReport(job_id=1, task_id=0, host="node1", start_time=2.0, end_time=3.0,
                          exit_status=0)
    master.task_finished(report, 3.0, Effects())
    assert master.instance_states() == {"all.q@node2": ""}
    assert master.s.queues["all.q"].hostlist == ["node2"]


def test_a_rescheduled_task_is_killed_accounted_and_runs_again():
    """qmod -rj: a job submitted with -r y is killed; its end is accounted as failed 25
    (rescheduling) and, once that is confirmed, the task waits again (Rq) and runs again
    (Rr). A job that may not run again is left alone, unless -f; only managers may."""
    master = make_master(hosts=2, slots=1)
    master.submit(spec(restart="y"), 1.0, Effects())
    master.submit(spec(), 1.0, Effects())
    schedule(master, 2.0)
    for job_id, host in ((1, "node1"), (2, "node2")):
        master.task_started(p.TaskStarted(host=host, job_id=job_id, task_id=0,
                                          start_time=2.0), 2.0, Effects())
    job, task = master.s.jobs[1], master.s.jobs[1].tasks[0]
    denied = master.qmod(p.Qmod(action="rj", targets=["1"], user="alice", host="vm"), 3.0,
                         Effects())
    assert (denied.lines, denied.code) == (
        ['denied: "alice" must be manager for this operation'], 1)
    reply, fx = qmod(master, "rj", "1", "2")
    assert reply.lines == ["Pushed rescheduling of job 1 on host node1",
                           "The job 2 is running in queue all.q@node2 where jobs are not "
                           "rerunable."]
    assert [(h, m.job_id) for h, m in fx.to_execd if isinstance(m, p.KillTask)] == [
        ("node1", 1)]
    assert qmod(master, "rj", "1")[0].lines == []  # asked already: nothing said
    fx = Effects()
    master.task_finished(p.TaskReport(job_id=1, task_id=0, host="node1", start_time=2.0,
                                      end_time=4.0, exit_status=137, signal="SIGKILL"), 4.0, fx)
    assert (task.state, task.failed, task.failed_reason) == ("Rq", 25, "rescheduling")
    assert [(seq, j) for seq, j, _ in fx.outbox] and 1 in master.s.jobs
    assert (1, 0) not in master.running
    assert master.sched_job(job) is None  # not before the run is accounted
    assert 'cannot run on host "node1" until clean up of a previous run has finished' in \
        master.job_info(job, 4.5)  # as 8.1.9 says it meanwhile
    fx = Effects()
    master.accounted(list(master.s.outbox), fx)
    assert (task.state, task.rerun, task.failed, task.start_time) == (PENDING, True, 0, 0.0)
    assert master.display_state(job, task) == "Rq" and fx.sched
    schedule(master, 5.0)
    master.task_started(p.TaskStarted(host="node1", job_id=1, task_id=0, start_time=5.0),
                        5.0, Effects())
    assert master.display_state(job, task) == "Rr"
    forced = master.qmod(p.Qmod(action="rj", targets=["2"], user="root", host="vm",
                                force=True), 6.0, Effects())
    assert forced.lines == ["Pushed rescheduling of job 2 on host node2"]


def test_qmod_rq_reschedules_what_runs_in_the_instances_and_qdel_still_ends_it():
    master = make_master(hosts=2, slots=1)
    master.s.config.queues["all.q"].rerun = "TRUE"
    master.refresh_views()
    master.submit(spec(), 1.0, Effects())
    schedule(master, 2.0)
    master.task_started(p.TaskStarted(host="node1", job_id=1, task_id=0, start_time=2.0),
                        2.0, Effects())
    reply, _ = qmod(master, "rq", "all.q@node1")
    assert reply.lines == ["Pushed rescheduling of job 1 on host node1"]
    master.task_finished(p.TaskReport(job_id=1, task_id=0, host="node1", start_time=2.0,
                                      end_time=4.0, exit_status=137), 4.0, Effects())
    deleted = master.delete(p.Delete(targets=["1"], user="alice"), 4.5, Effects())
    assert deleted.lines == ["alice has deleted job 1"]
    fx = Effects()
    master.accounted(list(master.s.outbox), fx)
    assert 1 not in master.s.jobs and fx.gone_jobs == {1}


def test_a_hold_set_while_running_holds_the_rescheduled_task():
    master = running_master()
    job, task = master.s.jobs[1], master.s.jobs[1].tasks[0]
    assert master.hold(p.Hold(targets=["1"], user="root"), Effects()).lines == [
        "modified hold of job 1"]
    assert master.display_state(job, task) == "hr"
    master.qmod(p.Qmod(action="rj", targets=["1"], user="root", host="vm", force=True),
                3.0, Effects())
    master.task_finished(p.TaskReport(job_id=1, task_id=0, host="node1", start_time=2.0,
                                      end_time=4.0, exit_status=137), 4.0, Effects())
    master.accounted(list(master.s.outbox), Effects())
    assert (task.state, task.holds, task.rerun) == ("hqw", "u", True)
    assert master.sched_job(job) is None

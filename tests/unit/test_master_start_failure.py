"""What the master does with a job its execd could not start: for a fault of the job's
own (working directory, input or output file, shell) the task goes to Eqw with the
execd's reason, its run accounted once, until qmod -cj lets it run again; any other
failure ends it. Driven without sockets or clocks."""

from __future__ import annotations

from gridd import protocol as p
from gridd.master.core import Master
from gridd.master.state import Effects
from gridd.model.task_lifecycle import DONE, ERROR, PENDING
from tests.unit.test_master_core import make_master, schedule, spec

REASON = ("11/28/2026 01:52:19 [0:16244]: error: can't chdir to /gone: "
          "No such file or directory")


def _started(master: Master, now: float) -> p.StartTask:
    (start,) = [m for _, m in schedule(master, now).to_execd if isinstance(m, p.StartTask)]
    return start


def _failed(master: Master, start: p.StartTask, failed: int, now: float) -> Effects:
    fx = Effects()
    master.task_finished(p.TaskReport(job_id=start.job.job_id, task_id=start.task_id,
                                      host="node1", start_time=0.0, end_time=now, exit_status=0,
                                      failed=failed, failed_reason=REASON), now, fx)
    return fx


def _cell_with_a_job() -> tuple[Master, p.StartTask]:
    master = make_master(hosts=1, slots=1)
    master.submit(spec(cwd="/gone"), 1.0, Effects())
    return master, _started(master, 2.0)


def test_a_job_that_cannot_enter_its_directory_waits_in_error_its_run_accounted():
    master, start = _cell_with_a_job()
    fx = _failed(master, start, 28, 3.0)
    task = master.s.jobs[1].tasks[0]
    assert (task.state, task.failed, task.failed_reason) == (ERROR, 28, REASON)
    assert task.start_time == 0.0  # it never ran: qacct prints -/-
    assert [(job, t) for _, job, t in fx.outbox] == [(1, 0)]
    assert not master.running and not master.s.finished  # its slot free, the job not over
    assert "Job is in error state" in master.job_info(master.s.jobs[1], 3.0)
    assert master.sched_job(master.s.jobs[1]) is None
    # its priority is worked out, as 8.1.9's qstat shows it of a job in Eqw (0.50000)
    assert master.query_jobs(p.QueryJobs(), 3.0).priorities[1] == 0.5
    fx = _failed(master, start, 28, 4.0)  # sent again: acknowledged, counted once
    assert not fx.outbox and task.state == ERROR


def test_qmod_cj_lets_it_run_again_once_its_failed_run_is_accounted():
    master, start = _cell_with_a_job()
    outbox = [seq for seq, _, _ in _failed(master, start, 26, 3.0).outbox]
    fx = Effects()
    reply = master.qmod(p.Qmod(action="cj", targets=["1"], user="root", host="vm"), 4.0, fx)
    assert reply.lines == ["root@vm cleared error state of job 1"]
    task = master.s.jobs[1].tasks[0]
    assert task.state == PENDING and not fx.sched
    # Until its failed run is accounted, the record a restart would make anew of it
    # comes from the task: no new run may overwrite it.
    assert master.sched_job(master.s.jobs[1]) is None
    fx = Effects()
    master.accounted(outbox, fx)
    assert [job.job_id for job in fx.sched] == [1]
    again = _started(master, 5.0)
    assert (again.job.job_id, master.s.jobs[1].tasks[0].state) == (1, "t")


def test_qdel_of_a_job_in_error_accounts_nothing_more():
    master, start = _cell_with_a_job()
    _failed(master, start, 27, 3.0)
    fx = Effects()
    master.delete(p.Delete(targets=["1"], user="alice"), 4.0, fx)
    assert master.s.jobs[1].tasks[0].state == DONE and not fx.outbox
    assert master.s.finished[1].failed == 27


def test_other_failures_end_the_task():
    for failed in (11, 19, 100):
        master, start = _cell_with_a_job()
        _failed(master, start, failed, 3.0)
        assert master.s.jobs[1].tasks[0].state == DONE, failed


def test_a_job_asked_to_end_ends_when_it_cannot_start():
    master, start = _cell_with_a_job()
    master.delete(p.Delete(targets=["1"], user="alice"), 2.5, Effects())
    _failed(master, start, 28, 3.0)
    assert master.s.jobs[1].tasks[0].state == DONE


def test_the_tasks_of_an_array_fail_and_are_cleared_each_on_its_own():
    master = make_master(hosts=1, slots=2)
    master.submit(spec(cwd="/gone", array=(1, 2, 1)), 1.0, Effects())
    starts = [m for _, m in schedule(master, 2.0).to_execd if isinstance(m, p.StartTask)]
    seqs = [[seq for seq, _, _ in _failed(master, start, 28, 3.0).outbox] for start in starts]
    job = master.s.jobs[1]
    assert [t.state for t in job.tasks.values()] == [ERROR, ERROR]
    master.qmod(p.Qmod(action="cj", targets=["1"], user="root", host="vm"), 4.0, Effects())
    assert [t.state for t in job.tasks.values()] == [PENDING, PENDING]
    master.accounted(seqs[1], Effects())  # task 2's failed run only
    assert master.sched_job(job).pending == [2]

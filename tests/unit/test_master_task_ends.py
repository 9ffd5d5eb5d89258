"""DRMAA's wait in the master (gridd.master.task_ends): how tasks ended is remembered, a
wait is answered by the first of its tasks to end, and only once."""

from __future__ import annotations

from gridd import protocol as p
from gridd.master.state import Effects
from gridd.master.task_ends import ENDED_MEMORY, TaskEnds
from gridd.model.job import Usage
from tests.unit.test_master_core import make_master, schedule, spec

A, B, C = b"\x00a", b"\x00b", b"\x00c"


def _run(master, job_id: int, task_id: int, now: float, exit_status: int = 0,
         signal: str = "", usage: Usage | None = None) -> Effects:
    master.task_started(p.TaskStarted(host="node1", job_id=job_id, task_id=task_id,
                                      start_time=now), now, Effects())
    fx = Effects()
    master.task_finished(p.TaskReport(job_id=job_id, task_id=task_id, host="node1",
                                      start_time=now, end_time=now + 2,
                                      exit_status=exit_status, signal=signal,
                                      usage=usage or Usage()), now + 2, fx)
    return fx


def test_a_held_wait_is_answered_by_the_first_of_its_tasks_to_end_and_once():
    master = make_master(hosts=1, slots=4)
    master.submit(spec(array=(1, 3, 1), priority=-5), 1.0, Effects())
    schedule(master, 2.0)
    wait = p.WaitTasks(tasks=[(1, 1), (1, 2)], rid=7)
    assert master.task_ends.wait(A, wait, master.s.jobs) is None
    assert master.task_ends.wait(B, p.WaitTasks(tasks=[(1, 2)], rid=3), master.s.jobs) is None
    assert master.task_ends.wait(C, p.WaitTasks(tasks=[(1, 3)], rid=2), master.s.jobs) is None
    fx = _run(master, 1, 2, 3.0, exit_status=7, usage=Usage(utime=1.5, wallclock=2.0))
    answers = sorted((ident, m.rid) for ident, m in fx.replies if isinstance(m, p.TaskEnded))
    assert answers == [(A, 7), (B, 3)]
    ended = next(m for _, m in fx.replies if isinstance(m, p.TaskEnded))
    assert (ended.job_id, ended.task_id, ended.exit_status, ended.ran, ended.deleted,
            ended.priority, ended.submit_time, ended.start_time, ended.end_time) == (
        1, 2, 7, True, False, -5, 1.0, 3.0, 5.0)
    assert ended.usage.utime == 1.5
    assert master.task_ends.held == {C: (2, ((1, 3),))}
    assert not _run(master, 1, 1, 4.0).replies  # A's wait was answered: nobody waits for 1
    again = master.task_ends.wait(A, p.WaitTasks(tasks=[(1, 2)], rid=9), master.s.jobs)
    assert isinstance(again, p.TaskEnded) and again.rid == 9 and again.exit_status == 7


def test_a_task_deleted_before_it_ran_ended_without_running():
    master = make_master(hosts=1, slots=1)
    master.submit(spec(hold=True), 1.0, Effects())
    assert master.task_ends.wait(A, p.WaitTasks(tasks=[(1, 0)], rid=1), master.s.jobs) is None
    fx = Effects()
    master.delete(p.Delete(targets=["1"], user="alice"), 2.0, fx)
    (ident, ended), = [(i, m) for i, m in fx.replies if isinstance(m, p.TaskEnded)]
    assert ident == A and not ended.ran and ended.deleted


def test_unknown_tasks_are_refused_and_an_empty_wait_too():
    master = make_master()
    master.submit(spec(), 1.0, Effects())
    assert master.task_ends.wait(A, p.WaitTasks(tasks=[(1, 0), (5, 0)]), master.s.jobs) == \
        p.Error(text='job "5" does not exist')
    assert master.task_ends.wait(A, p.WaitTasks(tasks=[(1, 4)]), master.s.jobs) == \
        p.Error(text='job "1.4" does not exist')
    assert isinstance(master.task_ends.wait(A, p.WaitTasks(tasks=[]), master.s.jobs), p.Error)
    assert master.task_ends.waiting == {}


def test_the_memory_of_ended_tasks_is_bounded_oldest_first():
    master = make_master(hosts=1, slots=1)
    ends = TaskEnds()
    master.submit(spec(), 1.0, Effects())
    job = master.s.jobs[1]
    task = job.tasks[0]
    for n in range(ENDED_MEMORY + 2):
        job.job_id = n + 1
        ends.over(job, task, Effects(), deleted=False)
    assert len(ends.ended) == ENDED_MEMORY and (1, 0) not in ends.ended


def test_a_connections_next_wait_replaces_the_one_it_held():
    """A client whose wait timed out asks again on the same connection: the master holds
    one wait per connection, so polling with a timeout leaves nothing behind."""
    master = make_master(hosts=1, slots=2)
    master.submit(spec(array=(1, 2, 1)), 1.0, Effects())
    schedule(master, 2.0)
    for rid in range(1, 50):
        assert master.task_ends.wait(A, p.WaitTasks(tasks=[(1, 1), (1, 2)], rid=rid),
                                     master.s.jobs) is None
    assert master.task_ends.held == {A: (49, ((1, 1), (1, 2)))}
    assert master.task_ends.wait(A, p.WaitTasks(tasks=[(1, 1)], block=False),
                                 master.s.jobs) == p.NotEnded()
    assert master.task_ends.held == {} and master.task_ends.waiting == {}
    assert not _run(master, 1, 1, 3.0).replies

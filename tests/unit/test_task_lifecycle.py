"""The task lifecycle's table, its choice of events and the letters qstat shows, alone;
test_task_lifecycle_master.py checks that the master's tasks follow it."""

from __future__ import annotations

import pytest

from gridd.execd import runner, shepherd
from gridd.model import task_lifecycle as life
from gridd.model.job import JobSpec, Task, new_job
from gridd.model.task_lifecycle import (
    CLEAR_ERROR,
    CONTINUE,
    DELETE,
    DELETING,
    DISPATCH,
    DONE,
    DROP,
    ERROR,
    FAIL,
    FINISH,
    FINISH_RESCHEDULED,
    FORCE_DELETE,
    HELD,
    HOLD,
    NEW,
    PENDING,
    RELEASE,
    REQUEUE,
    REQUEUE_HELD,
    RESCHEDULE,
    RESCHEDULED,
    RUNNING,
    STARTED,
    STOP,
    SUBMIT,
    SUBMIT_HELD,
    SUSPEND,
    TRANSFERRING,
    UNSCHEDULABLE,
    UNSUSPEND,
)

# Every transition there is, written out: (state, event, next state).
TRANSITIONS = [
    (NEW, SUBMIT, PENDING), (NEW, SUBMIT_HELD, HELD),
    (PENDING, HOLD, HELD), (PENDING, RELEASE, PENDING), (PENDING, DISPATCH, TRANSFERRING),
    (PENDING, UNSCHEDULABLE, DONE), (PENDING, DELETE, DONE), (PENDING, FORCE_DELETE, DONE),
    (HELD, HOLD, HELD), (HELD, RELEASE, PENDING), (HELD, DELETE, DONE),
    (HELD, FORCE_DELETE, DONE),
    (ERROR, CLEAR_ERROR, PENDING), (ERROR, DELETE, DONE), (ERROR, FORCE_DELETE, DONE),
    *[(TRANSFERRING, event, TRANSFERRING) for event in (
        HOLD, RELEASE, SUSPEND, UNSUSPEND, STOP, CONTINUE, CLEAR_ERROR, RESCHEDULE)],
    (TRANSFERRING, STARTED, RUNNING), (TRANSFERRING, DELETE, DELETING),
    (TRANSFERRING, FORCE_DELETE, DONE), (TRANSFERRING, FINISH, DONE),
    (TRANSFERRING, FINISH_RESCHEDULED, RESCHEDULED), (TRANSFERRING, FAIL, ERROR),
    *[(RUNNING, event, RUNNING) for event in (
        HOLD, RELEASE, SUSPEND, UNSUSPEND, STOP, CONTINUE, CLEAR_ERROR, RESCHEDULE)],
    (RUNNING, DELETE, DELETING), (RUNNING, FORCE_DELETE, DONE), (RUNNING, FINISH, DONE),
    (RUNNING, FINISH_RESCHEDULED, RESCHEDULED), (RUNNING, FAIL, ERROR),
    *[(DELETING, event, DELETING) for event in (
        HOLD, RELEASE, SUSPEND, UNSUSPEND, STOP, CONTINUE, CLEAR_ERROR, DELETE)],
    (DELETING, FORCE_DELETE, DONE), (DELETING, FINISH, DONE),
    (RESCHEDULED, CLEAR_ERROR, RESCHEDULED), (RESCHEDULED, DELETE, RESCHEDULED),
    (RESCHEDULED, FORCE_DELETE, RESCHEDULED), (RESCHEDULED, REQUEUE, PENDING),
    (RESCHEDULED, REQUEUE_HELD, HELD), (RESCHEDULED, DROP, DONE),
    (DONE, CLEAR_ERROR, DONE),
]
EVENTS = sorted({event for _, event, _ in TRANSITIONS})


def test_the_table_is_these_transitions_and_no_other():
    assert sorted((state, event, new) for state, moves in life.TABLE.items()
                  for event, new in moves.items()) == sorted(TRANSITIONS)
    assert set(life.TABLE) == {NEW, *life.STATES}


@pytest.mark.parametrize(("state", "event", "new"), TRANSITIONS)
def test_each_transition_moves_a_task(state: str, event: str, new: str):
    task = Task(task_id=1, state=state)
    assert life.after(state, event) == new and life.allows(state, event)
    assert task.move(event) and task.state == new


@pytest.mark.parametrize("state", [NEW, *life.STATES, "nonsense"])
def test_events_the_table_does_not_list_are_refused_and_move_nothing(state: str):
    listed = {event for s, event, _ in TRANSITIONS if s == state}
    for event in [*EVENTS, "nonsense"]:
        if event in listed:
            continue
        task = Task(task_id=1, state=state)
        assert life.after(state, event) is None and not life.allows(state, event)
        assert not task.move(event) and task.state == state


def test_a_task_in_no_state_but_done_takes_every_path_to_done():
    """Nothing is stuck: from every state a task can be done, by the table alone."""
    for start in life.STATES:
        reached, todo = {start}, [start]
        while todo:
            for new in life.TABLE[todo.pop()].values():
                if new not in reached:
                    reached.add(new)
                    todo.append(new)
        assert DONE in reached, start


def test_new_jobs_start_pending_or_held_by_the_table():
    assert [t.state for t in new_job(1, JobSpec(array=(1, 3, 1)), 0.0).tasks.values()] == \
        [PENDING] * 3
    assert [t.state for t in new_job(2, JobSpec(hold=True), 0.0).tasks.values()] == [HELD]


@pytest.mark.parametrize(("rescheduling", "deleted", "event"), [
    (False, False, FINISH), (True, False, FINISH_RESCHEDULED), (False, True, FINISH),
    (True, True, FINISH),
])
def test_a_run_ends_rescheduled_when_qmod_r_asked_and_qdel_did_not(
        rescheduling: bool, deleted: bool, event: str):
    task = Task(task_id=1, state=RUNNING, rescheduling=rescheduling, delete_requested=deleted)
    assert life.finish_event(task, 0) == event
    assert life.finish_event(task, 100) == event  # assumedly after job: no fault of its own


@pytest.mark.parametrize(("failed", "rescheduling", "deleted", "event"), [
    (1, False, False, FAIL), (26, False, False, FAIL), (27, False, False, FAIL),
    (28, False, False, FAIL), (11, False, False, FINISH), (19, False, False, FINISH),
    (37, False, False, FINISH),
    (28, True, False, FINISH_RESCHEDULED), (28, False, True, FINISH),
    (28, True, True, FINISH),
])
def test_a_job_that_cannot_start_by_its_own_fault_goes_to_error_unless_its_end_was_asked(
        failed: int, rescheduling: bool, deleted: bool, event: str):
    """8.1.9 puts a job in Eqw for its owner unknown on the host (1), its working
    directory (28), its input or output files (26) and its shell (27); qmod -r and qdel
    asked for its end, which it then has."""
    task = Task(task_id=1, state=TRANSFERRING, rescheduling=rescheduling,
                delete_requested=deleted)
    assert life.finish_event(task, failed) == event


def test_the_job_errors_are_the_execds_codes():
    assert life.JOB_ERRORS == {runner.FAILED_NO_OWNER, shepherd.FAILED_OPEN_OUTPUT,
                               shepherd.FAILED_NO_SHELL, shepherd.FAILED_NO_CWD}


@pytest.mark.parametrize(("holds", "deleted", "event"), [
    ("", False, REQUEUE), ("o", False, REQUEUE_HELD), ("", True, DROP), ("us", True, DROP),
])
def test_a_rescheduled_run_accounted_requeues_its_task_held_or_not_unless_deleted(
        holds: str, deleted: bool, event: str):
    task = Task(task_id=1, state=RESCHEDULED, holds=holds, delete_requested=deleted)
    assert life.accounted_event(task) == event


def _never() -> bool:
    raise AssertionError("asked of a task it does not concern")


def _never_letters() -> str:
    raise AssertionError("asked of a task it does not concern")


@pytest.mark.parametrize(("task", "waits", "letters", "shown"), [
    (Task(task_id=1), False, "", "qw"),
    (Task(task_id=1), True, "", "hqw"),  # a dependency holds it
    (Task(task_id=1, rerun=True), False, "", "Rq"),
    (Task(task_id=1, rerun=True), True, "", "hqw"),
    (Task(task_id=1, state=HELD, holds="o"), None, None, "hqw"),
    (Task(task_id=1, state=RUNNING), None, "", "r"),
    (Task(task_id=1, state=RUNNING, rerun=True), None, "", "Rr"),
    (Task(task_id=1, state=RUNNING, holds="u"), None, "", "hr"),
    (Task(task_id=1, state=RUNNING, rerun=True, holds="u"), None, "", "Rr"),
    (Task(task_id=1, state=RUNNING, holds="u"), None, "Ss", "Ss"),
    (Task(task_id=1, state=RUNNING, rerun=True), None, "T", "T"),
    (Task(task_id=1, state=TRANSFERRING, suspended=True), None, None, "t"),
    (Task(task_id=1, state=DELETING), None, None, "dr"),
    (Task(task_id=1, state=ERROR), None, None, "Eqw"),
    (Task(task_id=1, state=RESCHEDULED), None, None, "Rq"),
])
def test_the_letters_shown_asking_only_what_concerns_the_task(
        task: Task, waits: bool | None, letters: str | None, shown: str):
    assert life.shown(task, _never if waits is None else lambda: waits,
                      _never_letters if letters is None else lambda: letters) == shown


def test_suspension_letters_and_the_classes_qstat_selects_by():
    assert life.suspension(False, False, False) == ""
    assert life.suspension(True, True, True) == "STs"
    assert life.suspension(False, True, True) == "Ts"
    assert life.SHOWN_SUSPENDED == {"S", "T", "s", "ST", "Ss", "Ts", "STs"}
    assert life.SHOWN_HOLDING == {"t", "r", "dr", "Rr", "hr", *life.SHOWN_SUSPENDED}
    by = life.SELECTED_BY
    assert by["p"] == {"qw", "hqw", "Eqw", "Rq"} and by["h"] == {"hqw", "hr"}
    assert by["r"] == {"t", "r", "dr", "Rr", "hr"} and by["z"] == {"z"}
    assert by["a"] == by["p"] | by["r"] | by["s"]

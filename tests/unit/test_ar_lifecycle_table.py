"""The advance reservation lifecycle's table and its choice of events, alone (what the
master does with them: test_ar_lifecycle.py, test_ar_errors.py)."""

from __future__ import annotations

import pytest

from gridd.model import ar_lifecycle as life
from gridd.model.ar import AdvanceReservation, ArSpec
from gridd.model.ar_lifecycle import (
    DELETE,
    DELETED,
    END,
    ERROR,
    EXITED,
    FAIL,
    FAIL_STARTED,
    MEND,
    MEND_STARTED,
    RUNNING,
    START,
    WAITING,
    WARNING,
)

# Every transition there is, written out: (state, event, next state).
TRANSITIONS = [
    (WAITING, START, RUNNING), (WAITING, END, EXITED), (WAITING, DELETE, DELETED),
    (WAITING, FAIL, WARNING), (WAITING, FAIL_STARTED, ERROR),
    (RUNNING, END, EXITED), (RUNNING, DELETE, DELETED), (RUNNING, FAIL, WARNING),
    (RUNNING, FAIL_STARTED, ERROR),
    (WARNING, START, ERROR), (WARNING, END, EXITED), (WARNING, DELETE, DELETED),
    (WARNING, MEND, WAITING), (WARNING, MEND_STARTED, RUNNING),
    (ERROR, END, EXITED), (ERROR, DELETE, DELETED), (ERROR, MEND, WAITING),
    (ERROR, MEND_STARTED, RUNNING),
]
EVENTS = sorted({event for _, event, _ in TRANSITIONS})


def _ar(state: str) -> AdvanceReservation:
    return AdvanceReservation(ar_id=1, spec=ArSpec(), submission_time=0.0, start=10.0,
                              end=20.0, state=state)


def test_the_table_is_these_transitions_and_no_other():
    assert sorted((state, event, new) for state, moves in life.TABLE.items()
                  for event, new in moves.items()) == sorted(TRANSITIONS)
    assert set(life.TABLE) == set(life.STATES)
    assert set(life.LOGGED) == set(EVENTS)


@pytest.mark.parametrize(("state", "event", "new"), TRANSITIONS)
def test_each_transition_moves_an_ar(state: str, event: str, new: str):
    ar = _ar(state)
    assert life.after(state, event) == new and life.allows(state, event)
    assert ar.move(event) and ar.state == new


@pytest.mark.parametrize("state", [*life.STATES, "nonsense"])
def test_events_the_table_does_not_list_are_refused_and_move_nothing(state: str):
    listed = {event for s, event, _ in TRANSITIONS if s == state}
    for event in [*EVENTS, "nonsense"]:
        if event not in listed:
            ar = _ar(state)
            assert life.after(state, event) is None and not life.allows(state, event)
            assert not ar.move(event) and ar.state == state


def test_the_states_it_holds_resources_in_are_those_it_can_end_from():
    assert set(life.LIVE) == {s for s in life.STATES if life.allows(s, END)}
    assert set(life.OVER) == {s for s in life.STATES if not life.TABLE[s]}
    assert set(life.FAILED) == {s for s in life.STATES if life.allows(s, MEND)}


@pytest.mark.parametrize(("failed", "started", "event"), [
    (True, False, FAIL), (True, True, FAIL_STARTED), (False, False, MEND),
    (False, True, MEND_STARTED),
])
def test_failing_and_mending_before_the_start_time_or_after(
        failed: bool, started: bool, event: str):
    assert life.resources_event(failed, started) == event


@pytest.mark.parametrize(("state", "hard", "may"), [
    (RUNNING, False, True), (RUNNING, True, True), (ERROR, False, True), (ERROR, True, False),
    (WAITING, False, False), (WARNING, False, False), (EXITED, False, False),
    (DELETED, False, False),
])
def test_its_jobs_run_while_it_runs_or_is_in_error_with_soft_error_handling(
        state: str, hard: bool, may: bool):
    assert life.jobs_may_run(state, hard) is may

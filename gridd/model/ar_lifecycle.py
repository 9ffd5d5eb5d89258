"""The advance reservation lifecycle: the states an AR is in (as qrstat prints them), the
events that move it, and the one table of where each event takes an AR in each state, as
gridd.model.task_lifecycle has for tasks. Whatever changes an AR's state asks it
(``AdvanceReservation.move``).

An AR is granted waiting (w) and runs (r) from its start time to its end time (x); qrdel
deletes it (d). While one of its queue instances has failed (its host unknown, the queue
disabled, suspended or in error) it is in warning (W) before its start time and in error
(E) after it, and back to w or r once none has. An ended or deleted AR leaves once no job
of it is left.
"""

from __future__ import annotations

WAITING = "w"  # granted, start time not reached
RUNNING = "r"  # start time reached
EXITED = "x"  # end time reached, being cleaned up
DELETED = "d"  # qrdel'd, its jobs being removed
ERROR = "E"  # a reserved resource failed while the AR runs
WARNING = "W"  # a reserved resource failed before the AR starts
STATES = (WAITING, RUNNING, EXITED, DELETED, ERROR, WARNING)
LIVE = (WAITING, RUNNING, ERROR, WARNING)  # states in which an AR still holds its resources
OVER = (EXITED, DELETED)  # it leaves once its jobs are gone
FAILED = (ERROR, WARNING)  # qrstat says why (AdvanceReservation.message)

# Events. The reporting file's ar_log names them as 8.1.9 does (LOGGED).
START = "start"  # its start time reached
END = "end"  # its end time reached
DELETE = "delete"  # qrdel
# A reserved queue instance failed, or none has any more, before its start time or after.
FAIL = "fail"
FAIL_STARTED = "fail started"
MEND = "mend"
MEND_STARTED = "mend started"

LOGGED = {START: "START TIME REACHED", END: "TERMINATED", DELETE: "DELETED",
          FAIL: "RESOURCES UNSATISFIED", FAIL_STARTED: "RESOURCES UNSATISFIED",
          MEND: "RESOURCES SATISFIED", MEND_STARTED: "RESOURCES SATISFIED"}

# state -> event -> next state. Anything missing is refused. (r -> W and E -> w follow a
# clock set back before the start time.)
TABLE: dict[str, dict[str, str]] = {
    WAITING: {START: RUNNING, END: EXITED, DELETE: DELETED, FAIL: WARNING,
              FAIL_STARTED: ERROR},
    RUNNING: {END: EXITED, DELETE: DELETED, FAIL: WARNING, FAIL_STARTED: ERROR},
    WARNING: {START: ERROR, END: EXITED, DELETE: DELETED, MEND: WAITING,
              MEND_STARTED: RUNNING},
    ERROR: {END: EXITED, DELETE: DELETED, MEND: WAITING, MEND_STARTED: RUNNING},
    EXITED: {},
    DELETED: {},
}


def after(state: str, event: str) -> str | None:
    """Where `event` takes an AR in `state`, or None: the table refuses it."""
    moves = TABLE.get(state)
    return None if moves is None else moves.get(event)


def allows(state: str, event: str) -> bool:
    return after(state, event) is not None


def resources_event(failed: bool, started: bool) -> str:
    """What its queue instances' states say to an AR: failed or mended, before its start
    time or after."""
    if failed:
        return FAIL_STARTED if started else FAIL
    return MEND_STARTED if started else MEND


def jobs_may_run(state: str, hard_error: bool) -> bool:
    """Whether an AR's jobs may run: while it runs, or is in error with soft error
    handling (qrsub -he n)."""
    return state == RUNNING or (state == ERROR and not hard_error)

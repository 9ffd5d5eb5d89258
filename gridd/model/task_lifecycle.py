"""The task lifecycle: the states a task is kept in, the events that move it, and the one
table of where each event takes a task in each state (as h11's _state.py keeps a
connection's); and, from a task's state and marks, the letters qstat shows.

Whatever changes a task's state asks the table (``Task.move``): an event the table does
not list for the state is refused, and the caller says so in Grid Engine's words, or says
nothing where 8.1.9 says nothing. Some events leave the state as it is and only set a mark
on the task (its holds, qmod -sj's suspension, qmod -r's rescheduling, qdel's request):
the table lists them all the same, since the state decides whether they may happen.
"""

from __future__ import annotations

from collections.abc import Callable
from itertools import product
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from gridd.model.job import Task

# ---- states: what Task.state holds (spooled, and what qstat shows most of the time) ----

PENDING = "qw"
HELD = "hqw"  # by a hold of HOLDS (qsub -h, qhold)
TRANSFERRING = "t"  # sent to its execd, not known to run yet
RUNNING = "r"
DELETING = "dr"  # qdel asked its execd to kill it
ERROR = "Eqw"  # its job could not be started for a fault of its own (JOB_ERRORS)
# A run ended by qmod -r: the task waits again once that run is accounted (until then the
# record may still have to be made anew from it, after a restart).
RESCHEDULED = "Rq"
DONE = "done"  # gone from qstat, kept until accounted
NEW = "new"  # not a task yet: where submission starts from (never kept)
STATES = (PENDING, HELD, TRANSFERRING, RUNNING, DELETING, ERROR, RESCHEDULED, DONE)
ACTIVE = (TRANSFERRING, RUNNING, DELETING)  # states in which a task holds its slots
WAITING = (PENDING, HELD, ERROR, RESCHEDULED)  # states (and letters) of a task not started

# ---- events ------------------------------------------------------------------------------

SUBMIT = "submit"
SUBMIT_HELD = "submit held"  # qsub -h
HOLD = "hold"  # qhold, or qrls lifting some of its holds
RELEASE = "release"  # qrls lifting its last hold
DISPATCH = "dispatch"  # the scheduler's order, sent on to the execd
UNSCHEDULABLE = "unschedulable"  # qsub -now y: no place at once
STARTED = "started"  # its execd says it runs (TaskStarted, or a report listing it)
SUSPEND = "suspend"  # qmod -sj
UNSUSPEND = "unsuspend"  # qmod -usj
# Its execd told to stop or continue its processes: its queue instance suspended (qmod
# -sq, S) or over a suspend threshold (T), or qmod -sj (s), begun or ended.
STOP = "stop"
CONTINUE = "continue"
RESCHEDULE = "reschedule"  # qmod -r: its run is to end, and it waits again
DELETE = "delete"  # qdel
FORCE_DELETE = "force delete"  # qdel -f: forgotten at once, killed or not
FINISH = "finish"  # its execd reports its end, or it was lost with its host
FINISH_RESCHEDULED = "finish rescheduled"  # the end of a run qmod -r asked to end
FAIL = "fail"  # its execd could not start its job, for a fault of the job's (JOB_ERRORS)
REQUEUE = "requeue"  # its rescheduled run accounted: it waits again,
REQUEUE_HELD = "requeue held"  # held when it has holds,
DROP = "drop"  # done when qdel asked meanwhile
CLEAR_ERROR = "clear error"  # qmod -cj

# Events a task holding slots takes without leaving its state.
_MARKS = (HOLD, RELEASE, SUSPEND, UNSUSPEND, STOP, CONTINUE, CLEAR_ERROR)

# state -> event -> next state. Anything missing is refused.
TABLE: dict[str, dict[str, str]] = {
    NEW: {SUBMIT: PENDING, SUBMIT_HELD: HELD},
    PENDING: {HOLD: HELD, RELEASE: PENDING, DISPATCH: TRANSFERRING, UNSCHEDULABLE: DONE,
              DELETE: DONE, FORCE_DELETE: DONE},
    HELD: {HOLD: HELD, RELEASE: PENDING, DELETE: DONE, FORCE_DELETE: DONE},
    ERROR: {CLEAR_ERROR: PENDING, DELETE: DONE, FORCE_DELETE: DONE},
    # RUNNING may fail to start too: a load report lists a task while its shepherd starts
    TRANSFERRING: {**dict.fromkeys(_MARKS, TRANSFERRING), STARTED: RUNNING,
                   RESCHEDULE: TRANSFERRING, DELETE: DELETING, FORCE_DELETE: DONE,
                   FINISH: DONE, FINISH_RESCHEDULED: RESCHEDULED, FAIL: ERROR},
    RUNNING: {**dict.fromkeys(_MARKS, RUNNING), RESCHEDULE: RUNNING, DELETE: DELETING,
              FORCE_DELETE: DONE, FINISH: DONE, FINISH_RESCHEDULED: RESCHEDULED,
              FAIL: ERROR},
    # qdel again sends the kill again; qmod -r leaves it to its deletion
    DELETING: {**dict.fromkeys(_MARKS, DELETING), DELETE: DELETING, FORCE_DELETE: DONE,
               FINISH: DONE},
    # qdel is remembered (Task.delete_requested) until the run is accounted
    RESCHEDULED: {CLEAR_ERROR: RESCHEDULED, DELETE: RESCHEDULED,
                  FORCE_DELETE: RESCHEDULED, REQUEUE: PENDING, REQUEUE_HELD: HELD,
                  DROP: DONE},
    DONE: {CLEAR_ERROR: DONE},  # qmod -cj says it cleared it, as of a running task
}


def after(state: str, event: str) -> str | None:
    """Where `event` takes a task in `state`, or None: the table refuses it."""
    moves = TABLE.get(state)
    return None if moves is None else moves.get(event)


def allows(state: str, event: str) -> bool:
    return after(state, event) is not None


# The failures (accounting(5)'s codes) that are the job's own fault, not the host's nor
# its queue's, all met on the execution host: its owner unknown there (1, "assumedly
# before job"), opening an input or output file (26), finding its shell (27), entering
# its working directory (28). 8.1.9 leaves the queue alone and puts the job in error
# state with the reason (the run is accounted) until qmod -cj; any other failure ends
# the task. The execd's runner and shepherd define the codes (a test holds them
# together).
JOB_ERRORS = frozenset({1, 26, 27, 28})


def finish_event(task: Task, failed: int, error_state: bool = True) -> str:
    """How a run's end, ``failed`` as its execd reports it, moves its task: rescheduled
    when qmod -r asked for it and qdel did not ask since; in error when its job could not
    start for a fault of its own, nobody asked for its end and its job may be in error
    state (a DRMAA job may not)."""
    if task.rescheduling and not task.delete_requested:
        return FINISH_RESCHEDULED
    if failed in JOB_ERRORS and error_state and not task.delete_requested:
        return FAIL
    return FINISH


def accounted_event(task: Task) -> str:
    """How the accounting of its rescheduled run moves a task."""
    if task.delete_requested:
        return DROP
    return REQUEUE_HELD if task.holds else REQUEUE


# ---- the letters shown (qstat's state column) ----------------------------------------

RERUN = "Rr"  # a running task that was rescheduled before
HELD_RUNNING = "hr"  # a running task with a hold (it holds once rerun)
# How a running task shows while suspended: by qmod -sj, by its queue, by a suspend
# threshold.
SUSPENDED, QUEUE_SUSPENDED, THRESHOLD_SUSPENDED = "s", "S", "T"
ZOMBIE = "z"  # a job that ended lately (qstat -s z)


def suspension(queue: bool, threshold: bool, by_qmod: bool) -> str:
    """How a task is suspended, as qstat shows it: S by its queue, T by a suspend
    threshold, s by qmod -sj, in that order ("Ss" when two are), "" when it is not."""
    return ((QUEUE_SUSPENDED if queue else "") + (THRESHOLD_SUSPENDED if threshold else "")
            + (SUSPENDED if by_qmod else ""))


def shown(task: Task, waits: Callable[[], bool], suspended: Callable[[], str]) -> str:
    """The letters qstat shows for a task. `waits`: whether a dependency holds it back
    (asked of a pending task only); `suspended`: its suspension() (of a running one)."""
    state = task.state
    if state == PENDING:
        if waits():
            return HELD
        return RESCHEDULED if task.rerun else PENDING
    if state == RUNNING:
        letters = suspended() or (RERUN if task.rerun else RUNNING)
        return HELD_RUNNING if letters == RUNNING and task.holds else letters
    return state


# Every way qstat can show a task that is suspended.
SHOWN_SUSPENDED = frozenset(suspension(*marks) for marks in product((False, True), repeat=3)
                            ) - {""}
# The letters shown of tasks holding slots.
SHOWN_HOLDING = frozenset(ACTIVE) | SHOWN_SUSPENDED | {RERUN, HELD_RUNNING}
SHOWN_HELD = frozenset({HELD, HELD_RUNNING})
# qstat -s letters -> the letters shown of the tasks they select ("a": p, r and s).
SELECTED_BY: dict[str, frozenset[str]] = {
    "p": frozenset(WAITING),
    "r": frozenset(ACTIVE) | {RERUN, HELD_RUNNING},
    "s": SHOWN_SUSPENDED,
    "h": SHOWN_HELD,
    "z": frozenset({ZOMBIE}),  # finished jobs: JobsReply.finished
}
SELECTED_BY["a"] = SELECTED_BY["p"] | SELECTED_BY["r"] | SELECTED_BY["s"]

"""qstat's job listing as rows: which tasks qstat -u and -s select, how a job's waiting
tasks fold into one row per state (array tasks as a range), and the order the rows come
in. One rule for both of its callers: the master builds the rows of a plain listing
compact (`ShownRow`, a `JobRows` of them) and prints them (`formats.qstat_rows`), and
the renderers of the other views (`cli/render_qstat*`, the web pages) build them from
whole jobs.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Iterable, Mapping
from operator import attrgetter

import msgspec

from gridd.model.cluster import Queue
from gridd.model.job import Job, Task
from gridd.model.task_lifecycle import SELECTED_BY, SHOWN_HELD, SHOWN_HOLDING, WAITING, ZOMBIE

HOLD_KINDS = "uosdja"
UNRANKED = 0.5  # the priority shown of a job the master worked none out for


class ShownRow(msgspec.Struct, frozen=True):
    """One job line as qstat prints it (a Row, less the job): frozen, so that the master
    can keep the line it printed for it (formats.qstat_rows.Memo)."""

    job_id: int
    prior: float
    name: str
    owner: str
    state: str
    stamp: float  # start time when running, submission time when pending
    queue: str  # master queue instance ("" when pending)
    slots: int
    tasks: str  # ja-task-ID text
    array: bool


class JobRows(msgspec.Struct):
    """A plain listing's rows (protocol.QueryRows): the running rows in queue order, then
    the pending ones in qstat's order."""

    running: list[ShownRow] = []
    pending: list[ShownRow] = []


class Row(msgspec.Struct, frozen=True):
    """One job line: a running task, or pending tasks of one job in one state folded."""

    job: Job
    state: str
    stamp: float  # start time when running, submission time when pending
    queue: str  # master queue instance ("" when pending)
    slots: int
    tasks: str  # ja-task-ID text; "" for a job that is not an array
    task_id: int  # the (lowest) task the row stands for; 0 for a job that is not an array
    prior: float  # the job's normalised priority, as the master worked it out
    task: Task | None = None  # the running task the row stands for

    # What the plain columns show, by the names of ShownRow, so that one
    # renderer prints either.
    @property
    def job_id(self) -> int:
        return self.job.job_id

    @property
    def name(self) -> str:
        return self.job.spec.name

    @property
    def owner(self) -> str:
        return self.job.spec.owner

    @property
    def array(self) -> bool:
        return self.job.is_array


def state_filter(states: str | None) -> tuple[frozenset[str], frozenset[str]]:
    """What qstat -s letters select: task states, and kinds of hold (hu, ho, hs: user,
    operator and system holds; hd: an array dependency; hj: a job dependency; ha: a
    start time, qsub -a); all live states when none are given."""
    if not states:
        return SELECTED_BY["a"], frozenset()
    selected: frozenset[str] = frozenset()
    kinds: set[str] = set()
    i = 0
    while i < len(states):
        letter = states[i]
        if letter == "h" and i + 1 < len(states) and states[i + 1] in HOLD_KINDS:
            kinds.add(states[i + 1])
            i += 2
            continue
        if letter not in SELECTED_BY:
            raise ValueError(f'unknown job state "{letter}" for -s')
        selected |= SELECTED_BY[letter]
        if letter == "h":  # every kind of hold, -a's too
            kinds.update(HOLD_KINDS)
        i += 1
    return selected, frozenset(kinds)


def held_as(job: Job, task: Task, kinds: frozenset[str]) -> bool:
    """Whether a task is held (or, ha, waits for its start time) in one of these ways."""
    if "a" in kinds and job.spec.start_time and task.state in WAITING:
        return True
    if task.state not in SHOWN_HELD:
        return False
    spec = job.spec  # (the master spells out a task's holds: see Master._shown)
    return any(k in task.holds for k in kinds & set("uos")) or (
        "d" in kinds and bool(spec.hold_jid_ad)) or ("j" in kinds and bool(spec.hold_jid))


def user_matches(owner: str, users: list[str] | None) -> bool:
    """No list, or a list containing a pattern matching the owner ('*' matches all)."""
    return users is None or owner in users or any(
        fnmatch.fnmatchcase(owner, u) for u in users)


def queue_order(queues: Iterable[Queue]) -> list[tuple[Queue, str]]:
    """(cluster queue, instance name) as GE lists them: by seq_no, queue name, host."""
    ordered = sorted(queues, key=lambda q: (q.seq_no, q.name))
    return [(q, qi) for q in ordered for qi in sorted(q.instances())]


def task_range(ids: list[int]) -> str:
    """Task ids as GE prints a range list: from the left, a run of three or more ids
    with one step as 'a-b:s', shorter runs id by id ('1,3,4,5,8' for 1, 3, 4, 5 and 8,
    as 8.1.9 prints it: 3-5 is not a run once 3 has gone with 1), joined by commas."""
    parts: list[str] = []
    i = 0
    while i < len(ids):
        start = ids[i]
        if i + 1 == len(ids):
            parts.append(str(start))
            break
        step = ids[i + 1] - start
        j = i + 1
        while j + 1 < len(ids) and ids[j + 1] - ids[j] == step:
            j += 1
        if j - i >= 2:
            parts.append(f"{start}-{ids[j]}:{step}")
        else:
            parts += [str(start), str(ids[j])]
        i = j + 1
    return ",".join(parts)


def task_slots(job: Job, task: Task) -> int:
    """The slots a started task holds (those its job asks for, until they are known)."""
    return sum(n for _, n in task.granted) or job.spec.slots()


def _pending_rows(job: Job, tasks: list[Task], prior: float, apart: bool) -> list[Row]:
    """Fold the job's waiting tasks into one row per state, as GE folds array tasks (or,
    `apart`, a row per task: qstat -g d)."""
    if not job.is_array:  # one task: one row, without the folding's work
        task = tasks[0]
        return [Row(job, task.state, job.submit_time, "", job.spec.slots(), "",
                    task.task_id, prior)]
    by_state: dict[str, list[int]] = {}
    for task in sorted(tasks, key=lambda t: t.task_id):
        by_state.setdefault(task.state, []).append(task.task_id)
    runs = [(state, [n]) for state, ids in by_state.items() for n in ids] \
        if apart else list(by_state.items())
    slots = job.spec.slots()
    return [Row(job, state, job.submit_time, "", slots, task_range(ids), ids[0], prior)
            for state, ids in runs]  # "1,2" for -t 1-2, as 8.1.9 prints it


def _running_row(job: Job, task: Task, prior: float) -> Row:
    tasks = str(task.task_id) if job.is_array else ""
    return Row(job, task.state, task.start_time, task.queue, task_slots(job, task), tasks,
               task.task_id, prior, task)


def _zombie_row(job: Job) -> Row:
    """A job that ended lately, as qstat -s z shows it (gridd keeps no priority for it)."""
    ids = sorted(job.tasks)
    return Row(job, ZOMBIE, job.submit_time, "", job.spec.slots(),
               task_range(ids) if job.is_array else "", ids[0] if ids else 0, 0.0)


def job_rows(jobs: Iterable[Job], priorities: Mapping[int, float], *,
             users: list[str] | None, states: str | None, queues: Iterable[Queue] = (),
             chosen: set[str] | None = None, eligible: set[int] | None = None,
             finished: Iterable[Job] = (), tasks_apart: bool = False
             ) -> tuple[list[Row], list[Row]]:
    """Running rows in queue order then job id, and pending rows by priority then job id
    (array tasks apart with -g d). `jobs` are as the master shows them (their tasks' states
    shown, gridd.master's Queries._shown); with queue selection options, the tasks running
    in the instances `chosen` and the waiting jobs that might run there (`eligible`)."""
    wanted, kinds = state_filter(states)
    rank = {qi: n for n, (_, qi) in enumerate(queue_order(queues))}
    running: list[Row] = []
    pending: list[Row] = []
    for job in jobs:
        if users is not None and not user_matches(job.spec.owner, users):
            continue
        tasks = [t for t in job.tasks.values()
                 if t.state in wanted or (kinds and held_as(job, t, kinds))]
        if not tasks:
            continue
        prior = priorities.get(job.job_id, UNRANKED)
        running += [_running_row(job, t, prior) for t in tasks
                    if t.state in SHOWN_HOLDING and (chosen is None or t.queue in chosen)]
        if eligible is None or job.job_id in eligible:
            waiting = [t for t in tasks if t.state in WAITING]
            if waiting:
                pending += _pending_rows(job, waiting, prior, tasks_apart)
    running.sort(key=lambda r: (rank.get(r.queue, len(rank)), r.job.job_id, r.task_id))
    pending.sort(key=_task_id)  # a job's rows by task (-g d lists them by state first)
    pending_order(pending)
    if ZOMBIE in wanted:
        pending += finished_rows(finished, users)
    return running, pending


def pending_order(rows: list) -> None:
    """Put pending rows (Rows or gridd.protocol.ShownRows) in qstat's order, in place: by
    priority, highest first, then by job id, then by task; the rows of one job must come
    in their tasks' order, which both sorts keep (they keep the order of equals)."""
    rows.sort(key=_job_id)
    rows.sort(key=_negated_prior)


def finished_rows(finished: Iterable[Job], users: list[str] | None) -> list[Row]:
    """The rows of jobs that ended lately, which qstat -s z lists after the waiting
    ones, in the order they ended."""
    return [_zombie_row(job) for job in finished if user_matches(job.spec.owner, users)]


_task_id = attrgetter("task_id")
_job_id = attrgetter("job_id")


def _negated_prior(row: Row) -> float:
    return -row.prior

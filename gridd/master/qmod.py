"""qmod: the states of queue instances (disable, suspend, clear error) and of jobs
(suspend, clear error, reschedule), with Grid Engine's messages; every line goes to
stdout. A job is for its owner, operators and managers to change; a queue instance for
operators, managers and the users its owner_list names; rescheduling for managers.

Rescheduling (-rj, -rq, -r) kills a running task that may run again (qsub -r y, or its
queue's rerun TRUE, or -f); once execd reports its end, the run is accounted (failed 25,
"rescheduling") and, once that is confirmed, the task waits to run again (qstat: Rq, then
Rr). 8.1.9 also writes the reschedule time over the job's submission time; gridd keeps it.

The letters qmod sets live in `MasterState.flags`; whatever they change for running tasks
(processes to stop or continue) the master works out afterwards from the new states.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from gridd import protocol as p
from gridd.formats.requests import invalid_job_task, split_job_task, task_selection
from gridd.master import permissions, reporting
from gridd.model.cluster import Instance
from gridd.model.job import Job, Task
from gridd.model.queue_ref import queue_matches
from gridd.model.task_lifecycle import (
    CLEAR_ERROR,
    RESCHEDULE,
    SUSPEND,
    UNSUSPEND,
    WAITING,
    allows,
)

if TYPE_CHECKING:
    from gridd.master.core import Master
    from gridd.master.state import Effects

# action -> (state letter, set it?, word in the messages)
QUEUE_ACTIONS = {
    "d": ("d", True, "disabled"),
    "e": ("d", False, "enabled"),
    "sq": ("s", True, "suspended"),
    "usq": ("s", False, "unsuspended"),
    "cq": ("E", False, "no error"),
}
# job action -> its event in the task lifecycle
JOB_ACTIONS = {"sj": SUSPEND, "usj": UNSUSPEND, "cj": CLEAR_ERROR, "rj": RESCHEDULE}
RESCHEDULING = frozenset({"r", "rj", "rq"})
# actions taking jobs and queues alike -> (their queue form, their job form)
MIXED = {"s": ("sq", "sj"), "us": ("usq", "usj"), "c": ("cq", "cj"), "r": ("rq", "rj")}
ACTIONS = frozenset(QUEUE_ACTIONS) | frozenset(JOB_ACTIONS) | frozenset(MIXED) | RESCHEDULING


def run_qmod(master: Master, req: p.Qmod, now: float, fx: Effects) -> p.Ok:
    if req.action in RESCHEDULING and not permissions.is_manager(master.s.config, req.user):
        return p.Ok(lines=[permissions.must_be_manager(req.user)], code=1)
    lines: list[str] = []
    code = 0
    touched: set[str] = set()
    for target in req.targets:
        queue_action, job_action = MIXED.get(req.action, (req.action, req.action))
        jobs = master.live_jobs(split_job_task(target)[0]) if job_action in JOB_ACTIONS else []
        instances = (_instances(master, target)
                     if (queue_action in QUEUE_ACTIONS or queue_action == "rq") and not jobs
                     else [])
        why = invalid_job_task(target) if jobs else None
        if why:
            lines.append(why)
            code = 1
        elif jobs:
            for job in jobs:
                if permissions.may_handle(master.s.config, req.user, job.spec.owner):
                    lines += _job_action(master, job_action, job, target, req, fx)
                else:
                    lines.append(f'{req.user} - you have no permission to modify job '
                                 f'"{job.job_id}"')
                    code = 1
        elif instances and queue_action == "rq":
            lines += _reschedule_queues(master, {qi.name for qi in instances}, req, fx)
        elif instances:
            for qi in instances:
                if _may_modify(master, req.user, qi):
                    lines.append(_queue_action(master, queue_action, qi, req, now, fx, touched))
                else:
                    lines.append(f'{req.user} - you have no permission to modify queue '
                                 f'"{qi.name}"')
                    code = 1
        else:
            kind = "queue" if req.action in QUEUE_ACTIONS else "queue or job"
            lines.append(f'invalid {kind} "{target}"')
            code = 1
    if touched:
        master.sync_suspension(fx, on=touched)
    return p.Ok(lines=lines, code=code)


def _instances(master: Master, ref: str) -> list[Instance]:
    groups = master.plan.hostgroups
    return [qi for qi in master.plan.instances if queue_matches(ref, qi, groups)]


def _may_modify(master: Master, user: str, qi: Instance) -> bool:
    """Operators and managers may change any queue instance's state, the users its
    owner_list names their own."""
    return permissions.is_operator(master.s.config, user) or user in qi.owner_list


def _queue_action(master: Master, action: str, qi: Instance, req: p.Qmod, now: float,
                  fx: Effects, touched: set[str]) -> str:
    letter, on, word = QUEUE_ACTIONS[action]
    flags = master.s.flags
    current = flags.get(qi.name, "")
    if (letter in current) == on:
        return f'Queue instance "{qi.name}" is already in the specified state: {word}'
    new = current + letter if on else current.replace(letter, "")
    if new:
        flags[qi.name] = new
    else:
        flags.pop(qi.name, None)
    fx.flags_changed = True
    touched.add(qi.name)
    reporting.queue_state(master, qi.name, new, now, fx)
    return f'{req.user}@{req.host} changed state of "{qi.name}" ({word})'


def _job_action(master: Master, action: str, job: Job, target: str, req: p.Qmod,
                fx: Effects) -> list[str]:
    wanted = task_selection(split_job_task(target)[1])
    lines = []
    for task in sorted(job.tasks.values(), key=lambda t: t.task_id):
        if wanted is not None and task.task_id not in wanted:
            continue
        what = _named(job, task)
        if not allows(task.state, JOB_ACTIONS[action]):
            if task.state in WAITING:  # (nothing is said of one done or being deleted)
                lines.append(f"Modify operation can not be applied on job-array task "
                             f"{job.job_id}.{max(task.task_id, 1)} in pending/hold state")
        elif action == "cj":
            lines.append(_clear_error(master, job, task, what, req, fx))
        elif action == "rj":
            lines += _reschedule(master, job, task, req, fx)
        else:
            on = action == "sj"
            word = "suspended" if on else "unsuspended"
            if task.suspended == on:
                lines.append(f"{req.user} - {what} is already {word}")
                continue
            task.suspended = on
            fx.dirty_tasks.add((job.job_id, task.task_id))
            lines.append(f"{req.user} - {word} {what}")
            master.sync_suspension(fx, tasks=[(job, task)])
    return lines


def _reschedule_queues(master: Master, names: set[str], req: p.Qmod,
                       fx: Effects) -> list[str]:
    """qmod -rq: every task running in one of the instances."""
    lines = []
    for job_id, task_id in list(master.running):
        job = master.s.jobs.get(job_id)
        task = job.tasks.get(task_id) if job is not None else None
        if job is not None and task is not None and any(qi in names for qi, _ in task.granted):
            lines += _reschedule(master, job, task, req, fx)
    return lines


def _reschedule(master: Master, job: Job, task: Task, req: p.Qmod, fx: Effects) -> list[str]:
    """Kill a running task to run it again, if it may run again (or -f); nothing is said
    of one being rescheduled or deleted already, as 8.1.9 says nothing."""
    if task.rescheduling or not allows(task.state, RESCHEDULE):
        return []
    what = _named(job, task)
    if not (req.force or rerunnable(master, job, task)):
        return [f"The {what} is running in queue {task.queue} where jobs are not rerunable."]
    task.rescheduling = True
    fx.dirty_tasks.add((job.job_id, task.task_id))
    fx.to_execd.append((task.host, p.KillTask(job_id=job.job_id, task_id=task.task_id,
                                              reason="rescheduled")))
    return [f"Pushed rescheduling of {what} on host {task.host}"]


def rerunnable(master: Master, job: Job, task: Task) -> bool:
    """qsub -r y, or (without -r) the rerun flag of the queue it runs in: whether qmod -r
    and reschedule_unknown may end a run of it for it to run again."""
    if job.spec.restart:
        return job.spec.restart == "y"
    qi = next((qi for qi in master.plan.instances if qi.name == task.queue), None)
    return qi is not None and qi.values.get("rerun", "").upper() in ("TRUE", "1")


def _clear_error(master: Master, job: Job, task: Task, what: str, req: p.Qmod,
                 fx: Effects) -> str:
    before = task.state
    task.move(CLEAR_ERROR)
    if task.state != before:  # out of its error state: it waits again
        # failed and its reason stay the failed run's until it is accounted (a restart
        # accounts it from them) and the next run's end replaces them
        fx.dirty_tasks.add((job.job_id, task.task_id))
        master.announce(job, fx)
    return f"{req.user}@{req.host} cleared error state of {what}"


def _named(job: Job, task: Task) -> str:
    return (f"job-array task {job.job_id}.{task.task_id}" if job.is_array
            else f"job {job.job_id}")

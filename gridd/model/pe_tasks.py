"""The rules of a parallel task's PE tasks (qrsh -inherit): their ids, the slots they
take on a host of the task, and what the task's accounting record sums of them."""

from __future__ import annotations

import msgspec

from gridd.model.cluster import split_instance
from gridd.model.job import PeTask, Task, Usage

# Usage fields that are peaks: a summary keeps the largest; the others add up. The wall
# clock is the master task's alone (8.1.9's summary record keeps its run's).
_PEAKS = ("maxrss", "maxvmem", "vmem")
_OWN = ("wallclock",)


def next_id(task: Task, host: str) -> str:
    """A new PE task's id as Grid Engine names them: its number in the task (from 1,
    never reused while the job lives) and the host it runs on."""
    numbers = (int(pe_task_id.partition(".")[0]) for pe_task_id in task.pe_tasks)
    return f"{max(numbers, default=0) + 1}.{host}"


def running(task: Task) -> list[PeTask]:
    """The PE tasks not ended yet."""
    return [pe for pe in task.pe_tasks.values() if not pe.done]


def granted_on(task: Task, host: str) -> tuple[str, int]:
    """The queue instance that holds the task's slots on `host` (the first, when several
    do) and how many slots it holds there in all: ("", 0) where it was given none."""
    instances = [(qi, n) for qi, n in task.granted if split_instance(qi)[1] == host]
    return (instances[0][0] if instances else "", sum(n for _, n in instances))


def free_slots(task: Task, host: str, job_is_first_task: bool) -> int:
    """Slots on `host` a new PE task may take: those granted there, less the PE tasks
    running there, less the master task's own on its host when job_is_first_task."""
    slots = granted_on(task, host)[1]
    slots -= sum(1 for pe in running(task) if pe.host == host)
    if job_is_first_task and host == task.host:
        slots -= 1
    return slots


def summed_usage(task: Task) -> Usage:
    """The task's usage with that of its ended PE tasks that have no record of their own
    added (accounting_summary TRUE)."""
    parts = [pe.usage for pe in task.pe_tasks.values() if pe.done and not pe.seq]
    if not parts:
        return task.usage
    total = msgspec.structs.replace(task.usage)
    for usage in parts:
        for name in Usage.__struct_fields__:
            if name in _OWN:
                continue
            mine, theirs = getattr(total, name), getattr(usage, name)
            setattr(total, name, max(mine, theirs) if name in _PEAKS else mine + theirs)
    return total


def with_records(task: Task) -> dict[str, PeTask]:
    """The PE tasks a task's next run keeps: those with a record of their own, which may
    wait in the outbox still (the others' usage went into the run's record)."""
    return {pe_task_id: pe for pe_task_id, pe in task.pe_tasks.items() if pe.seq}

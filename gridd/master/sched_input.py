"""What the master tells the planner of its jobs: a job with the tasks it may start
(gridd.master.core.Master.sched_job says which), one with none (the scheduler drops it),
and what a started task holds (Running), which the scheduler debits and dispatch checks
orders against.
"""

from __future__ import annotations

from gridd.model.cluster import Running
from gridd.model.job import Job, Task
from gridd.model.planning import SchedJob


def no_pending(job: Job) -> SchedJob:
    return SchedJob(job_id=job.job_id, pending=[], priority=0, submit_time=job.submit_time)


def sched_job(job: Job, pending: list[int]) -> SchedJob:
    """What planning needs of a job with these pending tasks."""
    spec = job.spec
    return SchedJob(
        job_id=job.job_id, pending=pending, priority=spec.priority,
        submit_time=job.submit_time, hard=spec.hard_resources, soft=spec.soft_resources,
        queues=spec.hard_queues, soft_queues=spec.soft_queues,
        master_queues=spec.master_queues, pe=spec.pe_name, pe_min=spec.pe_min,
        pe_max=spec.pe_max, immediate=spec.immediate,
        owner=spec.owner, group=spec.group, project=spec.project, reserve=spec.reserve,
        ar=spec.ar, start_time=spec.start_time, deadline=spec.deadline,
        task_concurrency=spec.task_concurrency,
    )


def task_holding(job: Job, task: Task) -> Running:
    spec = job.spec
    return Running(job.job_id, task.task_id, spec.hard_resources, task.granted,
                   task.pe or spec.pe_name, spec.owner, spec.group, spec.project,
                   task.start_time, job.submit_time, spec.ar, task.resource_map)

"""The master's state machine: requests in, replies and effects out.

No I/O and no clock: every handler takes ``now`` and records what must happen in an
``Effects`` value (objects to spool, messages to send, records to account). The actor
spools the effects first and only then sends anything, so nothing is acknowledged that
a crash could take back.

Master's handlers are in its parts, a module each: submission, control, queries,
dispatch, execution and interactive. This module holds its state and what more than one part asks.
"""

from __future__ import annotations

import fnmatch
from typing import NamedTuple

from gridd.formats.requests import invalid_job_task, split_job_task
from gridd.master import views
from gridd.master.control import Control
from gridd.master.dispatch import Dispatching
from gridd.master.execution import Execution
from gridd.master.interactive import Interactive
from gridd.master.queries import Queries
from gridd.master.sched_input import sched_job, task_holding
from gridd.master.state import Effects, MasterState
from gridd.master.submission import Submission
from gridd.master.task_ends import TaskEnds
from gridd.model import pe_tasks
from gridd.model.cluster import PlanConf, Running, split_instance
from gridd.model.complexes import ComplexTable
from gridd.model.job import Job, Task, Usage
from gridd.model.planning import Reserved, SchedJob
from gridd.model.priority import ResourceUrgency
from gridd.model.task_lifecycle import ACTIVE, DONE, JOB_ERRORS, PENDING
from gridd.model.values import is_unsigned
from gridd.sched.plan import Planner


class Master(Submission, Control, Queries, Dispatching, Execution, Interactive):
    """Owns the cluster state; every method is one request or event. The methods are
    in parts, a module each (submission, control, queries, dispatch, execution,
    interactive); here
    are the state they work on and what more than one of them asks."""

    def __init__(self, state: MasterState, master_host: str = "") -> None:
        self.s = state
        self.master_host = master_host  # the master's machine: never out of admin hosts
        # Since when each host that is not up has been unknown, for reschedule_unknown:
        # from max_unheard after its last report, or after the master's first look at
        # its hosts if not heard from since the master started (not spooled).
        self.unknown_since: dict[str, float] = {}
        # By host, the tasks its execd last said it runs that the master places elsewhere
        # or nowhere: killed there, and not started again until it no longer says so (an
        # execd runs one run of a task at a time). Not spooled: execds say it again.
        self.draining: dict[str, set[tuple[int, int]]] = {}
        self.sync_waiters: dict[int, list[tuple[bytes, int]]] = {}
        self.now_waiters: dict[int, list[tuple[bytes, int]]] = {}
        # qrsh and qlogin waiting for their task to run, by (job, task); qrsh -inherit
        # for its PE task, by (job, task, PE task); where each host's execd holds the
        # sessions of its tasks (its Register says). None spooled: clients ask again,
        # execds register again.
        self.task_ends = TaskEnds()  # DRMAA's waits
        self.started_waiters: dict[tuple[int, int], list[tuple[bytes, int]]] = {}
        self.pe_waiters: dict[tuple[int, int, str], tuple[bytes, int]] = {}
        self.session_endpoints: dict[str, str] = {}
        # Tasks that ended while PE tasks of theirs ran: accounted once those have ended.
        self.awaiting_pe_tasks: set[tuple[int, int]] = {
            (job.job_id, task.task_id) for job in state.jobs.values()
            for task in job.tasks.values()
            if task.pe_tasks and task.state not in ACTIVE and pe_tasks.running(task)}
        self.host_up: set[str] = set()
        self.sched_seq = 0
        # jobs with -hold_jid or -hold_jid_ad: looked at again whenever some task ends
        self.dependants: set[int] = {j.job_id for j in state.jobs.values()
                                     if j.spec.hold_jid or j.spec.hold_jid_ad}
        self.unaccounted: dict[int, int] = {}  # job -> outbox entries not yet accounted
        # Per job, its tasks in order and how many of the first are done (see all_done).
        self._done_first: dict[int, tuple[Job, list[Task], int]] = {}
        # What started tasks hold, by (job, task): the scheduler debits it, the master
        # checks orders against it.
        self.running: dict[tuple[int, int], Running] = {
            (job.job_id, task.task_id): task_holding(job, task)
            for job in state.jobs.values() for task in job.tasks.values()
            if task.state in ACTIVE
        }
        # The jobs that ended lately, for qstat -s z: as many as finished_jobs says, oldest
        # first (not spooled, as 8.1.9 keeps them in memory).
        self.zombies: dict[int, Job] = {}
        # What running tasks have used so far, as their execd last reported it (not
        # spooled: the next report says it again).
        self.online: dict[tuple[int, int], Usage] = {}
        # The scheduler's last word on pending jobs (not spooled: the next cycle says it again).
        self.sched_info: dict[int, list[str]] = {}
        self.sched_reserved: dict[int, Reserved] = {}
        self._urgency: ResourceUrgency | None = None
        self._urgency_of: object = None
        self.sched_global_info: list[str] = []
        self.ar_planner = Planner()  # what it carries speeds up granting ARs one after another
        self._table_rows: list | None = None
        self._table = ComplexTable(())
        self.plan = PlanConf()
        self.by_host: dict[str, list[str]] = {}  # host -> its queue instances with thresholds
        self.over_threshold: set[str] = set()  # instances whose suspend thresholds are reached
        self.orphaned: set[str] = set()  # instances no longer configured that tasks still hold
        # The consumables last reported per level ("queue@host", "@host"): only changes are.
        self.reported_consumables: dict[str, list[tuple[str, float, float]]] = {}
        # Jobs not finished, by owner, and how many in all (max_u_jobs, max_jobs).
        self.live: dict[str, set[int]] = {}
        self.live_total = 0
        for job in state.jobs.values():
            if not self.all_done(job):
                self._count_in(job)
        self._shut_out_of: dict[tuple[str, str], bool] = {}  # (owner, group) -> shut out?
        self.refresh_views()
        for job_id, _ in state.outbox.values():
            self.unaccounted[job_id] = self.unaccounted.get(job_id, 0) + 1

    def reloaded(self, state: MasterState) -> Master:
        """A master over the state read back from the spool after a change could not be
        spooled. What is never spooled carries over: which hosts are up and their load,
        how recent jobs ended, waiting clients, the scheduler's last word."""
        state.finished = self.s.finished
        new = Master(state, self.master_host)
        for name, host in state.hosts.items():
            old = self.s.hosts.get(name)
            if old is not None:
                host.load, host.last_report = old.load, old.last_report
        new.host_up = self.host_up & state.hosts.keys()
        new.unknown_since, new.draining = self.unknown_since, self.draining
        new.sync_waiters, new.now_waiters = self.sync_waiters, self.now_waiters
        new.started_waiters, new.pe_waiters = self.started_waiters, self.pe_waiters
        new.session_endpoints = self.session_endpoints
        new.task_ends = self.task_ends
        new.sched_seq = self.sched_seq
        new.sched_info, new.sched_reserved = self.sched_info, self.sched_reserved
        new.sched_global_info = self.sched_global_info
        new.over_threshold = self.over_threshold
        new.reported_consumables = self.reported_consumables
        return new

    # ---- what the parts share ----------------------------------------------------

    def complex_table(self) -> ComplexTable:
        """The configured complexes, indexed; rebuilt only after qconf replaced them."""
        rows = self.s.config.complexes
        if self._table_rows is not rows:
            self._table, self._table_rows = ComplexTable(rows), rows
        return self._table

    def loads(self) -> dict[str, dict[str, str]]:
        """The last load report of every host that is up."""
        return {name: self.s.hosts[name].load for name in self.host_up if name in self.s.hosts}

    def sched_job(self, job: Job) -> SchedJob | None:
        pending = self._schedulable(job)
        return sched_job(job, pending) if pending else None

    def _schedulable(self, job: Job) -> list[int]:
        """The tasks the scheduler may start: pending, not held (a dependency holds all,
        an array dependency the tasks whose like-numbered predecessor is not done)."""
        pending = [t.task_id for t in job.tasks.values() if t.state == PENDING]
        if pending and job.job_id in self.unaccounted:
            pending = [n for n in pending
                       if not self._failed_run_unaccounted(job.job_id, job.tasks[n])]
        if self.draining:
            pending = [n for n in pending if not self.still_running((job.job_id, n))]
        if not pending or self._held_by_dependency(job):
            return []
        if job.spec.hold_jid_ad:
            pending = [n for n in pending if not self._waits_for_task(job, n)]
        return pending

    def live_jobs_split(self) -> tuple[list[Job], list[Job]]:
        """The jobs not over yet, in two: those that wait alone, and the others. A job
        waits alone when it is one task (no array) waiting as qw that nothing else holds
        back: no dependency, no failed run of it unaccounted, no run still draining. Of
        such a job _schedulable is its task and qstat shows it as it is (qw), which a big
        queue's qstat takes without asking either of each (Queries.query_rows)."""
        alone: list[Job] = []
        others: list[Job] = []
        draining, unaccounted, all_done = self.draining, self.unaccounted, self.all_done
        for job in self.s.jobs.values():
            spec, tasks = job.spec, job.tasks
            if len(tasks) == 1 and spec.array is None and not draining and not (
                    spec.hold_jid or spec.hold_jid_ad or job.job_id in unaccounted):
                (task,) = tasks.values()
                if task.state == PENDING and not task.rerun:
                    alone.append(job)
                    continue
            if not all_done(job):
                others.append(job)
        return alone, others

    def _failed_run_unaccounted(self, job_id: int, task: Task) -> bool:
        """Whether the run that put a task in error state waits to be accounted: until
        it is, a task that qmod -cj cleared is not scheduled, since a restarted master
        accounts that run again from the task's fields, which a new run would overwrite."""
        return (task.failed in JOB_ERRORS
                and (job_id, task.task_id) in self.s.outbox.values())

    def still_running(self, key: tuple[int, int]) -> bool:
        """Whether an execd still runs a run of the task that was given up (draining)."""
        return any(key in keys for keys in self.draining.values())

    def _waits_for_task(self, job: Job, task_id: int) -> bool:
        """Whether a task waits for the like-numbered task of an array it names with
        -hold_jid_ad (one not there any more is done)."""
        for ref in job.spec.hold_jid_ad:
            for other in self._match_jobs(ref):
                task = other.tasks.get(task_id) if other.job_id != job.job_id else None
                if task is not None and task.state != DONE:
                    return True
        return False

    def _held_by_dependency(self, job: Job) -> bool:
        return bool(job.spec.hold_jid) and any(
            self._predecessor_active(ref, job.job_id) for ref in job.spec.hold_jid)

    def _predecessor_active(self, ref: str, own: int) -> bool:
        for other in self._match_jobs(ref):
            if other.job_id != own and not self.all_done(other):
                return True
        return False

    def _match_jobs(self, ref: str) -> list[Job]:
        if is_unsigned(ref):
            job = self.s.jobs.get(int(ref))
            return [job] if job else []
        return [j for j in self.s.jobs.values() if fnmatch.fnmatchcase(j.spec.name, ref)]

    def live_jobs(self, ref: str) -> list[Job]:
        """Jobs a reference (id or name pattern) names that are not over yet."""
        return [j for j in self._match_jobs(ref) if not self.all_done(j)]

    def named_jobs(self, target: str) -> Named:
        """What a job-task identifier of qdel, qalter or qhold names."""
        ref, task_part = split_job_task(target)
        invalid = invalid_job_task(target)
        jobs = [] if invalid else self.live_jobs(ref)
        missing = None if jobs or invalid else f'denied: job "{ref}" does not exist'
        return Named(jobs, task_part, invalid, missing)

    def all_done(self, job: Job) -> bool:
        """Whether every task of the job is done. Done is final and a job never gains
        tasks, so the tasks found done from the first on are not looked at again: an
        array whose tasks end one after another would otherwise walk all the ended ones
        at every end (quadratic in its size)."""
        if len(job.tasks) == 1:
            return next(iter(job.tasks.values())).state == DONE
        found = self._done_first.get(job.job_id)
        if found is not None and found[0] is job:
            _, tasks, first = found
        else:
            tasks, first = list(job.tasks.values()), 0
        while first < len(tasks) and tasks[first].state == DONE:
            first += 1
        if first == len(tasks):
            self._done_first.pop(job.job_id, None)
            return True
        self._done_first[job.job_id] = (job, tasks, first)
        return False

    def announce(self, job: Job, fx: Effects) -> None:
        """Tell the scheduler about a job that may have pending tasks now."""
        sj = self.sched_job(job)
        if sj:
            fx.sched.append(sj)

    def refresh_views(self) -> None:
        """Derive the queue, PE and planning views from the configured objects."""
        self.plan = views.plan_conf(self.s.config)
        self._shut_out_of = {}
        self.s.queues = views.queue_views(self.s.config, self.plan.instances)
        self.by_host = {}
        for qi in self.plan.instances:
            if qi.suspend_thresholds:
                self.by_host.setdefault(qi.host, []).append(qi.name)
        self.over_threshold &= {n for names in self.by_host.values() for n in names}
        self._keep_orphans()

    def _keep_orphans(self) -> None:
        """Queue instances gone from the configuration while tasks still run there, or
        advance reservations still hold them, stay listed, orphaned, until those end;
        nothing new is dispatched to them."""
        known = {qi.name for qi in self.plan.instances}
        held = [name for task in self.running.values() for name, _ in task.granted]
        held += [name for ar in self.s.ars.values() for name, _ in ar.granted]
        self.orphaned = {name for name in held if name not in known}
        for name in self.orphaned:
            queue, host = split_instance(name)
            view = self.s.queues.get(queue)
            if view is not None and host not in view.hostlist:
                view.hostlist.append(host)
                view.slots_per_host[host] = 0


class Named(NamedTuple):
    """What a job-task identifier names: the jobs not over yet, the part after the job
    naming tasks ("" for all of them), and, in 8.1.9's words, why it names none: an
    identifier that is not one (`invalid`) or no such job (`missing`)."""

    jobs: list[Job]
    task_part: str
    invalid: str | None
    missing: str | None

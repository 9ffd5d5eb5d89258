"""The master's state machine: requests in, replies and effects out.

No I/O and no clock: every handler takes ``now`` and records what must happen in an
``Effects`` value (objects to spool, messages to send, records to account). The actor
spools the effects first and only then sends anything, so nothing is acknowledged that
a crash could take back.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Iterator
from typing import NamedTuple, TypeVar

import msgspec

from gridd import protocol as p
from gridd.formats.requests import (
    ONLY_JOBS,
    TaskIdError,
    invalid_job_task,
    split_job_task,
    submitted_line,
    task_selection,
)
from gridd.master import admin, ars, ids, permissions, qmod, reporting, views
from gridd.master.state import Effects, MasterState
from gridd.model import host_lifecycle
from gridd.model.ar import ArSpec
from gridd.model.cluster import ExecHost, PlanConf, Resource, Running, split_instance
from gridd.model.complexes import ComplexTable, holds, value_problem
from gridd.model.job import (
    HOLDS,
    Job,
    JobSpec,
    Task,
    Usage,
    changed_context,
    name_refusal,
    new_job,
)
from gridd.model.objects import NONE, User, words
from gridd.model.priority import Priority, ResourceUrgency, priorities, unconsidered, urgency
from gridd.model.task_lifecycle import (
    ACTIVE,
    CONTINUE,
    DELETE,
    DELETING,
    DISPATCH,
    DONE,
    ERROR,
    FORCE_DELETE,
    HELD,
    HOLD,
    PENDING,
    RELEASE,
    RESCHEDULED,
    RUNNING,
    STARTED,
    STOP,
    TRANSFERRING,
    UNSCHEDULABLE,
    accounted_event,
    allows,
    finish_event,
    shown,
    suspension,
)
from gridd.model.values import is_unsigned
from gridd.sched.access import allowed, project_allowed
from gridd.sched.levels import Levels, build_levels, exceeded, instance_states
from gridd.sched.match import Matcher
from gridd.sched.plan import Planner, queue_matches, verify
from gridd.sched.quota import Quotas
from gridd.sched.resources import host_resources, instance_resources, selected
from gridd.sched.select import NoneLeft, Unselectable, by_more_than_states, choose, might_run

_Struct = TypeVar("_Struct", bound=msgspec.Struct)
MAX_JOB_ID = 9_999_999
LIMIT_EXIT = 25  # qsub's exit status when max_jobs or max_u_jobs refuses a job
FINISHED_MEMORY = 50_000  # finished jobs remembered for late -sync waiters
FAILED_RESCHEDULED = 25  # the failed code of a run qmod -r ended (8.1.9's)


class Master:
    """Owns the cluster state; every method is one request or event."""

    def __init__(self, state: MasterState, host_timeout: float = 120.0,
                 master_host: str = "") -> None:
        self.s = state
        self.host_timeout = host_timeout
        self.master_host = master_host  # the master's machine: never out of admin hosts
        self.sync_waiters: dict[int, list[tuple[bytes, int]]] = {}
        self.now_waiters: dict[int, list[tuple[bytes, int]]] = {}
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
            (job.job_id, task.task_id): _holding(job, task)
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
        self.sched_reserved: dict[int, tuple[float, list[tuple[str, int]]]] = {}
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
        new = Master(state, self.host_timeout, self.master_host)
        for name, host in state.hosts.items():
            old = self.s.hosts.get(name)
            if old is not None:
                host.load, host.last_report = old.load, old.last_report
        new.host_up = self.host_up & state.hosts.keys()
        new.sync_waiters, new.now_waiters = self.sync_waiters, self.now_waiters
        new.sched_seq = self.sched_seq
        new.sched_info, new.sched_reserved = self.sched_info, self.sched_reserved
        new.sched_global_info = self.sched_global_info
        new.over_threshold = self.over_threshold
        new.reported_consumables = self.reported_consumables
        return new

    # ---- derived views ---------------------------------------------------------

    def complex_table(self) -> ComplexTable:
        """The configured complexes, indexed; rebuilt only after qconf replaced them."""
        rows = self.s.config.complexes
        if self._table_rows is not rows:
            self._table, self._table_rows = ComplexTable(rows), rows
        return self._table

    def capacity(self) -> dict[str, int]:
        return {qi.name: qi.slots for qi in self.plan.instances}

    def used(self) -> dict[str, int]:
        used: dict[str, int] = {}
        for task in self.running.values():
            for qi, n in task.granted:
                used[qi] = used.get(qi, 0) + n
        return used

    def sched_job(self, job: Job) -> p.SchedJob | None:
        pending = self._schedulable(job)
        return sched_job(job, pending) if pending else None

    def _schedulable(self, job: Job) -> list[int]:
        """The tasks the scheduler may start: pending, not held (a dependency holds all,
        an array dependency the tasks whose like-numbered predecessor is not done)."""
        pending = [t.task_id for t in job.tasks.values() if t.state == PENDING]
        if not pending or self._held_by_dependency(job):
            return []
        if job.spec.hold_jid_ad:
            pending = [n for n in pending if not self._waits_for_task(job, n)]
        return pending

    def _waits_for_task(self, job: Job, task_id: int) -> bool:
        """Whether a task waits for the like-numbered task of an array it names with
        -hold_jid_ad (one not there any more is done)."""
        for ref in job.spec.hold_jid_ad:
            for other in self._match_jobs(ref):
                task = other.tasks.get(task_id) if other.job_id != job.job_id else None
                if task is not None and task.state != DONE:
                    return True
        return False

    def sched_state(self) -> p.SchedState:
        jobs = [sj for j in self.s.jobs.values() if (sj := self.sched_job(j))]
        return p.SchedState(
            jobs=jobs,
            running=list(self.running.values()),
            conf=self.plan,
            loads=self.loads(),
            hosts_up=sorted(self.host_up),
            flags=dict(self.s.flags),
            seq=self.sched_seq,
            ars=list(ars.bookings(self).values()),
        )

    def loads(self) -> dict[str, dict[str, str]]:
        """The last load report of every host that is up."""
        return {name: self.s.hosts[name].load for name in self.host_up if name in self.s.hosts}

    def _held_by_dependency(self, job: Job) -> bool:
        return any(self._predecessor_active(ref, job.job_id) for ref in job.spec.hold_jid)

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

    def display_state(self, job: Job, task: Task) -> str:
        """The letters qstat shows for the task (gridd.model.task_lifecycle.shown)."""
        return shown(task, lambda: (self._held_by_dependency(job)
                                    or self._waits_for_task(job, task.task_id)),
                     lambda: self.suspension(task))

    def suspension(self, task: Task) -> str:
        """How a task is suspended, as qstat shows it (S by its queue, T by a suspend
        threshold, s by qmod -sj), or "" when it may run."""
        flags = self.s.flags
        names = [qi for qi, _ in task.granted]
        return suspension(queue=any("s" in flags.get(qi, "") for qi in names),
                          threshold=any(qi in self.over_threshold for qi in names),
                          by_qmod=task.suspended)

    def sync_suspension(self, fx: Effects, *, on: set[str] | None = None,
                        tasks: list[tuple[Job, Task]] | None = None) -> None:
        """Tell execds to stop or continue the given tasks, or those holding the given
        queue instances, wherever that changed."""
        if tasks is None:
            tasks = [
                (job, task)
                for (job_id, task_id), holding in self.running.items()
                if on and any(qi in on for qi, _ in holding.granted)
                and (job := self.s.jobs.get(job_id)) and (task := job.tasks.get(task_id))
            ]
        for job, task in tasks:
            stop = bool(self.suspension(task))
            if allows(task.state, STOP if stop else CONTINUE) and task.stopped != stop:
                task.stopped = stop
                fx.dirty_tasks.add((job.job_id, task.task_id))
                fx.to_execd.append((task.host, p.SuspendTask(
                    job_id=job.job_id, task_id=task.task_id, suspend=stop)))

    def announce(self, job: Job, fx: Effects) -> None:
        """Tell the scheduler about a job that may have pending tasks now."""
        sj = self.sched_job(job)
        if sj:
            fx.sched.append(sj)

    # ---- client requests --------------------------------------------------------

    def submit(self, spec: JobSpec, now: float, fx: Effects) -> p.Msg:
        refused = permissions.submit_host_refusal(self.s.config, spec.submit_host)
        if refused:
            return p.Error(text=f"Unable to run job: {refused}")
        spec.hard_resources = self.complex_table().full_names(spec.hard_resources)
        spec.soft_resources = self.complex_table().full_names(spec.soft_resources)
        problem = (self._validate(spec) or self._rights(spec)
                   or (ars.check_job(self, spec, now) if spec.ar else None))
        if problem:
            return p.Error(text=problem)
        over = self._over_limits(spec.owner)
        if over:
            return over
        # Grid Engine takes a job that no queue lets its owner in, but its answer starts
        # with this warning and qsub fails all the same.
        lead = ([f"warning: {spec.owner}'s job is not allowed to run in any queue"]
                if self._shut_out(spec.owner, spec.group) else [])
        warnings: list[str] = []
        if spec.ar:
            spec.ar_submission_time = self.s.ars[spec.ar].submission_time  # for accounting
            if not spec.verify:
                spec.verify = "e"  # a job in an AR is checked against it unless -w n
        if spec.verify in ("e", "w", "v", "p"):
            why = self._verified(_asking(self.s.next_job_id, spec, now), spec.verify, now)
            if spec.verify in ("v", "p"):
                if why is None:
                    return p.Ok(lines=["verification: found suitable queue(s)"])
                return _unable([*lead, *(f"Job {self.s.next_job_id} {line}" for line in why),
                                "verification: no suitable queues"])
            if why is not None and spec.verify == "e":
                return _unable([*lead, "error: no suitable queues"])
            if why is not None:
                warnings.append("warning: no suitable queues")
        job_id = self.s.next_job_id
        self.s.next_job_id = ids.after(job_id, self.s.jobs, MAX_JOB_ID)
        fx.counters_changed = True
        job = new_job(job_id, spec, now)
        self.s.jobs[job_id] = job
        if spec.hold_jid or spec.hold_jid_ad:
            self.dependants.add(job_id)
        self._count_in(job)
        fx.dirty_jobs.add(job_id)
        self.announce(job, fx)
        reporting.new_job(self, job, now, fx)
        self._auto_user(spec.owner, now, fx)
        if lead:
            return _unable([*lead, *warnings,
                            submitted_line(job_id, spec.name, spec.array)])
        return p.Submitted(job_id=job_id, name=spec.name, array=spec.array, warnings=warnings)

    def _auto_user(self, owner: str, now: float, fx: Effects) -> None:
        """enforce_user auto: a user's first job makes its user object (qconf -suser),
        from the global configuration's auto_user_* values. (8.1.9 then deletes it once
        auto_user_delete_time has passed without a job; gridd keeps it.)"""
        config = self.s.config
        conf = config.conf
        if conf.enforce_user.strip().lower() != "auto" or not owner or owner in config.users:
            return
        lifetime = views.to_int(conf.auto_user_delete_time)
        project = conf.auto_user_default_project
        config.users[owner] = User(
            name=owner, oticket=conf.auto_user_oticket, fshare=conf.auto_user_fshare,
            delete_time=str(int(now) + lifetime) if lifetime > 0 else "0",
            default_project=NONE if project.strip().upper() in ("", NONE) else project)
        fx.config_changed = True

    def _verified(self, job: p.SchedJob, mode: str, now: float) -> list[str] | None:
        """Why the job could not run (None: it could): -w e, w and v ask of an empty cluster
        (its ARs kept), p of the cluster as it is."""
        return verify(self.plan, self.loads(), self.running.values() if mode == "p" else (),
                      job, ars.bookings(self), now)

    def _verify_existing(self, job: Job, mode: str, now: float
                         ) -> tuple[list[str], int, bool]:
        """qalter -w: what 8.1.9 says of a job already submitted, its exit code, and
        whether that is all (-w v and p change nothing, -w e refuses a job that fits
        nowhere, -w w only warns)."""
        asking = self.sched_job(job)
        if asking is None:
            return ["verification: job is already running or is held"], 0, True
        why = self._verified(asking, mode, now)
        if mode in ("v", "p"):
            if why is None:
                return ["verification: found suitable queue(s)"], 0, True
            return ([f"Job {job.job_id} {line}" for line in why]
                    + ["verification: no suitable queues"], 1, True)
        if why is None:
            return [], 0, False
        if mode == "e":
            return ["error: no suitable queues"], 1, True
        return ["warning: no suitable queues"], 1, False

    def _rights(self, spec: JobSpec) -> str | None:
        """Why the owner may not submit this job: enforce_user true and no user object for
        them; the global configuration's access lists keep them out; a positive priority
        takes an operator, a deadline a user in deadlineusers (managers too); a project
        must exist, let the owner in and be one the global configuration allows; without
        one, the global configuration may want one (projects set, enforce_project). In
        8.1.9's order."""
        config, conf = self.s.config, self.s.config.conf
        if conf.enforce_user.strip().lower() == "true" and spec.owner not in config.users:
            return f'Unable to run job: job rejected: the user "{spec.owner}" does not exist'
        users, xusers = words(conf.user_lists), words(conf.xuser_lists)
        if (users or xusers) and not allowed(users, xusers, spec.owner, spec.group,
                                             self.plan.usersets):
            return (f"Unable to run job: job rejected: {spec.owner}@{spec.submit_host} is not "
                    "allowed to submit jobs")
        if spec.priority > 0 and not permissions.is_operator(config, spec.owner):
            return ("Unable to run job: job rejected: positive submission priority requires "
                    "operator privileges")
        if spec.deadline and not permissions.in_userset(config, permissions.DEADLINE_USERS,
                                                        spec.owner, spec.group):
            return (f'Unable to run job: job rejected: the user "{spec.owner}" is not a '
                    "deadline initiation user")
        projects, xprojects = words(conf.projects), words(conf.xprojects)
        if spec.project:
            project = config.projects.get(spec.project)
            if project is None:
                return (f'Unable to run job: job rejected: the requested project '
                        f'"{spec.project}" does not exist')
            if not allowed(words(project.acl), words(project.xacl), spec.owner, spec.group,
                           self.plan.usersets):
                return (f'Unable to run job: job rejected: no access to project '
                        f'"{spec.project}" for user "{spec.owner}"')
            if not project_allowed(projects, xprojects, spec.project):
                return (f'Unable to run job: job rejected: project "{spec.project}" is not '
                        "allowed to submit jobs")
        elif projects:
            return ("Unable to run job: job rejected: no project was supplied and only certain "
                    "projects are allowed to submit jobs")
        elif conf.enforce_project.strip().lower() == "true":
            return "Unable to run job: job rejected: no project assigned to job"
        return None

    def _over_limits(self, owner: str) -> p.Error | None:
        """The global configuration's max_jobs and max_u_jobs (0: no limit): jobs not
        finished yet count, an array job as one."""
        conf = self.s.config.conf
        most = views.to_int(conf.max_jobs)
        if most > 0 and self.live_total >= most:
            return p.Error(text=f"Unable to run job: job rejected: only {most} jobs are "
                                "allowed per cluster", code=LIMIT_EXIT)
        per_user = views.to_int(conf.max_u_jobs)
        count = len(self.live.get(owner, ()))
        if per_user > 0 and count >= per_user:
            return p.Error(text=f"Unable to run job: job rejected: only {per_user} jobs are "
                                f"allowed per user (current job count: {count})",
                           code=LIMIT_EXIT)
        return None

    def _shut_out(self, owner: str, group: str) -> bool:
        """Whether no queue instance's access lists let the owner in (remembered per owner
        until the configuration changes: a user submits many jobs)."""
        instances = self.plan.instances
        if not instances or not all(qi.user_lists or qi.xuser_lists for qi in instances):
            return False
        found = self._shut_out_of.get((owner, group))
        if found is None:
            usersets = self.plan.usersets
            found = self._shut_out_of[(owner, group)] = not any(
                allowed(qi.user_lists, qi.xuser_lists, owner, group, usersets)
                for qi in instances)
        return found

    def _count_in(self, job: Job) -> None:
        """Count a job that is not finished, once (max_jobs, max_u_jobs)."""
        mine = self.live.setdefault(job.spec.owner, set())
        if job.job_id not in mine:
            mine.add(job.job_id)
            self.live_total += 1

    def _count_out(self, job: Job) -> None:
        """A job is finished: it counts no more, however often this is said."""
        mine = self.live.get(job.spec.owner)
        if mine is not None and job.job_id in mine:
            mine.discard(job.job_id)
            self.live_total -= 1
            if not mine:
                del self.live[job.spec.owner]

    def _validate(self, spec: JobSpec) -> str | None:
        refusal = name_refusal(spec.name)
        if refusal is not None:
            return f"Unable to run job: {refusal}"
        if spec.array is not None:
            problem = self._array_problem(*spec.array)
            if problem:
                return f"Unable to run job: job rejected: {problem}"
        if spec.checkpoint:  # gridd offers no checkpointing environment
            return (f'Unable to run job: job rejected: the requested checkpointing '
                    f'environment "{spec.checkpoint}" does not exist')
        if spec.checkpoint_when not in ("", "n"):
            return "Unable to run job: checkpointing denied"
        if spec.master_queues and not spec.pe_name:
            return ("Unable to run job: job rejected: specification of master queue is not "
                    "allowed for non-parallel jobs")
        if spec.task_concurrency and spec.array is None:
            return 'Unable to run job: invalid "task concurrency" value in job request'
        if spec.hold_jid_ad and spec.array is None:
            return ('Unable to run job: Can only specify "-hold_jid_ad" option with an array '
                    'job (using "-t" option)')
        if any(other.spec.array != spec.array for ref in spec.hold_jid_ad
               for other in self.live_jobs(ref)):
            return ("Unable to run job: This array job must have the same range of sub-tasks "
                    "as the dependent array job specified with -hold_jid_ad")
        problem = self.validate_request(_asking(0, spec, 0.0))
        return None if problem is None else "Unable to run job: " + problem

    def _array_problem(self, first: int, last: int, step: int) -> str | None:
        """What is wrong with a task range (qsub checks it too, but a request may come from
        any client), and whether it has more tasks than max_aj_tasks (0: no limit) allows."""
        if first < 1:
            return str(TaskIdError(first))
        if step < 1 or last < first:
            return f"{first}-{last}:{step} is an invalid task range"
        most = views.to_int(self.s.config.conf.max_aj_tasks)
        if most > 0 and (last - first) // step + 1 > most:
            return f"you tried to submit a job with more than {most} tasks"
        return None

    def validate_request(self, job: p.SchedJob, what: str = "job") -> str | None:
        """What is wrong with a job's or an AR's requests (resources, queues, PE), in
        8.1.9's words and order; `what` is how they name the object ("job" or
        "advance_reservation")."""
        problem = self.resource_problem({**job.hard, **job.soft}, what)
        if problem:
            return problem
        unknown = self._unknown_queue([*job.queues, *job.master_queues])
        if unknown:
            return unknown
        if job.pe and not any(fnmatch.fnmatchcase(n, job.pe) for n in self.plan.pes):
            return (f'job rejected: the requested parallel environment "{job.pe}" does not '
                    "exist")
        if job.pe and job.pe_min < 1:
            return f'"{what}" rejected: pe range must be greater than zero'
        if job.pe and job.pe_min > job.pe_max:
            return f'invalid slot range "{job.pe_min}-{job.pe_max}" for PE "{job.pe}"'
        return None

    def resource_problem(self, requested: dict[str, str], what: str = "job") -> str | None:
        """What is wrong with resource requests, in 8.1.9's words: a name no complex has,
        one not requestable, a value not of its type, slots (a PE's to give)."""
        table = self.complex_table()
        asks_slots = False
        for name, value in requested.items():
            attr = table.resolve(name)
            if attr is None:
                return f'unknown resource "{name}"'
            if attr.requestable == "NO":
                return f'resource "{attr.name}" configured as non requestable'
            problem = value_problem(attr, value)
            if problem:
                return problem
            asks_slots = asks_slots or attr.name == "slots"
        if asks_slots:  # said only once every request is of its type
            return (f'"{what}" denied: use parallel environments instead of requesting slots '
                    "explicitly")
        return None

    def ar_request(self, spec: ArSpec) -> p.SchedJob:
        """An AR's requests as planning reads a job's."""
        return p.SchedJob(job_id=0, pending=[1], priority=0, submit_time=0.0,
                          hard=self.complex_table().full_names(spec.resources),
                          queues=spec.queues, pe=spec.pe_name, pe_min=spec.pe_min,
                          pe_max=spec.pe_max, owner=spec.owner, group=spec.group)

    def runtime_limit(self, spec: JobSpec) -> float | None:
        """The job's h_rt in seconds, None when it has none."""
        value = _seconds(spec.hard_resources.get("h_rt", ""))
        return value or None

    def _unknown_queue(self, refs: list[str]) -> str | None:
        """8.1.9's refusal of the first -q (or -masterq) reference that names no queue
        instance, read as the scheduler reads it; None when each names one."""
        groups = self.plan.hostgroups
        for ref in refs:
            if not any(queue_matches(ref, qi, groups) for qi in self.plan.instances):
                return f'Job was rejected because job requests unknown queue "{ref}"'
        return None

    def delete(self, req: p.Delete, now: float, fx: Effects) -> p.Msg:
        """qdel: each job named, if the sender owns it or is an operator or a manager (a
        refusal per job, as Grid Engine prints them)."""
        config = self.s.config
        refused = permissions.submit_host_refusal(config, req.host)
        if refused:
            return p.Ok(lines=[refused], code=1)
        lines: list[str] = []
        code = 0
        targets = list(req.targets)
        if req.users:
            owners = set(req.users)
            targets += [
                str(j.job_id)
                for j in sorted(self.s.jobs.values(), key=lambda j: j.job_id)
                if ("*" in owners or j.spec.owner in owners) and not self.all_done(j)
            ]
        for target in targets:
            named = self.named_jobs(target)
            why = named.invalid or named.missing
            if why:
                lines.append(why)
                code = 1
                continue
            for job in named.jobs:
                if not permissions.may_handle(config, req.user, job.spec.owner):
                    lines.append(f"{req.user} - you do not have the necessary privileges to "
                                 f'delete the job "{job.job_id}"')
                    code = 1
                    continue
                lines.append(self.delete_job(job, req, now, fx, named.task_part))
        return p.Ok(lines=lines, code=code)

    def alter(self, req: p.Alter, now: float, fx: Effects) -> p.Msg:
        """qalter: every named job changed, or none where a value is refused; each only
        by its owner, an operator or a manager, and its priority raised only by an
        operator or a manager."""
        refused = permissions.submit_host_refusal(self.s.config, req.host)
        if refused:
            return p.Ok(lines=[refused], code=1)
        table = self.complex_table()
        hard = None if req.hard is None else table.full_names(req.hard)
        soft = None if req.soft_resources is None else table.full_names(req.soft_resources)
        # Refused requests are said on standard output, as 8.1.9's qalter says them.
        problem = self.resource_problem({**(hard or {}), **(soft or {})}) or \
            self._unknown_queue([*(req.hard_queues or ()), *(req.master_queues or ())])
        if problem:
            return p.Ok(lines=[problem], code=1)
        for target in req.targets:
            why = invalid_job_task(target)
            if why:
                return p.Error(text=why, code=2)
            if split_job_task(target)[1]:
                return p.Error(text=ONLY_JOBS, code=4)
        lines: list[str] = []
        code = 0
        for target in req.targets:
            named = self.named_jobs(target)
            if named.missing:
                lines.append(named.missing)
                code = 1
            for job in named.jobs:
                problem = self._may_alter(job, req) or self._alter_refusal(job, req)
                if problem:
                    lines.append(problem)
                    code = 1
                    continue
                if req.verify and req.verify != "n":
                    said, verdict, done = self._verify_existing(job, req.verify, now)
                    lines += said
                    code = max(code, verdict)
                    if done:
                        continue
                if req.ar is not None:
                    problem = self._alter_ar(job, req.ar, now)
                    if problem:
                        lines.append(problem)
                        code = 1
                        continue
                lines += self._alter_job(job, req, hard)
                fx.dirty_jobs.add(job.job_id)
                fx.sched.append(self.sched_job(job) or _nothing(job))
        return p.Ok(lines=lines, code=code)

    def resubmit(self, req: p.Resubmit, now: float, fx: Effects) -> p.Ok:
        """qresub: each job submitted again as a new one, by its owner or a manager, with
        the holds -h names (8.1.9 copies none of the old job's), in 8.1.9's words."""
        lines, code = [], 0
        for target in req.targets:
            job = self.s.jobs.get(int(target)) if target.isdigit() else None
            if job is None:
                lines.append(f'job "{target}" does not exist')
                code = 4
                continue
            owner = job.spec.owner
            if req.user != owner and not permissions.is_manager(self.s.config, req.user):
                lines.append(f"job rejected: {req.user}@{req.host} is not allowed to resubmit "
                             f"jobs of user {owner}")
                code = 4
                continue
            spec = _copy(job.spec)
            spec.hold = "u" in req.holds
            reply = self.submit(spec, now, fx)
            if not isinstance(reply, p.Submitted):
                lines.append(reply.text if isinstance(reply, p.Error) else str(reply))
                code = max(code, 1)
                continue
            lines.append(submitted_line(reply.job_id, reply.name, reply.array))
            others = "".join(c for c in "os" if c in req.holds)
            if others:
                held = self.hold(p.Hold(targets=[str(reply.job_id)], user=req.user,
                                        host=req.host, hold=True, kinds=others), fx)
                if isinstance(held, p.Ok) and held.code:
                    lines += held.lines
                    code = max(code, held.code)
        return p.Ok(lines=lines, code=code)

    def hold(self, req: p.Hold, fx: Effects) -> p.Msg:
        """qhold/qrls: holds of the named jobs' tasks: the user hold changed by their
        owner, an operator or a manager, the operator hold by operators and managers, the
        system hold by managers. A line for each task whose holds changed (8.1.9 says
        nothing of the others), exit codes as 8.1.9's, the first failure's: 3 for a job
        that does not exist, 4 for several tasks of one that is not an array, 18 for one
        the sender may not change. A running task keeps its hold (qstat: hr)
        for when it waits again, after qmod -r."""
        config = self.s.config
        refused = permissions.submit_host_refusal(config, req.host)
        if refused:
            return p.Ok(lines=[refused], code=1)
        if "s" in req.kinds and not permissions.is_manager(config, req.user):
            return p.Ok(lines=[permissions.must_be_manager(req.user)], code=18)
        if "o" in req.kinds and not permissions.is_operator(config, req.user):
            return p.Ok(lines=[permissions.must_be_operator(req.user)], code=18)
        lines: list[str] = []
        code = 0  # the first failure's, as 8.1.9's
        for target in req.targets:
            named = self.named_jobs(target)
            why = named.invalid or named.missing
            if why:
                lines.append(why)
                code = code or (2 if named.invalid else 3)
                continue
            wanted = task_selection(named.task_part)
            for job in named.jobs:
                if not permissions.may_handle(config, req.user, job.spec.owner):
                    lines.append(f'denied: "{req.user}" must be at least owner of job '
                                 f"{job.job_id} to change job attributes")
                    code = code or 18
                    continue
                tasks = _tasks_named(job, wanted)
                if tasks is None:
                    lines.append(f"{job.job_id} is not a job array")
                    code = code or 4
                    continue
                changed = False
                for task in tasks:
                    old = task.hold_letters()
                    kept = set(old) | set(req.kinds) if req.hold else set(old) - set(req.kinds)
                    holds = "".join(k for k in HOLDS if k in kept)
                    if holds == old or not task.move(HOLD if holds else RELEASE):
                        continue
                    task.holds = holds
                    fx.dirty_tasks.add((job.job_id, task.task_id))
                    lines.append("modified hold of " + (
                        f"job-array task {job.job_id}.{task.task_id}" if job.is_array
                        else f"job {job.job_id}"))
                    changed = True
                if changed:
                    fx.sched.append(self.sched_job(job) or _nothing(job))
        return p.Ok(lines=lines, code=code)

    def _alter_refusal(self, job: Job, req: p.Alter) -> str | None:
        """Why a new value of the job's may not be: a name qsub refuses, a project it may
        not have, a checkpointing environment (gridd has none), an array dependency it
        cannot have; in 8.1.9's words."""
        if req.name is not None:
            refusal = name_refusal(req.name)
            if refusal:
                return refusal
        if req.project is not None:
            problem = self._rights(msgspec.structs.replace(job.spec, project=req.project))
            if problem:
                return problem.removeprefix("Unable to run job: ")
        if req.checkpoint:
            return f'denied: checkpointing environment "{req.checkpoint}" does not exist'
        if req.hold_jid_ad:
            if job.spec.array is None:
                return ('Can only specify "-hold_jid_ad" option with an array job (using "-t" '
                        'option)')
            others = [o for ref in req.hold_jid_ad for o in self.live_jobs(ref)]
            if any(o.job_id == job.job_id for o in others):
                return f'denied: job "{job.job_id}" may not be its own jobnet predecessor'
            if any(o.spec.array != job.spec.array for o in others):
                return ("This array job must have the same range of sub-tasks as the "
                        "dependent array job specified with -hold_jid_ad")
        return None

    def _may_alter(self, job: Job, req: p.Alter) -> str | None:
        """Why the sender may not alter this job, in Grid Engine's words, or None."""
        config = self.s.config
        if not permissions.may_handle(config, req.user, job.spec.owner):
            return (f'denied: "{req.user}" must be at least owner of job {job.job_id} to '
                    "change job attributes")
        if req.priority is not None and req.priority > job.spec.priority \
                and not permissions.is_operator(config, req.user):
            return f'denied: "{req.user}" must be operator to increase job priority'
        if req.deadline and not permissions.in_userset(config, permissions.DEADLINE_USERS,
                                                       req.user):
            return f'denied: the user "{req.user}" is not a deadline initiation user'
        return None

    def _alter_ar(self, job: Job, ar_id: int, now: float) -> str | None:
        """Why a job may not move into (or out of, with 0) an AR: not once it runs."""
        if any(t.state in ACTIVE for t in job.tasks.values()):
            return f"denied: job {job.job_id} is already running: its advance reservation " \
                "cannot be changed"
        if ar_id:
            spec = msgspec.structs.replace(job.spec, ar=ar_id)
            problem = ars.check_job(self, spec, now)
            if problem:
                return problem.replace("Unable to run job: ", "denied: ")
            job.spec.ar_submission_time = self.s.ars[ar_id].submission_time
        return None

    def _alter_job(self, job: Job, req: p.Alter, hard: dict[str, str] | None) -> list[str]:
        spec, number, lines = job.spec, job.job_id, []
        if req.ar is not None:
            spec.ar = req.ar
            lines.append(f"modified advance reservation of job {number}")
        if req.name is not None:
            spec.name = req.name
            lines.append(f"modified job name of job {number}")
        if hard is not None:
            spec.hard_resources = hard
            lines.append(f"modified hard resource list of job {number}")
        if req.priority is not None:
            spec.priority = req.priority
            lines.append(f"{req.user}@{req.host} sets scheduling priority of job {number} to "
                         f"{req.priority}")
        if req.reserve is not None:
            spec.reserve = req.reserve
            lines.append(f"modified reservation behaviour of job {number}")
        return lines + self._alter_more(job, req)

    def _alter_more(self, job: Job, req: p.Alter) -> list[str]:
        """The rest of what qalter changes, each with 8.1.9's line."""
        spec, number = job.spec, job.job_id
        lines = []
        for name, what in (("hard_queues", "hard queue list"),
                           ("soft_queues", "soft queue list"),
                           ("master_queues", "master hard queue list"),
                           ("soft_resources", "soft resource list"),
                           ("account", "account"), ("start_time", "start time"),
                           ("deadline", "deadline time"), ("restart", "restart behaviour"),
                           ("binding", "binding"),
                           ("task_concurrency", "task concurrency"),
                           ("stdout_path", "stdout path list"),
                           ("stderr_path", "stderr path list"),
                           ("merge", "output merge behaviour"), ("shell", "shell list"),
                           ("env", "environment"), ("mail_list", "mail list"),
                           ("mail_options", "mail options"), ("cwd", "working directory"),
                           ("stdin_path", "stdin path list"), ("notify", "notify behaviour"),
                           ("project", "project")):
            value = getattr(req, name)
            if value is not None:
                setattr(spec, name, value)
                lines.append(f"modified {what} of job {number}")
        if req.pe_name is not None and req.pe_min is not None and req.pe_max is not None:
            spec.pe_name, spec.pe_min, spec.pe_max = req.pe_name, req.pe_min, req.pe_max
            lines += [f"modified parallel environment of job {number}",
                      f"modified slot range of job {number}"]
        if req.hold_jid is not None:
            spec.hold_jid = req.hold_jid
            lines += self._dependency_lines(number, spec.hold_jid, "job id hold list")
        if req.hold_jid_ad is not None:
            spec.hold_jid_ad = req.hold_jid_ad
            lines += self._dependency_lines(number, spec.hold_jid_ad, "job id hold array list")
        if req.jobshare is not None:
            spec.jobshare = req.jobshare
            lines.append(f"{req.user}@{req.host} sets job share of job {number} to "
                         f"{req.jobshare}")
        if req.context_changes is not None:
            spec.context = changed_context(spec.context, req.context_changes)
            lines.append(f"modified context of job {number}")
        return lines

    def _dependency_lines(self, number: int, refs: list[str], what: str) -> list[str]:
        """The job now waits for these: 8.1.9's lines naming the jobs that block it and
        the references no live job answers to."""
        if refs:
            self.dependants.add(number)
        blocking: list[str] = []
        exited: list[str] = []
        for ref in refs:
            others = [str(o.job_id) for o in self.live_jobs(ref) if o.job_id != number]
            blocking += others
            if not others:
                exited.append(ref)
        return [f"modified {what} of job {number}",
                f"   blocking jobs: {','.join(blocking) or 'NONE'}",
                f"   exited jobs:   {','.join(exited) or 'NONE'}"]

    def delete_job(self, job: Job, req: p.Delete, now: float, fx: Effects,
                   task_part: str = "") -> str:
        wanted = task_selection(task_part)
        running = False
        event = FORCE_DELETE if req.force else DELETE
        for task in job.tasks.values():
            if wanted is not None and task.task_id not in wanted:
                continue
            before = task.state
            if not task.move(event):  # done already
                continue
            if before == RESCHEDULED:  # done once its last run is accounted
                task.delete_requested = True
                fx.dirty_tasks.add((job.job_id, task.task_id))
            elif before not in ACTIVE:  # it waited: it is done
                fx.sched_removed.append((job.job_id, task.task_id))
                reporting.job_log(self, job, task.task_id, now, fx, "deleted", "", req.user,
                                  "", "job deleted by user")
            elif req.force:  # done, killed or not
                fx.to_execd.append((task.host, p.KillTask(job_id=job.job_id,
                                                          task_id=task.task_id)))
                self._release(job, task, fx)
                task.exit_status = 0
                self._finish_bookkeeping(job, task, now, fx, account=True)
            else:  # deleting
                running = True
                task.delete_requested = True
                fx.to_execd.append((task.host, p.KillTask(job_id=job.job_id,
                                                          task_id=task.task_id,
                                                          reason="deleted")))
        fx.dirty_jobs.add(job.job_id)
        self._maybe_forget(job, fx, deleted=True)
        if req.force:
            return f"{req.user} forced the deletion of job {job.job_id}"
        if running:
            return f"{req.user} has registered the job {job.job_id} for deletion"
        return f"{req.user} has deleted job {job.job_id}"

    def query_jobs(self, req: p.QueryJobs, now: float) -> p.Msg:
        loads = self.loads()
        levels = None  # what planning would see now, if the query asks about resources
        if req.host_request or req.resources is not None or req.host_resources is not None:
            levels = build_levels(self.plan, loads, self.running.values())
        fitting = None
        if req.host_request:
            assert levels is not None
            fitting = self._fitting_hosts(req.host_request, levels)
            if isinstance(fitting, p.Error):
                return fitting
        states = self.instance_states(loads)
        chosen = None
        if req.select is not None:
            try:
                chosen = choose(self.plan, loads, req.select, states)
            except NoneLeft as exc:  # qstat says so and shows nothing, successfully
                return p.Error(text=exc.text, code=0)
            except Unselectable as exc:
                return p.Error(text=exc.text)
        if req.ids:
            jobs: dict[int, Job] = {}
            for ref in req.ids:
                for job in self._match_jobs(ref):
                    jobs[job.job_id] = job
            selected = list(jobs.values())
        else:
            selected = list(self.s.jobs.values())
        live = [j for j in selected if not self.all_done(j)]
        ranked = self.priorities(live, now)
        return p.JobsReply(
            jobs=[self._shown(j) for j in live],
            queues=list(self.s.queues.values()),
            hosts=[self._host_view(h, now) for h in self.s.hosts.values()],
            now=now,
            reasons={j.job_id: self.job_info(j, now) for j in live} if req.details else {},
            priorities={number: x.prior for number, x in ranked.items()},
            parts={j.job_id: self._parts(j, ranked[j.job_id]) for j in live} if req.parts else {},
            reserved={j.job_id: self.sched_reserved[j.job_id] for j in live
                      if j.job_id in self.sched_reserved} if req.details else {},
            ar_slots=ars.reserved_slots(self, now),
            states=states,
            instance_resources=self._instance_resources(req.resources, levels, loads),
            host_resources=self._host_resources(req.host_resources, levels, loads),
            fitting_hosts=fitting,
            finished=list(self.zombies.values()) if req.finished else [],
            alarms=self._alarms(req.explain, loads),
            selected=None if chosen is None else chosen.names(),
            eligible=might_run(chosen, [sched_job(j, []) for j in live], self.plan.hostgroups)
            if chosen is not None and by_more_than_states(req.select) else None,
        )

    def _alarms(self, letters: str, loads: dict[str, dict[str, str]]
                ) -> dict[str, list[tuple[str, str]]]:
        """qstat -explain a and A: the load and suspend thresholds each instance's host
        reaches, with the load value as reported."""
        kinds = [(kind, attr) for letter, kind, attr in (
            ("a", "load", "load_thresholds"), ("A", "suspend", "suspend_thresholds"))
            if letter in letters]
        if not kinds:
            return {}
        table = self.complex_table()
        out: dict[str, list[tuple[str, str]]] = {}
        for qi in self.plan.instances:
            for kind, attr in kinds:
                for name, value, limit in exceeded(getattr(qi, attr), loads.get(qi.host, {}),
                                                   table):
                    out.setdefault(qi.name, []).append(
                        (kind, f"alarm hl:{name}={value} {kind}-threshold={limit}"))
        return out

    def select_queues(self, req: p.SelectQueues) -> p.Msg:
        """qselect: the queue instances chosen."""
        loads = self.loads()
        try:
            chosen = choose(self.plan, loads, req.select, self.instance_states(loads))
        except Unselectable as exc:
            return p.Error(text=exc.text)
        return p.QueuesSelected(names=chosen.names())

    def _fitting_hosts(self, request: dict[str, str], levels: Levels) -> list[str] | p.Error:
        """Hosts whose global and host levels satisfy a request (qhost -l)."""
        table = levels.matcher.table
        for name, value in request.items():
            attr = table.resolve(name)
            if attr is None:
                return p.Error(text=f'error: unknown resource "{name}"')
            if not holds(attr.type, value):
                return p.Error(text=f'error: invalid value "{value}" for resource "{name}"')
        req = levels.matcher.request(table.full_names(request))
        return [host for host, level in levels.hosts.items()
                if levels.matcher.fits(req, 1, levels.global_level, level).ok]

    def _instance_resources(self, names: list[str] | None, levels: Levels | None,
                            loads: dict[str, dict[str, str]]) -> dict[str, list[Resource]]:
        """What qstat -F shows per queue instance (none unless asked)."""
        if names is None or levels is None:
            return {}
        table = levels.matcher.table
        return {qi.name: selected(instance_resources(self.plan, levels, loads, qi), names, table)
                for qi in self.plan.instances}

    def _host_resources(self, names: list[str] | None, levels: Levels | None,
                        loads: dict[str, dict[str, str]]) -> dict[str, list[Resource]]:
        """What qhost -F shows per host, the global line included (none unless asked)."""
        if names is None or levels is None:
            return {}
        table = levels.matcher.table
        return {h: selected(host_resources(self.plan, levels, loads, h), names, table)
                for h in ["global", *levels.hosts]}

    def quota(self, req: p.QueryQuota) -> p.QuotaReply:
        """qquota: the resource quotas in use, from what runs now."""
        if not self.plan.rqs:
            return p.QuotaReply()
        loads = self.loads()
        matcher = Matcher(self.complex_table())
        quotas = Quotas.fresh(self.plan, matcher.table, loads)
        quotas.book_running(self.running.values(), {qi.name: qi for qi in self.plan.instances},
                            matcher)
        return p.QuotaReply(rows=quotas.rows(req.users, req.hosts, req.queues, req.pes,
                                             req.projects, req.resources))

    def instance_states(self, loads: dict[str, dict[str, str]] | None = None
                        ) -> dict[str, str]:
        """Every queue instance's state letters, as qstat -f shows them (`loads`: the
        hosts' loads, when the caller has them already)."""
        states = instance_states(self.plan, self.loads() if loads is None else loads,
                                 self.host_up, self.s.flags,
                                 self.complex_table())
        return states | dict.fromkeys(self.orphaned, "o")

    def priorities(self, jobs: list[Job], now: float) -> dict[int, Priority]:
        """Each job's priority as the scheduler orders by it (gridd.model.priority),
        normalised over those of these jobs it plans or has started: a held job, or one
        whose -a time is still to come, is left out, as 8.1.9 leaves it out, and shows
        nothing worked out."""
        weights = self.plan.weights()
        resources = self._resource_urgency()
        considered = [job for job in jobs if (
            job.spec.start_time <= now and self._schedulable(job)) or any(
            (job.job_id, t.task_id) in self.running for t in job.tasks.values())]
        parts = []
        for job in considered:
            parts.append((job.spec.priority, urgency(
                resources.of(job.spec.hard_resources, job.spec.slots()),
                now - job.submit_time, job.spec.deadline or None, now, weights)))
        worked = dict(zip((j.job_id for j in considered), priorities(parts, weights),
                          strict=True))
        return {job.job_id: worked.get(job.job_id) or unconsidered(job.spec.priority)
                for job in jobs}

    def _resource_urgency(self) -> ResourceUrgency:
        if self._urgency is None or self._urgency_of is not self.plan.complexes:
            self._urgency = ResourceUrgency(self.plan.complexes)
            self._urgency_of = self.plan.complexes
        return self._urgency

    def _parts(self, job: Job, x: Priority) -> p.PriorityParts:
        u = x.urgency
        return p.PriorityParts(
            x.nurg, x.npprior, x.ntckts, u.total, u.resources, u.waiting, u.deadline, x.posix,
            self._resource_urgency().each(job.spec.hard_resources, job.spec.slots()))

    def job_info(self, job: Job, now: float) -> list[str]:
        """The `scheduling info` lines of qstat -j: the job's own state, the scheduler's
        messages for every job, then those for this one."""
        if not self.plan.job_info:
            return ["(Collecting of scheduler job information is turned off)"]
        lines = []
        if any(t.state == ERROR for t in job.tasks.values()):
            lines.append("Job is in error state")
        if self._held_by_dependency(job):
            lines.append("job dropped because of job dependencies")
        lines += [f'cannot run on host "{host}" until clean up of a previous run has '
                  "finished" for host in dict.fromkeys(
                      t.host for t in job.tasks.values() if t.state == RESCHEDULED)]
        lines += self.sched_global_info + self.sched_info.get(job.job_id, [])
        if any(t.state == HELD or (t.state == PENDING and self._waits_for_task(job, t.task_id))
               for t in job.tasks.values()):
            lines.append("Job is in hold state")
        if job.spec.start_time > now and any(t.state == PENDING for t in job.tasks.values()):
            lines.append("execution time not reached")
        return lines or ["There are no messages available"]

    def _shown(self, job: Job) -> Job:
        """The job as qstat shows it: its tasks' states as shown, their holds spelled out
        (a task shown held for a dependency alone has none: qstat -s hu/hj tell them
        apart), and the usage of those running as last reported."""
        tasks = {
            tid: _with_state(t, self.display_state(job, t),
                             self.online.get((job.job_id, tid)) if t.state in ACTIVE else None)
            for tid, t in job.tasks.items()
            if t.state != DONE
        }
        return Job(job_id=job.job_id, spec=job.spec, submit_time=job.submit_time, tasks=tasks)

    def _host_view(self, host: ExecHost, now: float) -> ExecHost:
        return host_lifecycle.shown(host, self.host_state(host.name))

    def wait_job(self, ident: bytes, req: p.WaitJob) -> p.Msg | None:
        done = self.s.finished.get(req.job_id)
        if done:
            return p.JobExited(**_fields(done), rid=req.rid)
        if req.job_id not in self.s.jobs:
            return p.Error(text=f'denied: job "{req.job_id}" does not exist')
        self.sync_waiters.setdefault(req.job_id, []).append((ident, req.rid))
        return None

    def wait_scheduled(self, ident: bytes, req: p.WaitScheduled) -> p.Msg | None:
        job = self.s.jobs.get(req.job_id)
        if job is None:  # already over: it started unless it was dropped unscheduled
            done = self.s.finished.get(req.job_id)
            return p.Scheduled(job_id=req.job_id, started=bool(done and not done.deleted),
                               rid=req.rid)
        if any(t.state in ACTIVE for t in job.tasks.values()):
            return p.Scheduled(job_id=req.job_id, started=True, rid=req.rid)
        self.now_waiters.setdefault(req.job_id, []).append((ident, req.rid))
        return None

    def qconf(self, req: p.Qconf, fx: Effects) -> p.QconfReply:
        # A change that would break a granted AR is refused (spec 5.2.2.2.1): the
        # configuration as it was comes back.
        before = _copy(self.s.config) if self.s.ars and admin.may_change(req.argv) else None
        who = admin.Caller(req.user, req.host, req.files, resolved=frozenset(req.resolved),
                           admin_host=permissions.admin_host(self.s.config, req.host),
                           master_host=self.master_host, execds=frozenset(self.host_up),
                           requested=self._requested)
        ans = admin.run_qconf(self.s.config, req.argv, who)
        fx.to_execd += [(host, p.StopExecd(kill_jobs=kill)) for host, kill in ans.stop_execds]
        fx.stop_master = fx.stop_master or ans.stop_master
        fx.sched_monitor = fx.sched_monitor or ans.monitor
        if ans.changed and before is not None:
            problem = ars.breaks(self, views.plan_conf(self.s.config))
            if problem:
                self.s.config = before
                return p.QconfReply(err=[problem], code=1)
        if ans.changed:
            fx.config_changed = True
            self.refresh_views()
        return p.QconfReply(out=ans.out, err=ans.err, code=ans.code)

    def _requested(self) -> Iterator[tuple[str, list[str]]]:
        """What each job (pending or running) and advance reservation asks for: qconf -Mc
        keeps a complex attribute they name."""
        for job_id, job in sorted(self.s.jobs.items()):
            yield f'job "{job_id}"', [*job.spec.hard_resources, *job.spec.soft_resources]
        for ar_id, ar in sorted(self.s.ars.items()):
            yield f'advance reservation "{ar_id}"', list(ar.spec.resources)

    def qmod(self, req: p.Qmod, now: float, fx: Effects) -> p.Msg:
        if req.action not in qmod.ACTIONS:
            return p.Error(text=f'invalid option argument "-{req.action}"')
        return qmod.run_qmod(self, req, now, fx)

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

    # ---- scheduler --------------------------------------------------------------

    def dispatch(self, orders: p.Dispatch, now: float, fx: Effects) -> None:
        self._note_info(orders)
        capacity = self.capacity()
        used = self.used()
        for order in orders.orders:
            job = self.s.jobs.get(order.job_id)
            task = job.tasks.get(order.task_id) if job else None
            if job is None or task is None or not allows(task.state, DISPATCH):
                continue
            if not all(
                split_instance(qi)[1] in self.host_up
                and used.get(qi, 0) + n <= capacity.get(qi, 0)
                for qi, n in order.granted
            ):
                fx.sched.append(self.sched_job(job) or _nothing(job))
                continue
            for qi, n in order.granted:
                used[qi] = used.get(qi, 0) + n
            self._start(job, task, order, now, fx)
        for job_id in orders.unschedulable:
            job = self.s.jobs.get(job_id)
            if job and all(allows(t.state, UNSCHEDULABLE) for t in job.tasks.values()):
                for task in job.tasks.values():
                    task.move(UNSCHEDULABLE)
                    fx.sched_removed.append((job_id, task.task_id))
                fx.dirty_jobs.add(job_id)
                self._answer_now(job_id, False, fx)
                self._maybe_forget(job, fx, deleted=True)

    def _note_info(self, orders: p.Dispatch) -> None:
        if orders.global_info is not None:
            self.sched_global_info = orders.global_info
        if orders.reserved is not None:
            self.sched_reserved = orders.reserved
        for job_id, number in orders.info.items():
            if number:
                self.sched_info[job_id] = orders.reasons.get(number, [])
            else:
                self.sched_info.pop(job_id, None)

    def _start(self, job: Job, task: Task, order: p.Order, now: float, fx: Effects) -> None:
        self.sched_reserved.pop(job.job_id, None)  # what it waited for has come
        task.move(DISPATCH)
        task.granted = order.granted
        task.pe = order.pe
        task.queue = order.granted[0][0]
        task.host = split_instance(task.queue)[1]
        task.start_time = now
        fx.dirty_tasks.add((job.job_id, task.task_id))
        fx.sched_removed.append((job.job_id, task.task_id))
        holding = self.running[(job.job_id, task.task_id)] = _holding(job, task)
        fx.sched_started.append(holding)
        fx.to_execd.append((task.host, self.start_message(job, task)))
        self._answer_now(job.job_id, True, fx)
        reporting.job_log(self, job, task.task_id, now, fx, "sent", "t", "master", task.host,
                          "sent to execd")
        reporting.consumables(self, task.host, now, fx)

    def _release(self, job: Job, task: Task, fx: Effects) -> None:
        """The task holds nothing any more."""
        self.online.pop((job.job_id, task.task_id), None)
        if self.running.pop((job.job_id, task.task_id), None) is not None:
            fx.sched_ended.append((job.job_id, task.task_id))
            if any(name in self.orphaned for name, _ in task.granted):
                self.refresh_views()

    def start_message(self, job: Job, task: Task) -> p.StartTask:
        queue = self.s.queues.get(split_instance(task.queue)[0])
        spec = job.spec
        h_rt = _seconds(spec.hard_resources.get("h_rt", "")) or 0.0
        s_rt = _seconds(spec.hard_resources.get("s_rt", "")) or 0.0
        if queue:
            h_rt = _min_limit(h_rt, _seconds(queue.h_rt) or 0.0)
            s_rt = _min_limit(s_rt, _seconds(queue.s_rt) or 0.0)
        one = Job(job_id=job.job_id, spec=spec, submit_time=job.submit_time,
                  tasks={task.task_id: task})
        return p.StartTask(
            job=one, task_id=task.task_id, queue=task.queue, granted=task.granted,
            tmpdir=queue.tmpdir if queue else "/tmp", h_rt=h_rt, s_rt=s_rt,
            shell=queue.shell if queue else "/bin/sh",
        )

    def _answer_now(self, job_id: int, started: bool, fx: Effects) -> None:
        for ident, rid in self.now_waiters.pop(job_id, []):
            fx.replies.append((ident, p.Scheduled(job_id=job_id, started=started, rid=rid)))

    # ---- execd ------------------------------------------------------------------

    def register(self, req: p.Register, now: float, fx: Effects) -> None:
        self._heard(req.host, host_lifecycle.REGISTER, req.load, now, fx, req.load_report_time)
        for report in req.finished:
            self.task_finished(report, now, fx)
        self._reconcile(req.host, set(req.running), now, fx, resend_all=True)

    def load_report(self, req: p.LoadReport, now: float, fx: Effects) -> None:
        self._heard(req.host, host_lifecycle.REPORT, req.load, now, fx, None)
        reporting.host_load(self, req.host, req.load, now, fx)
        self._reconcile(req.host, set(req.running), now, fx, resend_all=False)
        for job_id, task_id, usage in req.usage:
            job = self.s.jobs.get(job_id)
            task = job.tasks.get(task_id) if job is not None else None
            if task is not None and task.host == req.host and (job_id, task_id) in self.running:
                self.online[(job_id, task_id)] = usage

    def _heard(self, name: str, event: str, load: dict[str, str], now: float, fx: Effects,
               report_time: float | None) -> None:
        host = self.s.hosts.get(name)
        if host is None:
            host = self.s.hosts[name] = ExecHost(name=name)
            fx.dirty_hosts.add(name)
        host.load = load
        fx.sched_loads[name] = load
        self._check_thresholds(name, load, fx)
        host.last_report = now
        if report_time is not None:
            host.load_report_time = report_time
        self._move_host(name, event, fx)

    def host_state(self, name: str) -> str:
        """A host's state in its lifecycle (gridd.model.host_lifecycle): up while in
        host_up."""
        return host_lifecycle.UP if name in self.host_up else host_lifecycle.UNKNOWN

    def _move_host(self, name: str, event: str, fx: Effects) -> None:
        """Move a host by `event` if the table allows it; the scheduler hears of every
        change of the hosts that are up."""
        state = host_lifecycle.after(self.host_state(name), event)
        if state is None or state == self.host_state(name):
            return
        if state == host_lifecycle.UP:
            self.host_up.add(name)
        else:
            self.host_up.discard(name)
        fx.hosts_changed = True

    def _check_thresholds(self, host: str, load: dict[str, str], fx: Effects) -> None:
        """Suspend the jobs of a queue instance while its host's load reaches one of its
        suspend thresholds, and continue them once it no longer does."""
        names = self.by_host.get(host)
        if not names:
            return
        instances = {qi.name: qi for qi in self.plan.instances if qi.host == host}
        table = self.complex_table()
        over = {n for n in names if exceeded(instances[n].suspend_thresholds, load, table)}
        changed = (over ^ self.over_threshold) & set(names)
        if changed:
            self.over_threshold = (self.over_threshold - set(names)) | over
            self.sync_suspension(fx, on=changed)

    def _reconcile(self, host: str, running: set[tuple[int, int]], now: float, fx: Effects,
                   resend_all: bool) -> None:
        """Make what the master believes runs on ``host`` agree with what execd says.
        The tasks that hold slots are those in `running` (a load report must not walk
        every pending task of the cell)."""
        for key in list(self.running):
            job = self.s.jobs.get(key[0])
            task = job.tasks.get(key[1]) if job is not None else None
            if job is None or task is None or task.host != host or task.state not in ACTIVE:
                continue
            if key in running:
                if task.move(STARTED):  # from TRANSFERRING
                    fx.dirty_tasks.add(key)
                if task.state == DELETING:
                    fx.to_execd.append((host, p.KillTask(job_id=key[0], task_id=key[1])))
                elif resend_all and task.stopped:
                    fx.to_execd.append((host, p.SuspendTask(job_id=key[0], task_id=key[1],
                                                            suspend=True)))
            elif task.state == TRANSFERRING and (resend_all or now - task.start_time > 10):
                fx.to_execd.append((host, self.start_message(job, task)))
            elif task.state in (RUNNING, DELETING) and resend_all:
                # execd neither runs it nor has a report: it was lost with the host.
                self.task_finished(
                    p.TaskReport(job_id=key[0], task_id=key[1], host=host,
                                 start_time=task.start_time, end_time=now,
                                 exit_status=137, failed=100,
                                 failed_reason="lost by execution host"),
                    now, fx)

    def tick(self, now: float, fx: Effects) -> None:
        """What time alone changes: advance reservations starting and ending."""
        ars.tick(self, now, fx)

    def check_hosts(self, now: float, fx: Effects) -> None:
        """Hosts silent too long are up no more."""
        for name in list(self.host_up):
            if host_lifecycle.timed_out(self.s.hosts[name], self.host_timeout, now):
                self._move_host(name, host_lifecycle.TIMEOUT, fx)

    def task_started(self, req: p.TaskStarted, now: float, fx: Effects) -> None:
        job = self.s.jobs.get(req.job_id)
        task = job.tasks.get(req.task_id) if job else None
        if task is None or not task.move(STARTED):
            return
        task.start_time = req.start_time
        fx.dirty_tasks.add((req.job_id, req.task_id))
        reporting.job_log(self, job, task.task_id, now, fx, "delivered", "r", "master",
                          task.host, "job received by execd")

    def task_finished(self, report: p.TaskReport, now: float, fx: Effects) -> None:
        """Record the end of a task once, whatever number of times execd reports it."""
        fx.to_execd.append((report.host, p.Ack(job_id=report.job_id, task_id=report.task_id)))
        job = self.s.jobs.get(report.job_id)
        task = job.tasks.get(report.task_id) if job else None
        if job is None or task is None:
            return
        end = finish_event(task)
        if not allows(task.state, end):
            return
        self._release(job, task, fx)
        task.move(end)
        task.start_time = report.start_time or task.start_time
        task.end_time = report.end_time
        task.exit_status = report.exit_status
        task.failed = report.failed
        task.failed_reason = report.failed_reason
        task.signal = report.signal
        task.usage = report.usage
        if task.delete_requested and report.failed == 0:
            task.failed = 100
            task.failed_reason = "assumedly after job"
        self._finish_bookkeeping(job, task, now, fx, account=True)
        fx.dirty_tasks.add((job.job_id, task.task_id))
        if task.state == RESCHEDULED:
            task.failed, task.failed_reason = FAILED_RESCHEDULED, "rescheduling"
            reporting.job_log(self, job, task.task_id, now, fx, "finished", "r",
                              "execution daemon", task.host, "job rescheduled")
            return
        reporting.job_log(self, job, task.task_id, now, fx, "finished", "r",
                          "execution daemon", task.host, "job exited")
        reporting.job_log(self, job, task.task_id, now, fx, "finished", "r", "master",
                          task.host, "job waits for scheduler's deletion")
        reporting.job_log(self, job, task.task_id, now, fx, "deleted", "T", "scheduler",
                          task.host, "job deleted by scheduler")
        reporting.consumables(self, task.host, now, fx)
        self._maybe_forget(job, fx, deleted=False)

    def _finish_bookkeeping(self, job: Job, task: Task, now: float, fx: Effects,
                            account: bool) -> None:
        if not task.end_time:
            task.end_time = now
        if account:
            seq = self.s.next_seq
            self.s.next_seq += 1
            fx.counters_changed = True
            self.s.outbox[seq] = (job.job_id, task.task_id)
            self.unaccounted[job.job_id] = self.unaccounted.get(job.job_id, 0) + 1
            fx.outbox.append((seq, job.job_id, task.task_id))
        # a finished task may release dependants
        for other_id in sorted(self.dependants - {job.job_id}):
            other = self.s.jobs.get(other_id)
            sj = self.sched_job(other) if other else None
            if sj:
                fx.sched.append(sj)

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

    def _maybe_forget(self, job: Job, fx: Effects, deleted: bool) -> None:
        """Once every task is done, answer -sync waiters; the job leaves when accounted."""
        if not self.all_done(job):
            return
        self._count_out(job)
        worst = max(job.tasks.values(), key=lambda t: (t.exit_status != 0, t.exit_status))
        exited = p.JobExited(job_id=job.job_id, exit_status=worst.exit_status,
                             signal=worst.signal, failed=worst.failed,
                             deleted=deleted or any(t.delete_requested
                                                    for t in job.tasks.values()))
        self.s.finished[job.job_id] = exited
        while len(self.s.finished) > FINISHED_MEMORY:
            self.s.finished.pop(next(iter(self.s.finished)))
        keep = max(views.to_int(self.s.config.conf.finished_jobs), 0)
        if keep:
            self.zombies[job.job_id] = job
        while len(self.zombies) > keep:
            self.zombies.pop(next(iter(self.zombies)))
        for ident, rid in self.sync_waiters.pop(job.job_id, []):
            fx.replies.append((ident, p.JobExited(**_fields(exited), rid=rid)))
        self._answer_now(job.job_id, False, fx)
        self.dependants.discard(job.job_id)
        self._drop_if_settled(job.job_id, fx)

    def _drop_if_settled(self, job_id: int, fx: Effects) -> None:
        """A job leaves the state once every task is done and accounted."""
        job = self.s.jobs.get(job_id)
        if job is None or self.unaccounted.get(job_id):
            return
        if self.all_done(job):
            del self.s.jobs[job_id]
            self.sched_info.pop(job_id, None)
            fx.gone_jobs.add(job_id)

    def accounted(self, seqs: list[int], fx: Effects) -> None:
        for seq in seqs:
            if self.s.reports.pop(seq, None) is not None:
                fx.outbox_done.append(seq)
                continue
            entry = self.s.outbox.pop(seq, None)
            if entry is None:
                continue
            fx.outbox_done.append(seq)
            job_id = entry[0]
            self._after_rescheduled_run(job_id, entry[1], fx)
            self.unaccounted[job_id] -= 1
            if not self.unaccounted[job_id]:
                del self.unaccounted[job_id]
                self._drop_if_settled(job_id, fx)

    def _after_rescheduled_run(self, job_id: int, task_id: int, fx: Effects) -> None:
        """A rescheduled run is accounted: its task waits to run again (or is done, when
        qdel asked meanwhile)."""
        job = self.s.jobs.get(job_id)
        task = job.tasks.get(task_id) if job is not None else None
        if job is None or task is None or not task.move(accounted_event(task)):
            return
        fx.dirty_tasks.add((job_id, task_id))
        if task.state == DONE:  # qdel asked meanwhile
            self._maybe_forget(job, fx, deleted=True)
            return
        fresh = Task(task_id=task_id, state=task.state, rerun=True,
                     holds=task.holds)  # in place: all_done keeps the objects
        for name in Task.__struct_fields__:
            setattr(task, name, getattr(fresh, name))
        fx.sched.append(self.sched_job(job) or _nothing(job))

    def pending_accounting(self) -> list[p.AccountTask | p.ReportRecord]:
        out: list[p.AccountTask | p.ReportRecord] = [
            p.ReportRecord(seq=seq, record=record)
            for seq, record in sorted(self.s.reports.items())]
        for seq, (job_id, task_id) in sorted(self.s.outbox.items()):
            job = self.s.jobs.get(job_id)
            if job and task_id in job.tasks:
                out.append(p.AccountTask(seq=seq, job=job, task=job.tasks[task_id]))
        return out


# ---- helpers -------------------------------------------------------------------------

def _unable(lines: list[str]) -> p.Error:
    """A refused submission as qsub prints it (exit code 1)."""
    return p.Error(text="Unable to run job: " + "\n".join(lines))


class Named(NamedTuple):
    """What a job-task identifier names: the jobs not over yet, the part after the job
    naming tasks ("" for all of them), and, in 8.1.9's words, why it names none: an
    identifier that is not one (`invalid`) or no such job (`missing`)."""

    jobs: list[Job]
    task_part: str
    invalid: str | None
    missing: str | None


def _copy(obj: _Struct) -> _Struct:
    """A deep copy of a configuration or a job's spec, that changing it leaves alone."""
    return msgspec.msgpack.decode(msgspec.msgpack.encode(obj), type=type(obj))


def _with_state(task: Task, state: str, usage: Usage | None = None) -> Task:
    holds = task.hold_letters()
    if state == task.state and usage is None and holds == task.holds:
        return task
    return msgspec.structs.replace(task, state=state, usage=usage or task.usage, holds=holds)


def _fields(msg: p.JobExited) -> dict:
    return {f: getattr(msg, f) for f in ("job_id", "exit_status", "signal", "failed", "deleted")}


def _tasks_named(job: Job, wanted: range | None) -> list[Task] | None:
    """The tasks of the job a task range names (None: every task). A job that is not an
    array has one task, task 1 to Grid Engine: a range of one id names it or nothing,
    and a range of several is refused (None), as 8.1.9's qhold and qrls refuse it."""
    if wanted is None:
        return list(job.tasks.values())
    if not job.is_array:
        if len(wanted) > 1:
            return None
        return list(job.tasks.values()) if wanted[0] == 1 else []
    return [task for task in job.tasks.values() if task.task_id in wanted]


def _nothing(job: Job) -> p.SchedJob:
    return p.SchedJob(job_id=job.job_id, pending=[], priority=0, submit_time=job.submit_time)


def sched_job(job: Job, pending: list[int]) -> p.SchedJob:
    """What planning needs of a job with these pending tasks."""
    spec = job.spec
    return p.SchedJob(
        job_id=job.job_id, pending=pending, priority=spec.priority,
        submit_time=job.submit_time, hard=spec.hard_resources, soft=spec.soft_resources,
        queues=spec.hard_queues, soft_queues=spec.soft_queues,
        master_queues=spec.master_queues, pe=spec.pe_name, pe_min=spec.pe_min,
        pe_max=spec.pe_max, immediate=spec.immediate,
        owner=spec.owner, group=spec.group, project=spec.project, reserve=spec.reserve,
        ar=spec.ar, start_time=spec.start_time, deadline=spec.deadline,
        task_concurrency=spec.task_concurrency,
    )


def _asking(job_id: int, spec: JobSpec, now: float) -> p.SchedJob:
    """What planning would be asked of a job not made yet (checks at submission); its
    tasks are not made either: an array of 100,000 would cost more than the check."""
    return sched_job(Job(job_id=job_id, spec=spec, submit_time=now), [0])


def _holding(job: Job, task: Task) -> Running:
    spec = job.spec
    return Running(job.job_id, task.task_id, spec.hard_resources, task.granted,
                   task.pe or spec.pe_name, spec.owner, spec.group, spec.project,
                   task.start_time, job.submit_time, spec.ar)


def _min_limit(a: float, b: float) -> float:
    if a and b:
        return min(a, b)
    return a or b


def _seconds(text: str) -> float | None:
    """Seconds of a TIME value, 0.0 for INFINITY and None when it is not a time."""
    from gridd.model.values import parse_time

    try:
        value = parse_time(text)
    except ValueError:
        return None
    return 0.0 if value == float("inf") else value

"""Queries: what qstat, qselect, qhost and qquota show (jobs as shown, queue instance
states, resources, priorities, scheduling info), and the -sync and -now waits.
"""

from __future__ import annotations

import msgspec

from gridd import protocol as p
from gridd.master import ars
from gridd.master.sched_input import sched_job
from gridd.model import host_lifecycle
from gridd.model.cluster import Resource
from gridd.model.complexes import holds
from gridd.model.job import Job, Task, Usage
from gridd.model.job_rows import (
    JobRows,
    Row,
    ShownRow,
    finished_rows,
    held_as,
    job_rows,
    pending_order,
    state_filter,
    user_matches,
)
from gridd.model.priority import (
    Priority,
    ResourceUrgency,
    normalise,
    prior,
    priorities,
    unconsidered,
    urgency,
    urgency_totals,
)
from gridd.model.selection import QueueSelect
from gridd.model.task_lifecycle import (
    ACTIVE,
    DONE,
    ERROR,
    HELD,
    PENDING,
    RESCHEDULED,
    ZOMBIE,
    shown,
)
from gridd.sched.levels import Levels, build_levels, exceeded, instance_states
from gridd.sched.match import Matcher
from gridd.sched.quota import Quotas
from gridd.sched.resources import host_resources, instance_resources, selected
from gridd.sched.select import (
    Chosen,
    NoneLeft,
    Unselectable,
    by_more_than_states,
    choose,
    might_run,
)

UNCONSIDERED = unconsidered(0).prior  # the priority a job left out shows: none worked out


class Queries:
    """Master's queries and waits; its state is declared in gridd.master.core."""

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
        chosen = self._chosen(req.select, loads, states)
        if isinstance(chosen, p.Error):
            return chosen
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
            hosts=[host_lifecycle.shown(h, self.host_state(h.name))
                   for h in self.s.hosts.values()],
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
            eligible=self._eligible(chosen, req.select, live),
        )

    def query_rows(self, req: p.QueryRows, now: float) -> JobRows | p.Error:
        """A plain qstat's lines (gridd.model.job_rows) with only what they show, each
        job's priority worked out over every live job as query_jobs does, and only the
        jobs of the owners asked for shown. A job that waits alone (most of a big queue's
        do: Master.live_jobs_split) goes straight to the row job_rows would make of it,
        in one sweep; the others go through the shown jobs and job_rows."""
        try:
            wanted, kinds = state_filter(req.states)
        except ValueError:  # qstat says so before it asks; another client may not
            return p.Error(text=f"ERROR! wrong argument to -s option: {req.states!r}")
        chosen = None
        if req.select is not None:
            loads = self.loads()
            chosen = self._chosen(req.select, loads, self.instance_states(loads))
            if isinstance(chosen, p.Error):
                return chosen
        alone, others = self.live_jobs_split()
        considered = [job for job in alone if job.spec.start_time <= now
                      or (job.job_id, 0) in self.running]  # as _considered has it
        considered += self._considered(others, now)
        priors = dict.fromkeys((job.job_id for job in others), UNCONSIDERED)
        priors.update(zip((job.job_id for job in considered), self._priors(considered, now),
                          strict=True))
        eligible = self._eligible(chosen, req.select, alone + others)
        eligible_set = None if eligible is None else set(eligible)
        users = req.users
        running, pending = job_rows(  # of the owners asked for, chosen here once
            [self._shown(j) for j in others if user_matches(j.spec.owner, users)],
            priors, users=None, states=req.states, queues=self.s.queues.values(),
            chosen=None if chosen is None else set(chosen.names()), eligible=eligible_set,
            tasks_apart=req.tasks_apart)
        rows = [compact(r) for r in pending]
        asked_for: dict[str, bool] = {}  # by owner: whether their jobs are asked for
        for job in alone:
            owner = job.spec.owner
            asked = asked_for.get(owner)
            if asked is None:
                asked = asked_for[owner] = user_matches(owner, users)
            if asked and (eligible_set is None or job.job_id in eligible_set) and (
                    PENDING in wanted
                    or (kinds and held_as(job, job.tasks[0], kinds))):
                rows.append(alone_row(job, priors.get(job.job_id, UNCONSIDERED)))
        pending_order(rows)
        if ZOMBIE in wanted:
            rows += [compact(r) for r in finished_rows(self.zombies.values(), users)]
        return JobRows(running=[compact(r) for r in running], pending=rows)

    def _chosen(self, select: QueueSelect | None, loads: dict[str, dict[str, str]],
                states: dict[str, str]) -> Chosen | p.Error | None:
        """The queue instances qstat's selection options choose (None without them)."""
        if select is None:
            return None
        try:
            return choose(self.plan, loads, select, states)
        except NoneLeft as exc:  # qstat says so and shows nothing, successfully
            return p.Error(text=exc.text, code=0)
        except Unselectable as exc:
            return p.Error(text=exc.text)

    def _eligible(self, chosen: Chosen | None, select: QueueSelect | None,
                  live: list[Job]) -> list[int] | None:
        """The waiting jobs that might run in an instance chosen, unless it chose by
        states alone (gridd.sched.select.might_run)."""
        if chosen is None or not by_more_than_states(select):
            return None
        return might_run(chosen, [sched_job(j, []) for j in live], self.plan.hostgroups)

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

    def display_state(self, job: Job, task: Task) -> str:
        """The letters qstat shows for the task (gridd.model.task_lifecycle.shown)."""
        return shown(task, lambda: (self._held_by_dependency(job)
                                    or self._waits_for_task(job, task.task_id)),
                     lambda: self.suspension(task))

    def priorities(self, jobs: list[Job], now: float) -> dict[int, Priority]:
        """Each job's priority as the scheduler orders by it (gridd.model.priority),
        normalised over those of these jobs it plans or has started, or that wait in
        error state (8.1.9 works theirs out too): a held job, or one whose -a time is
        still to come, is left out, as 8.1.9 leaves it out, and shows nothing worked out."""
        weights = self.plan.weights()
        resources = self._resource_urgency()
        considered = self._considered(jobs, now)
        parts = []
        for job in considered:
            parts.append((job.spec.priority, urgency(
                resources.of(job.spec.hard_resources, job.spec.slots()),
                now - job.submit_time, job.spec.deadline or None, now, weights)))
        worked = dict(zip((j.job_id for j in considered), priorities(parts, weights),
                          strict=True))
        return {job.job_id: worked.get(job.job_id) or unconsidered(job.spec.priority)
                for job in jobs}

    def _priors(self, considered: list[Job], now: float) -> list[float]:
        """Each considered job's `priorities(...)[job].prior` alone, the figure a plain
        qstat prints, without the parts and a struct each: its rows ask it of every live
        job (priority.urgency_totals, which a test holds equal to the parts' totals)."""
        weights = self.plan.weights()
        of = self._resource_urgency().of
        nurgs = normalise(urgency_totals(
            [(of(job.spec.hard_resources, job.spec.slots()), now - job.submit_time,
              job.spec.deadline) for job in considered], now, weights))
        return [prior(job.spec.priority, nurg, weights)
                for job, nurg in zip(considered, nurgs, strict=True)]

    def _considered(self, jobs: list[Job], now: float) -> list[Job]:
        """The jobs whose priority is worked out: those the scheduler plans or has
        started, or that wait in error state."""
        return [job for job in jobs if (
            job.spec.start_time <= now and self._schedulable(job)) or any(
            (job.job_id, t.task_id) in self.running or t.state == ERROR
            for t in job.tasks.values())]

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
        tasks = {}
        changed = False
        for tid, t in job.tasks.items():
            if t.state == DONE:
                changed = True
                continue
            as_shown = tasks[tid] = _with_state(
                t, self.display_state(job, t),
                self.online.get((job.job_id, tid)) if t.state in ACTIVE else None)
            changed = changed or as_shown is not t
        if not changed:  # shown as it is: no copy
            return job
        return Job(job_id=job.job_id, spec=job.spec, submit_time=job.submit_time, tasks=tasks)

    def wait_job(self, ident: bytes, req: p.WaitJob) -> p.Msg | None:
        done = self.s.finished.get(req.job_id)
        if done:
            return p.JobExited(**exited_fields(done), rid=req.rid)
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


def _with_state(task: Task, state: str, usage: Usage | None = None) -> Task:
    holds = task.hold_letters()
    if state == task.state and usage is None and holds == task.holds:
        return task
    return msgspec.structs.replace(task, state=state, usage=usage or task.usage, holds=holds)


def compact(row: Row) -> ShownRow:
    """A row as it travels: what qstat prints of it."""
    return ShownRow(row.job.job_id, row.prior, row.job.spec.name, row.job.spec.owner,
                      row.state, row.stamp, row.queue, row.slots, row.tasks, row.job.is_array)


def alone_row(job: Job, prior: float) -> ShownRow:
    """compact() of the row job_rows makes of a job that waits alone
    (Master.live_jobs_split): one task, no array, shown as qw."""
    spec = job.spec
    return ShownRow(job.job_id, prior, spec.name, spec.owner, PENDING, job.submit_time, "",
                      spec.slots(), "", False)


def exited_fields(msg: p.JobExited) -> dict:
    """How a job ended, for the answer to one -sync waiter (with its own request id)."""
    return {f: getattr(msg, f) for f in ("job_id", "exit_status", "signal", "failed", "deleted")}

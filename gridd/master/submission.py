"""Submission and validation: qsub's checks (names, task ranges, requests, rights,
max_jobs and max_u_jobs, -w verification), a new job's number, and the checks other
requests share (an AR's requests, qalter's new values).
"""

from __future__ import annotations

import fnmatch

from gridd import protocol as p
from gridd.formats.requests import TaskIdError
from gridd.formats.submitted import submitted_line
from gridd.master import ars, ids, permissions, reporting, views
from gridd.master.sched_input import sched_job
from gridd.master.state import Effects
from gridd.model.ar import ArSpec
from gridd.model.complexes import value_problem
from gridd.model.job import Job, JobSpec, interactive_refusal, name_refusal, new_job
from gridd.model.objects import NONE, User, words
from gridd.model.planning import SchedJob
from gridd.model.queue_ref import queue_matches
from gridd.sched.access import allowed, project_allowed
from gridd.sched.plan import verify

MAX_JOB_ID = 9_999_999
LIMIT_EXIT = 25  # qsub's exit status when max_jobs or max_u_jobs refuses a job


class Submission:
    """Master's submission and validation; its state is declared in gridd.master.core."""

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

    def _verified(self, job: SchedJob, mode: str, now: float) -> list[str] | None:
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
        refusal = interactive_refusal(spec)
        if refusal is not None:
            return f"Unable to run job: job rejected: {refusal}"
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

    def validate_request(self, job: SchedJob, what: str = "job") -> str | None:
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

    def ar_request(self, spec: ArSpec) -> SchedJob:
        """An AR's requests as planning reads a job's."""
        return SchedJob(job_id=0, pending=[1], priority=0, submit_time=0.0,
                        hard=self.complex_table().full_names(spec.resources),
                        queues=spec.queues, pe=spec.pe_name, pe_min=spec.pe_min,
                        pe_max=spec.pe_max, owner=spec.owner, group=spec.group)

    def _unknown_queue(self, refs: list[str]) -> str | None:
        """8.1.9's refusal of the first -q (or -masterq) reference that names no queue
        instance, read as the scheduler reads it; None when each names one."""
        groups = self.plan.hostgroups
        for ref in refs:
            if not any(queue_matches(ref, qi, groups) for qi in self.plan.instances):
                return f'Job was rejected because job requests unknown queue "{ref}"'
        return None


def _unable(lines: list[str]) -> p.Error:
    """A refused submission as qsub prints it (exit code 1)."""
    return p.Error(text="Unable to run job: " + "\n".join(lines))


def _asking(job_id: int, spec: JobSpec, now: float) -> SchedJob:
    """What planning would be asked of a job not made yet (checks at submission); its
    tasks are not made either: an array of 100,000 would cost more than the check."""
    return sched_job(Job(job_id=job_id, spec=spec, submit_time=now), [0])

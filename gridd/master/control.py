"""Job control: qdel, qalter, qresub and qhold/qrls on the jobs named, each by whom
8.1.9 lets change them, in 8.1.9's words; qmod and qconf, handed to gridd.master.qmod
and gridd.master.admin.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TypeVar

import msgspec

from gridd import protocol as p
from gridd.formats.requests import (
    ONLY_JOBS,
    invalid_job_task,
    split_job_task,
    task_selection,
)
from gridd.formats.submitted import submitted_line
from gridd.master import admin, ars, permissions, qmod, reporting, views
from gridd.master.sched_input import no_pending
from gridd.master.state import Effects
from gridd.model.job import HOLDS, Job, Task, changed_context, name_refusal
from gridd.model.task_lifecycle import ACTIVE, DELETE, FORCE_DELETE, HOLD, RELEASE, RESCHEDULED

_Struct = TypeVar("_Struct", bound=msgspec.Struct)


class Control:
    """Master's job control, qmod and qconf; its state is declared in gridd.master.core."""

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
                self.task_ends.over(job, task, fx, deleted=True)
            elif req.force:  # done, killed or not
                fx.to_execd.append((task.host, p.KillTask(job_id=job.job_id,
                                                          task_id=task.task_id)))
                self._release(job, task, fx)
                task.exit_status = 0
                self.force_pe_tasks(job, task, now, fx)
                self._finish_bookkeeping(job, task, now, fx, account=True)
                self.task_ends.over(job, task, fx, deleted=True)
            else:  # deleting
                running = True
                task.delete_requested = True
                fx.to_execd.append((task.host, p.KillTask(job_id=job.job_id,
                                                          task_id=task.task_id,
                                                          reason="deleted")))
                self.kill_pe_tasks(job, task, fx)
        fx.dirty_jobs.add(job.job_id)
        self._maybe_forget(job, fx, deleted=True)
        if req.force:
            return f"{req.user} forced the deletion of job {job.job_id}"
        if running:
            return f"{req.user} has registered the job {job.job_id} for deletion"
        return f"{req.user} has deleted job {job.job_id}"

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
                fx.sched.append(self.sched_job(job) or no_pending(job))
        return p.Ok(lines=lines, code=code)

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
                    fx.sched.append(self.sched_job(job) or no_pending(job))
        return p.Ok(lines=lines, code=code)

    def qmod(self, req: p.Qmod, now: float, fx: Effects) -> p.Msg:
        if req.action not in qmod.ACTIONS:
            return p.Error(text=f'invalid option argument "-{req.action}"')
        return qmod.run_qmod(self, req, now, fx)

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


def _copy(obj: _Struct) -> _Struct:
    """A deep copy of a configuration or a job's spec, that changing it leaves alone."""
    return msgspec.msgpack.decode(msgspec.msgpack.encode(obj), type=type(obj))

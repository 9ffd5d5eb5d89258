"""Execution: execds registering and reporting (loads, what runs where), hosts timing
out and their jobs rescheduled (max_unheard, reschedule_unknown), tasks stopped and
continued (suspend thresholds, qmod), started and finished, the bookkeeping until a
finished job is accounted and forgotten, and what time alone changes.

A host that comes back is reconciled with what its execd says: a task it runs that the
master no longer places there (rescheduled or deleted meanwhile) is killed, and the report
of such a run is acknowledged and never accounted, nor taken for the end of a later run
of the task (Task.given_up); what ended there while it was cut off is accounted once.
"""

from __future__ import annotations

import logging

from gridd import protocol as p
from gridd.master import ars, new_hosts, reporting, views
from gridd.master.bootstrap import ALL_HOSTS
from gridd.master.interactive import KeyOf, no_key
from gridd.master.qmod import rerunnable
from gridd.master.queries import exited_fields
from gridd.master.sched_input import no_pending
from gridd.master.state import Effects
from gridd.model import host_lifecycle, master_params, pe_tasks
from gridd.model.cluster import ExecHost, split_instance
from gridd.model.host_names import find_host
from gridd.model.job import Job, PeTask, Task
from gridd.model.task_lifecycle import (
    ACTIVE,
    CONTINUE,
    DELETING,
    DONE,
    ERROR,
    JOB_ERRORS,
    PENDING,
    RESCHEDULED,
    RUNNING,
    STARTED,
    STOP,
    TRANSFERRING,
    accounted_event,
    allows,
    finish_event,
    suspension,
)
from gridd.model.values import time_or
from gridd.sched.levels import exceeded

FINISHED_MEMORY = 50_000  # finished jobs remembered for late -sync waiters
FAILED_RESCHEDULED = 25  # the failed code of a run qmod -r ended (8.1.9's)


class Execution:
    """Master's side of the execds and of accounting; its state is declared in
    gridd.master.core."""

    def register(self, req: p.Register, now: float, fx: Effects,
                 key_of: KeyOf = no_key) -> None:
        if req.host not in self.s.config.exechosts:
            self._admit(req.host, fx)
        self._heard(req.host, host_lifecycle.REGISTER, req.load, now, fx, req.load_report_time)
        if req.session_endpoint:
            self.session_endpoints[req.host] = req.session_endpoint
        else:
            self.session_endpoints.pop(req.host, None)
        for report in req.finished:
            self.task_finished(report, now, fx)
        self._reconcile(req.host, set(req.running), now, fx, key_of, resend_all=True)
        self.reconcile_pe_tasks(req.host, set(req.running_pe), now, fx, key_of)

    def load_report(self, req: p.LoadReport, now: float, fx: Effects,
                    key_of: KeyOf = no_key) -> None:
        self._heard(req.host, host_lifecycle.REPORT, req.load, now, fx, None)
        reporting.host_load(self, req.host, req.load, now, fx)
        self._reconcile(req.host, set(req.running), now, fx, key_of, resend_all=False)
        for job_id, task_id, usage in req.usage:
            job = self.s.jobs.get(job_id)
            task = job.tasks.get(task_id) if job is not None else None
            if task is not None and task.host == req.host and (job_id, task_id) in self.running:
                self.online[(job_id, task_id)] = usage

    def _admit(self, name: str, fx: Effects) -> None:
        """A host that registers becomes a full execution host (gridd.master.new_hosts):
        a change of the configuration, spooled and told as qconf's are."""
        problems = new_hosts.admit(self.s.config, name, self.master_host)
        if name not in self.s.config.exechosts:
            fx.notices.append((logging.WARNING, f"execution host {name} registered but "
                               f"could not be added: {'; '.join(problems)}"))
            return
        fx.config_changed = True
        self.refresh_views()
        joined = not problems and ALL_HOSTS in self.s.config.hostgroups
        fx.notices.append((logging.INFO, f"execution host {name} registered: added to the "
                           "exec host list" + (f" and host group {ALL_HOSTS}" if joined
                                               else "")))
        fx.notices.extend((logging.WARNING, f"execution host {name}: {problem}")
                          for problem in problems)

    def host_called(self, name: str) -> str:
        """The configuration's name of the host an execd names (host names compare as
        gridd.model.host_names says), or that name for a host it has none of."""
        return find_host(name, self.s.config.exechosts) or name

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
        current = self.host_state(name)
        state = host_lifecycle.after(current, event)
        if state is None or state == current:
            return
        if state == host_lifecycle.UP:
            self.host_up.add(name)
            self.unknown_since.pop(name, None)
            fx.notices.append((logging.INFO, f"execution host {name} is up"))
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

    def _reconcile(self, host: str, running: set[tuple[int, int]], now: float, fx: Effects,
                   key_of: KeyOf, resend_all: bool) -> None:
        """Make what the master believes runs on ``host`` agree with what execd says
        (`running`), both ways. The tasks that hold slots are those in self.running (a
        load report must not walk every pending task of the cell). A task found running
        answers its waiting qrsh (`key_of`: a host's public key)."""
        for key in list(self.running):
            job = self.s.jobs.get(key[0])
            task = job.tasks.get(key[1]) if job is not None else None
            if job is None or task is None or task.host != host or task.state not in ACTIVE:
                continue
            if key in running:
                if task.move(STARTED):  # from TRANSFERRING
                    fx.dirty_tasks.add(key)
                    self.answer_started(job, task, fx, key_of)
                if task.state == DELETING:
                    fx.to_execd.append((host, p.KillTask(job_id=key[0], task_id=key[1])))
                elif resend_all and task.stopped:
                    fx.to_execd.append((host, p.SuspendTask(job_id=key[0], task_id=key[1],
                                                            suspend=True)))
            elif task.state == TRANSFERRING and (resend_all or now - task.start_time > 10):
                fx.to_execd.append((host, self.start_message(job, task)))
            elif task.state in (RUNNING, DELETING) and resend_all:
                # execd neither runs it nor has a report: it was lost with the host.
                self.task_finished(_lost(job, task, now), now, fx)
        stale = {key for key in running if not self._placed(*key, host)}
        for job_id, task_id in sorted(stale):
            fx.to_execd.append((host, p.KillTask(job_id=job_id, task_id=task_id,
                                                 reason="not running here")))
        was = self.draining.pop(host, set())
        if stale:
            self.draining[host] = stale
        for job_id in sorted({job_id for job_id, _ in stale ^ was}):
            job = self.s.jobs.get(job_id)
            if job is not None:  # the scheduler learns which of its tasks may start
                fx.sched.append(self.sched_job(job) or no_pending(job))

    def _placed(self, job_id: int, task_id: int, host: str) -> bool:
        """Whether the master places a run of the task on `host`: one its execd runs
        otherwise was rescheduled or deleted while the host was cut off."""
        job = self.s.jobs.get(job_id)
        task = job.tasks.get(task_id) if job is not None else None
        return task is not None and task.state in ACTIVE and (
            task.host == host or any(split_instance(qi)[1] == host for qi, _ in task.granted))

    def tick(self, now: float, fx: Effects) -> None:
        """What time alone changes: advance reservations starting and ending."""
        ars.tick(self, now, fx)

    def max_unheard(self) -> float:
        """max_unheard in seconds, as the global configuration says it now (qconf -mconf
        changes it without a restart; a host's own configuration does not)."""
        return time_or(self.s.config.conf.max_unheard, host_lifecycle.MAX_UNHEARD)

    def reschedule_unknown(self, host: str) -> float:
        """reschedule_unknown in seconds for a host: its own configuration's, or the
        global one's."""
        config = self.s.config
        text = config.host_confs.get(host, {}).get("reschedule_unknown",
                                                   config.conf.reschedule_unknown)
        return time_or(text, 0.0)

    def host_check_interval(self) -> float:
        """Seconds until the master looks at its hosts again (the actor's timer)."""
        return host_lifecycle.check_interval(self.max_unheard())

    def check_hosts(self, now: float, fx: Effects) -> None:
        """Hosts silent longer than max_unheard are up no more; the rerunnable jobs of
        those unknown for reschedule_unknown are rescheduled."""
        max_unheard = self.max_unheard()
        for name in sorted(self.host_up):
            host = self.s.hosts[name]
            if host_lifecycle.timed_out(host, max_unheard, now):
                self._move_host(name, host_lifecycle.TIMEOUT, fx)
                self.unknown_since[name] = host.last_report + max_unheard
                fx.notices.append((logging.WARNING, f"execution host {name} not heard from "
                                   f"for {max_unheard:g} s (max_unheard): it is unknown"))
        for name in self.unknown_since.keys() - self.s.hosts.keys():
            del self.unknown_since[name]  # gone with qconf -de
        for name in self.s.hosts.keys() - self.host_up - self.unknown_since.keys():
            self.unknown_since[name] = now + max_unheard  # as if heard from at the start
        due = {name for name, since in self.unknown_since.items()
               if host_lifecycle.reschedule_due(since, self.reschedule_unknown(name), now)}
        if not due:
            return
        params = self.s.config.conf.qmaster_params
        end_others = master_params.enabled(params, master_params.RESCHEDULE_KILL)
        slaves_too = master_params.enabled(params, master_params.RESCHEDULE_SLAVE)
        for job_id, task_id in list(self.running):
            job = self.s.jobs.get(job_id)
            task = job.tasks.get(task_id) if job is not None else None
            if job is None or task is None or task.state not in (TRANSFERRING, RUNNING) \
                    or task.rescheduling:
                continue
            hosts = {task.host}
            if slaves_too:
                hosts.update(split_instance(qi)[1] for qi, _ in task.granted)
            if not hosts & due:
                continue
            again = rerunnable(self, job, task)
            if again or end_others:
                self._give_up(job, task, now, fx, again)
        self.lose_pe_tasks(due, now, fx)

    def _give_up(self, job: Job, task: Task, now: float, fx: Effects, again: bool) -> None:
        """End a run on a host unknown for reschedule_unknown without waiting for its
        execd, which is told to kill it should it hear: as qmod -r ends one if it may run
        `again` (accounted as rescheduled, failed 25; the task waits again once that is
        confirmed), else (ENABLE_RESCHEDULE_KILL) as lost by its host."""
        host = task.host
        task.rescheduling = again
        fx.to_execd.append((host, p.KillTask(job_id=job.job_id, task_id=task.task_id,
                                             reason="rescheduled" if again else "")))
        fx.notices.append((logging.WARNING, f"job {job.job_id}.{task.task_id} "
                           f"{'rescheduled' if again else 'ended'}: its host {host} has "
                           "been unknown for reschedule_unknown"))
        report = _lost(job, task, now)
        if again:
            report.exit_status, report.failed = 0, FAILED_RESCHEDULED
            report.failed_reason = "rescheduling"
        self._end_run(report, now, fx, by="master")
        task.given_up = now  # after: the report of the run given up is one of those

    def task_started(self, req: p.TaskStarted, now: float, fx: Effects,
                     key_of: KeyOf = no_key) -> None:
        """A task runs (or a PE task of it): its qrsh, if waiting, learns where its
        session is (`key_of`: a host's public key, which the actor reads)."""
        if req.pe_task:
            self.pe_task_started(req, fx, key_of)
            return
        job = self.s.jobs.get(req.job_id)
        task = job.tasks.get(req.task_id) if job else None
        if task is None or not task.move(STARTED):
            return
        task.start_time = req.start_time
        fx.dirty_tasks.add((req.job_id, req.task_id))
        reporting.job_log(self, job, task.task_id, now, fx, "delivered", "r", "master",
                          task.host, "job received by execd")
        self.answer_started(job, task, fx, key_of)

    def task_finished(self, report: p.TaskReport, now: float, fx: Effects) -> None:
        """Record the end of a task once, whatever number of times execd reports it."""
        if report.pe_task:
            self.pe_task_finished(report, now, fx)
            return
        fx.to_execd.append((report.host, p.Ack(job_id=report.job_id, task_id=report.task_id)))
        self._end_run(report, now, fx, by="execution daemon")

    def _end_run(self, report: p.TaskReport, now: float, fx: Effects, by: str) -> None:
        """The end of the task's current run, if `report` is of it: not of a run on
        another host, nor of one the master gave up before (started before given_up)."""
        job = self.s.jobs.get(report.job_id)
        task = job.tasks.get(report.task_id) if job else None
        if job is None or task is None or task.host != report.host \
                or 0 < report.start_time < task.given_up:
            return
        end = finish_event(task, report.failed, not job.spec.no_error_state)
        if not allows(task.state, end):
            return
        self._release(job, task, fx)
        task.move(end)
        self.fail_started(job, task, fx, reason=report.failed_reason)
        # A job in error state never ran: qacct prints its start as -/-, as 8.1.9 does.
        task.start_time = report.start_time if task.state == ERROR else (
            report.start_time or task.start_time)
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
        if task.state == DONE:
            self.task_ends.over(job, task, fx, deleted=False)
        if task.state == RESCHEDULED:
            task.failed, task.failed_reason = FAILED_RESCHEDULED, "rescheduling"
            reporting.job_log(self, job, task.task_id, now, fx, "finished", "r", by,
                              task.host, "job rescheduled")
            return
        if task.state == ERROR:  # its run accounted; qstat -j shows why, qmod -cj clears it
            reporting.consumables(self, task.host, now, fx)
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
        if account and self.pe_tasks_over(job, task, fx):  # else once they have ended
            self.to_outbox(job, task, fx)
        # a finished task may release dependants
        for other_id in sorted(self.dependants - {job.job_id}):
            other = self.s.jobs.get(other_id)
            sj = self.sched_job(other) if other else None
            if sj:
                fx.sched.append(sj)

    def to_outbox(self, job: Job, task: Task, fx: Effects) -> int:
        """Put a record of the task (its own, or one of its PE tasks') in the durable
        outbox, to be accounted: its sequence number."""
        seq = self.s.next_seq
        self.s.next_seq += 1
        fx.counters_changed = True
        self.s.outbox[seq] = (job.job_id, task.task_id)
        self.unaccounted[job.job_id] = self.unaccounted.get(job.job_id, 0) + 1
        fx.outbox.append((seq, job.job_id, task.task_id))
        return seq

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
            fx.replies.append((ident, p.JobExited(**exited_fields(exited), rid=rid)))
        self._answer_now(job.job_id, False, fx)
        if self.started_waiters:
            for task in job.tasks.values():
                self.fail_started(job, task, fx, unschedulable=not task.start_time)
        self.dependants.discard(job.job_id)
        self._drop_if_settled(job.job_id, fx)

    def _drop_if_settled(self, job_id: int, fx: Effects) -> None:
        """A job leaves the state once every task is done and accounted, its PE tasks
        included."""
        job = self.s.jobs.get(job_id)
        if job is None or self.unaccounted.get(job_id) or any(
                pe_tasks.running(task) for task in job.tasks.values() if task.pe_tasks):
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
            if self.pe_task_of(seq, job_id, entry[1]) is None:  # the task's own record
                self._after_rescheduled_run(job_id, entry[1], fx)
                self._after_failed_run(job_id, entry[1], fx)
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
            self.task_ends.over(job, task, fx, deleted=True)
            self._maybe_forget(job, fx, deleted=True)
            return
        fresh = Task(task_id=task_id, state=task.state, rerun=True, holds=task.holds,
                     given_up=task.given_up,  # in place: all_done keeps the objects
                     pe_tasks=pe_tasks.with_records(task))
        for name in Task.__struct_fields__:
            setattr(task, name, getattr(fresh, name))
        fx.sched.append(self.sched_job(job) or no_pending(job))

    def _after_failed_run(self, job_id: int, task_id: int, fx: Effects) -> None:
        """A run that put its task in error state is accounted: the task, if qmod -cj
        cleared it meanwhile, may be scheduled now (see Master._failed_run_unaccounted)."""
        job = self.s.jobs.get(job_id)
        task = job.tasks.get(task_id) if job is not None else None
        if (job is not None and task is not None and task.state == PENDING
                and task.failed in JOB_ERRORS):
            self.announce(job, fx)

    def pending_accounting(self) -> list[p.AccountTask | p.ReportRecord]:
        out: list[p.AccountTask | p.ReportRecord] = [
            p.ReportRecord(seq=seq, record=record)
            for seq, record in sorted(self.s.reports.items())]
        for seq, (job_id, task_id) in sorted(self.s.outbox.items()):
            job = self.s.jobs.get(job_id)
            if job and task_id in job.tasks:
                out.append(self.account_task(seq, job, job.tasks[task_id]))
        return out

    def account_task(self, seq: int, job: Job, task: Task) -> p.AccountTask:
        """The accounting actor's message for an outbox entry of the task: its own record
        or one of its PE tasks'."""
        pe = self.pe_task_of(seq, job.job_id, task.task_id)
        return p.AccountTask(seq=seq, job=job, task=task,
                             pe_task=pe.pe_task_id if pe is not None else "")

    def pe_task_of(self, seq: int, job_id: int, task_id: int) -> PeTask | None:
        """The PE task whose record an outbox entry is; None for the task's own."""
        job = self.s.jobs.get(job_id)
        task = job.tasks.get(task_id) if job is not None else None
        if task is None or not task.pe_tasks:
            return None
        return next((pe for pe in task.pe_tasks.values() if pe.seq == seq), None)


def _lost(job: Job, task: Task, now: float) -> p.TaskReport:
    """The end of a run its host lost (its execd registered without it, or the master
    gave it up on a host unknown for reschedule_unknown), as 8.1.9 accounts it."""
    return p.TaskReport(job_id=job.job_id, task_id=task.task_id, host=task.host,
                        start_time=task.start_time, end_time=now, exit_status=137,
                        failed=100, failed_reason="lost by execution host")

"""Interactive jobs and tight integration: qrsh's and qlogin's wait for their task to run,
and the PE tasks qrsh -inherit starts in a running parallel job (checked, started on a
host of the job, answered once running, ended, killed with the job, accounted).

qrsh opens a task's session at its execd: the answer says where (the session endpoint
the host registered with, kept here, not spooled: execds register again after a master
restart) and with which CURVE key (the host's, which the actor reads: `key_of`).

A parallel task's record waits for its PE tasks: when it ends, those still running are
killed, and it is accounted once the last has ended, so that a summary
(accounting_summary TRUE) holds their usage; with FALSE each PE task has a record of its
own (its own outbox entry, `PeTask.seq`).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Collection

import msgspec

from gridd import protocol as p
from gridd.master.state import Effects
from gridd.model import pe_tasks
from gridd.model.cluster import split_instance
from gridd.model.host_names import find_host
from gridd.model.job import Job, PeTask, Task
from gridd.model.task_lifecycle import ACTIVE, DONE, RUNNING
from gridd.model.values import parse_bool

KeyOf = Callable[[str], bytes]  # a host's CURVE public key (b"" without security)


def no_key(host: str) -> bytes:
    """The key of every host on a cell without security."""
    return b""


class Interactive:
    """Master's side of qrsh, qlogin and qrsh -inherit; its state is declared in
    gridd.master.core."""

    # ---- qrsh, qlogin: waiting for the task to run ----------------------------------

    def wait_started(self, ident: bytes, req: p.WaitStarted, key_of: KeyOf) -> p.Msg | None:
        """Where the task's session opens, at once if it runs, else once it does (None:
        answered later); an Error if it never will."""
        job = self.s.jobs.get(req.job_id)
        task = job.tasks.get(req.task_id) if job is not None else None
        if job is None or task is None:
            done = self.s.finished.get(req.job_id)
            if done is not None:  # deleted before it ran, by -now y or qdel, or ended
                return p.Error(text=_never_started(
                    req.job_id, self._kind(self.zombies.get(req.job_id)), done.deleted))
            return p.Error(text=f'denied: job "{req.job_id}" does not exist')
        if task.state == RUNNING:
            return self._started(job, task, key_of)
        if task.state == DONE:
            return p.Error(text=_never_started(job.job_id, self._kind(job),
                                               not task.start_time))
        self.started_waiters.setdefault((job.job_id, task.task_id), []).append(
            (ident, req.rid))
        return None

    def _kind(self, job: Job | None) -> str:
        return (job.spec.interactive if job is not None else "") or "qrsh"

    def _started(self, job: Job, task: Task, key_of: KeyOf, pe_task: str = "",
                 host: str = "") -> p.Msg:
        host = host or task.host
        endpoint = self.session_endpoints.get(host, "")
        if not endpoint:
            return p.Error(text=f'error: execution host "{host}" has no session socket: '
                                f"job {job.job_id} cannot be reached")
        return p.Started(job_id=job.job_id, task_id=task.task_id, host=host,
                         endpoint=endpoint, server_key=key_of(host), pe_task=pe_task)

    def answer_started(self, job: Job, task: Task, fx: Effects, key_of: KeyOf) -> None:
        """The task runs now: tell its qrsh where its session is."""
        for ident, rid in self.started_waiters.pop((job.job_id, task.task_id), []):
            answer = self._started(job, task, key_of)
            answer.rid = rid
            fx.replies.append((ident, answer))

    def fail_started(self, job: Job, task: Task, fx: Effects, unschedulable: bool = False,
                     reason: str = "") -> None:
        """The task will not run for its waiting qrsh: -now y found no place, it ended or
        was deleted first."""
        waiters = self.started_waiters.pop((job.job_id, task.task_id), [])
        text = (f"error: job {job.job_id} could not start: {reason}" if reason
                else _never_started(job.job_id, self._kind(job), unschedulable))
        for ident, rid in waiters:
            fx.replies.append((ident, p.Error(text=text, rid=rid)))

    # ---- qrsh -inherit: PE tasks ---------------------------------------------------

    def start_pe_task(self, ident: bytes, req: p.StartPeTask, now: float, fx: Effects
                      ) -> p.Msg | None:
        """Start a task of a running parallel job on one of its hosts; answered with
        Started once its execd says it runs (None now), or refused with an Error."""
        job = self.s.jobs.get(req.job_id)
        task = job.tasks.get(req.task_id) if job is not None else None
        failed = f"error: executing task of job {req.job_id} failed: "
        if job is None or task is None:
            return p.Error(text=f'{failed}job "{req.job_id}" does not exist')
        if not req.command or not req.command[0]:
            return p.Error(text=f"{failed}no command to run")
        if req.user and req.user != job.spec.owner:
            return p.Error(text=f"{failed}{req.user} does not own job {job.job_id}")
        if task.state != RUNNING:
            return p.Error(text=f"{failed}job {job.job_id} is not running")
        granted = {split_instance(qi)[1] for qi, _ in task.granted}
        host = find_host(req.host, granted)
        if host is None:
            if find_host(req.host, self.s.config.exechosts) is None:
                return p.Error(text=f"{failed}failed sending task to execd@{req.host}: "
                                    "can't resolve host name")
            return self._not_accepted(job, req.host, failed, "is not a host of the job", fx)
        pe = self.s.config.pes.get(task.pe)
        if pe is None or not parse_bool(pe.control_slaves):
            return self._not_accepted(job, host, failed, f"PE {task.pe} has control_slaves "
                                      "FALSE", fx)
        if pe_tasks.free_slots(task, host, parse_bool(pe.job_is_first_task)) <= 0:
            return self._not_accepted(job, host, failed, "no free slot of the job", fx)
        if host not in self.host_up:
            return p.Error(text=f"{failed}failed sending task to execd@{host}: can't find "
                                "connection")
        if not self.session_endpoints.get(host):
            return p.Error(text=f'{failed}execution host "{host}" has no session socket')
        pe_task_id = pe_tasks.next_id(task, host)
        queue = pe_tasks.granted_on(task, host)[0]
        task.pe_tasks[pe_task_id] = PeTask(pe_task_id=pe_task_id, host=host,
                                           command=req.command, queue=queue, requested=now)
        fx.dirty_tasks.add((job.job_id, task.task_id))
        start = msgspec.structs.replace(
            self.start_message(job, task), queue=queue, pe_task=pe_task_id,
            command=req.command, env=req.env, cwd=req.cwd, session_key=req.session_key,
            nostdin=req.nostdin, pty=False)
        fx.to_execd.append((host, start))
        self.pe_waiters[(job.job_id, task.task_id, pe_task_id)] = (ident, req.rid)
        return None

    def _not_accepted(self, job: Job, host: str, failed: str, why: str,
                      fx: Effects) -> p.Error:
        """8.1.9's refusal of a PE task by the host's execd, which says no more; why is
        logged."""
        fx.notices.append((logging.INFO, f"refused a task of job {job.job_id} on {host}: "
                                         f"{why}"))
        return p.Error(text=f'{failed}execution daemon on host "{host}" didn\'t accept task')

    def _live_pe_task(self, job_id: int, task_id: int, pe_task_id: str, host: str
                      ) -> tuple[Job, Task, PeTask] | None:
        """The PE task an execd on `host` speaks of, if the master knows it there and it
        has not ended."""
        job = self.s.jobs.get(job_id)
        task = job.tasks.get(task_id) if job is not None else None
        pe = task.pe_tasks.get(pe_task_id) if task is not None else None
        if job is None or task is None or pe is None or pe.done or pe.host != host:
            return None
        return job, task, pe

    def pe_task_started(self, req: p.TaskStarted, fx: Effects, key_of: KeyOf) -> None:
        found = self._live_pe_task(req.job_id, req.task_id, req.pe_task, req.host)
        if found is None:
            return
        job, task, pe = found
        pe.start_time = req.start_time
        fx.dirty_tasks.add((job.job_id, task.task_id))
        waiter = self.pe_waiters.pop((job.job_id, task.task_id, pe.pe_task_id), None)
        if waiter is not None:
            answer = self._started(job, task, key_of, pe.pe_task_id, pe.host)
            answer.rid = waiter[1]
            fx.replies.append((waiter[0], answer))

    def pe_task_finished(self, report: p.TaskReport, now: float, fx: Effects) -> None:
        """Record a PE task's end once, whatever number of times its execd reports it."""
        fx.to_execd.append((report.host, p.Ack(job_id=report.job_id, task_id=report.task_id,
                                               pe_task=report.pe_task)))
        found = self._live_pe_task(report.job_id, report.task_id, report.pe_task,
                                   report.host)
        if found is not None:
            self._end_pe_task(*found, report, now, fx)

    def _end_pe_task(self, job: Job, task: Task, pe: PeTask, report: p.TaskReport,
                     now: float, fx: Effects, settle: bool = True) -> None:
        """Record a PE task's end and account it; `settle`: account the task too if it
        ended and waited for this one."""
        pe.done = True
        pe.start_time = pe.start_time or report.start_time
        pe.end_time = report.end_time or now
        pe.exit_status, pe.failed, pe.usage = report.exit_status, report.failed, report.usage
        fx.dirty_tasks.add((job.job_id, task.task_id))
        waiter = self.pe_waiters.pop((job.job_id, task.task_id, pe.pe_task_id), None)
        if waiter is not None:  # it never ran
            why = report.failed_reason or "it ended before it started"
            fx.replies.append((waiter[0], p.Error(
                text=f"error: executing task of job {job.job_id} failed: {why}",
                rid=waiter[1])))
        conf = self.s.config.pes.get(task.pe)
        if conf is None or not parse_bool(conf.accounting_summary):
            pe.seq = self.to_outbox(job, task, fx)
        if settle and task.state not in ACTIVE and not pe_tasks.running(task):
            self.awaiting_pe_tasks.discard((job.job_id, task.task_id))
            self.to_outbox(job, task, fx)  # its own record waited for its PE tasks
            self._drop_if_settled(job.job_id, fx)

    def pe_tasks_over(self, job: Job, task: Task, fx: Effects) -> bool:
        """The task has ended: whether none of its PE tasks runs; those that do are
        killed (the task is accounted once they have ended)."""
        if not self.kill_pe_tasks(job, task, fx):
            return True
        self.awaiting_pe_tasks.add((job.job_id, task.task_id))
        return False

    def kill_pe_tasks(self, job: Job, task: Task, fx: Effects) -> list[PeTask]:
        """Tell the execds of the task's running PE tasks to kill them (qdel, the end of
        the task): those PE tasks."""
        left = pe_tasks.running(task)
        for pe in left:
            fx.to_execd.append((pe.host, p.KillTask(job_id=job.job_id, task_id=task.task_id,
                                                    pe_task=pe.pe_task_id)))
        return left

    def force_pe_tasks(self, job: Job, task: Task, now: float, fx: Effects) -> None:
        """qdel -f: the task's PE tasks are killed and done at once, killed or not, as
        the task is."""
        for pe in self.kill_pe_tasks(job, task, fx):
            self._end_pe_task(job, task, pe, p.TaskReport(
                job_id=job.job_id, task_id=task.task_id, host=pe.host,
                start_time=pe.start_time, end_time=now, exit_status=0, failed=100,
                pe_task=pe.pe_task_id), now, fx, settle=False)

    def reconcile_pe_tasks(self, host: str, running: set[tuple[int, int, str]], now: float,
                           fx: Effects, key_of: KeyOf) -> None:
        """An execd registers with the PE tasks it runs: those it does not run any more
        ended with its host (lost), those the master does not know of are killed, and
        one it runs whose start the master missed is started."""
        for job_id, task_id, pe_task_id in sorted(running):
            found = self._live_pe_task(job_id, task_id, pe_task_id, host)
            if found is None:
                fx.to_execd.append((host, p.KillTask(job_id=job_id, task_id=task_id,
                                                     pe_task=pe_task_id)))
            elif not found[2].start_time:
                self.pe_task_started(p.TaskStarted(host=host, job_id=job_id, task_id=task_id,
                                                   start_time=now, pe_task=pe_task_id),
                                     fx, key_of)
        self.lose_pe_tasks({host}, now, fx, keep=running)

    def lose_pe_tasks(self, hosts: set[str], now: float, fx: Effects,
                      keep: Collection[tuple[int, int, str]] = ()) -> None:
        """The PE tasks running on `hosts` (but those in `keep`) ended with their host:
        a registering execd no longer runs them, or the host has been unknown for
        reschedule_unknown."""
        for job, task in self._with_pe_tasks():
            for pe in pe_tasks.running(task):
                if pe.host in hosts and (job.job_id, task.task_id, pe.pe_task_id) not in keep:
                    self._end_pe_task(job, task, pe, _lost_pe(job, task, pe, now), now, fx)

    def _with_pe_tasks(self) -> list[tuple[Job, Task]]:
        """The tasks that may have PE tasks running: those holding slots, and those that
        ended and wait for theirs."""
        found = []
        for job_id, task_id in [*self.running, *self.awaiting_pe_tasks]:
            job = self.s.jobs.get(job_id)
            task = job.tasks.get(task_id) if job is not None else None
            if job is not None and task is not None and task.pe_tasks:
                found.append((job, task))
        return found


def _never_started(job_id: int, kind: str, unschedulable: bool) -> str:
    """Why a qrsh or qlogin waits no more: Grid Engine's words for -now y finding no
    place."""
    if unschedulable:
        return f'Your "{kind}" request could not be scheduled, try again later.'
    return f"error: job {job_id} ended before its session opened"


def _lost_pe(job: Job, task: Task, pe: PeTask, now: float) -> p.TaskReport:
    """The end of a PE task its host lost, as a master task's is accounted."""
    return p.TaskReport(job_id=job.job_id, task_id=task.task_id, host=pe.host,
                        start_time=pe.start_time, end_time=now, exit_status=137,
                        failed=100, failed_reason="lost by execution host",
                        pe_task=pe.pe_task_id)

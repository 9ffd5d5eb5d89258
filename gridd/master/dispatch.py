"""Dispatch: what the scheduler is given (sched_state), its orders checked and booked,
the start message a task goes to its execd with (its run time limits), and what a task
holds released when it ends.
"""

from __future__ import annotations

from gridd import protocol as p
from gridd.master import ars, reporting
from gridd.master.sched_input import no_pending, task_holding
from gridd.master.state import Effects
from gridd.model import rsmap
from gridd.model.cluster import split_instance
from gridd.model.job import Job, JobSpec, Task
from gridd.model.planning import Order
from gridd.model.task_lifecycle import DISPATCH, UNSCHEDULABLE, allows
from gridd.model.values import parse_time


class Dispatching:
    """Master's side of dispatching; its state is declared in gridd.master.core."""

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

    def capacity(self) -> dict[str, int]:
        return {qi.name: qi.slots for qi in self.plan.instances}

    def used(self) -> dict[str, int]:
        used: dict[str, int] = {}
        for task in self.running.values():
            for qi, n in task.granted:
                used[qi] = used.get(qi, 0) + n
        return used

    def dispatch(self, orders: p.Dispatch, now: float, fx: Effects) -> None:
        self._note_info(orders)
        capacity = self.capacity()
        used = self.used()
        for order in orders.orders:
            job = self.s.jobs.get(order.job_id)
            task = job.tasks.get(order.task_id) if job else None
            if job is None or task is None or not allows(task.state, DISPATCH):
                continue
            if self.still_running((order.job_id, order.task_id)) or not all(
                split_instance(qi)[1] in self.host_up
                and used.get(qi, 0) + n <= capacity.get(qi, 0)
                for qi, n in order.granted
            ) or order.resource_map and rsmap.overbooks(
                order.resource_map, (t.resource_map for t in self.running.values()),
                self.offered_ids):
                fx.sched.append(self.sched_job(job) or no_pending(job))
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
                    self.task_ends.over(job, task, fx, deleted=True)
                fx.dirty_jobs.add(job_id)
                self._answer_now(job_id, False, fx)
                self._maybe_forget(job, fx, deleted=True)

    def offered_ids(self, name: str, host: str) -> tuple[str, ...]:
        """The ids of an RSMAP a host (or "global") offers as configured now."""
        values = self.plan.global_values if host == rsmap.GLOBAL else self.plan.host_values.get(
            host, {})
        try:
            return rsmap.parse(name, values.get(name, "0()"))
        except ValueError:
            return ()

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

    def _start(self, job: Job, task: Task, order: Order, now: float, fx: Effects) -> None:
        self.sched_reserved.pop(job.job_id, None)  # what it waited for has come
        task.move(DISPATCH)
        task.granted = order.granted
        task.pe = order.pe
        task.resource_map = order.resource_map
        task.queue = order.granted[0][0]
        task.host = split_instance(task.queue)[1]
        task.start_time = now
        fx.dirty_tasks.add((job.job_id, task.task_id))
        fx.sched_removed.append((job.job_id, task.task_id))
        holding = self.running[(job.job_id, task.task_id)] = task_holding(job, task)
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
        h_rt = self.runtime_limit(spec) or 0.0
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
            session_key=spec.session_key, pty=spec.pty,  # an interactive job's session
        )

    def runtime_limit(self, spec: JobSpec) -> float | None:
        """The job's h_rt in seconds, None when it has none."""
        value = _seconds(spec.hard_resources.get("h_rt", ""))
        return value or None

    def _answer_now(self, job_id: int, started: bool, fx: Effects) -> None:
        for ident, rid in self.now_waiters.pop(job_id, []):
            fx.replies.append((ident, p.Scheduled(job_id=job_id, started=started, rid=rid)))


def _min_limit(a: float, b: float) -> float:
    if a and b:
        return min(a, b)
    return a or b


def _seconds(text: str) -> float | None:
    """Seconds of a TIME value, 0.0 for INFINITY and None when it is not a time."""
    try:
        value = parse_time(text)
    except ValueError:
        return None
    return 0.0 if value == float("inf") else value

"""How tasks ended, remembered for DRMAA's wait, and the waits held for tasks to end.

drmaa_wait asks for one task or any of a session's tasks, often long after it ended: the
master remembers the last ENDED_MEMORY tasks to end (not spooled, as the -sync answers
are not: a wait after a master restart for a task that ended before it finds nothing).
A held wait is answered by the first of its tasks to end.
"""

from __future__ import annotations

import msgspec

from gridd import protocol as p
from gridd.master.state import Effects
from gridd.model.job import Job, Task
from gridd.model.task_lifecycle import DONE

ENDED_MEMORY = 50_000

Key = tuple[int, int]  # (job, task)


def task_ended(job: Job, task: Task, deleted: bool) -> p.TaskEnded:
    return p.TaskEnded(
        job_id=job.job_id, task_id=task.task_id, exit_status=task.exit_status,
        signal=task.signal, failed=task.failed, ran=task.start_time > 0,
        deleted=deleted or task.delete_requested, submit_time=job.submit_time,
        start_time=task.start_time, end_time=task.end_time, priority=job.spec.priority,
        usage=task.usage)


class TaskEnds:
    def __init__(self) -> None:
        self.ended: dict[Key, p.TaskEnded] = {}
        # The waits held: one per connection (its rid and tasks), and by task, the
        # connections waiting for it. A connection's next WaitTasks replaces its held wait:
        # a wait that timed out at the client ends there, not when its tasks do.
        self.held: dict[bytes, tuple[int, tuple[Key, ...]]] = {}
        self.waiting: dict[Key, set[bytes]] = {}

    def wait(self, ident: bytes, msg: p.WaitTasks, jobs: dict[int, Job]) -> p.Msg | None:
        """The answer now, or None when the wait is held until one of its tasks ends."""
        self._drop(ident)
        keys = tuple(dict.fromkeys((int(j), int(t)) for j, t in msg.tasks))
        if not keys:
            return p.Error(text="no job to wait for")
        for key in keys:
            if key in self.ended:
                return _answer(self.ended[key], msg.rid)
            job = jobs.get(key[0])
            task = job.tasks.get(key[1]) if job is not None else None
            if task is None:
                shown = f"{key[0]}.{key[1]}" if key[1] else str(key[0])
                return p.Error(text=f'job "{shown}" does not exist')
            if task.state == DONE:  # ended before the master started: its end is not known
                return _answer(task_ended(job, task, deleted=False), msg.rid)
        if not msg.block:
            return p.NotEnded()
        self.held[ident] = (msg.rid, keys)
        for key in keys:
            self.waiting.setdefault(key, set()).add(ident)
        return None

    def over(self, job: Job, task: Task, fx: Effects, deleted: bool) -> None:
        """`task` has ended: remember how, and answer the waits held for it."""
        ended = task_ended(job, task, deleted)
        key = (job.job_id, task.task_id)
        self.ended[key] = ended
        while len(self.ended) > ENDED_MEMORY:
            self.ended.pop(next(iter(self.ended)))
        for ident in sorted(self.waiting.get(key, ())):
            rid = self.held[ident][0]
            self._drop(ident)
            fx.replies.append((ident, _answer(ended, rid)))

    def _drop(self, ident: bytes) -> None:
        """Forget the wait the connection holds, if any."""
        rid_keys = self.held.pop(ident, None)
        if rid_keys is None:
            return
        for key in rid_keys[1]:
            idents = self.waiting.get(key)
            if idents is not None:
                idents.discard(ident)
                if not idents:
                    del self.waiting[key]


def _answer(ended: p.TaskEnded, rid: int) -> p.TaskEnded:
    return msgspec.structs.replace(ended, rid=rid)

"""Which spooled objects a burst of requests changed, so that only those are written.

The master's core says which jobs, tasks, hosts and ARs it touched and whether the
configuration changed; the tracker narrows that to the objects whose content differs from
what was last spooled: of a touched job, the header and the tasks that changed (a task
starting in a 10,000-task array writes one task, not the array); of a touched task, that
task alone (nor are the others compared); of a changed configuration, the qconf objects
that differ. It compares msgpack encodings (of the configuration, which is small, kept
whole; of jobs, as 16-byte digests).
"""

from __future__ import annotations

import hashlib

import msgspec

from gridd.master.state import Effects, MasterState
from gridd.model.job import Job
from gridd.model.report import ConfigRecord
from gridd.spool.base import Transaction
from gridd.spool.records import CELL, COUNTERS, config_records, header, task_key

_encode = msgspec.msgpack.Encoder().encode
_json = msgspec.json.Encoder().encode


def _digest(obj: object) -> bytes:
    return hashlib.blake2b(_encode(obj), digest_size=16).digest()


class Tracker:
    """What the spool holds of the state, as far as telling changes apart needs. It
    counts what it put into a transaction as spooled: when a commit fails, the master
    reads its state back from the spool and starts a new tracker."""

    def __init__(self, state: MasterState | None) -> None:
        """`state` as read back from the spool; None when nothing is spooled yet (then
        even the configuration's defaults are new)."""
        self._config: dict[tuple[str, str], bytes] = {}
        # job -> digest of its header, and per task its digest
        self._jobs: dict[int, tuple[bytes, dict[int, bytes]]] = {}
        if state is not None:
            self._config = {(kind, key): _encode(obj)
                            for kind, key, obj in config_records(state.config)}
            self._jobs = {job_id: self._job_digests(job) for job_id, job in state.jobs.items()}

    @staticmethod
    def _job_digests(job: Job) -> tuple[bytes, dict[int, bytes]]:
        # The header's encoding without copying the job: a restart does this for each job.
        tasks, job.tasks = job.tasks, {}
        try:
            head = _digest(job)
        finally:
            job.tasks = tasks
        return head, {tid: _digest(task) for tid, task in tasks.items()}

    def fill(self, tx: Transaction, state: MasterState, fx: Effects, now: float) -> None:
        """Put into the transaction what the effects changed in the state; a changed
        configuration object also goes to the reporting outbox (its history)."""
        if fx.config_changed:
            self._configuration(tx, state, fx, now)
        for job_id in fx.dirty_jobs:
            job = state.jobs.get(job_id)
            if job is not None:
                self._job(tx, job_id, job)
        for job_id, task_id in fx.dirty_tasks:
            job = state.jobs.get(job_id)
            if job is not None and job_id not in fx.dirty_jobs:
                self._task(tx, job_id, job, task_id)
        for job_id in fx.gone_jobs:
            if job_id in state.jobs:
                continue
            _, tasks = self._jobs.pop(job_id, (b"", {}))
            tx.delete_object("job", str(job_id))
            for task_id in tasks:
                tx.delete_object("task", task_key(job_id, task_id))
        for name in fx.dirty_hosts:
            if name in state.hosts:
                tx.spool_object("host", name, state.hosts[name])
        for ar_id in fx.dirty_ars:
            if ar_id in state.ars:
                tx.spool_object("ar", str(ar_id), state.ars[ar_id])
        for ar_id in fx.gone_ars:
            if ar_id not in state.ars:
                tx.delete_object("ar", str(ar_id))
        for seq, job_id, task_id in fx.outbox:
            tx.spool_object("outbox", str(seq), (job_id, task_id))
        for seq, record in fx.reports:
            tx.spool_object("report", str(seq), record)
        for seq in fx.outbox_done:
            tx.delete_object("outbox", str(seq))
            tx.delete_object("report", str(seq))
        if fx.flags_changed:
            tx.spool_object("flags", CELL, state.flags)
        if fx.counters_changed:
            for name in COUNTERS:
                tx.spool_object("counter", name, getattr(state, name))

    def _job(self, tx: Transaction, job_id: int, job: Job) -> None:
        old_header, old_tasks = self._jobs.get(job_id, (b"", {}))
        new_header, new_tasks = self._job_digests(job)
        if new_header != old_header:
            tx.spool_object("job", str(job_id), header(job))
        for task_id, digest in new_tasks.items():
            if old_tasks.get(task_id) != digest:
                tx.spool_object("task", task_key(job_id, task_id), job.tasks[task_id])
        for task_id in old_tasks.keys() - new_tasks.keys():
            tx.delete_object("task", task_key(job_id, task_id))
        self._jobs[job_id] = (new_header, new_tasks)

    def _task(self, tx: Transaction, job_id: int, job: Job, task_id: int) -> None:
        known = self._jobs.get(job_id)
        task = job.tasks.get(task_id)
        if known is None or task is None:  # not as the tracker knows the job: all of it
            self._job(tx, job_id, job)
            return
        digest = _digest(task)
        if known[1].get(task_id) != digest:
            tx.spool_object("task", task_key(job_id, task_id), task)
            known[1][task_id] = digest

    def _configuration(self, tx: Transaction, state: MasterState, fx: Effects,
                       now: float) -> None:
        spooled: dict[tuple[str, str], bytes] = {}
        changed: list[tuple[str, str, object | None]] = []
        for kind, key, obj in config_records(state.config):
            body = spooled[(kind, key)] = _encode(obj)
            if self._config.get((kind, key)) != body:
                tx.spool_object(kind, key, obj)
                changed.append((kind, key, obj))
        for kind, key in sorted(self._config.keys() - spooled.keys()):
            tx.delete_object(kind, key)
            changed.append((kind, key, None))
        self._config = spooled
        for kind, key, obj in changed:
            if kind == "order":
                continue
            record = ConfigRecord(time=now, kind=kind, key=key, body=None if obj is None
                                  else _json(obj).decode())
            seq = state.next_seq
            state.next_seq += 1
            fx.counters_changed = True
            state.reports[seq] = record
            fx.reports.append((seq, record))

"""Reporting(5) records other than advance reservations', as the master makes them.

The master decides what is reported and when (the global configuration's
reporting_params); the accounting actor renders each record as one line of the
`reporting` file and feeds the database. A record carries copies of the few job fields
its line shows, not the job: the outbox keeps it until it is written, and by then the
job may have changed or left.
"""

from __future__ import annotations

import msgspec

from gridd.model.ar import ArRecord


class JobRecord(msgspec.Struct, kw_only=True, tag="job"):
    """new_job (at submission) or job_log (a step in a job's life)."""

    kind: str  # "new_job" or "job_log"
    time: float
    job_id: int
    task_id: int  # -1 for the whole job, as 8.1.9 writes for new jobs
    name: str
    owner: str
    group: str
    project: str
    department: str
    account: str
    priority: int  # as 8.1.9 records it: the -p value plus 1024
    submission_time: float
    event: str = ""  # job_log: pending, sent, delivered, finished, deleted, ...
    state: str = ""  # the state letter it went to (t, r, T, ...)
    user: str = ""  # who caused it: a user, "master", "execution daemon", "scheduler"
    host: str = ""
    message: str = ""


class QueueRecord(msgspec.Struct, kw_only=True, tag="queue"):
    """queue (a queue instance's state changed) or queue_consumable (its consumables)."""

    kind: str  # "queue" or "queue_consumable"
    time: float
    queue: str  # cluster queue
    host: str
    state: str = ""  # qmod state letters (d, s, ...), empty when none
    values: list[tuple[str, float, float]] = msgspec.field(default_factory=list)  # used, total


class HostRecord(msgspec.Struct, kw_only=True, tag="host"):
    """host (load values) or host_consumable; the host "global" holds the cell's."""

    kind: str  # "host" or "host_consumable"
    time: float
    host: str
    load: list[tuple[str, str]] = msgspec.field(default_factory=list)  # host: name, value
    values: list[tuple[str, float, float]] = msgspec.field(default_factory=list)  # used, total


class ConfigRecord(msgspec.Struct, kw_only=True, tag="config"):
    """A configuration object as a change left it: the configuration's history, which
    goes to the reporting database only (Grid Engine's reporting file has no such line)."""

    time: float
    kind: str  # its spool kind: queue, pe, userset, sched_conf, global_conf, ...
    key: str  # its name ("cell" for objects there is one of)
    body: str | None  # the object as JSON; None when it was deleted


# Everything the master's reporting outbox holds (ArRecord: advance reservations).
Report = ArRecord | JobRecord | QueueRecord | HostRecord | ConfigRecord

"""What the cell reports, as the global configuration's reporting_params say.

    accounting=true|false    finished jobs go to the accounting file
    reporting=true|false     records go to the reporting file (finished jobs among them)
    joblog=true|false        with reporting: every step of a job's life (job_log)
    flush_time=TIME          the longest a record waits for the database
    accounting_format=colon|json   the accounting file's form: 8.1.9's colon lines in
                             `accounting`, or one JSON object a line in `accounting.jsonl`
    old_accounting=true|false      Open Cluster Scheduler's word for the same choice
                             (true: colon); neither given: colon

(accounting_flush_time is accepted and bounds nothing: the actor writes the files as
soon as it has records, durably, before it confirms them.)

The database holds what the files hold: finished jobs once either file gets them, every
other record when reporting is on. Records enter the master's durable outbox (with the
spool commit of the change that caused them) and leave it only once the accounting
actor has them in the files and the database, so none is lost to a crash.
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING

from gridd import protocol as p
from gridd.model.job import Job
from gridd.model.report import HostRecord, JobRecord, QueueRecord, Report
from gridd.model.reporting_params import accounting_format
from gridd.model.values import time_or
from gridd.sched.levels import build_levels

if TYPE_CHECKING:
    from gridd.master.core import Master
    from gridd.master.state import Effects

PRIORITY_OFFSET = 1024  # 8.1.9 records a job's -p priority shifted into 0..2048
_DEFAULT = p.ReportingParams()


@functools.lru_cache(maxsize=8)
def params(text: str) -> p.ReportingParams:
    """Read reporting_params; unknown words and bad values keep their defaults (qconf
    checks what it accepts; a spooled configuration must never stop the master).
    What it returns is shared (cached): never changed."""
    words = dict(item.partition("=")[::2] for item in text.split())
    return p.ReportingParams(
        accounting=_true(words.get("accounting"), _DEFAULT.accounting),
        reporting=_true(words.get("reporting"), _DEFAULT.reporting),
        joblog=_true(words.get("joblog"), _DEFAULT.joblog),
        flush_time=_seconds(words.get("flush_time"), _DEFAULT.flush_time),
        accounting_format=_format(words),
    )


def _format(words: dict[str, str]) -> str:
    return accounting_format(words, lenient=True) or _DEFAULT.accounting_format


def _true(word: str | None, default: bool) -> bool:
    if word is None:
        return default
    return word.lower() in ("true", "1", "yes")


def _seconds(word: str | None, default: float) -> float:
    """A finite time of reporting_params, `default` for one missing, wrong or INFINITY."""
    value = time_or(word or "", default)
    return value if value != float("inf") else default


def of(m: Master) -> p.ReportingParams:
    return params(m.s.config.conf.reporting_params)


def report(m: Master, record: Report, fx: Effects) -> None:
    """Queue a record in the durable outbox when reporting is on."""
    if not of(m).reporting:
        return
    seq = m.s.next_seq
    m.s.next_seq += 1
    fx.counters_changed = True
    m.s.reports[seq] = record
    fx.reports.append((seq, record))


def job_logging(m: Master) -> bool:
    conf = of(m)
    return conf.reporting and conf.joblog


def new_job(m: Master, job: Job, now: float, fx: Effects) -> None:
    """new_job and its first job_log (pending), as 8.1.9 writes at submission."""
    if not job_logging(m):
        return
    report(m, _job_record(job, "new_job", now, -1), fx)
    job_log(m, job, -1, now, fx, "pending", "", job.spec.owner, job.spec.submit_host,
            "new job")


def job_log(m: Master, job: Job, task_id: int, now: float, fx: Effects, event: str,
            state: str, user: str, host: str, message: str) -> None:
    if not job_logging(m):
        return
    record = _job_record(job, "job_log", now, task_id)
    record.event, record.state, record.user, record.host = event, state, user, host
    record.message = message
    report(m, record, fx)


def _job_record(job: Job, kind: str, now: float, task_id: int) -> JobRecord:
    spec = job.spec
    return JobRecord(kind=kind, time=now, job_id=job.job_id, task_id=task_id,
                     name=spec.name, owner=spec.owner, group=spec.group,
                     project=spec.project, department=spec.department,
                     account=spec.account, priority=spec.priority + PRIORITY_OFFSET,
                     submission_time=job.submit_time)


def queue_state(m: Master, instance: str, state: str, now: float, fx: Effects) -> None:
    """A queue instance's qmod state letters changed."""
    queue, _, host = instance.partition("@")
    report(m, QueueRecord(kind="queue", time=now, queue=queue, host=host, state=state), fx)


def host_load(m: Master, host: str, load: dict[str, str], now: float, fx: Effects) -> None:
    """The load values a host reported that report_variables asks for (the host's own
    list, else the global host's)."""
    if not of(m).reporting:
        return
    wanted = _report_variables(m, host) or _report_variables(m, "global")
    values = [(name, load[name]) for name in wanted if name in load]
    if values:
        report(m, HostRecord(kind="host", time=now, host=host, load=values), fx)


def _report_variables(m: Master, host: str) -> list[str]:
    entry = m.s.config.exechosts.get(host)
    text = entry.report_variables if entry is not None else ""
    if not text or text.upper() == "NONE":
        return []
    return [name for name in text.replace(",", " ").split() if name]


def consumables(m: Master, host: str, now: float, fx: Effects) -> None:
    """host_consumable and queue_consumable records of the consumables report_variables
    names, for the global host, `host` and its queue instances, where they changed (a task
    started or ended there)."""
    if not of(m).reporting or not host:
        return
    wanted = {name: _report_variables(m, name) or _report_variables(m, "global")
              for name in ("global", host)}
    if not any(wanted.values()):
        return
    levels = build_levels(m.plan, m.loads(), m.running.values())
    found = [("global", "", levels.global_level, wanted["global"])]
    if host in levels.hosts:
        found.append((host, "", levels.hosts[host], wanted[host]))
        found += [(qi.host, qi.queue, levels.queues[qi.name], wanted[host])
                  for qi in m.plan.instances if qi.host == host and qi.name in levels.queues]
    for where, queue, level, names in found:
        values = [(name, level.capacity[name] - level.free.get(name, 0.0), level.capacity[name])
                  for name in names if name in level.capacity]
        key = f"{queue}@{where}"
        if not values or m.reported_consumables.get(key) == values:
            continue
        m.reported_consumables[key] = values
        if queue:
            record: Report = QueueRecord(kind="queue_consumable", time=now, queue=queue,
                                         host=where, state=m.s.flags.get(f"{queue}@{where}", ""),
                                         values=values)
        else:
            record = HostRecord(kind="host_consumable", time=now, host=where, values=values)
        report(m, record, fx)

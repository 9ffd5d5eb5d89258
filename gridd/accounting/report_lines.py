"""Reporting(5) lines of job, queue and host records, as Grid Engine 8.1.9 writes them.

    new_job           submission_time:job_number:task_number:pe_taskid:job_name:owner:
                      group:project:department:account:priority
    job_log           event_time:event:job_number:task_number:pe_taskid:state:user:host:
                      state_time:priority:submission_time:job_name:owner:group:project:
                      department:account:message
    queue             qname:hostname:time:state
    queue_consumable  qname:hostname:time:state:name=used=total,...
    host              hostname:time:X:name=value,...
    host_consumable   hostname:time:X:name=used=total,...

each after the record's time and type. 8.1.9 leaves the project empty when there is
none, writes NONE as the pe_taskid of a whole job and 0 as the state_time. User text is
made safe as in AR lines (ar_report.field_text).
"""

from __future__ import annotations

from gridd.accounting import ar_report
from gridd.model.ar import ArRecord
from gridd.model.report import HostRecord, JobRecord, QueueRecord, Report

t = ar_report.field_text


def line(record: Report) -> str:
    """The reporting-file line of any record the master reports, without its newline."""
    if isinstance(record, ArRecord):
        return ar_report.line(record)
    if isinstance(record, JobRecord):
        return _job(record)
    if isinstance(record, QueueRecord):
        return _queue(record)
    if isinstance(record, HostRecord):
        return _host(record)
    # a ConfigRecord: the reporting file has no such line (config_history.line is its
    # database line); refusing it keeps one that strayed here out of the file
    raise TypeError(f"{type(record).__name__} has no reporting-file line")


def _job(r: JobRecord) -> str:
    time = int(r.time)
    who = [t(r.name), t(r.owner), t(r.group), t(r.project), t(r.department), t(r.account)]
    if r.kind == "new_job":
        fields = [str(int(r.submission_time)), str(r.job_id), str(r.task_id), "NONE", *who,
                  str(r.priority)]
    elif r.kind == "job_log":
        fields = [str(time), t(r.event), str(r.job_id), str(r.task_id), "NONE", t(r.state),
                  t(r.user), t(r.host), "0", str(r.priority), str(int(r.submission_time)),
                  *who, t(r.message)]
    else:
        raise ValueError(f"unknown job record kind {r.kind!r}")
    return ":".join([str(time), r.kind, *fields])


def _consumables(values: list[tuple[str, float, float]]) -> str:
    return ",".join(f"{t(name)}={used:.6f}={total:.6f}" for name, used, total in values)


def _queue(r: QueueRecord) -> str:
    time = int(r.time)
    fields = [t(r.queue), t(r.host), str(time), t(r.state)]
    if r.kind == "queue_consumable":
        fields.append(_consumables(r.values))
    elif r.kind != "queue":
        raise ValueError(f"unknown queue record kind {r.kind!r}")
    return ":".join([str(time), r.kind, *fields])


def _host(r: HostRecord) -> str:
    time = int(r.time)
    if r.kind == "host":
        values = ",".join(f"{t(name)}={t(value)}" for name, value in r.load)
    elif r.kind == "host_consumable":
        values = _consumables(r.values)
    else:
        raise ValueError(f"unknown host record kind {r.kind!r}")
    return ":".join([str(time), r.kind, t(r.host), str(time), "X", values])

"""The accounting(5) record: one line per finished job or array task.

The field order and the textual form of every number follow what Grid Engine 8.1.9 writes,
so that existing accounting tools (and GE's own qacct) read gridd's file unchanged.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from gridd.accounting.record_fields import (  # noqa: F401  # the record's readers use them
    CATEGORY,
    FIELDS,
    PRE_62_COUNT,
    TIME_FIELDS,
    split,
    values,
)

if TYPE_CHECKING:  # readers of accounting files (qacct) need not load the job model
    from gridd.model.job import Job, PeTask, Task

# The first lines of every accounting file; readers skip lines starting with '#'.
FILE_HEADER = ("# Version: 8.1.9", "# ", "# DO NOT MODIFY THIS FILE MANUALLY!", "# ")

# Complexes of type TIME in the default complex list: the category shows them in seconds.
_TIME_COMPLEXES = frozenset({"h_rt", "s_rt", "h_cpu", "s_cpu"})

_GIB = 1024.0**3


@dataclass(frozen=True)
class AccountingRecord:
    """One accounting line; attribute order and types are record_fields.FIELDS' and
    KINDS' (tests/unit/test_accounting_record.py holds them equal)."""

    qname: str
    hostname: str
    group: str
    owner: str
    job_name: str
    job_number: int
    account: str
    priority: int
    submission_time: int
    start_time: int
    end_time: int
    failed: int
    exit_status: int
    ru_wallclock: int
    ru_utime: float
    ru_stime: float
    ru_maxrss: float
    ru_ixrss: int
    ru_ismrss: int
    ru_idrss: int
    ru_isrss: int
    ru_minflt: int
    ru_majflt: int
    ru_nswap: int
    ru_inblock: float
    ru_oublock: int
    ru_msgsnd: int
    ru_msgrcv: int
    ru_nsignals: int
    ru_nvcsw: int
    ru_nivcsw: int
    project: str
    department: str
    granted_pe: str
    slots: int
    task_number: int
    cpu: float
    mem: float
    io: float
    category: str
    iow: float
    pe_taskid: str
    maxvmem: float
    arid: int
    ar_submission_time: int


def _time_seconds(text: str) -> str:
    """Rewrite a `[[h:]m:]s` time as seconds, as GE's category shows h_rt=0:1:0 as 60."""
    parts = text.split(":")
    if len(parts) > 3 or not all(re.fullmatch(r"\d*", p) for p in parts):
        return text
    seconds = 0
    for part in parts:
        seconds = seconds * 60 + int(part or 0)
    return str(seconds)


def resource_request(name: str, value: str) -> str:
    """One `name=value` of a category's `-l` list as GE writes it (TIME values in seconds),
    so that a request can be compared with what the category holds."""
    return f"{name}={_time_seconds(value) if name in _TIME_COMPLEXES else value}"


def _resource_list(requests: dict[str, str]) -> str:
    return ",".join(resource_request(name, value) for name, value in requests.items())


def _pe_range(low: int, high: int) -> str:
    return str(low) if low == high else f"{low}-{high}"


def category(job: Job, *, user_in_category: bool = False) -> str:
    """The scheduler category text GE records: jobs alike in it are scheduled alike.

    `user_in_category` is set by the caller once resource quotas filter by user, because
    from then on GE makes the owner part of every category.
    """
    spec = job.spec
    parts: list[str] = []
    if user_in_category:
        parts.append(f"-u {spec.owner}")
    if spec.hard_queues:  # before -l, as 8.1.9 writes "-q all.q -l h_rt=100"
        parts.append(f"-q {','.join(spec.hard_queues)}")
    if spec.hard_resources:
        parts.append(f"-l {_resource_list(spec.hard_resources)}")
    if spec.pe_name:
        parts.append(f"-pe {spec.pe_name} {_pe_range(spec.pe_min, spec.pe_max)}")
    if spec.project:
        parts.append(f"-P {spec.project}")
    if spec.ar:
        parts.append(f"-ar {spec.ar}")
    if spec.immediate:
        parts.append("-I y")
    return " ".join(parts) or "NONE"


def record_for(job: Job, task: Task, *, user_in_category: bool = False,
               pe_task: str = "") -> AccountingRecord:
    """Build the line for a finished task, or with `pe_task` for that PE task of it (as
    8.1.9 writes one: the job's fields and slots, its PE task id, host, queue, times,
    usage and exit status). The task's own line sums the usage of the PE tasks that have
    no line of their own (accounting_summary TRUE)."""
    from gridd.model.pe_tasks import summed_usage

    if pe_task:
        return _pe_task_record(job, task, task.pe_tasks[pe_task], user_in_category)
    spec, usage = job.spec, summed_usage(task)
    slots = sum(n for _, n in task.granted) or spec.slots()
    return AccountingRecord(
        qname=task.queue.partition("@")[0],
        hostname=task.host or task.queue.partition("@")[2],
        group=spec.group,
        owner=spec.owner,
        job_name=spec.name,
        job_number=job.job_id,
        account=spec.account or "sge",
        priority=spec.priority,
        submission_time=int(job.submit_time),
        start_time=int(task.start_time),
        end_time=int(task.end_time),
        failed=task.failed,
        exit_status=task.exit_status,
        ru_wallclock=int(usage.wallclock),
        ru_utime=usage.utime,
        ru_stime=usage.stime,
        ru_maxrss=usage.maxrss,
        ru_ixrss=0,
        ru_ismrss=0,
        ru_idrss=0,
        ru_isrss=0,
        ru_minflt=usage.minflt,
        ru_majflt=usage.majflt,
        ru_nswap=0,
        ru_inblock=float(usage.inblock),
        ru_oublock=usage.oublock,
        ru_msgsnd=0,
        ru_msgrcv=0,
        ru_nsignals=0,
        ru_nvcsw=usage.nvcsw,
        ru_nivcsw=usage.nivcsw,
        project=spec.project or "NONE",
        department=spec.department or "defaultdepartment",
        granted_pe=task.pe or spec.pe_name or "NONE",
        slots=slots,
        task_number=task.task_id,
        cpu=usage.utime + usage.stime,
        mem=usage.mem,
        io=usage.io / _GIB,  # Usage counts bytes, the file counts GiB
        category=category(job, user_in_category=user_in_category),
        iow=0.0,
        pe_taskid="NONE",
        maxvmem=usage.maxvmem,
        arid=spec.ar,
        ar_submission_time=int(spec.ar_submission_time) if spec.ar else 0,
    )


def _pe_task_record(job: Job, task: Task, pe: PeTask,
                    user_in_category: bool) -> AccountingRecord:
    import msgspec

    own = msgspec.structs.replace(task, pe_tasks={}, usage=pe.usage, queue=pe.queue,
                                  host=pe.host, start_time=pe.start_time,
                                  end_time=pe.end_time, exit_status=pe.exit_status,
                                  failed=pe.failed)
    return replace(record_for(job, own, user_in_category=user_in_category),
                   submission_time=int(pe.requested), pe_taskid=pe.pe_task_id)


def _format(value: str | int | float) -> str:
    return f"{value:.6f}" if isinstance(value, float) else str(value)


def to_line(rec: AccountingRecord) -> str:
    """The file form; only the category may contain ':' (parse_line copes with that)."""
    return ":".join(_format(getattr(rec, name)) for name in FIELDS)


def acct_line(rec: AccountingRecord) -> str:
    """The reporting(5) line of an accounting record, stamped with its end time."""
    return f"{rec.end_time}:acct:{to_line(rec)}"


def parse_line(line: str) -> AccountingRecord | None:
    """Read one line; comments and blank lines give None, malformed ones raise ValueError."""
    line = line.rstrip("\r\n")
    if not line.strip() or line.startswith("#"):
        return None
    parts, count = split(line)
    return from_texts(parts[:count])


def from_texts(parts: list[str]) -> AccountingRecord:
    """The record of a line's field texts (a pre-6.2 line's are fewer: no AR);
    ValueError naming a field that is not of its type."""
    return AccountingRecord(*values(parts))

"""qacct -json: the records `qacct -j` prints and the summary or total it ends with, as
one JSON document (schemas/qacct.json), written a page of records at a time so that a
whole history stays small in memory.

qacct has no XML: keys are its text's labels (qname ... category), the summary's are its
column titles in lower case (host, cluster_queue, ..., wallclock, utime, ... iow). Times
are ISO 8601 (null for never), durations seconds, `undefined` is null; mem is GiB
seconds and io GiB as in the accounting file, maxvmem bytes, ru_maxrss as recorded.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import IO, TYPE_CHECKING, Any

from gridd.accounting.render import failed_reason
from gridd.cli.render_json import iso

if TYPE_CHECKING:
    from gridd.accounting.qacct_query import Key
    from gridd.accounting.record import AccountingRecord

_USAGE = ("wallclock", "utime", "stime", "cpu", "memory", "io", "iow")
_SAME = ("ru_wallclock", "ru_utime", "ru_stime", "ru_maxrss", "ru_ixrss", "ru_ismrss",
         "ru_idrss", "ru_isrss", "ru_minflt", "ru_majflt", "ru_nswap", "ru_inblock",
         "ru_oublock", "ru_msgsnd", "ru_msgrcv", "ru_nsignals", "ru_nvcsw", "ru_nivcsw",
         "cpu", "mem", "io", "iow", "maxvmem")


def _time(epoch: int) -> str | None:
    return iso(epoch) if epoch else None


def job_json(rec: AccountingRecord) -> dict[str, Any]:
    """One record as `qacct -j` shows it, typed."""
    out: dict[str, Any] = {
        "qname": rec.qname, "hostname": rec.hostname, "group": rec.group, "owner": rec.owner,
        "project": rec.project, "department": rec.department, "jobname": rec.job_name,
        "jobnumber": rec.job_number, "taskid": rec.task_number or None,
        "account": rec.account, "priority": rec.priority,
        "qsub_time": _time(rec.submission_time), "start_time": _time(rec.start_time),
        "end_time": _time(rec.end_time), "granted_pe": rec.granted_pe, "slots": rec.slots,
        "failed": rec.failed,
        "failed_reason": failed_reason(rec.failed)
        if rec.failed else None,
        "exit_status": rec.exit_status}
    out |= {name: getattr(rec, name) for name in _SAME}
    out |= {"arid": rec.arid or None,
            "ar_sub_time": _time(rec.ar_submission_time) if rec.arid else None,
            "category": rec.category}
    return out


def usage_json(row: Sequence[Any]) -> dict[str, Any]:
    """(wallclock, utime, stime, cpu, mem, io, iow) as the summary's columns."""
    return dict(zip(_USAGE, row, strict=True))


def key_name(key: Key) -> str:
    return key.title.lower().replace(" ", "_")


class JsonAnswer:
    """qacct's answer as one document: `records` may come a page at a time, then the
    summary or total; `close` ends it (and prints nothing when qacct found nothing of
    what -j asked for, as its text does)."""

    def __init__(self, out: IO[str], listing: bool) -> None:
        self._out = out
        self._parts = 0
        self._records = 0
        # whether a job list belongs in the document, empty or not (-j); _end_records
        # writes it once
        self._listing = listing

    def _member(self, name: str) -> None:
        self._out.write(("{\n" if not self._parts else ",\n") + f'  "{name}": ')
        self._parts += 1

    def records(self, records: list[AccountingRecord]) -> None:
        for rec in records:
            if not self._records:
                self._member("job")
                self._out.write("[")
            self._out.write(("\n" if not self._records else ",\n") + "    "
                            + json.dumps(job_json(rec), ensure_ascii=False))
            self._records += 1

    def _end_records(self) -> None:
        """Close the job list (once), or write an empty one where one belongs."""
        if self._records:
            self._out.write("\n  ]")
        elif self._listing:
            self._member("job")
            self._out.write("[]")
        self._listing = False
        self._records = 0

    def summary(self, keys: Sequence[Key], rows: Sequence[Sequence[Any]]) -> None:
        self._end_records()
        self._member("summary")
        self._out.write(json.dumps([
            {key_name(key): value for key, value in zip(keys, row, strict=False)}
            | usage_json(row[len(keys) + 1:]) for row in rows], ensure_ascii=False))

    def total(self, row: Sequence[Any]) -> None:
        """Plain qacct's line of figures; null when there is no record."""
        self._end_records()
        self._member("total")
        self._out.write(json.dumps(usage_json(row[1:]) if row[0] else None))

    def close(self, ok: bool) -> None:
        if not ok and not self._parts:
            return
        self._end_records()
        self._out.write("\n}\n")

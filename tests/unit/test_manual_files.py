"""The section 5 pages describe exactly what gridd's format code writes and reads: the
fields of its accounting, reporting and schedule lines, the attributes of its queue,
exec host and PE objects, the keywords of its resource quota sets."""

from __future__ import annotations

import pytest

from gridd.accounting import ar_report, record, record_fields, report_lines
from gridd.manual import build, roff
from gridd.manual.files import (
    accounting,
    host_conf,
    queue_conf,
    reporting,
    sge_pe,
    sge_resource_quota,
    sge_schedule,
)
from gridd.model import objects, rqs
from gridd.model.ar import AdvanceReservation, ArRecord, ArSpec
from gridd.model.report import HostRecord, JobRecord, QueueRecord
from gridd.sched.reserve import Booking, Use


def tags(items: tuple[tuple[str, str], ...]) -> list[str]:
    return [tag for tag, _ in items]


def test_accounting_describes_every_field_in_order() -> None:
    assert tags(accounting.FIELDS) == list(record.FIELDS)


@pytest.mark.parametrize("page, cls", [
    (queue_conf, objects.ClusterQueue), (host_conf, objects.ExecHostConf),
    (sge_pe, objects.ParallelEnvConf),
])
def test_object_pages_describe_every_attribute_in_order(page, cls) -> None:
    assert tags(page.ATTRIBUTES) == list(cls.__struct_fields__)


def test_resource_quota_keywords_and_filters() -> None:
    assert tags(sge_resource_quota.FILTERS) == list(rqs.FILTERS)
    set_keys = [f for f in rqs.RuleSet.__struct_fields__ if f != "rules"]
    assert sorted(tags(sge_resource_quota.KEYWORDS)) == sorted([*set_keys, "limit"])


def _sample_lines() -> dict[str, str]:
    """A line of every record type gridd writes to the reporting file."""
    job = dict(time=100.0, job_id=7, task_id=1, name="j", owner="o", group="g",
               project="p", department="d", account="a", priority=1024,
               submission_time=90.0)
    ar = AdvanceReservation(ar_id=3, spec=ArSpec(owner="o", group="g", duration=60),
                            submission_time=80.0, start=100.0, end=160.0)
    acct = record.AccountingRecord(*[0 if t is not str else "x"
                                     for t in record_fields.KINDS])
    records = [
        JobRecord(kind="new_job", **job), JobRecord(kind="job_log", **job, event="pending"),
        QueueRecord(kind="queue", time=100.0, queue="all.q", host="h"),
        QueueRecord(kind="queue_consumable", time=100.0, queue="all.q", host="h",
                    values=[("lic", 1.0, 2.0)]),
        HostRecord(kind="host", time=100.0, host="h", load=[("load_avg", "0.5")]),
        HostRecord(kind="host_consumable", time=100.0, host="h", values=[("lic", 1.0, 2.0)]),
        *(ArRecord(kind=kind, time=100.0, ar=ar) for kind in ar_report.KINDS),
    ]
    lines = [report_lines.line(r) for r in records] + [record.acct_line(acct)]
    return {line.split(":")[1]: line for line in lines}


def test_reporting_describes_every_record_type_and_its_fields() -> None:
    lines = _sample_lines()
    assert list(reporting.RECORDS) == sorted(lines, key=list(reporting.RECORDS).index)
    assert set(reporting.RECORDS) == set(lines)
    for kind, (fields, _) in reporting.RECORDS.items():
        assert len(lines[kind].split(":")) == 2 + len(fields), kind


def test_the_schedule_file_describes_every_field() -> None:
    booking = Booking(7, 1, "RUNNING", 100.0, 60.0, (Use("Q", "all.q@h", "slots", 1.0),))
    (line,) = booking.lines()
    assert len(line.split(":")) == len(sge_schedule.FIELDS) == 9


@pytest.mark.parametrize("name", build.FILES)
def test_every_file_page_renders(name: str) -> None:
    page = build.file_source(name)
    assert page.name == name
    text = roff.file_page(page, "1.0")
    assert text.startswith('.\\" Made by gridd.manual') and f".TH {name.upper()} 5 " in text
    for section in page.sections:
        for tag, described in section.items:
            assert described, (name, tag)
            assert f".TP\n\\fB{roff.escape(tag)}\\fR\n" in text

"""Job, queue and host records of the reporting file: the lines match what Grid Engine
8.1.9 wrote (tests/data/sge-8.1.9/reporting), and the master makes them exactly when
reporting_params ask for them."""

from __future__ import annotations

from pathlib import Path

import pytest

from gridd import protocol as p
from gridd.accounting.report_lines import line
from gridd.master import reporting
from gridd.master.state import Effects
from gridd.model.report import HostRecord, JobRecord, QueueRecord
from tests.unit.test_master_core import make_master, schedule, spec

REFERENCE = (Path(__file__).parent.parent / "data" / "sge-8.1.9" / "reporting").read_text()
T = 1795327215.0


def job_record(kind: str, **kw) -> JobRecord:
    base = dict(kind=kind, time=T, job_id=40, task_id=-1, name="sleep", owner="root",
                group="root", project="", department="defaultdepartment", account="sge",
                priority=1024, submission_time=T)
    base.update(kw)
    return JobRecord(**base)


@pytest.mark.parametrize("record", [
    job_record("new_job"),
    job_record("job_log", event="pending", user="root", host="vm", message="new job"),
    job_record("job_log", task_id=0, event="sent", state="t", user="master", host="vm",
               message="sent to execd"),
    QueueRecord(kind="queue", time=1795327374, queue="all.q", host="vm", state="d"),
    QueueRecord(kind="queue", time=1795327374, queue="all.q", host="vm"),
    QueueRecord(kind="queue_consumable", time=1795327375, queue="all.q", host="vm",
                values=[("slots", 3, 4)]),
    HostRecord(kind="host", time=1795327403, host="vm",
               load=[("np_load_avg", "4.383545"), ("mem_free", "23460.886719M")]),
    HostRecord(kind="host_consumable", time=1795327375, host="global",
               values=[("license", 5, 5)]),
])
def test_lines_are_those_8_1_9_wrote(record):
    assert line(record) in REFERENCE.splitlines()


def test_user_text_cannot_add_fields_or_lines():
    text = line(job_record("job_log", event="pending", message="a:b\nc", name="x:y"))
    assert "\n" not in text and len(text.split(":")) == 20


@pytest.mark.parametrize("text,expected", [
    ("accounting=true reporting=false flush_time=00:00:15 joblog=false sharelog=00:00:00",
     p.ReportingParams(accounting=True, reporting=False, joblog=False, flush_time=15.0)),
    ("accounting=false reporting=true joblog=true flush_time=5 accounting_flush_time=0",
     p.ReportingParams(accounting=False, reporting=True, joblog=True, flush_time=5.0)),
    ("reporting=TRUE flush_time=nonsense",
     p.ReportingParams(accounting=True, reporting=True, joblog=False, flush_time=15.0)),
    ("", p.ReportingParams()),
    ("accounting_format=JSON", p.ReportingParams(accounting_format="json")),
    ("old_accounting=false", p.ReportingParams(accounting_format="json")),
    ("old_accounting=TRUE accounting_format=colon", p.ReportingParams()),
    # spooled before qconf checked them: accounting_format's word counts, else the default
    ("accounting_format=json old_accounting=true", p.ReportingParams(accounting_format="json")),
    ("accounting_format=xml old_accounting=maybe", p.ReportingParams()),
])
def test_reporting_params(text, expected):
    assert reporting.params(text) == expected


def _kinds(fx: Effects) -> list[tuple[str, str]]:
    return [(r.kind, getattr(r, "event", "")) for _, r in fx.reports]


def test_a_jobs_life_in_job_log_records():
    master = make_master(hosts=1, slots=1)
    master.s.config.conf.reporting_params = "accounting=true reporting=true joblog=true"
    master.s.config.operators.append("alice")  # a positive priority takes an operator
    fx = Effects()
    job_id = master.submit(spec(priority=100), 10.0, fx).job_id
    assert _kinds(fx) == [("new_job", ""), ("job_log", "pending")]
    assert fx.reports[0][1].priority == 1124
    fx = schedule(master, 11.0)
    assert _kinds(fx) == [("job_log", "sent")]
    fx = Effects()
    master.task_started(p.TaskStarted(host="node1", job_id=job_id, task_id=0,
                                      start_time=11.5), 12.0, fx)
    assert _kinds(fx) == [("job_log", "delivered")]
    fx = Effects()
    master.task_finished(p.TaskReport(job_id=job_id, task_id=0, host="node1",
                                      start_time=11.5, end_time=20.0, exit_status=0), 20.0, fx)
    assert _kinds(fx) == [("job_log", "finished"), ("job_log", "finished"),
                          ("job_log", "deleted")]
    assert [r.user for _, r in fx.reports] == ["execution daemon", "master", "scheduler"]
    assert fx.outbox  # the acct record goes its own way
    assert {seq for seq, _ in fx.reports} <= set(master.s.reports)


def test_no_job_log_without_joblog_and_nothing_without_reporting():
    for params in ("accounting=true reporting=true joblog=false",
                   "accounting=true reporting=false joblog=true"):
        master = make_master(hosts=1, slots=1)
        master.s.config.conf.reporting_params = params
        fx = Effects()
        master.submit(spec(), 10.0, fx)
        assert not fx.reports and not master.s.reports


def test_queue_state_and_host_load_records():
    master = make_master(hosts=1, slots=1)
    master.s.config.conf.reporting_params = "reporting=true"
    fx = Effects()
    master.qmod(p.Qmod(action="d", targets=["all.q"], user="root", host="vm"), 5.0, fx)
    assert [(r.kind, r.queue, r.host, r.state) for _, r in fx.reports] == [
        ("queue", "all.q", "node1", "d")]
    fx = Effects()
    master.load_report(p.LoadReport(host="node1", load={"np_load_avg": "0.5"}), 6.0, fx)
    assert not fx.reports  # no report_variables configured
    master.s.config.exechosts["global"].report_variables = "np_load_avg,mem_free"
    master.load_report(p.LoadReport(host="node1", load={"np_load_avg": "0.5",
                                                        "arch": "lx-amd64"}), 7.0, fx)
    assert [(r.kind, r.host, r.load) for _, r in fx.reports] == [
        ("host", "node1", [("np_load_avg", "0.5")])]


def test_consumable_records_when_tasks_start_and_end():
    master = make_master(hosts=1, slots=2)
    master.s.config.conf.reporting_params = "reporting=true"
    master.s.config.exechosts["global"].report_variables = "slots"
    fx = Effects()
    job_id = master.submit(spec(), 10.0, fx).job_id
    fx = schedule(master, 11.0)
    assert [(r.kind, r.queue, r.host, r.values) for _, r in fx.reports] == [
        ("queue_consumable", "all.q", "node1", [("slots", 1.0, 2.0)])]
    assert line(fx.reports[0][1]) == "11:queue_consumable:all.q:node1:11::slots=1.000000=2.000000"
    fx = Effects()
    master.task_finished(p.TaskReport(job_id=job_id, task_id=0, host="node1",
                                      start_time=11.5, end_time=20.0, exit_status=0), 20.0, fx)
    assert [(r.kind, r.values) for _, r in fx.reports] == [
        ("queue_consumable", [("slots", 0.0, 2.0)])]

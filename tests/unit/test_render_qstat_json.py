"""qstat -json: the rows qstat -xml shows, typed, valid against schemas/qstat.json."""

from __future__ import annotations

from datetime import datetime

import pytest

from gridd.cli import render_qstat_json as rj
from gridd.cli.render_json import document
from gridd.formats.qstat_rows import Extra
from gridd.model.cluster import Resource
from gridd.model.task_lifecycle import HELD
from gridd.protocol import PriorityParts
from tests.json_schemas import check
from tests.unit.test_render_qstat import (
    T_RUN,
    T_SUB,
    pending_job,
    reply,
    running_job,
    spec,
)

pytestmark = pytest.mark.usefixtures("utc")

EVERY_EXTRA = [Extra(), Extra(pri=True), Extra(urg=True), Extra(ext=True),
               Extra(requests=True), Extra(slots_apart=True), Extra(tasks_apart=True),
               Extra(pri=True, urg=True, ext=True, requests=True, slots_apart=True)]


def _jobs():
    pe = running_job(3, spec("mpi", pe_name="mpi", pe_min=2, pe_max=2,
                             hard_resources={"h_rt": "0:1:0", "mem_free": "1G"},
                             soft_resources={"arch": "lx-amd64"}, hard_queues=["all.q"],
                             deadline=T_SUB + 3600, project="p1", department="d1"))
    pe.tasks[0].granted = [("all.q@vm", 2)]
    array = pending_job(4, spec("arr", array=(1, 5, 2), hold_jid=["3", "nomatch"]))
    held = pending_job(5, spec("held"), state=HELD)
    return [running_job(1, spec("sleep")), pe, array, held]


@pytest.mark.parametrize("extra", EVERY_EXTRA, ids=str)
@pytest.mark.parametrize("full", [False, True])
def test_every_view_is_valid_against_the_schema(extra, full):
    found = check("qstat", document(rj.qstat_json(reply(_jobs()), full=full, users=None,
                                                    extra=extra)))
    jobs = found["jobs_pending"]
    assert all(isinstance(j["job_number"], int) for j in jobs)


def test_plain_lists_running_then_pending_jobs():
    found = rj.qstat_json(reply(_jobs()), users=None)
    running = found["jobs_running"]
    assert [(j["job_number"], j["state"], j["queue_name"], j["slots"]) for j in running] \
        == [(1, "r", "all.q@vm", 1), (3, "r", "all.q@vm", 2)]
    assert running[0]["start_time"] == "2026-11-22T05:57:18.000Z"
    assert datetime.fromisoformat(running[0]["start_time"]).timestamp() == T_RUN
    pending = found["jobs_pending"]
    assert {j["job_number"] for j in pending} == {4, 5}
    array = next(j for j in pending if j["job_number"] == 4)
    assert array["tasks"] == "1-5:2" and array["state"] == "qw" and array["queue_name"] == ""
    assert datetime.fromisoformat(array["submission_time"]).timestamp() == T_SUB


def test_full_nests_jobs_in_their_queue_instances_with_numbers():
    found = rj.qstat_json(reply(_jobs(), load_avg="0.5"), full=True, users=None)
    queues = found["queues"]
    assert [q["name"] for q in queues] == ["all.q@vm", "short.q@vm", "long.q@vm"]
    first = queues[0]
    assert (first["slots_used"], first["slots_total"], first["load_avg"]) == (3, 4, 0.5)
    assert first["state"] == ""
    assert [j["job_number"] for j in first["jobs_running"]] == [1, 3]
    assert "queue_name" not in first["jobs_running"][0]
    assert "queue_name" not in found["jobs_pending"][0]


def test_requests_are_lists_and_times_in_seconds():
    found = rj.qstat_json(reply(_jobs()), users=None, extra=Extra(requests=True))
    pe = found["jobs_running"][1]
    assert pe["requested_pe"] == {"pe_name": "mpi", "pe_range": "2"}
    assert pe["granted_pe"] == {"pe_name": "mpi", "slots": 2}
    assert pe["global_hard_request"][0] == {"name": "h_rt", "value": "60",
                                            "resource_contribution": 0.0}
    assert pe["soft_request"] == [{"name": "arch", "value": "lx-amd64"}]
    assert pe["hard_req_queue"] == ["all.q"]
    array = next(j for j in found["jobs_pending"] if j["job_number"] == 4)
    assert array["predecessor_jobs_req"] == ["3", "nomatch"]
    assert array["predecessor_jobs"] == [3]


def test_priority_parts_are_numbers():
    parts = PriorityParts(0.5, 0.25, 0.0, 1000.0, 100.0, 900.0, 0.0, -10)
    found = rj.qstat_json(reply(_jobs(), parts={1: parts}), users=None,
                          extra=Extra(pri=True, urg=True))
    job = found["jobs_running"][0]
    assert (job["nurg"], job["nppri"], job["priority"], job["urg"]) == (0.5, 0.25, -10, 1000.0)
    assert job["rrcontr"] == 100.0


def test_resources_are_typed_and_infinity_stays_text():
    resources = {"all.q@vm": [Resource("hl", "mem_total", "MEMORY", "1G"),
                              Resource("qf", "h_rt", "TIME", "inf"),
                              Resource("hl", "arch", "RESTRING", "lx-amd64"),
                              Resource("hc", "slots", "INT", "4"),
                              Resource("hl", "is_gpu", "BOOL", "TRUE")]}
    found = rj.qstat_json(reply(_jobs(), instance_resources=resources), full=True, users=None)
    shown = found["queues"][0]["queue_resources"]
    assert shown == {"mem_total": 1 << 30, "h_rt": "infinity", "arch": "lx-amd64", "slots": 4,
                     "is_gpu": True}
    check("qstat", found)


def test_cluster_summary():
    found = check("qstat", rj.cluster_summary_json(reply(_jobs(), load_avg="1.0")))
    first = found["queues"][0]
    assert first["name"] == "all.q" and first["used"] == 3 and first["total"] == 4


def test_no_jobs_is_still_one_document():
    found = check("qstat", rj.qstat_json(reply([]), users=None))
    assert found == {"jobs_running": [], "jobs_pending": []}


def test_explain_reasons_and_finished_jobs():
    from gridd.model.task_lifecycle import ZOMBIE

    gone = pending_job(9, spec("gone"), state=ZOMBIE)
    alarms = {"all.q@vm": [("load", "alarm hl:np_load_avg=2 load-threshold=1"),
                           ("load", "alarm hl:mem_free=1M load-threshold=2M")]}
    found = check("qstat", rj.qstat_json(reply(_jobs(), alarms=alarms, finished=[gone]),
                                         full=True, users=None, states="z"))
    assert found["queues"][0]["load_alarm_reason"].splitlines()[1].startswith("alarm hl:mem")
    assert [j["job_number"] for j in found["jobs_finished_retained"]] == [9]

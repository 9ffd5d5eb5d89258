"""qhost -json: the hosts' values typed, with -q, -F and -j, valid against
schemas/qhost.json."""

from __future__ import annotations

import re

import pytest

from gridd.cli.render_json import document
from gridd.cli.render_qhost import HostSelection, qhost_default, qhost_xml
from gridd.cli.render_qhost_json import qhost_json
from gridd.model.cluster import ExecHost, Resource
from gridd.model.job import Job, JobSpec, Task
from gridd.model.task_lifecycle import RUNNING
from tests.json_schemas import check
from tests.unit.test_render_qhost import T_A, queues, vm

pytestmark = pytest.mark.usefixtures("utc")


def _job(job_id: int, granted: list[tuple[str, int]]) -> Job:
    spec = JobSpec(name="mpi", owner="alice", uid=1, group="g", gid=1, submit_host="vm",
                   o_home="/", o_path="/bin", o_shell="/bin/sh", o_workdir="/",
                   binary=True, command=["sleep", "1"])
    task = Task(task_id=0, state=RUNNING, start_time=T_A, queue=granted[0][0], host="vm",
                granted=granted)
    return Job(job_id=job_id, spec=spec, submit_time=T_A, tasks={0: task})


def test_values_are_typed_and_global_has_none():
    found = check("qhost", document(qhost_json([vm()])))
    glob, values = found["hosts"]
    assert glob["name"] == "global" and set(glob.values()) == {"global", None}
    assert values["arch_string"] == "lx-amd64" and values["num_proc"] == 2
    assert values["load_avg"] == pytest.approx(1.369141)
    assert values["mem_total"] == int(24105.558594 * 2**20) and values["swap_used"] == 0


def test_a_lost_host_keeps_its_static_values_only():
    lost = ExecHost(name="vm", load=vm().load, last_report=0)
    values = check("qhost", qhost_json([lost]))["hosts"][1]
    assert values["num_proc"] == 2 and values["load_avg"] is None
    assert values["mem_used"] is None and values["mem_total"] is not None


def test_memory_with_a_suffix_is_bytes_and_garbage_is_null():
    values = qhost_json([vm(mem_total="2G", num_proc="x")])["hosts"][1]
    assert values["mem_total"] == 2 << 30 and values["num_proc"] is None


def test_queues_resources_and_jobs():
    jobs = [_job(7, [("all.q@vm", 2), ("long.q@vm", 1)])]
    found = check("qhost", qhost_json(
        [vm()], queues(), jobs, show_queues=True, show_jobs=True, states={"long.q@vm": "d"},
        resources={"vm": [Resource("hl", "mem_total", "MEMORY", "1G"),
                          Resource("hl", "arch", "RESTRING", "lx-amd64")]}))
    host = found["hosts"][1]
    assert [(q["name"], q["slots_used"], q["slots"], q["state_string"])
            for q in host["queues"]] == [("all.q", 2, 4, ""), ("short.q", 0, 2, ""),
                                        ("long.q", 1, 3, "d")]
    assert host["resources"] == [
        {"name": "mem_total", "value": 1 << 30, "dominance": "hl"},
        {"name": "arch", "value": "lx-amd64", "dominance": "hl"}]
    assert [(j["id"], j["queue_name"], j["pe_master"], j["slots"])
            for j in host["jobs"]] == [(7, "all.q@vm", "MASTER", 2), (7, "long.q@vm", "SLAVE", 1)]
    assert host["jobs"][0]["start_time"] == "2026-11-22T06:11:43.000Z"
    assert found["hosts"][0]["resources"] == []


def test_selection_and_users():
    jobs = [_job(7, [("all.q@vm", 1)])]
    assert check("qhost", qhost_json([vm()], select=HostSelection(fitting=[]))) == {"hosts": []}
    found = qhost_json([vm()], queues(), jobs, show_jobs=True, users=["bob"],
                       select=HostSelection(names=["vm"]))
    assert [h["name"] for h in found["hosts"]] == ["global", "vm"]
    assert found["hosts"][1]["jobs"] == []


@pytest.mark.parametrize("select", [HostSelection(), HostSelection(names=["node2"]),
                                    HostSelection(fitting=["vm"]),
                                    HostSelection(names=["vm"], fitting=["node2"])], ids=str)
def test_the_three_forms_show_the_same_hosts(select):
    """One walk (render_qhost.walk) for the table, -xml and -json."""
    hosts = [vm(), ExecHost(name="node2")]
    table = qhost_default(hosts, select=select).splitlines()[2:]
    xml = re.findall(r"<host name='([^']+)'>", qhost_xml(hosts, select=select))
    shown = [h["name"] for h in qhost_json(hosts, select=select)["hosts"]]
    assert [line.split()[0] for line in table] == xml == shown


def test_users_leave_their_jobs_and_the_slots_they_use_in_the_table_and_json():
    jobs = [_job(7, [("all.q@vm", 2)])]
    for users, used in ((None, 2), (["alice"], 2), (["bob"], 0)):
        table = qhost_default([vm()], queues(), jobs, show_queues=True, users=users)
        assert f"0/{used}/" in table.splitlines()[4]
        found = qhost_json([vm()], queues(), jobs, show_queues=True, users=users)
        assert found["hosts"][1]["queues"][0]["slots_used"] == used

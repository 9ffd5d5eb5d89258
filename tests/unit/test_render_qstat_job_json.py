"""qstat -j -json: what qstat -j shows of each job, typed, valid against
schemas/qstat-job.json; references naming no job said as the text says them."""

from __future__ import annotations

from datetime import datetime

from gridd.cli.render_qstat import qstat_job
from gridd.cli.render_qstat_job_json import qstat_job_json
from gridd.model.job import Task, Usage
from gridd.model.task_lifecycle import ERROR, HELD, RUNNING
from tests.json_schemas import check
from tests.unit.test_render_qstat import T_RUN, T_SUB, pending_job, reply, running_job, spec


def _scene():
    """A running job, a parallel one over two hosts, a held array with a task running and
    one failed, and a job waiting for the first, reserved for."""
    plain = running_job(1, spec("sleep", hard_resources={"h_rt": "0:1:0"}, cwd="/tmp",
                                stdout_path=["vm:/tmp/out"], stderr_path=["/tmp/err"],
                                mail_list=["ann@vm"], shell="/bin/sh", context={"a": "b"}))
    plain.tasks[0].usage = Usage(wallclock=5.0, utime=1.5, stime=0.5, mem=0.25,
                                 io=float(1 << 29), vmem=2048.0, maxvmem=4096.0, maxrss=8.0)
    pe = running_job(2, spec("mpi", pe_name="mpi", pe_min=3, pe_max=4, project="p1", ar=7))
    pe.tasks[0].granted = [("all.q@vm", 2), ("all.q@node2", 1)]
    pe.tasks[0].resource_map = [("gpu", "vm", ["0", "1"]), ("gpu", "node2", ["GPU3"])]
    array = pending_job(3, spec("arr", array=(1, 3, 1), task_concurrency=2, binary=False,
                                command=["job.sh"], script_name="job.sh", deadline=T_SUB + 60))
    array.tasks[1] = Task(task_id=1, state=RUNNING, start_time=T_RUN, queue="all.q@vm",
                          host="vm", granted=[("all.q@vm", 1)])
    array.tasks[2] = Task(task_id=2, state=ERROR, failed_reason="no such directory")
    array.tasks[3] = Task(task_id=3, state=HELD)
    after = pending_job(4, spec("after", hold_jid=["1", "nomatch"], start_time=T_SUB + 60))
    return reply([plain, pe, array, after], reasons={4: ["job dropped because of job "
                                                          "dependencies"]},
                 reserved={4: (T_SUB + 120, [("all.q@vm", 1)], [])})


def _jobs(refs: list[str]) -> dict[int, dict]:
    found = check("qstat-job", qstat_job_json(_scene(), refs).stdout)
    return {j["job_number"]: j for j in found["jobs"]}


def test_every_job_is_valid_against_the_schema():
    assert sorted(_jobs(["*"])) == [1, 2, 3, 4]


def test_a_running_job_with_its_task_typed():
    job = _jobs(["1"])[1]
    assert job["submission_time"] == "2026-11-22T05:57:18.000Z"
    assert job["ownership"]["primary"] == {"owner": "root", "uid": 0, "group": "root", "gid": 0}
    assert {"name": "SGE_O_HOST", "value": "vm"} in job["environment_core"]
    assert job["hard_resource_list"] == [{"name": "h_rt", "value": "60"}]
    assert job["stdout_path_list"] == [{"host": "vm", "file_host": "", "path": "/tmp/out",
                                        "file_staging": False}]
    assert job["stderr_path_list"][0]["host"] == ""
    assert job["mail_list"] == [{"user": "ann", "host": "vm"}]
    assert job["shell_list"] == [{"host": "", "path": "/bin/sh"}]
    assert job["context"] == [{"name": "a", "value": "b"}]
    assert (job["job_args"], job["job_type"], job["notify"]) == (["60"], "binary", False)
    [task] = job["array_tasks"]
    assert task == {"task_id": 1, "job_state": "r",
                    "usage": {"wallclock": 5.0, "cpu": 2.0, "mem": 0.25, "io": 0.5,
                              "vmem": 2048, "maxvmem": 4096, "maxrss": 8192},
                    "granted_queue_list": [{"queue_name": "all.q@vm", "slots": 1}],
                    "exec_host_list": [{"hostname": "vm", "slots": 1}],
                    "resource_map": [],
                    "start_time": "2026-11-22T05:57:18.000Z"}
    assert datetime.fromisoformat(task["start_time"]).timestamp() == T_RUN


def test_a_parallel_job_has_its_slots_by_queue_and_by_host():
    job = _jobs(["mpi"])[2]
    assert (job["pe"], job["project"], job["ar_id"]) == ({"name": "mpi", "range": "3,4"},
                                                         "p1", 7)
    [task] = job["array_tasks"]
    assert task["granted_queue_list"] == [{"queue_name": "all.q@vm", "slots": 2},
                                          {"queue_name": "all.q@node2", "slots": 1}]
    assert task["exec_host_list"] == [{"hostname": "vm", "slots": 2},
                                      {"hostname": "node2", "slots": 1}]
    assert task["resource_map"] == [  # Open Cluster Scheduler's keys, ids as strings
        {"name": "gpu", "hostname": "vm", "rsmap_ids": ["0", "1"], "total_amount": 2},
        {"name": "gpu", "hostname": "node2", "rsmap_ids": ["GPU3"], "total_amount": 1}]


def test_an_array_shows_its_range_and_the_tasks_started_or_failed():
    job = _jobs(["3.2"])[3]
    assert job["job_array_tasks"] == {"start": 1, "end": 3, "step": 1}
    assert (job["task_concurrency"], job["script_file"]) == (2, "job.sh")
    assert "job_type" not in job and job["deadline_time"] == "2026-11-22T05:58:27.000Z"
    assert [(t["task_id"], t["job_state"]) for t in job["array_tasks"]] == \
        [(1, "r"), (2, ERROR)]
    assert job["array_tasks"][1] == {"task_id": 2, "job_state": ERROR,
                                     "error_reason": ["no such directory"]}


def test_a_waiting_job_with_its_dependencies_reservation_and_reasons():
    found = _jobs(["after", "1"])
    job = found[4]
    assert (job["jid_request_list"], job["jid_predecessor_list"]) == (["1", "nomatch"], [1])
    assert found[1]["jid_successor_list"] == [4]
    assert job["execution_time"] == "2026-11-22T05:58:27.000Z"
    assert job["reserved"] == {"start_time": "2026-11-22T05:59:27.000Z",
                               "granted_queue_list": [{"queue_name": "all.q@vm", "slots": 1}],
                               "resource_map": []}
    assert job["scheduling_info"] == ["job dropped because of job dependencies"]
    assert job["array_tasks"] == []  # waiting: no task to show


def test_missing_references_are_said_as_the_text_says_them():
    scene = _scene()
    for refs in (["99"], ["1", "99", "nosuch"]):
        shown, text = qstat_job_json(scene, refs), qstat_job(scene, refs)
        assert (shown.stderr, shown.code) == (text.stderr, text.code) != ("", 0)
    assert qstat_job_json(scene, ["99"]).stdout == ""
    assert [j["job_number"] for j in check(
        "qstat-job", qstat_job_json(scene, ["1", "99"]).stdout)["jobs"]] == [1]

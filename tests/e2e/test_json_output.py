"""Every q* command's -json on a real cell parses and fits its schema (schemas/*.json):
one cell, set up once, that the checks only read."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from gridd.cli.common import current_user
from tests.e2e.conftest import Cell, make_cell, wait_for
from tests.e2e.test_advance_reservation import qrsub
from tests.e2e.test_cell import finished, submit
from tests.json_schemas import check

RULES = """\
{
   name         four_each
   description  NONE
   enabled      TRUE
   limit        users {*} to slots=4
}
"""


def _set_up(cell: Cell) -> dict[str, int]:
    path = cell.root / "rqs"
    path.write_text(RULES)
    cell.ok("qconf", "-Arqs", str(path))
    ar = qrsub(cell, "-d", "0:10:0")  # its host is left to jobs with a run-time limit
    done = submit(cell, "-b", "y", "true")
    running = submit(cell, "-N", "long", "-b", "y", "sleep", "600")
    parallel = submit(cell, "-N", "wide", "-pe", "mpi", "2", "-b", "y", "sleep", "600")
    said = cell.ok("qsub", "-h", "-t", "1-3", "-b", "y", "true")
    held = int(re.match(r"Your job-array (\d+)\.", said).group(1))
    wait_for(lambda: finished(cell, done), what="the first job accounted")
    wait_for(lambda: all(f"{n} " in cell.ok("qstat", "-s", "r") for n in (running, parallel)),
             what="two running")
    return {"done": done, "running": running, "parallel": parallel, "held": held, "ar": ar}


@pytest.fixture(scope="module")
def shown(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Cell, dict[str, int]]]:
    """A cell with a finished job, a running one, a running parallel one, a held array,
    an AR and a quota rule."""
    for cell in make_cell(tmp_path_factory.mktemp("json"), hosts=2, slots=3):
        yield cell, _set_up(cell)


@pytest.mark.parametrize("args", [(), ("-f",), ("-g", "c"), ("-f", "-r", "-ext", "-urg", "-pri"),
                                  ("-g", "t"), ("-g", "d"), ("-F",), ("-u", "*", "-s", "z")])
def test_qstat(shown, args):
    cell, ids = shown
    found = check("qstat", cell.ok("qstat", *args, "-json"))
    if args in ((), ("-f",)):
        pending = found["jobs_pending"]
        assert [(j["job_number"], j["tasks"]) for j in pending] == [(ids["held"], "1-3:1")]


def test_qstat_plain_has_the_running_jobs(shown):
    cell, ids = shown
    running = check("qstat", cell.ok("qstat", "-json"))["jobs_running"]
    assert sorted((j["job_number"], j["state"], j["slots"]) for j in running) == \
        [(ids["running"], "r", 1), (ids["parallel"], "r", 2)]


def test_qstat_j(shown):
    cell, ids = shown
    found = check("qstat-job", cell.ok("qstat", "-j", "*", "-json"))
    jobs = {j["job_number"]: j for j in found["jobs"]}
    assert sorted(jobs) == sorted(ids[k] for k in ("running", "parallel", "held"))
    [task] = jobs[ids["running"]]["array_tasks"]
    assert (task["task_id"], task["job_state"], task["granted_queue_list"][0]["slots"]) == \
        (1, "r", 1)
    assert isinstance(task["usage"]["cpu"], (int, float))
    wide = jobs[ids["parallel"]]
    assert wide["pe"] == {"name": "mpi", "range": "2"}
    [task] = wide["array_tasks"]
    assert sum(h["slots"] for h in task["exec_host_list"]) == 2
    held = jobs[ids["held"]]
    assert (held["job_array_tasks"], held["array_tasks"]) == \
        ({"start": 1, "end": 3, "step": 1}, [])
    one = check("qstat-job", cell.ok("qstat", "-j", str(ids["running"]), "-fmt", "json"))
    assert [j["job_name"] for j in one["jobs"]] == ["long"]


@pytest.mark.parametrize("refs", ["99999", "{running},99999"])
def test_qstat_j_of_a_missing_job_is_said_as_with_xml(shown, refs):
    cell, ids = shown
    refs = refs.format(**ids)
    res, xml = cell.run("qstat", "-j", refs, "-json"), cell.run("qstat", "-j", refs, "-xml")
    assert (res.returncode, res.stderr) == (xml.returncode, xml.stderr) == \
        (1, "Following jobs do not exist: \n99999\n")
    if res.stdout:
        assert [j["job_number"] for j in check("qstat-job", res.stdout)["jobs"]] == \
            [ids["running"]]
    else:
        assert xml.stdout == ""


@pytest.mark.parametrize("args", [(), ("-q",), ("-F",), ("-j",), ("-h", "node1", "-q")])
def test_qhost(shown, args):
    cell, _ = shown
    found = check("qhost", cell.ok("qhost", *args, "-json"))
    hosts = {h["name"]: h for h in found["hosts"]}
    assert "node1" in hosts and isinstance(hosts["node1"]["num_proc"], int)


def test_qrstat(shown):
    cell, ids = shown
    assert [a["id"] for a in check("qrstat", cell.ok("qrstat", "-json"))["ars"]] == [ids["ar"]]
    detail = check("qrstat", cell.ok("qrstat", "-ar", str(ids["ar"]), "-json"))
    assert detail["ars"][0]["duration"] == 600


def test_qquota(shown):
    cell, _ = shown
    found = check("qquota", cell.ok("qquota", "-json"))
    assert found["quota_usage"] == [{"rqs_name": "four_each", "rule_name": "1",
                                     "resource": "slots", "used": 3, "max": 4,
                                     "users": [{"exclude": False, "name": current_user()}]}]


def test_qacct(shown):
    cell, ids = shown
    found = check("qacct", cell.ok("qacct", "-j", str(ids["done"]), "-json"))
    assert [r["jobnumber"] for r in found["job"]] == [ids["done"]]
    assert found["job"][0]["exit_status"] == 0
    check("qacct", cell.ok("qacct", "-o", "-json"))
    res = cell.run("qacct", "-j", "99999", "-json")
    assert (res.returncode, res.stdout) == (1, "")


def test_errors_are_those_of_the_other_forms(shown, tmp_path: Path):
    cell, _ = shown
    res = cell.run("qhost", "-h", "nosuch", "-json")
    assert (res.returncode, res.stdout) == (1, "")
    assert res.stderr == 'error: can\'t resolve hostname "nosuch"\n'
    res = cell.run("qrstat", "-ar", "9999", "-json")
    assert res.returncode == 1 and "do not exist" in res.stdout


@pytest.mark.parametrize("command", ["qstat", "qhost", "qrstat", "qquota"])
def test_open_cluster_schedulers_fmt_json(shown, command):
    cell, _ = shown
    assert _steady(check(command, cell.ok(command, "-fmt", "json"))) == \
        _steady(check(command, cell.ok(command, "-json")))


def _steady(value: object) -> object:
    """A document without what the execds' load reports may change between two calls
    (loads, memory and swap in use or free)."""
    if isinstance(value, dict):
        return {k: None if k.startswith(("load", "np_load", "mem_", "swap_", "virtual_"))
                and not k.endswith("_total") else _steady(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_steady(v) for v in value]
    return value

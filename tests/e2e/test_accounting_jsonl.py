"""accounting_format=json on a real cell: finished jobs go to accounting.jsonl as Open
Cluster Scheduler writes it, qacct (through the master's database, and -f on the file)
and `gridd dbwriter` see them, and switching the form back and forth loses nothing."""

from __future__ import annotations

import json
from pathlib import Path

import duckdb

from tests.e2e.conftest import Cell, wait_for
from tests.e2e.test_advance_reservation import editor, set_global_conf
from tests.json_schemas import check

# reporting_params is shown on two lines (a continued line): replace both.
_SET = "/^reporting_params/{{N;s/.*/reporting_params accounting=true {}/}}"
JSON = _SET.format("accounting_format=json")
COLON = _SET.format("accounting_format=colon")
OCS_JSON = _SET.format("old_accounting=false")


def jsonl_records(cell: Cell) -> list[dict]:
    path = cell.root / "common" / "accounting.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


def run_job(cell: Cell, *args: str) -> int:
    return int(cell.ok("qsub", "-terse", "-sync", "y", *args, "-b", "y", "true").split()[0])


def test_a_json_cell_accounts_in_accounting_jsonl_and_every_reader_sees_it(cell: Cell,
                                                                           tmp_path: Path):
    set_global_conf(cell, tmp_path, JSON)
    first = run_job(cell, "-N", "one")
    array = int(cell.ok("qsub", "-terse", "-sync", "y", "-t", "1-2", "-b", "y", "true")
                .split(".")[0])
    wait_for(lambda: len(jsonl_records(cell)) == 3, what="three records in accounting.jsonl")
    assert cell.accounting_lines() == []  # the colon file got nothing
    records = jsonl_records(cell)
    for record in records:
        check("accounting", record)
    assert sorted((r["job_number"], r["task_number"]) for r in records) == [
        (first, 0), (array, 1), (array, 2)]
    one = records[0]
    assert (one["job_name"], one["exit_status"], one["failed"]) == ("one", 0, 0)
    assert one["submission_time"] <= one["start_time"] <= one["end_time"]
    assert one["start_time"] % 1_000_000 == 0  # microseconds, of whole seconds

    shown = cell.ok("qacct", "-j", str(first))  # the database, through the master
    assert f"jobnumber    {first}" in shown and "jobname      one" in shown
    from_file = cell.ok("qacct", "-f", str(cell.root / "common" / "accounting.jsonl"),
                        "-j", str(first))
    assert from_file == shown
    document = check("qacct", cell.ok("qacct", "-j", str(first), "-json"))
    assert [(r["jobnumber"], r["jobname"]) for r in document["job"]] == [(first, "one")]
    assert check("qacct", cell.ok("qacct", "-f", str(cell.root / "common" / "accounting.jsonl"),
                                  "-j", str(first), "-json")) == document
    out = cell.ok("qacct", "-f", str(cell.root / "common" / "accounting.jsonl"), "-j",
                  str(array), "-t", "2")
    assert "taskid       2" in out and "taskid       1" not in out

    res = cell.run("gridd", "dbwriter", "--db", str(tmp_path / "copy.duckdb"),
                   str(cell.root / "common" / "accounting.jsonl"))
    assert res.returncode == 0, res.stderr
    assert "3 records (3 accounting)" in res.stderr

    # two words that disagree are refused, and the configuration stays as it was
    shown = cell.ok("qconf", "-sconf")
    res = cell.run("qconf", "-mconf", env=editor(
        cell, tmp_path, _SET.format("accounting_format=json old_accounting=true")))
    assert res.returncode == 1
    assert res.stderr == ("denied: reporting_params accounting_format=json and "
                          "old_accounting=true disagree\n")
    assert cell.ok("qconf", "-sconf") == shown


def test_switching_the_form_back_and_forth_loses_nothing(cell: Cell, tmp_path: Path):
    common = cell.root / "common"
    jobs = [run_job(cell)]
    set_global_conf(cell, tmp_path, JSON)
    jobs.append(run_job(cell))
    set_global_conf(cell, tmp_path, COLON)
    jobs.append(run_job(cell))
    set_global_conf(cell, tmp_path, OCS_JSON)  # Open Cluster Scheduler's word for json
    jobs.append(run_job(cell))

    def accounted() -> list[int]:
        colon = [int(line.split(":")[5]) for line in cell.accounting_lines()]
        return sorted(colon + [r["job_number"] for r in jsonl_records(cell)])

    wait_for(lambda: len(accounted()) >= 4, what="four jobs accounted")
    assert [int(line.split(":")[5]) for line in cell.accounting_lines()] == [jobs[0], jobs[2]]
    assert [r["job_number"] for r in jsonl_records(cell)] == [jobs[1], jobs[3]]
    summary = cell.ok("qacct", "-j")  # the database holds every job, whatever its file
    assert sorted(int(line.split()[1]) for line in summary.splitlines()
                  if line.startswith("jobnumber")) == jobs
    cell.ok("gridd", "down")
    # the cell's two files into a database of their own, twice: each job once
    for _ in range(2):
        res = cell.run("gridd", "dbwriter", "--db", str(tmp_path / "both.duckdb"),
                       str(common / "accounting"), str(common / "accounting.jsonl"))
        assert res.returncode == 0, res.stderr
    con = duckdb.connect(str(tmp_path / "both.duckdb"), read_only=True)
    found = con.execute("SELECT job_number FROM accounting ORDER BY 1").fetchall()
    con.close()
    assert found == [(job,) for job in jobs]
    # without the database, qacct reads both files, the records in the order jobs ended in
    (common / "reporting.duckdb").rename(tmp_path / "cell.duckdb")
    out = cell.ok("qacct", "-j")
    assert [int(line.split()[1]) for line in out.splitlines()
            if line.startswith("jobnumber")] == jobs

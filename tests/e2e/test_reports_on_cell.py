"""Every named report of reports/ on the database a real cell made: jobs (one failing, one
parallel) and two advance reservations (one that reaches its end with a job in it, one
deleted), with reporting and joblog on; each report asked through the running master."""

from __future__ import annotations

import csv
import io
from pathlib import Path

from tests.e2e.conftest import Cell, wait_for
from tests.e2e.test_advance_reservation import qrsub, set_global_conf
from tests.e2e.test_reporting import REPORTING


def report(cell: Cell, name: str, *params: str) -> list[dict[str, str]]:
    args = [arg for param in params for arg in ("--param", param)]
    out = cell.ok("gridd", "report", name, *args, "--format", "csv")
    return list(csv.DictReader(io.StringIO(out)))


def test_every_report_on_a_cells_database(cell: Cell, tmp_path: Path):
    set_global_conf(cell, tmp_path, REPORTING)
    ended = qrsub(cell, "-N", "short", "-d", "0:0:6")
    deleted = qrsub(cell, "-N", "gone", "-d", "1:0:0")
    in_ar = int(cell.ok("qsub", "-terse", "-ar", str(ended), "-b", "y", "true").split()[0])
    ok = int(cell.ok("qsub", "-terse", "-b", "y", "true").split()[0])
    bad = int(cell.ok("qsub", "-terse", "-b", "y", "exit", "3").split()[0])
    par = int(cell.ok("qsub", "-terse", "-pe", "mpi", "2", "-b", "y", "true").split()[0])
    wait_for(lambda: len(cell.accounting_lines()) == 4, timeout=60, what="four jobs accounted")
    cell.ok("qrdel", str(deleted))
    wait_for(lambda: "short" not in cell.ok("qrstat"), timeout=60, what="the AR's end")

    names = [line.split()[0] for line in cell.ok("gridd", "report").splitlines()]
    assert len(names) >= 15

    seen = {}
    for name in names:
        params = {"ar_attributes": [f"ar_number={ended}"], "ar_log": [f"ar_number={ended}"],
                  "ar_by_user": ["ar_owner=root"]}.get(name, [])
        seen[name] = report(cell, name, *params)

    users = seen["accounting_per_user"]
    assert [(r["username"], r["jobs"]) for r in users] == [("root", "4")]
    counts = seen["job_counts"]
    assert [(r["jobs"], r["succeeded"], r["exit_nonzero"]) for r in counts] == [("4", "3", "1")]
    assert {r["hostname"] for r in seen["host_usage"]} <= {"node1", "node2"}
    assert sum(int(r["jobs"]) for r in seen["host_usage"]) == 4
    assert [r["ar_number"] for r in seen["ar_accounting"]] == [str(ended)]
    assert [(r["ar_number"], r["jobs"]) for r in seen["ar_jobs_completed"]] == [
        (str(ended), "1")]
    assert [(r["ar_number"], r["name"], r["owner"]) for r in seen["ar_attributes"]] == [
        (str(ended), "short", "root")]
    events = [r["event"] for r in seen["ar_log"]]
    assert events[0] == "START TIME REACHED" and events[-1] == "TERMINATED"
    assert {r["ar_number"] for r in seen["ar_by_user"]} == {str(ended), str(deleted)}
    assert [r["ar_number"] for r in seen["ar_time_usage"]] == [str(ended)]
    assert seen["wait_time_percentiles"] and seen["wait_time_distribution"]
    assert {r["queue"] for r in seen["slots_in_use"]} == {"all.q"}
    for name in ("accounting_per_project", "accounting_per_department",
                 "accounting_per_queue"):
        assert sum(int(r["jobs"]) for r in seen[name]) == 4, name
    assert {in_ar, ok, bad, par}  # the four jobs the reports count

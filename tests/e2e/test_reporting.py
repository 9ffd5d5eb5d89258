"""Reporting through a real cell: records reach the files and DuckDB exactly once, even
when the master or its accounting or scheduler process is killed mid-burst, and analysts
query the database while the cell runs (through the master and its accounting process:
DuckDB lets one process open the file)."""

from __future__ import annotations

import json
import os
import re
import signal
from collections import Counter
from pathlib import Path

import duckdb
import pytest

from tests.e2e.conftest import Cell, wait_for
from tests.e2e.test_advance_reservation import set_global_conf

TASKS = 1000
# reporting_params is shown on two lines (a continued line): replace both.
REPORTING = ("/^reporting_params/{N;s/.*/reporting_params "
             "accounting=true reporting=true flush_time=00:00:05 joblog=true/}")


def reporting_lines(cell: Cell) -> list[str]:
    path = cell.root / "common" / "reporting"
    if not path.exists():
        return []
    return [ln for ln in path.read_text().splitlines() if ln and not ln.startswith("#")]


def database(cell: Cell) -> duckdb.DuckDBPyConnection:
    return duckdb.connect(str(cell.root / "common" / "reporting.duckdb"), read_only=True)


def burst_started(cell: Cell, tmp_path: Path) -> int:
    """A job of TASKS tasks, a quarter of them accounted."""
    set_global_conf(cell, tmp_path, REPORTING)
    out = cell.ok("qsub", "-terse", "-t", f"1-{TASKS}", "-b", "y", "true")
    wait_for(lambda: len(cell.accounting_lines()) >= TASKS // 4, timeout=120,
             what="a quarter of the tasks accounted")
    return int(out.split(".")[0])


def child_pid(cell: Cell, name: str) -> int:
    """The master's child process of actor `name` (gridd.actors.child_process), 0 while
    it has none (between an end and the next start)."""
    children = [child for tasks in Path(f"/proc/{cell.master_pid()}/task").glob("*/children")
                for child in tasks.read_text().split()]  # trio starts them from a thread
    found = [int(child) for child in children
             if f"gridd.actors.{name}".encode() in cmdline(child)]
    assert len(found) <= 1, found
    return found[0] if found else 0


def cmdline(pid: str) -> bytes:
    """A process's command line; b"" once it has gone (or ended, a zombie)."""
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return b""


def running(pid: int) -> bool:
    """Whether a process runs (a zombie, ended but not reaped by whoever adopted it, not)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def test_kill_9_master_during_a_burst_of_1000_finishing_tasks(big_cell: Cell, tmp_path: Path):
    cell = big_cell
    job = burst_started(cell, tmp_path)
    orphan, scheduler = child_pid(cell, "accounting"), child_pid(cell, "scheduler")
    assert orphan and scheduler
    os.kill(cell.master_pid(), signal.SIGKILL)
    wait_for(lambda: cell.run("qstat").returncode != 0, what="master gone")
    # its accounting process writes what it holds and ends with it, as its scheduler does
    wait_for(lambda: not running(orphan), what="the accounting process gone")
    wait_for(lambda: not running(scheduler), what="the scheduler process gone")
    cell.start_master()
    every_record_once(cell, job)


@pytest.mark.parametrize("child", ["accounting", "scheduler"])
def test_kill_9_a_child_process_during_a_burst_of_1000_finishing_tasks(
        big_cell: Cell, tmp_path: Path, child: str):
    """The master starts its child again: a new accounting process writes what the old
    one had not confirmed, a new scheduler asks for the whole state; every task still
    runs, and runs and is accounted once."""
    cell = big_cell
    job = burst_started(cell, tmp_path)
    killed = child_pid(cell, child)
    os.kill(killed, signal.SIGKILL)
    wait_for(lambda: child_pid(cell, child) not in (0, killed),
             what=f"the {child} process again")
    every_record_once(cell, job)
    assert f"the {child} process ended (status -9)" in (
        cell.root / "spool" / "qmaster" / "messages").read_text()


def every_record_once(cell: Cell, job: int) -> None:
    """Every task of `job` accounted once in the files and in the database."""
    wait_for(lambda: len(cell.accounting_lines()) >= TASKS, timeout=240,
             what="every task accounted")
    # every query through the master sees every record written (it flushes first)
    answer = cell.ok("gridd", "report", "--format", "json", "--sql",
                     "SELECT count(*) AS n, count(DISTINCT task_number) AS tasks "
                     f"FROM accounting WHERE job_number = {job}")
    assert json.loads(answer) == [{"n": TASKS, "tasks": TASKS}]
    cell.ok("gridd", "down")

    tasks = Counter(int(ln.split(":")[35]) for ln in cell.accounting_lines())
    assert sorted(tasks) == list(range(1, TASKS + 1)) and set(tasks.values()) == {1}
    lines = reporting_lines(cell)
    assert len(lines) == len(set(lines))  # no record written twice
    acct = Counter(int(ln.split(":")[37]) for ln in lines if ln.split(":")[1] == "acct")
    assert sorted(acct) == list(range(1, TASKS + 1)) and set(acct.values()) == {1}
    logged = Counter(ln.split(":")[3] for ln in lines if ln.split(":")[1] == "job_log")
    assert logged["finished"] == 2 * TASKS and logged["pending"] == 1

    con = database(cell)
    rows, distinct = con.execute(
        "SELECT count(*), count(DISTINCT task_number) FROM accounting "
        "WHERE job_number = ?", [job]).fetchone()
    (job_logs,) = con.execute("SELECT count(*) FROM sge_job_log").fetchone()
    con.close()
    assert rows == distinct == TASKS
    assert job_logs == sum(logged.values())


def test_queries_while_the_cell_runs_go_through_the_master(cell: Cell):
    job = int(cell.ok("qsub", "-terse", "-sync", "y", "-b", "y", "true").split()[0])
    wait_for(lambda: cell.accounting_lines(), what="the job accounted")
    out = cell.ok("gridd", "report", "--format", "csv", "--sql",
                  "SELECT job_number, exit_status FROM accounting")
    assert out.splitlines() == ["job_number,exit_status", f"{job},0"]
    assert f"jobnumber    {job}" in cell.ok("qacct", "-j", str(job))
    res = cell.run("gridd", "report", "--sql", "DELETE FROM sge_job")
    assert res.returncode == 1 and "only queries" in res.stderr
    res = cell.run("gridd", "report", "--sql", "SELECT nosuch FROM accounting")
    assert res.returncode == 1 and "nosuch" in res.stderr and "Traceback" not in res.stderr
    # The master's DuckDB reads no file for anyone (it would read them as the master's user).
    for sql in ("SELECT * FROM read_csv('/etc/passwd')", "SELECT * FROM '/etc/passwd'",
                "SELECT content FROM read_text('/etc/hostname')"):
        res = cell.run("gridd", "report", "--sql", sql)
        assert (res.returncode, res.stdout) == (1, ""), (sql, res.stdout)
        assert "Permission Error" in res.stderr or "does not exist" in res.stderr, res.stderr
    exported = cell.root / "export"
    cell.ok("gridd", "report", "--export", str(exported))
    assert (exported / "sge_job.parquet").exists()
    (count,) = duckdb.connect().execute(
        f"SELECT count(*) FROM '{exported / 'accounting.parquet'}'").fetchone()
    assert count == 1


def test_qacct_shows_every_record_of_a_job_id_a_restored_spool_gave_out_again(
        cell: Cell, tmp_path: Path):
    def run(name: str) -> int:
        out = cell.ok("qsub", "-sync", "y", "-N", name, "-b", "y", "true")
        return int(re.search(r"Your job (\d+)", out).group(1))

    assert run("before") == 1
    wait_for(lambda: len(cell.accounting_lines()) == 1, what="job 1 accounted")
    cell.ok("gridd", "spool", "backup", str(tmp_path / "backup"))
    assert run("lost") == 2
    wait_for(lambda: len(cell.accounting_lines()) == 2, what="job 2 accounted")
    cell.ok("gridd", "down")
    cell.ok("gridd", "spool", "restore", str(tmp_path / "backup"))
    cell.ok("gridd", "up")
    assert run("again") == 2  # the backup's next id, as Grid Engine gives it out again
    wait_for(lambda: len(cell.accounting_lines()) == 3, what="job 2 accounted again")
    names = re.findall(r"^jobname\s+(\S+)", cell.ok("qacct", "-j", "2"), re.M)
    assert names == ["lost", "again"]
    cell.ok("gridd", "down")  # and in the database itself, read without the master
    names = re.findall(r"^jobname\s+(\S+)", cell.ok("qacct", "-j", "2"), re.M)
    assert names == ["lost", "again"]

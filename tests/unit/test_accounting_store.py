"""DuckDB side: a re-sent batch must not double any job's usage."""

from __future__ import annotations

import datetime
from dataclasses import replace

from gridd.accounting.record import parse_line
from gridd.accounting.store import insert_records, max_seq, open_db
from gridd.resources import data_dir

LINE = (
    "all.q:vm:root:root:acctdemo:47:sge:0:1795327375:1795327375:1795327378:0:0:3:0.004999:"
    "0.005734:4528.000000:0:0:0:0:636:2:0:24.000000:56:0:0:0:15:5:NONE:defaultdepartment:mpi:2:"
    "0:0.010733:0.000000:0.000043:-u root -l license=2 -pe mpi 2:0.000000:NONE:3559424.000000:0:0"
)
REC = parse_line(LINE)


def test_reports_dir_holds_the_ddl() -> None:
    assert (data_dir("reports") / "accounting.sql").is_file()


def test_insert_is_idempotent_per_seq(tmp_path) -> None:
    con = open_db(tmp_path / "acct.duckdb")
    assert max_seq(con) == 0
    insert_records(con, [(1, REC), (2, replace(REC, job_number=48)), (2, REC)])
    insert_records(con, [(2, REC), (3, replace(REC, job_number=49, start_time=0))])
    insert_records(con, [])
    rows = con.execute("SELECT seq, job_number, start_time FROM accounting ORDER BY seq").fetchall()
    assert [(seq, job) for seq, job, _ in rows] == [(1, 47), (2, 48), (3, 49)]
    assert rows[0][2] == datetime.datetime(2026, 11, 22, 6, 2, 55)  # UTC
    assert rows[2][2] is None  # never started
    assert max_seq(con) == 3


def test_values_survive_and_reopen_keeps_rows(tmp_path) -> None:
    path = tmp_path / "acct.duckdb"
    con = open_db(path)
    insert_records(con, [(5, REC)])
    con.close()
    con = open_db(path)
    row = con.execute(
        "SELECT category, ru_wallclock, ru_utime, maxvmem, io, slots FROM accounting"
    ).fetchone()
    assert row == (REC.category, 3, 0.004999, 3559424.0, 0.000043, 2)
    assert max_seq(con) == 5


def test_batch_of_thousand(tmp_path) -> None:
    con = open_db(tmp_path / "acct.duckdb")
    insert_records(con, [(seq, replace(REC, job_number=seq)) for seq in range(1, 1001)])
    insert_records(con, [(seq, REC) for seq in range(500, 1501)])
    assert con.execute("SELECT count(*), sum(job_number) FROM accounting").fetchone() == (
        1500,
        sum(range(1, 1001)) + 47 * 500,
    )

"""`gridd dbwriter` on accounting.jsonl: its records become the rows the colon file's
give; each file keeps its own offset, so a cell's two files, read again and again and
across a crash, give each record once."""

from __future__ import annotations

from dataclasses import replace

from gridd.accounting import db
from gridd.accounting.accounting_file import append_records
from gridd.accounting.record import parse_line
from gridd.accounting.record_json import to_json
from tests.unit.test_accounting_db import GE, REC, expected_row

RECORDS = [r for line in (GE / "accounting").read_text().splitlines() if (r := parse_line(line))]


def test_a_jsonl_file_gives_the_rows_of_the_colon_file(tmp_path) -> None:
    path = tmp_path / "accounting.jsonl"
    append_records(path, RECORDS, json_lines=True)
    con = db.open_db(tmp_path / "r.duckdb")
    done = db.ingest_file(con, path)
    assert (done.records, done.accounting, done.rejected) == (len(RECORDS), len(RECORDS), 0)
    rows = con.execute("SELECT * FROM accounting ORDER BY end_time, job_number").fetchall()
    assert rows == sorted((expected_row(r) for r in RECORDS), key=lambda r: (r[10], r[5]))
    assert con.execute(
        "SELECT jr_variable, jr_value FROM sge_job_request JOIN sge_job ON jr_parent = j_id "
        "WHERE j_job_number = 5 ORDER BY 1").fetchall() == [("h_rt", "60"), ("license", "2")]


def test_malformed_json_lines_are_counted_and_left_out(tmp_path) -> None:
    path = tmp_path / "accounting.jsonl"
    path.write_text("\n".join([to_json(REC), '{"job_number": 48}', "not json", "[1]",
                               to_json(replace(REC, job_number=49))]) + "\n")
    con = db.open_db(tmp_path / "r.duckdb")
    done = db.ingest_file(con, path)
    assert (done.records, done.accounting, done.rejected) == (5, 2, 3)
    assert done.first_rejected == 'acct_json:{"job_number": 48}'


def test_both_files_of_a_cell_resume_each_where_it_stopped(tmp_path) -> None:
    """The cell wrote colon lines, then JSON lines, then colon lines again; dbwriter runs
    between the writes, and once after a restart (a new connection)."""
    colon, jsonl = tmp_path / "accounting", tmp_path / "accounting.jsonl"
    db_path = tmp_path / "r.duckdb"
    jobs = [replace(REC, job_number=n) for n in range(1, 10)]
    append_records(colon, jobs[:3])
    con = db.open_db(db_path)
    assert [db.ingest_file(con, f).accounting for f in (colon,)] == [3]
    append_records(jsonl, jobs[3:6], json_lines=True)
    with jsonl.open("a") as f:  # a line being written
        f.write(to_json(jobs[6])[:60])
    assert [db.ingest_file(con, f).accounting for f in (colon, jsonl)] == [0, 3]
    con.close()
    with jsonl.open("a") as f:
        f.write(to_json(jobs[6])[60:] + "\n")
    append_records(colon, jobs[7:])
    con = db.open_db(db_path)
    assert [db.ingest_file(con, f).accounting for f in (colon, jsonl)] == [2, 1]
    assert [db.ingest_file(con, f).records for f in (colon, jsonl)] == [0, 0]
    assert con.execute("SELECT list(job_number ORDER BY job_number) FROM accounting"
                       ).fetchone() == (list(range(1, 10)),)
    assert con.execute("SELECT ch_file, ch_offset FROM sge_checkpoint ORDER BY 1").fetchall() == [
        (str(colon.resolve()), colon.stat().st_size), (str(jsonl.resolve()), jsonl.stat().st_size)]

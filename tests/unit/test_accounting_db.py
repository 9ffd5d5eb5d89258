"""The reporting database: schema by version, ingest of streams and files exactly once,
and what Grid Engine 8.1.9's own accounting and reporting files become in it."""

from __future__ import annotations

import datetime
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import duckdb
import pytest

from gridd.accounting import arco_sql, db, schema
from gridd.accounting.record import FIELDS, AccountingRecord, acct_line, parse_line, to_line
from gridd.accounting.record_json import to_json

GE = Path(__file__).resolve().parents[1] / "data" / "sge-8.1.9"
LINE = (
    "all.q:vm:root:root:acctdemo:47:sge:0:1795327375:1795327375:1795327378:0:0:3:0.004999:"
    "0.005734:4528.000000:0:0:0:0:636:2:0:24.000000:56:0:0:0:15:5:NONE:defaultdepartment:mpi:2:"
    "0:0.010733:0.000000:0.000043:-u root -l license=2 -pe mpi 2:0.000000:NONE:3559424.000000:0:0"
)
REC = parse_line(LINE)

# The contract qacct relies on: accounting(5)'s fields in file order, with these types.
ACCOUNTING_COLUMNS = [
    ("qname", "VARCHAR"), ("hostname", "VARCHAR"), ("group", "VARCHAR"), ("owner", "VARCHAR"),
    ("job_name", "VARCHAR"), ("job_number", "BIGINT"), ("account", "VARCHAR"),
    ("priority", "INTEGER"), ("submission_time", "TIMESTAMP"), ("start_time", "TIMESTAMP"),
    ("end_time", "TIMESTAMP"), ("failed", "INTEGER"), ("exit_status", "INTEGER"),
    ("ru_wallclock", "BIGINT"), ("ru_utime", "DOUBLE"), ("ru_stime", "DOUBLE"),
    ("ru_maxrss", "DOUBLE"), ("ru_ixrss", "BIGINT"), ("ru_ismrss", "BIGINT"),
    ("ru_idrss", "BIGINT"), ("ru_isrss", "BIGINT"), ("ru_minflt", "BIGINT"),
    ("ru_majflt", "BIGINT"), ("ru_nswap", "BIGINT"), ("ru_inblock", "DOUBLE"),
    ("ru_oublock", "BIGINT"), ("ru_msgsnd", "BIGINT"), ("ru_msgrcv", "BIGINT"),
    ("ru_nsignals", "BIGINT"), ("ru_nvcsw", "BIGINT"), ("ru_nivcsw", "BIGINT"),
    ("project", "VARCHAR"), ("department", "VARCHAR"), ("granted_pe", "VARCHAR"),
    ("slots", "INTEGER"), ("task_number", "BIGINT"), ("cpu", "DOUBLE"), ("mem", "DOUBLE"),
    ("io", "DOUBLE"), ("category", "VARCHAR"), ("iow", "DOUBLE"), ("pe_taskid", "VARCHAR"),
    ("maxvmem", "DOUBLE"), ("arid", "BIGINT"), ("ar_submission_time", "TIMESTAMP"),
]
TABLES = [
    "sge_job", "sge_job_usage", "sge_job_log", "sge_job_request", "sge_queue",
    "sge_queue_values", "sge_host", "sge_host_values", "sge_user", "sge_user_values",
    "sge_group", "sge_group_values", "sge_project", "sge_project_values", "sge_department",
    "sge_department_values", "sge_version", "sge_checkpoint", "sge_ar", "sge_ar_attribute",
    "sge_ar_usage", "sge_ar_log", "sge_ar_resource_usage", "sge_config_history",
]
VIEWS = [
    "accounting", "view_accounting", "view_job_times", "view_jobs_completed", "view_job_log",
    "view_host_values", "view_queue_values", "view_user_values", "view_group_values",
    "view_project_values", "view_department_values", "view_ar_attribute", "view_ar_log",
    "view_ar_usage", "view_ar_resource_usage", "view_ar_time_usage", "view_config_history",
]


def utc(seconds: int) -> datetime.datetime | None:
    return datetime.datetime(1970, 1, 1) + datetime.timedelta(seconds=seconds) if seconds else None


def expected_row(rec) -> tuple:
    """An accounting view row as the file's record says it."""
    times = {"submission_time", "start_time", "end_time", "ar_submission_time"}
    return tuple(utc(getattr(rec, n)) if n in times else getattr(rec, n) for n in FIELDS)


def stream(lines: list[str], first: int = 1) -> list[tuple[int, str]]:
    return [(seq, line) for seq, line in enumerate(lines, first)]


def acct(rec) -> str:
    return acct_line(rec)


def count(con, relation: str) -> int:
    return con.execute(f"SELECT count(*) FROM {relation}").fetchone()[0]


# --- schema --------------------------------------------------------------------------------

def test_new_database_has_every_version_table_and_view(tmp_path) -> None:
    con = db.open_db(tmp_path / "r.duckdb")
    versions = con.execute("SELECT v_id, v_version FROM sge_version ORDER BY v_id").fetchall()
    assert versions == [(1, "6.0"), (2, "6.2"), (3, "8.1.9"), (4, "8.1.9"), (5, "8.1.9")]
    kinds = dict(con.execute(
        "SELECT table_name, table_type FROM information_schema.tables").fetchall())
    assert {t: kinds.get(t) for t in TABLES} == dict.fromkeys(TABLES, "BASE TABLE")
    assert {v: kinds.get(v) for v in VIEWS} == dict.fromkeys(VIEWS, "VIEW")
    described = [(name, kind) for name, kind, *_ in con.execute("DESCRIBE accounting").fetchall()]
    assert described == ACCOUNTING_COLUMNS
    con.close()
    con = db.open_db(tmp_path / "r.duckdb")  # reopening applies nothing twice
    assert count(con, "sge_version") == 5


def test_an_older_database_is_migrated(tmp_path) -> None:
    path = tmp_path / "r.duckdb"
    con = duckdb.connect(str(path))
    ((_, first),) = schema.migrations()[:1]
    con.execute(first.read_text())
    con.execute("INSERT INTO sge_user (u_user) VALUES ('alice')")
    con.close()
    con = db.open_db(path)
    assert schema.version(con) == 5
    assert con.execute("SELECT u_user FROM sge_user").fetchall() == [("alice",)]
    db.ingest_stream(con, [(1, acct(REC))])
    db.settle(con)
    assert con.execute("SELECT ar_number, job_number FROM view_job_times").fetchall() == [
        (0, 47)]


def test_a_database_newer_than_gridd_is_refused(tmp_path) -> None:
    path = tmp_path / "r.duckdb"
    db.open_db(path).execute(
        "INSERT INTO sge_version VALUES (99, 'future', current_timestamp AT TIME ZONE 'UTC')"
    ).close()
    with pytest.raises(schema.SchemaError, match="version 99"):
        db.open_db(path)


def test_the_flat_table_of_old_is_adopted_with_its_sequence_numbers(tmp_path) -> None:
    path = tmp_path / "r.duckdb"
    con = duckdb.connect(str(path))
    columns = ", ".join(f'"{name}" {kind}' for name, kind in ACCOUNTING_COLUMNS)
    con.execute(f"CREATE TABLE accounting (seq BIGINT PRIMARY KEY, {columns})")
    marks = ", ".join("?" for _ in range(len(FIELDS) + 1))
    con.execute(f"INSERT INTO accounting VALUES ({marks})", [7, *expected_row(REC)])
    con.close()
    con = db.open_db(path)
    assert con.execute("SELECT * FROM accounting").fetchall() == [expected_row(REC)]
    assert db.ingest_stream(con, [(7, acct(REC))]).duplicates == 1
    assert count(con, "accounting") == 1


# --- the stream of the accounting actor ---------------------------------------------------

def test_a_resent_seq_inserts_nothing_twice(tmp_path) -> None:
    con = db.open_db(tmp_path / "r.duckdb")
    job_48, job_49 = (acct(replace(REC, job_number=48)),
                      acct(replace(REC, job_number=49, start_time=0)))
    first = db.ingest_stream(con, [(1, acct(REC)), (2, job_48), (2, job_48)])
    assert (first.records, first.duplicates) == (2, 1)
    assert db.settle(con).accounting == 2
    again = db.ingest_stream(con, [(2, job_48), (3, job_49)])
    assert (again.records, again.duplicates) == (1, 1)
    assert db.ingest_stream(con, [(3, job_49)]).duplicates == 1  # in the inbox: known too
    assert db.ingest_stream(con, []) == db.Ingested()
    rows = con.execute(
        "SELECT job_number, start_time FROM accounting ORDER BY job_number").fetchall()
    assert [job for job, _ in rows] == [47, 48, 49]
    assert rows[0][1] == datetime.datetime(2026, 11, 22, 6, 2, 55)  # UTC
    assert rows[2][1] is None  # never started


def test_values_survive_and_reopen_keeps_rows(tmp_path) -> None:
    path = tmp_path / "r.duckdb"
    con = db.open_db(path)
    db.ingest_stream(con, [(5, acct(REC))])
    con.close()
    con = db.open_db(path)
    assert con.execute("SELECT * FROM accounting").fetchall() == [expected_row(REC)]
    assert con.execute("SELECT jr_variable, jr_value FROM sge_job_request").fetchall() == [
        ("license", "2")]
    assert db.ingest_stream(con, [(5, acct(REC))]).duplicates == 1


def test_batch_of_thousand(tmp_path) -> None:
    con = db.open_db(tmp_path / "r.duckdb")
    db.ingest_stream(con, [(seq, acct(replace(REC, job_number=seq))) for seq in range(1, 1001)])
    again = db.ingest_stream(  # seqs 500 to 1000 resent, with their records
        con, [(seq, acct(replace(REC, job_number=seq))) for seq in range(500, 1501)])
    assert (again.duplicates, again.records) == (501, 500)
    assert again.accounting == 1000  # the inbox held seqs of its range: folded first
    assert con.execute("SELECT count(*), sum(job_number) FROM accounting").fetchone() == (
        1500, sum(range(1, 1501)))


def test_a_restored_spool_gives_seqs_and_job_ids_out_again_and_every_record_stays(
        tmp_path) -> None:
    """After `gridd spool restore` the master numbers records and jobs from the backup's
    counters again: a seq names a record only with the record (and job 48 ran twice)."""
    con = db.open_db(tmp_path / "r.duckdb")
    before = [acct(replace(REC, job_number=n)) for n in (47, 48)]
    db.ingest_stream(con, stream(before))
    db.settle(con)
    rerun = replace(REC, job_number=48, submission_time=REC.submission_time + 600,
                    start_time=REC.start_time + 600, end_time=REC.end_time + 600)
    waiting = acct(replace(rerun, job_number=49))
    again = db.ingest_stream(con, [(1, before[0]), (2, acct(rerun)), (3, waiting)])
    assert (again.records, again.duplicates) == (2, 1)  # seq 1 resent: the backup's outbox
    db.ingest_stream(con, [(3, acct(replace(rerun, job_number=50)))])  # restored again
    db.settle(con)
    assert con.execute("SELECT job_number, epoch(submission_time)::BIGINT FROM accounting "
                       "ORDER BY 1, 2").fetchall() == [
        (47, REC.submission_time), (48, REC.submission_time), (48, rerun.submission_time),
        (49, rerun.submission_time), (50, rerun.submission_time)]
    assert db.ingest_stream(con, stream([before[0], acct(rerun)])).duplicates == 2
    # ARCo's views know a job by its row (j_id), not by its number: two jobs 48
    assert con.execute("SELECT count(*), count(DISTINCT submission_time) FROM view_job_times "
                       "WHERE job_number = 48").fetchone() == (2, 2)


def test_the_ledger_knows_a_resent_line_whatever_its_characters(tmp_path) -> None:
    con = db.open_db(tmp_path / "r.duckdb")
    line = acct(replace(REC, job_name="Überprüfung-日本\u00a0€"))
    db.ingest_stream(con, [(1, line)])
    db.settle(con)  # the digest is taken by DuckDB; a resend's, by Python
    assert db.ingest_stream(con, [(1, line)]).duplicates == 1


def test_a_seq_ingested_before_records_had_an_identity_stands_for_any_record(
        tmp_path) -> None:
    path = tmp_path / "r.duckdb"
    con = duckdb.connect(str(path))
    for _, step in schema.migrations()[:4]:
        con.execute(step.read_text())
    con.execute("INSERT INTO gridd_ingested_seq VALUES (7)")
    con.close()
    con = db.open_db(path)
    assert db.ingest_stream(con, [(7, acct(REC))]).duplicates == 1  # resent, or not: unknown
    assert db.ingest_stream(con, [(8, acct(REC))]).records == 1


def test_the_same_run_under_another_seq_counts_once(tmp_path) -> None:
    con = db.open_db(tmp_path / "r.duckdb")
    db.ingest_stream(con, [(1, acct(REC))])
    db.settle(con)
    db.ingest_stream(con, [(2, acct(REC))])
    assert db.settle(con).accounting == 0
    rerun = replace(REC, start_time=REC.start_time + 60, end_time=REC.end_time + 60)
    db.ingest_stream(con, [(3, acct(rerun))])
    assert db.settle(con).accounting == 1  # rescheduled: two runs of one job
    assert con.execute("SELECT count(*), count(DISTINCT ju_parent) FROM sge_job_usage"
                       ).fetchone() == (2, 1)


def test_a_failing_batch_leaves_nothing_behind(tmp_path, monkeypatch) -> None:
    con = db.open_db(tmp_path / "r.duckdb")
    monkeypatch.setattr(arco_sql, "JOB_LOG", "INSERT INTO no_such_table VALUES (1)")
    log = ("1795327375:job_log:1795327375:pending:47:-1:NONE::root:vm:0:1024:1795327375:"
           "acctdemo:root:root::defaultdepartment:sge:new job")
    db.ingest_stream(con, [(1, acct(REC)), (2, log)])
    with pytest.raises(duckdb.Error):
        db.settle(con)
    assert (count(con, "sge_job_usage"), count(con, "gridd_ingested_seq")) == (0, 0)
    assert (count(con, "accounting"), count(con, "gridd_inbox")) == (1, 1)  # still waiting
    monkeypatch.undo()
    again = db.ingest_stream(con, [(1, acct(REC)), (2, log)])  # the master resends
    assert (again.duplicates, again.accounting) == (2, 1)
    assert (count(con, "accounting"), count(con, "sge_job_log")) == (1, 1)


def test_a_job_seen_through_its_log_and_its_accounting_is_one_job(tmp_path) -> None:
    lines = (GE / "reporting").read_text().splitlines()
    job_47 = [line for line in lines if ":47:" in line and ":job_log:" in line
              or ":new_job:" in line and ":47:" in line]
    account = next(line for line in lines if ":acct:" in line and ":acctdemo:47:" in line)
    con = db.open_db(tmp_path / "r.duckdb")
    for seq, line in stream([*job_47[:3], account, *job_47[3:]]):
        db.ingest_stream(con, [(seq, line)])  # one at a time, as they may come
        db.settle(con)
    jobs = con.execute("SELECT j_task_number, j_priority FROM sge_job ORDER BY 1").fetchall()
    assert jobs == [(-1, 1024), (0, 0)]  # the submitted job, and its task: the file's -p
    events = con.execute("SELECT task_number, event FROM view_job_log").fetchall()
    assert (-1, "pending") in events and len(events) == len(job_47) - 1
    assert con.execute("SELECT * FROM accounting").fetchall() == [expected_row(REC)]


def test_malformed_records_are_counted_and_left_out(tmp_path) -> None:
    con = db.open_db(tmp_path / "r.duckdb")
    db.ingest_stream(con, stream([
        acct(REC), "1:acct:too:few:fields", "1:no_such_type:x", "1795327403:host:vm:oops:X:a=1",
        acct(replace(REC, job_number=48))]))
    done = db.settle(con)
    assert (done.records, done.accounting, done.rejected) == (5, 2, 3)
    assert done.first_rejected == "acct:too:few:fields"


def test_the_specs_ar_attribute_is_read_and_sharelog_passed_over(tmp_path) -> None:
    con = db.open_db(tmp_path / "r.duckdb")
    db.ingest_stream(con, stream([
        "1795327215:new_ar:1795327210:12:alice",
        "1795327215:ar_attribute:1795327215:1795327210:12:small:acc:1795327215:1795327515:"
        "NONE:NONE",
        "1795327300:sharelog:1795327300:1795327300:Root:root:NONE:0:1:0.0:0.0:0.0:0.0:0.0:0.0:"
        "0.0:0.0:0.0:0.0:0.0:0.0:"]))
    done = db.settle(con)
    assert (done.records, done.rejected) == (3, 0)
    assert con.execute("SELECT ar_number, name FROM view_ar_attribute").fetchall() == [
        (12, "small")]


def test_ar_records_as_gridd_writes_them(tmp_path) -> None:
    con = db.open_db(tmp_path / "r.duckdb")
    lines = [
        "1795327215:new_ar:1795327210:12:alice",
        "1795327215:ar_attr:1795327215:1795327210:12:small:acc:1795327215:1795327515:smp:"
        "h_rt=300,license=2",
        "1795327215:ar_log:1795327215:1795327210:12:r:START TIME REACHED:start time of AR reached",
        acct(replace(REC, arid=12, ar_submission_time=1795327210, start_time=1795327220,
                     end_time=1795327280, submission_time=1795327216)),
        "1795327515:ar_log:1795327515:1795327210:12:x:TERMINATED:end time of AR reached",
        "1795327515:ar_acct:1795327515:1795327210:12:all.q:vm:2",
        "1795327515:ar_acct:1795327515:1795327210:12:all.q:node2:2",
    ]
    db.ingest_stream(con, stream(lines))
    db.settle(con)
    assert con.execute("SELECT * FROM view_ar_attribute").fetchall() == [
        (12, "alice", utc(1795327210), "small", "acc", utc(1795327215), utc(1795327515), "smp")]
    assert con.execute("SELECT variable, value FROM view_ar_resource_usage ORDER BY 1").fetchall(
    ) == [("h_rt", "300"), ("license", "2")]
    assert con.execute("SELECT event, state FROM view_ar_log ORDER BY time").fetchall() == [
        ("START TIME REACHED", "r"), ("TERMINATED", "x")]
    assert con.execute("SELECT hostname, slots FROM view_ar_usage ORDER BY 1").fetchall() == [
        ("node2", 2), ("vm", 2)]
    assert con.execute("SELECT * FROM view_ar_time_usage").fetchall() == [
        (12, datetime.timedelta(seconds=60), datetime.timedelta(seconds=300))]
    # the AR specification's query, PostgreSQL interval arithmetic and all, runs as written
    unused = con.execute(
        "SELECT ar_number, job_duration, ar_duration, "
        "age(('1970-01-01'::date + ar_duration::interval)::timestamp, "
        "('1970-01-01'::date + job_duration::interval)::timestamp) AS unused_time "
        "FROM view_ar_time_usage WHERE ar_number IN "
        "(SELECT ARL.ar_number FROM view_ar_log ARL WHERE event = 'TERMINATED')").fetchall()
    assert unused == [(12, datetime.timedelta(seconds=60), datetime.timedelta(seconds=300),
                       datetime.timedelta(seconds=240))]
    assert con.execute("SELECT ar_number, count(*) FROM view_accounting WHERE ar_number > 0 "
                       "GROUP BY ALL").fetchall() == [(12, 1)]
    # and so do its "Accounting per AR" and "Number of Jobs Completed per AR", which look
    # back a year from now
    recent = time.time() - 1795327220 < 365 * 86400
    per_ar = con.execute(
        "SELECT time, ar_number, cpu, mem, io FROM (SELECT date_trunc('month', start_time)::date "
        "AS time, ar_number, SUM(cpu) AS cpu, SUM(mem) AS mem, SUM(io) AS io FROM "
        "view_accounting WHERE start_time > (current_timestamp - interval '1 year') AND "
        "ar_number > 0 GROUP BY time, ar_number) AS tmp").fetchall()
    assert per_ar == ([(datetime.date(2026, 11, 1), 12, REC.cpu, REC.mem, REC.io)]
                      if recent else [])
    completed = con.execute(
        "SELECT ar_number AS ar_number, date_trunc('day', start_time) AS day, "
        "COUNT(job_number) AS jobs FROM view_job_times WHERE start_time > "
        "(current_timestamp - interval '1 year') AND ar_number > 0 GROUP BY day, ar_number"
    ).fetchall()
    assert completed == ([(12, datetime.datetime(2026, 11, 22), 1)] if recent else [])


def test_the_inbox_folds_when_full_or_old_and_accounting_reads_it(tmp_path,
                                                                   monkeypatch) -> None:
    monkeypatch.setattr(db, "FOLD_ROWS", 3)
    con = db.open_db(tmp_path / "r.duckdb")
    assert db.ingest_stream(con, stream([acct(replace(REC, job_number=n)) for n in (1, 2)])
                            ).accounting == 0
    assert (count(con, "accounting"), count(con, "view_accounting")) == (2, 0)
    done = db.ingest_stream(con, [(3, acct(replace(REC, job_number=3)))])
    assert (done.records, done.accounting) == (1, 3)
    assert (count(con, "gridd_inbox"), count(con, "view_accounting")) == (0, 3)
    monkeypatch.setattr(db, "FOLD_SECONDS", 0.0)
    assert db.ingest_stream(con, [(4, acct(replace(REC, job_number=4)))]).accounting == 1


def test_accounting_reads_inbox_records_as_the_tables_hold_them(tmp_path) -> None:
    lines = [line for line in (GE / "accounting").read_text().splitlines()
             if not line.startswith("#")]
    lines.append(":".join(LINE.split(":")[:-2]).replace(":47:", ":98:"))  # pre-6.2
    lines.append(LINE.replace("-u root -l", "-l h_rt=0:1:0 -q a:b -l").replace(":47:", ":99:"))
    items = stream([f"{line.split(':')[10]}:acct:{line}" for line in lines])
    con = db.open_db(tmp_path / "r.duckdb")
    db.ingest_stream(con, items)
    waiting = con.execute("SELECT * FROM accounting ORDER BY job_number, end_time").fetchall()
    assert len(waiting) == len(lines) and count(con, "sge_job_usage") == 0
    db.settle(con)
    assert count(con, "gridd_inbox") == 0
    assert con.execute("SELECT * FROM accounting ORDER BY job_number, end_time").fetchall() == (
        waiting)


def test_a_writer_that_died_before_folding_leaves_its_batches_to_the_next(tmp_path) -> None:
    path = tmp_path / "r.duckdb"
    con = db.open_db(path)
    db.ingest_stream(con, [(1, acct(REC))])
    con.close()
    con = db.open_db(path)
    assert (count(con, "gridd_inbox"), count(con, "view_accounting")) == (0, 1)


# --- files -----------------------------------------------------------------------------------

def test_ge_accounting_file_gives_back_every_record(tmp_path) -> None:
    con = db.open_db(tmp_path / "r.duckdb")
    done = db.ingest_file(con, GE / "accounting")
    records = [r for line in (GE / "accounting").read_text().splitlines()
               if (r := parse_line(line))]
    assert (done.records, done.accounting, done.rejected) == (len(records), len(records), 0)
    rows = con.execute("SELECT * FROM accounting ORDER BY end_time, job_number").fetchall()
    assert rows == sorted((expected_row(r) for r in records), key=lambda r: (r[10], r[5]))
    assert count(con, "view_accounting") == len(records)
    assert con.execute("SELECT u_user FROM sge_user ORDER BY 1").fetchall() == [
        ("roland",), ("root",)]
    assert con.execute(
        "SELECT jr_variable, jr_value FROM sge_job_request JOIN sge_job ON jr_parent = j_id "
        "WHERE j_job_number = 5 ORDER BY 1").fetchall() == [("h_rt", "60"), ("license", "2")]


def test_ge_reporting_file_fills_arco_tables(tmp_path) -> None:
    con = db.open_db(tmp_path / "r.duckdb")
    lines = [line for line in (GE / "reporting").read_text().splitlines()
             if not line.startswith("#")]
    done = db.ingest_file(con, GE / "reporting")
    assert (done.records, done.rejected) == (len(lines), 0)
    accts = [parse_line(line.split(":", 2)[2]) for line in lines if ":acct:" in line]
    assert sorted(con.execute("SELECT * FROM accounting").fetchall(), key=lambda r: r[5]) == (
        sorted(map(expected_row, accts), key=lambda r: r[5]))
    assert count(con, "view_job_log") == sum(":job_log:" in line for line in lines)
    assert con.execute(
        "SELECT time, event, state, initiator, host, message FROM view_job_log "
        "WHERE job_number = 48 ORDER BY time, event").fetchall()[:2] == [
        (utc(1795327375), "pending", "", "root", "vm", "new job"),
        (utc(1795327375), "sent", "t", "master", "vm", "sent to execd")]
    assert con.execute(
        "SELECT ar_number, owner, name, granted_pe, end_time - start_time "
        "FROM view_ar_attribute").fetchall() == [
        (12, "root", "small", "smp", datetime.timedelta(seconds=40))]
    assert con.execute("SELECT ar_number, event FROM view_ar_log ORDER BY time, ar_number"
                       ).fetchall() == [(1, "DELETED"), (2, "DELETED"),
                                        (12, "START TIME REACHED"), (12, "TERMINATED")]
    assert con.execute("SELECT * FROM view_ar_usage WHERE ar_number = 12").fetchall() == [
        (12, utc(1795327255), "all.q", "vm", 2)]
    assert con.execute(
        "SELECT variable, str_value, num_value FROM view_host_values "
        "WHERE hostname = 'vm' AND time_start = ? ORDER BY 1", [utc(1795327403)]).fetchall() == [
        ("mem_free", "23460.886719M", 23460.886719 * 2**20), ("np_load_avg", "4.383545", 4.383545)]
    assert con.execute(
        "SELECT num_value, num_config FROM view_host_values WHERE hostname = 'global' "
        "ORDER BY time_start").fetchall() == [(5.0, 5.0), (4.0, 5.0), (0.0, 5.0)]
    assert con.execute(
        "SELECT qname, str_value FROM view_queue_values WHERE variable = 'state' "
        "ORDER BY time_start, str_value DESC").fetchall() == [
        ("all.q", "d"), ("all.q", ""), ("long.q", "s"), ("long.q", "")]
    assert con.execute("SELECT * FROM view_jobs_completed ORDER BY time").fetchall() == [
        (datetime.datetime(2026, 11, 22, 5), 2), (datetime.datetime(2026, 11, 22, 6), 8)]


def test_a_cells_accounting_and_reporting_files_count_each_run_once(tmp_path) -> None:
    con = db.open_db(tmp_path / "r.duckdb")
    db.ingest_file(con, GE / "reporting")
    done = db.ingest_file(con, GE / "accounting")
    assert done.accounting == done.records - sum(
        ":acct:" in line for line in (GE / "reporting").read_text().splitlines())
    assert count(con, "accounting") == done.records


def test_a_file_resumes_where_it_stopped_and_leaves_a_torn_line(tmp_path) -> None:
    con = db.open_db(tmp_path / "r.duckdb")
    path = tmp_path / "accounting"
    whole = [to_line(replace(REC, job_number=n)) for n in range(1, 5)]
    path.write_text("# Version: 8.1.9\n" + "\n".join(whole[:3]) + "\n" + whole[3][:50])
    assert db.ingest_file(con, path).accounting == 3
    assert db.ingest_file(con, path).records == 0
    with path.open("a") as f:
        f.write(whole[3][50:] + "\n" + to_line(replace(REC, job_number=5)) + "\n")
    assert db.ingest_file(con, path).accounting == 2
    assert con.execute("SELECT list(job_number ORDER BY job_number) FROM accounting"
                       ).fetchone() == ([1, 2, 3, 4, 5],)
    assert con.execute("SELECT ch_line, ch_offset FROM sge_checkpoint").fetchone() == (
        6, path.stat().st_size)


@pytest.mark.parametrize(("name", "line", "chunk"), [("accounting", to_line, 1000),
                                                     ("accounting.jsonl", to_json, 3000)])
def test_a_crash_in_the_middle_of_a_file_neither_loses_nor_doubles(
        tmp_path, monkeypatch, name: str, line: Callable[[AccountingRecord], str],
        chunk: int) -> None:
    """Of either format (a few records a chunk)."""
    con = db.open_db(tmp_path / "r.duckdb")
    path = tmp_path / name
    path.write_text("".join(line(replace(REC, job_number=n)) + "\n" for n in range(1, 31)))
    monkeypatch.setattr(db, "CHUNK_BYTES", chunk)
    chunks = 0
    load = db._load_stage

    def dies_in_the_third_chunk(con):
        nonlocal chunks
        chunks += 1
        done = load(con)
        if chunks == 3:
            raise KeyboardInterrupt  # after the rows, before the commit
        return done

    monkeypatch.setattr(db, "_load_stage", dies_in_the_third_chunk)
    with pytest.raises(KeyboardInterrupt):
        db.ingest_file(con, path)
    (offset,) = con.execute("SELECT ch_offset FROM sge_checkpoint").fetchone()
    lines = path.read_bytes()[:offset].count(b"\n")
    assert 0 < lines < 30 and count(con, "accounting") == lines
    monkeypatch.setattr(db, "_load_stage", load)
    assert db.ingest_file(con, path).accounting == 30 - lines
    assert con.execute("SELECT count(DISTINCT job_number), count(*) FROM accounting"
                       ).fetchone() == (30, 30)


def test_a_files_records_of_one_job_id_given_out_twice_all_go_in(tmp_path) -> None:
    """A restored spool gives job ids out again; resuming, a file's new records of such
    a job go in beside the old (the run's own identity: the job's submission time)."""
    con = db.open_db(tmp_path / "r.duckdb")
    path = tmp_path / "accounting"
    path.write_text(to_line(REC) + "\n")
    db.ingest_file(con, path)
    again = replace(REC, submission_time=REC.submission_time + 600,
                    start_time=REC.start_time + 600, end_time=REC.end_time + 600)
    with path.open("a") as f:
        f.write(to_line(again) + "\n")
    assert db.ingest_file(con, path).accounting == 1
    reporting = tmp_path / "reporting"  # the same records again, through the reporting file
    reporting.write_text("".join(f"{rec.end_time}:acct:{to_line(rec)}\n" for rec in (REC, again)))
    assert db.ingest_file(con, reporting).accounting == 0
    assert con.execute("SELECT job_number, epoch(submission_time)::BIGINT FROM accounting "
                       "ORDER BY 2").fetchall() == [(47, REC.submission_time),
                                                    (47, again.submission_time)]


def test_a_replaced_file_is_read_from_its_start(tmp_path) -> None:
    con = db.open_db(tmp_path / "r.duckdb")
    path = tmp_path / "accounting"
    path.write_text(to_line(REC) + "\n")
    db.ingest_file(con, path)
    path.write_text("".join(to_line(replace(REC, job_number=n)) + "\n" for n in (60, 61)))
    assert db.ingest_file(con, path).accounting == 2
    assert count(con, "accounting") == 3


def test_pre_62_lines_and_a_category_holding_colons(tmp_path) -> None:
    con = db.open_db(tmp_path / "r.duckdb")
    path = tmp_path / "accounting"
    old = ":".join(LINE.split(":")[:-2])  # before GE 6.2: no AR fields
    timed = LINE.replace("-u root -l license=2 -pe mpi 2", "-l h_rt=0:1:0 -q a:b")
    timed = timed.replace(":acctdemo:47:", ":acctdemo:48:")
    path.write_text(f"{old}\n{timed}\n")
    progress: list[tuple[int, int, int]] = []
    assert db.ingest_file(con, path, lambda *state: progress.append(state)).accounting == 2
    assert progress[-1] == (path.stat().st_size, path.stat().st_size, 2)
    assert con.execute("SELECT job_number, category, arid, ar_submission_time, maxvmem "
                       "FROM accounting ORDER BY 1").fetchall() == [
        (47, REC.category, 0, None, REC.maxvmem),
        (48, "-l h_rt=0:1:0 -q a:b", 0, None, REC.maxvmem)]

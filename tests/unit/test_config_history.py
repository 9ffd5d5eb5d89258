"""The configuration's history in the reporting database: ConfigRecords go from the
accounting actor into sge_config_history (never into the reporting file), exactly once,
and "what did queue all.q look like last Tuesday" is one query (config_as_of)."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import duckdb
import msgspec
import pytest

from gridd import paths
from gridd import protocol as p
from gridd.accounting import config_history, db, report_catalog, report_lines
from gridd.accounting.record import FILE_HEADER
from gridd.actors import accounting
from gridd.model.report import ConfigRecord, HostRecord
from tests.actors.test_accounting_reports import cell, make_cell


def epoch(text: str) -> float:
    """A UTC time as the master's clock gives it."""
    return datetime.fromisoformat(text).replace(tzinfo=UTC).timestamp()


def naive(text: str) -> datetime:
    """The database's form of a time: naive UTC."""
    return datetime.fromisoformat(text)


def queue(slots: str, **more: str) -> str:
    return json.dumps({"qname": "all.q", "hostlist": "@allhosts", "slots": slots, **more})


MONDAY, TUESDAY, WEDNESDAY = "2026-01-05 09:00:00", "2026-01-06 14:00:00", "2026-01-07 08:30:00"
CHANGES = [  # (seq, record): a new cell's first records, then a week of qconf
    (1, ConfigRecord(time=epoch(MONDAY), kind="queue", key="all.q", body=queue("1"))),
    (2, ConfigRecord(time=epoch(MONDAY), kind="pe", key="mpi",
                     body='{"pe_name": "mpi", "slots": "8"}')),
    (3, ConfigRecord(time=epoch(MONDAY), kind="managers", key="cell", body='["root"]')),
    (4, ConfigRecord(time=epoch(TUESDAY), kind="queue", key="all.q",
                     body=queue("3", shell="/bin/bash"))),
    (5, ConfigRecord(time=epoch(TUESDAY) + 0.25, kind="managers", key="cell",
                     body='["root", "alice"]')),
    (6, ConfigRecord(time=epoch(WEDNESDAY), kind="pe", key="mpi", body=None)),
    (7, ConfigRecord(time=epoch(WEDNESDAY) + 60, kind="queue", key="all.q", body=queue("5"))),
]


def stream(changes: list[tuple[int, ConfigRecord]]) -> list[tuple[int, str]]:
    return [(seq, config_history.line(record)) for seq, record in changes]


@pytest.fixture
def con(tmp_path: Path) -> duckdb.DuckDBPyConnection:
    con = db.open_db(tmp_path / "r.duckdb")
    db.ingest_stream(con, stream(CHANGES))
    db.settle(con)
    yield con
    con.close()


def as_of(con: duckdb.DuckDBPyConnection, moment: str) -> dict[tuple[str, str], object]:
    rows = con.execute("SELECT kind, name, body FROM config_as_of(?)", [moment]).fetchall()
    return {(kind, name): json.loads(body) for kind, name, body in rows}


# --- the line ------------------------------------------------------------------------------

def test_a_change_travels_as_one_line_of_json_after_time_and_type() -> None:
    record = ConfigRecord(time=1767700800.123456, kind="queue", key="all.q",
                          body='{\n  "qname": "all.q",\n  "slots": "3"\n}')
    text = config_history.line(record)
    assert text.startswith("1767700800:config:{") and "\n" not in text
    assert json.loads(text.split(":", 2)[2]) == {
        "time": 1767700800.123456, "kind": "queue", "name": "all.q",
        "body": {"qname": "all.q", "slots": "3"}}


def test_a_deletion_travels_as_a_null_body_and_a_name_keeps_its_colons() -> None:
    text = config_history.line(ConfigRecord(time=5.5, kind="pe", key="odd:name", body=None))
    assert text == '5:config:{"time":5.5,"kind":"pe","name":"odd:name","body":null}'


def test_a_body_that_is_not_json_is_refused_before_it_reaches_the_database() -> None:
    with pytest.raises(msgspec.DecodeError):
        config_history.line(ConfigRecord(time=1.0, kind="queue", key="q", body="{oops"))


def test_the_reporting_file_has_no_line_for_a_configuration_change() -> None:
    with pytest.raises(TypeError, match="ConfigRecord"):
        report_lines.line(ConfigRecord(time=1.0, kind="queue", key="q", body="{}"))


# --- the database --------------------------------------------------------------------------

def test_every_change_is_a_row_with_its_time_and_until_when_it_stood(con) -> None:
    rows = con.execute("SELECT time, kind, name, deleted, valid_until FROM view_config_history "
                       "ORDER BY id").fetchall()
    assert rows == [
        (naive(MONDAY), "queue", "all.q", False, naive(TUESDAY)),
        (naive(MONDAY), "pe", "mpi", False, naive(WEDNESDAY)),
        (naive(MONDAY), "managers", "cell", False, naive("2026-01-06 14:00:00.250000")),
        (naive(TUESDAY), "queue", "all.q", False, naive("2026-01-07 08:31:00")),
        (naive("2026-01-06 14:00:00.250000"), "managers", "cell", False, None),
        (naive(WEDNESDAY), "pe", "mpi", True, None),
        (naive("2026-01-07 08:31:00"), "queue", "all.q", False, None),
    ]
    (body,) = con.execute("SELECT cfh_body FROM sge_config_history WHERE cfh_deleted").fetchone()
    assert body is None


def test_what_a_queue_looked_like_last_tuesday(con) -> None:
    (slots,) = con.execute(
        "SELECT json_extract_string(body, '$.slots') FROM config_as_of('2026-01-06 18:00') "
        "WHERE kind = 'queue' AND name = 'all.q'").fetchone()
    assert slots == "3"
    assert as_of(con, "2026-01-06 18:00")[("queue", "all.q")] == json.loads(
        queue("3", shell="/bin/bash"))
    assert as_of(con, "2026-01-06 13:59:59")[("queue", "all.q")] == json.loads(queue("1"))
    assert as_of(con, TUESDAY)[("queue", "all.q")]["slots"] == "3"  # from its very moment
    assert as_of(con, "2026-02-01")[("queue", "all.q")]["slots"] == "5"


def test_the_whole_configuration_at_a_moment(con) -> None:
    assert as_of(con, "2026-01-05 08:59") == {}  # before the history began
    assert set(as_of(con, "2026-01-05 12:00")) == {
        ("queue", "all.q"), ("pe", "mpi"), ("managers", "cell")}
    assert as_of(con, "2026-01-06 14:00:00.2")[("managers", "cell")] == ["root"]
    assert as_of(con, "2026-01-06 14:00:00.3")[("managers", "cell")] == ["root", "alice"]


def test_a_deleted_object_is_there_before_its_deletion_and_gone_after(con) -> None:
    assert as_of(con, "2026-01-07 08:29")[("pe", "mpi")] == {"pe_name": "mpi", "slots": "8"}
    assert ("pe", "mpi") not in as_of(con, WEDNESDAY)
    assert ("pe", "mpi") not in as_of(con, "2027-01-01")
    # created again under the same name, it is back from then on
    db.ingest_stream(con, stream([(8, ConfigRecord(time=epoch("2026-01-08 00:00:00"),
                                                   kind="pe", key="mpi",
                                                   body='{"pe_name": "mpi", "slots": "2"}'))]))
    db.settle(con)
    assert ("pe", "mpi") not in as_of(con, "2026-01-07 23:59")
    assert as_of(con, "2026-01-08 00:00")[("pe", "mpi")]["slots"] == "2"


def test_changes_at_the_same_moment_keep_the_outbox_order(tmp_path) -> None:
    con = db.open_db(tmp_path / "r.duckdb")
    same = epoch(MONDAY)
    changes = [(seq, ConfigRecord(time=same, kind="queue", key="all.q", body=queue(str(seq))))
               for seq in (10, 11, 12)]
    db.ingest_stream(con, stream(changes[:1]))  # two inbox batches, one fold
    db.ingest_stream(con, stream(changes[1:]))
    db.settle(con)
    assert as_of(con, MONDAY)[("queue", "all.q")]["slots"] == "12"


def test_a_batch_resent_after_a_crash_is_ingested_once(con) -> None:
    again = db.ingest_stream(con, stream(CHANGES))
    assert again.duplicates == len(CHANGES) and again.records == 0
    db.settle(con)
    assert con.execute("SELECT count(*) FROM sge_config_history").fetchone() == (len(CHANGES),)


def test_a_malformed_change_is_left_out_and_the_others_go_in(tmp_path) -> None:
    con = db.open_db(tmp_path / "r.duckdb")
    good = config_history.line(ConfigRecord(time=epoch(MONDAY), kind="queue", key="all.q",
                                            body=queue("1")))
    db.ingest_stream(con, [(1, "1:config:{broken"), (2, '1:config:{"kind":"queue"}'),
                           (3, '1:config:{"time":1,"kind":"","name":"x","body":null}'),
                           (4, good)])
    done = db.settle(con)
    assert done.rejected == 3 and done.first_rejected == "config:{broken"
    assert con.execute("SELECT cfh_kind, cfh_name FROM sge_config_history").fetchall() == [
        ("queue", "all.q")]


# --- the named report ------------------------------------------------------------------------

def test_the_config_history_report_lists_the_changes_and_what_they_changed(tmp_path) -> None:
    paths.common(tmp_path).mkdir(parents=True)
    con = db.open_db(paths.reporting_db(tmp_path))
    db.ingest_stream(con, stream(CHANGES))
    db.settle(con)
    con.close()
    report = report_catalog.find("config_history")
    rows = report_catalog.run(report, {}, tmp_path).rows
    assert [(kind, name, change, changed) for _, kind, name, change, changed in rows] == [
        ("queue", "all.q", "added", None),
        ("pe", "mpi", "added", None),
        ("managers", "cell", "added", None),
        ("queue", "all.q", "modified", "shell,slots"),
        ("managers", "cell", "modified", "+alice"),
        ("pe", "mpi", "deleted", None),
        ("queue", "all.q", "modified", "shell,slots"),
    ]
    assert [r[0] for r in rows][3] == naive(TUESDAY)
    only = report_catalog.run(report, {"kind": "queue", "since": "2026-01-06"}, tmp_path).rows
    assert [(r[0], r[4]) for r in only] == [
        (naive(TUESDAY), "shell,slots"), (naive("2026-01-07 08:31:00"), "shell,slots")]


# --- the accounting actor ------------------------------------------------------------------

def frames(*msgs: p.Msg) -> list[list[bytes]]:
    return [[p.encode(msg)] for msg in msgs]


HOST = HostRecord(kind="host", time=epoch(MONDAY), host="node1", load=[("np_load_avg", "0.5")])


@pytest.mark.parametrize("reporting", [True, False])
def test_the_actor_sends_changes_to_the_database_only(tmp_path, reporting) -> None:
    base = make_cell(tmp_path)
    writers = accounting.Writers(base)
    params = p.ReportingParams(accounting=False, reporting=reporting)
    records = [p.ReportRecord(seq=seq, record=record) for seq, record in CHANGES]
    items, asks = accounting._read(
        frames(params, *records, p.ReportRecord(seq=8, record=HOST)), writers)
    assert not asks and writers.conf == params
    rows = writers.write_files(items)
    # every record is the database's, so each is confirmed once the database has it
    assert [seq for seq, _ in rows] == [*range(1, 8), 8]
    report = paths.reporting_file(base)
    written = report.read_text().splitlines()[len(FILE_HEADER):] if report.exists() else []
    assert written == [report_lines.line(HOST)]  # the host line alone, never a change
    writers.write_db(rows)
    answer = writers.answer(p.DbQuery(
        sql="SELECT kind, name, deleted FROM view_config_history ORDER BY id"))
    writers.close()
    assert answer.error == ""
    assert [tuple(row) for row in answer.rows] == [
        (r.kind, r.key, r.body is None) for _, r in CHANGES]


async def test_changes_are_confirmed_with_reporting_and_accounting_off(tmp_path) -> None:
    base = make_cell(tmp_path)
    async with cell(base) as master:
        await master.sock.send([p.encode(p.ReportingParams(accounting=False, reporting=False,
                                                         flush_time=0.05))])
        assert await master.report(*CHANGES[:3]) == {1, 2, 3}
    async with cell(base) as master:  # restarted: the master resends one it had not seen go
        await master.sock.send([p.encode(p.ReportingParams(accounting=False, reporting=False,
                                                         flush_time=0.05))])
        assert await master.report(*CHANGES[2:]) == {3, 4, 5, 6, 7}
    assert not paths.reporting_file(base).exists()
    con = duckdb.connect(str(paths.reporting_db(base)), read_only=True)
    try:
        assert con.execute("SELECT count(*) FROM sge_config_history").fetchone() == (7,)
        assert as_of(con, "2026-01-06 18:00")[("queue", "all.q")]["slots"] == "3"
    finally:
        con.close()

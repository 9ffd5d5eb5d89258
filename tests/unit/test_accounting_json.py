"""accounting.jsonl: a record written as a JSON line and read back is the record its colon
line gives, on every field; Open Cluster Scheduler's lines read as well; what is not a
record is refused by name, in Python and in DuckDB alike."""

from __future__ import annotations

import dataclasses
import json

import duckdb
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gridd.accounting import record_json
from gridd.accounting.accounting_file import (
    append_records,
    holds_json,
    read_records,
    record_key,
    tail_keys,
)
from gridd.accounting.record import FIELDS, parse_line, record_for, to_line
from gridd.accounting.record_json import field_texts, parse_json, to_json
from gridd.manual.files.accounting import JSON_KEYS
from tests.json_schemas import check
from tests.unit.test_accounting_record import REFERENCE_LINES, _finished_job, records

REFERENCE = [parse_line(line) for line in REFERENCE_LINES]

# Open Cluster Scheduler 9.0's example record (its release notes), usage.usage as 9.0
# named eusage; the rusage counters it leaves out read as 0.
OCS_9_0 = json.dumps({
    "job_number": 4, "task_number": 0, "start_time": 1725898198580794,
    "end_time": 1725898298874079, "owner": "joga", "group": "joga", "account": "sge",
    "qname": "all.q", "hostname": "rocky-8-amd64-1", "department": "defaultdepartment",
    "slots": 1, "job_name": "sleep", "priority": 0, "submission_time": 1725898190122999,
    "submit_cmd_line": "qsub -o /dev/null -j y -b y -l gpu=2 sleep 100",
    "category": "-l gpu=2", "failed": 0, "exit_status": 0,
    "usage": {"rusage": {"ru_wallclock": 100, "ru_utime": 0.082395, "ru_stime": 0.115703,
                         "ru_maxrss": 17428, "ru_nivcsw": 0},
              "usage": {"wallclock": 100.90874, "cpu": 0.198098,
                        "mem": 0.0020704269409179688, "io": 0.0010261209681630135,
                        "iow": 0.0, "maxvmem": 222384128.0, "maxrss": 950272.0}}})


def _sql_texts(con: duckdb.DuckDBPyConnection, line: str) -> list[str]:
    query = (f"SELECT {record_json.fields_sql('x')} FROM "
             f"(SELECT {record_json.extract_sql('?')} AS x)")
    return con.execute(query, [line]).fetchone()[0]


def test_every_field_has_one_key_and_the_manual_lists_them() -> None:
    assert sorted(key.field for key in record_json.KEYS) == sorted(FIELDS)
    assert JSON_KEYS == tuple(dict.fromkeys(key.path[0] for key in record_json.KEYS))


@given(records())
def test_a_json_line_reads_back_as_the_colon_line_does(rec) -> None:
    assert parse_json(to_json(rec)) == parse_line(to_line(rec))


@given(st.floats(min_value=0, max_value=1e12), st.floats(min_value=0, max_value=1e6))
def test_numbers_keep_the_colon_lines_six_decimals(maxrss: float, cpu: float) -> None:
    rec = dataclasses.replace(REFERENCE[0], ru_maxrss=maxrss, cpu=cpu, mem=cpu / 3)
    assert parse_json(to_json(rec)) == parse_line(to_line(rec))


@settings(max_examples=40, deadline=None)
@given(records())
def test_duckdb_takes_a_json_line_apart_as_python_does(rec) -> None:
    line = to_json(rec)
    with duckdb.connect() as con:
        found = _sql_texts(con, line)
    # the texts of numbers may differ ("1e-06" and "1e-6"); the fields they give may not
    assert parse_line(":".join(found)) == parse_json(line)
    assert [t for n, t in zip(FIELDS, found, strict=True) if n in ("owner", "category")] == [
        rec.owner, rec.category]


def test_a_usage_json_cannot_say_is_written_as_null_and_the_record_stays() -> None:
    line = to_json(dataclasses.replace(REFERENCE[0], maxvmem=float("nan"), mem=float("inf")))
    check("accounting", line)
    assert '"mem":null' in line and '"maxvmem":null' in line
    assert parse_json(line) == dataclasses.replace(REFERENCE[0], maxvmem=0.0, mem=0.0)
    with duckdb.connect() as con:
        assert parse_line(":".join(_sql_texts(con, line))) == parse_json(line)


def test_keys_come_in_open_cluster_schedulers_order_and_unset_ones_are_left_out() -> None:
    line = to_json(REFERENCE[3])  # a parallel job, no project, no AR
    obj = json.loads(line)
    assert line == json.dumps(obj, separators=(",", ":"))  # compact, one line
    assert list(obj)[:9] == ["job_number", "task_number", "start_time", "end_time", "owner",
                             "group", "account", "qname", "hostname"]
    assert list(obj)[-4:] == ["category", "failed", "exit_status", "usage"]
    assert "project" not in obj and "arid" not in obj and "ar_submission_time" not in obj
    assert (obj["granted_pe"], obj["pe_taskid"], obj["start_time"]) == (
        "mpi", "NONE", 1795327375_000000)
    assert list(obj["usage"]) == ["rusage", "eusage"]
    assert obj["usage"]["eusage"] == {"wallclock": 3.0, "cpu": 0.010733, "mem": 0.0,
                                      "io": 0.000043, "iow": 0.0, "maxvmem": 3559424.0}
    with_ar = json.loads(to_json(REFERENCE[2]))
    assert (with_ar["arid"], with_ar["ar_submission_time"]) == (12, 1795327215_000000)


def test_written_records_fit_the_published_schema() -> None:
    job, task = _finished_job(project="big", ar=3, ar_submission_time=90.0, array=(1, 2, 1))
    for rec in [*REFERENCE, record_for(job, task), record_for(*_finished_job())]:
        check("accounting", to_json(rec))
    check("accounting", OCS_9_0)


def test_open_cluster_schedulers_record_reads() -> None:
    rec = parse_json(OCS_9_0)
    assert rec is not None
    assert (rec.job_number, rec.task_number, rec.start_time, rec.end_time) == (
        4, 0, 1725898198, 1725898298)
    assert (rec.submission_time, rec.project, rec.granted_pe, rec.arid, rec.pe_taskid) == (
        1725898190, "NONE", "NONE", 0, "NONE")
    assert (rec.ru_wallclock, rec.ru_maxrss, rec.ru_minflt, rec.cpu, rec.maxvmem) == (
        100, 17428.0, 0, 0.198098, 222384128.0)
    assert rec.mem == 0.0020704269409179688 and rec.category == "-l gpu=2"
    with duckdb.connect() as con:
        assert parse_line(":".join(_sql_texts(con, OCS_9_0))) == rec


@pytest.mark.parametrize(("line", "problem"), [
    ('{"job_number": 1', "neither colon-separated nor a JSON object"),
    ("[1, 2]", "JSON but not an object"),
    ('{"job_number": 1}', "lacks qname"),
    (to_json(REFERENCE[0]).replace('"owner":"root",', ""), "lacks owner"),
    (to_json(REFERENCE[0]).replace('"start_time":1795326922000000',
                                   '"start_time":"soon"'), "start_time"),
    (to_json(REFERENCE[0]).replace('"slots":1', '"slots":"one"'), "slots"),
])
def test_a_malformed_json_line_names_the_problem(line: str, problem: str) -> None:
    with pytest.raises(ValueError, match=problem):
        parse_json(line)


@pytest.mark.parametrize("line", ['{"job_number": 1', "[1, 2]", '{"job_number": 1}', "7"])
def test_duckdb_finds_no_fields_where_python_finds_no_record(line: str) -> None:
    with duckdb.connect() as con:
        assert _sql_texts(con, line) == []


def test_a_jsonl_file_is_appended_read_and_tailed_like_the_colon_file(tmp_path) -> None:
    path = tmp_path / "accounting.jsonl"
    append_records(path, REFERENCE[:2], json_lines=True)
    append_records(path, REFERENCE[2:], json_lines=True)
    lines = path.read_text().splitlines()
    assert len(lines) == 4 and all(line.startswith('{"job_number":') for line in lines)
    assert holds_json(path)
    assert list(read_records(path)) == REFERENCE
    assert tail_keys(path, 2) == {record_key(rec) for rec in REFERENCE[2:]}
    with path.open("a") as stream:  # a crash in the middle of a write
        stream.write(to_json(REFERENCE[0])[:40])
    assert tail_keys(path, 5) == {record_key(rec) for rec in REFERENCE}
    append_records(path, REFERENCE[:1], json_lines=True)
    assert list(read_records(path)) == [*REFERENCE, REFERENCE[0]]


def test_the_form_of_a_file_is_told_by_its_first_record_not_its_name(tmp_path) -> None:
    colon, jsonl = tmp_path / "x.jsonl", tmp_path / "accounting"
    append_records(colon, REFERENCE)
    append_records(jsonl, REFERENCE, json_lines=True)
    assert not holds_json(colon) and holds_json(jsonl)
    assert list(read_records(colon)) == list(read_records(jsonl)) == REFERENCE
    bad = tmp_path / "bad"
    bad.write_text(to_json(REFERENCE[0]) + "\n{not json\n")
    with pytest.raises(ValueError, match=f"{bad}:2: accounting line is neither"):
        list(read_records(bad))
    assert field_texts(to_json(REFERENCE[1]))[FIELDS.index("category")] == "-l h_rt=100"

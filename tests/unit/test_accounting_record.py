"""accounting(5) lines: GE 8.1.9's own lines must survive parse_line/to_line unchanged."""

from __future__ import annotations

import dataclasses
from dataclasses import fields

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gridd.accounting.accounting_file import (
    append_records,
    read_records,
    record_key,
    tail_keys,
)
from gridd.accounting.record import (
    FIELDS,
    FILE_HEADER,
    AccountingRecord,
    parse_line,
    record_for,
    to_line,
)
from gridd.model.job import Job, JobSpec, Task, Usage, new_job

# Written by Grid Engine 8.1.9 (reference/sge-8.1.9/transcripts/accounting_reporting.txt).
REFERENCE_LINES = [
    "all.q:vm:root:root:sleep:1:sge:0:1795326914:1795326922:1795326923:0:0:1:0.007127:0.004558:"
    "4468.000000:0:0:0:0:644:2:0:888.000000:72:0:0:0:26:48:NONE:defaultdepartment:NONE:1:0:"
    "0.011685:0.000000:0.000043:NONE:0.000000:NONE:3612672.000000:0:0",
    "all.q:vm:root:root:sleep:2:sge:0:1795327038:1795327038:1795327061:100:137:23:0.003070:"
    "0.005895:4676.000000:0:0:0:0:556:1:0:72.000000:48:0:0:0:21:6:NONE:defaultdepartment:NONE:"
    "1:0:0.008965:0.000000:0.000043:-l h_rt=100:0.000000:NONE:3571712.000000:0:0",
    "all.q:vm:root:root:sleep:40:sge:0:1795327215:1795327215:1795327220:0:0:5:0.002935:0.006069:"
    "4464.000000:0:0:0:0:639:0:0:8.000000:48:0:0:0:17:16:NONE:defaultdepartment:NONE:1:0:"
    "0.009004:0.000000:0.000043:-u root -ar 12:0.000000:NONE:3719168.000000:12:1795327215",
    "all.q:vm:root:root:acctdemo:47:sge:0:1795327375:1795327375:1795327378:0:0:3:0.004999:"
    "0.005734:4528.000000:0:0:0:0:636:2:0:24.000000:56:0:0:0:15:5:NONE:defaultdepartment:mpi:2:"
    "0:0.010733:0.000000:0.000043:-u root -l license=2 -pe mpi 2:0.000000:NONE:3559424.000000:0:0",
]


def test_field_count_and_order_match_the_reference_header() -> None:
    assert len(FIELDS) == 45
    assert FIELDS[0] == "qname" and FIELDS[-2:] == ("arid", "ar_submission_time")
    assert FIELDS[FIELDS.index("category") + 1] == "iow"


@pytest.mark.parametrize("line", REFERENCE_LINES)
def test_reference_lines_round_trip(line: str) -> None:
    rec = parse_line(line)
    assert rec is not None
    assert to_line(rec) == line


def test_reference_values_land_in_the_right_fields() -> None:
    rec = parse_line(REFERENCE_LINES[2])
    assert rec is not None
    assert (rec.job_number, rec.ru_wallclock, rec.category) == (40, 5, "-u root -ar 12")
    assert (rec.arid, rec.ar_submission_time, rec.maxvmem) == (12, 1795327215, 3719168.0)


def test_header_and_blank_lines_are_skipped() -> None:
    assert all(parse_line(line) is None for line in (*FILE_HEADER, "", "\n"))


def test_pre_62_line_lacks_the_ar_fields() -> None:
    old = REFERENCE_LINES[0].rsplit(":", 2)[0]
    rec = parse_line(old)
    assert rec is not None
    assert (rec.arid, rec.ar_submission_time, rec.maxvmem) == (0, 0, 3612672.0)


def test_category_with_colons_survives() -> None:
    line = REFERENCE_LINES[1].replace("-l h_rt=100", "-l h_rt=0:1:0,arch=a:b")
    rec = parse_line(line)
    assert rec is not None and rec.category == "-l h_rt=0:1:0,arch=a:b"
    assert to_line(rec) == line


@pytest.mark.parametrize(
    ("line", "problem"),
    [
        ("all.q:vm:root", "has 3 fields"),
        (REFERENCE_LINES[0].replace(":sleep:1:", ":sleep:one:"), "job_number"),
        (REFERENCE_LINES[0].replace(":0.007127:", ":fast:"), "ru_utime"),
        (REFERENCE_LINES[0].replace(":644:", ":1.5:"), "ru_minflt"),
        (REFERENCE_LINES[0] + ":extra", "fields"),
    ],
)
def test_malformed_line_names_the_problem(line: str, problem: str) -> None:
    with pytest.raises(ValueError, match=problem):
        parse_line(line)


_text = st.text(
    st.characters(blacklist_characters=":\n\r", blacklist_categories=("Cs",)), max_size=12
).filter(lambda s: not s.startswith("#"))
_int = st.integers(min_value=-(2**40), max_value=2**40)
_float = st.floats(min_value=0, max_value=1e12).map(lambda x: float(f"{x:.6f}"))
_KINDS = {"str": _text, "int": _int, "float": _float}


@st.composite
def records(draw: st.DrawFn) -> AccountingRecord:
    values = {f.name: draw(_KINDS[str(f.type)]) for f in fields(AccountingRecord)}
    values["category"] = draw(st.text(st.characters(blacklist_characters="\n\r",
                                                    blacklist_categories=("Cs",)),
                                      max_size=20))
    return AccountingRecord(**values)


@given(records())
def test_any_record_round_trips(rec: AccountingRecord) -> None:
    assert parse_line(to_line(rec)) == rec


def _finished_job(**spec_fields: object) -> tuple[Job, Task]:
    job = new_job(7, JobSpec(name="j", owner="u", group="g", **spec_fields), now=100.0)
    task = job.tasks[min(job.tasks)]
    task.queue, task.host, task.start_time, task.end_time = "all.q@n1", "n1", 101.0, 104.0
    task.usage = Usage(wallclock=3.2, utime=0.5, stime=0.25, io=2 * 1024**3)
    return job, task


def test_record_for_plain_job() -> None:
    job, task = _finished_job()
    rec = record_for(job, task)
    assert (rec.qname, rec.hostname, rec.category, rec.task_number) == ("all.q", "n1", "NONE", 0)
    assert (rec.ru_wallclock, rec.cpu, rec.io, rec.project) == (3, 0.75, 2.0, "NONE")


def test_record_for_category_like_ge() -> None:
    job, task = _finished_job(
        hard_resources={"h_rt": "0:1:0", "license": "2"}, pe_name="mpi", pe_min=2, pe_max=2
    )
    assert record_for(job, task).category == "-l h_rt=60,license=2 -pe mpi 2"
    assert record_for(job, task, user_in_category=True).category.startswith("-u u -l ")
    # 8.1.9 (qsub -l h_rt=100 -q all.q, and with -now y, as qrsh -now y writes it)
    job, task = _finished_job(hard_resources={"h_rt": "100"}, hard_queues=["all.q"])
    assert record_for(job, task).category == "-q all.q -l h_rt=100"
    job, task = _finished_job(hard_resources={"h_rt": "100"}, hard_queues=["all.q"],
                              immediate=True, interactive="qrsh")
    assert record_for(job, task).category == "-q all.q -l h_rt=100 -I y"
    job, task = _finished_job(ar=12, ar_submission_time=99.0, hard_queues=["all.q"],
                              array=(1, 3, 1))
    rec = record_for(job, task)
    assert (rec.category, rec.arid, rec.ar_submission_time, rec.task_number) == (
        "-q all.q -ar 12",
        12,
        99,
        1,
    )


def test_accounting_file_append_read_and_tail(tmp_path) -> None:
    path = tmp_path / "accounting"
    recs = [parse_line(line) for line in REFERENCE_LINES]
    append_records(path, recs[:2])
    append_records(path, recs[2:])
    assert path.read_text().splitlines()[:4] == list(FILE_HEADER)
    assert list(read_records(path)) == recs
    assert tail_keys(path, 2) == {(40, 0, "NONE", 1795327215, 1795327220),
                                  (47, 0, "NONE", 1795327375, 1795327378)}
    assert len(tail_keys(path, 100)) == 4
    assert tail_keys(tmp_path / "missing", 3) == set()
    # Two PE tasks of qrsh -inherit may start and end in the same second: both are kept.
    first = dataclasses.replace(recs[0], pe_taskid="1.node1")
    second = dataclasses.replace(recs[0], pe_taskid="2.node1")
    append_records(path, [first, second])
    assert {record_key(first), record_key(second)} <= tail_keys(path, 2)
    assert record_key(first) != record_key(second)


def test_append_cuts_a_torn_last_line(tmp_path) -> None:
    path = tmp_path / "accounting"
    recs = [parse_line(line) for line in REFERENCE_LINES]
    append_records(path, recs[:1])
    with path.open("a") as stream:
        stream.write(REFERENCE_LINES[1][:30])  # a crash in the middle of a write
    assert tail_keys(path, 5) == {(1, 0, "NONE", 1795326922, 1795326923)}
    append_records(path, recs[1:2])
    assert list(read_records(path)) == recs[:2]


def test_the_record_has_the_fields_and_types_of_the_light_layout() -> None:
    """record_fields, which the quick qacct reads lines with, is the record's layout."""
    from gridd.accounting import record_fields

    assert tuple((f.name, f.type) for f in fields(AccountingRecord)) == tuple(
        (name, kind.__name__) for name, kind in zip(record_fields.FIELDS, record_fields.KINDS,
                                                   strict=True))

"""qacct on accounting.jsonl: the same answers as on the colon file of the same records,
whichever name the file has; a cell's two files read as one; JSON lines that are not
records named as colon lines of the wrong length are."""

from __future__ import annotations

from pathlib import Path

import pytest

from gridd.accounting.accounting_file import append_records
from gridd.accounting.record import parse_line
from gridd.accounting.record_json import to_json
from tests.unit.test_qacct_cli import ACCOUNTING, LINES, jobs, run

pytestmark = pytest.mark.usefixtures("utc")
RECORDS = [parse_line(line) for line in LINES]


@pytest.fixture
def root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "common").mkdir()
    monkeypatch.setenv("GRIDD_ROOT", str(tmp_path))
    return tmp_path


def _jsonl(path: Path, records=RECORDS) -> str:
    append_records(path, records, json_lines=True)
    return str(path)


@pytest.mark.parametrize("argv", [
    ("-j",), ("-j", "47"), ("-j", "4*"), ("-o",), ("-h", "-q"), ("-P", "-D", "-pe"),
    ("-j", "-l", "license=2"), ("-ar",), ("-j", "-json"), ("-o", "-json"), ("-j", "99"),
])
def test_a_jsonl_file_answers_as_the_colon_file_of_its_records(tmp_path: Path, capsys,
                                                               argv: tuple[str, ...]) -> None:
    path = _jsonl(tmp_path / "accounting")  # the name says nothing: the content does
    assert run(capsys, "-f", path, *argv) == run(capsys, "-f", str(ACCOUNTING), *argv)


def test_json_lines_that_are_not_records_are_named(tmp_path: Path, capsys) -> None:
    path = tmp_path / "accounting.jsonl"
    good = [to_json(rec) for rec in RECORDS[-2:]]
    path.write_text("\n".join([good[0], '{"job_number": 47', "[47]", "",
                               '{"job_number": 47, "owner": "x"}', good[1]]) + "\n")
    out, err, code = run(capsys, "-f", str(path), "-j")
    assert code == 0 and jobs(out) == [RECORDS[-2].job_number, 47]
    assert err == ("error: ignoring invalid entry in line 2\n"
                   "error: ignoring invalid entry in line 3\n"
                   "error: ignoring invalid entry in line 4\n")


def test_a_cell_that_switched_forms_keeps_its_history(root: Path, capsys) -> None:
    """Without a database, qacct reads `accounting` and `accounting.jsonl` both, records
    in the order jobs ended in, as the database gives them."""
    common = root / "common"
    _jsonl(common / "accounting.jsonl", RECORDS[::2])
    out, err, code = run(capsys, "-j")
    assert (err, code) == ("", 0) and jobs(out) == [rec.job_number for rec in RECORDS[::2]]
    append_records(common / "accounting", RECORDS[1::2])
    ended = sorted(RECORDS, key=lambda r: (r.end_time, r.job_number, r.task_number,
                                           r.pe_taskid, r.hostname))
    out, err, code = run(capsys, "-j")
    assert (err, code) == ("", 0) and jobs(out) == [rec.job_number for rec in ended]
    for argv in (("-o",), ("-h",), ("-j", "47"), ("-o", "-json")):
        assert run(capsys, *argv) == run(capsys, "-f", str(ACCOUNTING), *argv)
    with (common / "accounting.jsonl").open("a") as stream:
        stream.write("not json\n")
    assert run(capsys, "-o")[1] == (
        f"error: ignoring invalid entry in line {len(RECORDS[::2]) + 1} of "
        f"{common / 'accounting.jsonl'}\n")

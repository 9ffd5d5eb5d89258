"""`qacct -j N` from a vouched-for accounting file (cli.qacct_quick) prints what the whole
command prints from the database, in the database's order; it reads the file only while
the marker vouches for it as it is (accounting.whole_history), and the accounting
process's Keeper vouches only while the file has the database's count of records."""

from __future__ import annotations

import random
from dataclasses import replace
from pathlib import Path

import pytest

from gridd import paths
from gridd.accounting import db, query, whole_history
from gridd.accounting.record import FILE_HEADER, AccountingRecord, to_line
from gridd.cli import qacct, qacct_quick
from tests.report_db import real_records, synthetic_accounting

pytestmark = pytest.mark.usefixtures("utc")


def _records() -> list[AccountingRecord]:
    """The real file's and the synthetic ones, with records the order must tell apart:
    tasks of one end time on two hosts, PE tasks, reruns that never ran (end time 0)."""
    real = real_records()
    made = synthetic_accounting(real[0])
    late = made[-1]
    ties = [replace(late, job_number=2001, task_number=task, hostname=host, pe_taskid=pe)
            for task in (2, 1) for host in ("h9", "h10", "H1") for pe in ("NONE", "1.h9")]
    never = [replace(late, job_number=2002, start_time=0, end_time=end) for end in (0, 5, 0)]
    return real + made + ties + never


def _write(file: Path, records: list[AccountingRecord]) -> None:
    file.write_text("".join(f"{line}\n" for line in (*FILE_HEADER, *map(to_line, records))))


@pytest.fixture
def common(tmp_path: Path) -> Path:
    """A cell's common directory whose accounting file, vouched for, holds the records in
    an order of its own."""
    records = _records()
    random.Random(7).shuffle(records)
    folder = paths.common(tmp_path)
    folder.mkdir(parents=True)
    _write(paths.accounting_file(tmp_path), records)
    whole_history.mark(paths.accounting_whole(tmp_path),
                       whole_history.state(paths.accounting_file(tmp_path)))
    return folder


def test_every_job_reads_as_the_database_shows_it(common: Path, tmp_path: Path) -> None:
    con = db.open_db(tmp_path / "reporting.duckdb")
    db.ingest_file(con, common / "accounting")

    def run(sql: str, params: object) -> query.Result:
        return query.execute(con, sql, params)

    for job in sorted({rec.job_number for rec in _records()}):
        text = qacct_quick.printed(str(common), job)
        assert text is not None and (text, "", 0) == qacct.printed(["-j", str(job)], run, 0)
    con.close()


def test_the_file_is_read_only_as_the_marker_vouches_for_it(common: Path) -> None:
    assert qacct_quick.printed(str(common), 2001) is not None
    assert qacct_quick.printed(str(common), 99999) is None  # not in it: the database says
    with open(common / "accounting", "a") as f:  # a record the database may not have yet
        f.write(to_line(replace(_records()[0], job_number=2001)) + "\n")
    assert qacct_quick.printed(str(common), 2001) is None
    (common / paths.ACCOUNTING_WHOLE).unlink()
    assert qacct_quick.printed(str(common), 2001) is None


def test_a_line_of_the_job_that_does_not_read_leaves_it_to_the_database(common: Path) -> None:
    with open(common / "accounting", "a") as f:
        f.write("all.q:h1:g:o:x:2001:nonsense\n")
    whole_history.mark(common / paths.ACCOUNTING_WHOLE,
                       whole_history.state(common / "accounting"))
    assert qacct_quick.printed(str(common), 2001) is None
    assert qacct_quick.printed(str(common), 2002) is not None


def test_the_keeper_vouches_while_the_counts_agree(tmp_path: Path) -> None:
    file, marker = paths.accounting_file(tmp_path), paths.accounting_whole(tmp_path)
    file.parent.mkdir()
    marker.write_text("1 2\n")  # a former life's: gone when a new one starts
    keeper = whole_history.Keeper(file, marker)
    assert not marker.exists()
    records = _records()[:3]
    before = keeper.appending()
    _write(file, records[:2])
    keeper.appended(before, 2)
    keeper.judge(2)
    assert whole_history.marked(marker) == whole_history.state(file)
    keeper.judge(3)  # the database has one the file has not
    assert not marker.exists()
    before = keeper.appending()
    with open(file, "a") as f:
        f.write(to_line(records[2]) + "\n")
    keeper.appended(before, 1)
    keeper.judge(3)
    assert whole_history.marked(marker) == whole_history.state(file)
    with open(file, "a") as f:  # a line by hand: the file is counted again
        f.write(to_line(records[2]) + "\n")
    keeper.judge(3)
    assert not marker.exists()
    keeper.judge(4)
    assert whole_history.marked(marker) == whole_history.state(file)
    file.rename(tmp_path / "accounting.0")  # rotated: a new file from the next record
    before = keeper.appending()
    _write(file, records[:1])
    keeper.appended(before, 1)
    keeper.judge(5)
    assert not marker.exists()
    assert whole_history.count_records(file) == 1

"""qacct where the reference shows nothing, or where gridd differs from 8.1.9 on purpose:
-l filters, the time window, where the answer comes from, long listings, lines that are
not records, and what the command imports."""

from __future__ import annotations

import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from gridd.cli import qacct
from gridd.manual.help_text import help_text

pytestmark = pytest.mark.usefixtures("utc")

DATA = Path(__file__).resolve().parent.parent / "data" / "sge-8.1.9"
ACCOUNTING = DATA / "accounting"
LINES = [line for line in ACCOUNTING.read_text().splitlines() if not line.startswith("#")]
NOW = 1795327443  # 2026-11-22 06:04:03 UTC, after the last job of the reference file


def run(capsys: pytest.CaptureFixture[str], *argv: str, now: float = NOW) -> tuple[str, str, int]:
    code = qacct.main(list(argv), now=now)
    out, err = capsys.readouterr()
    return out, err, code


def jobs(out: str) -> list[int]:
    return [int(line.split()[1]) for line in out.splitlines() if line.startswith("jobnumber")]


def total(out: str) -> int:
    """The WALLCLOCK of a `Total System Usage` table, 0 without a line of figures."""
    lines = out.splitlines()
    return int(lines[3].split()[0]) if len(lines) > 3 else 0


def test_l_selects_jobs_by_their_requests(capsys) -> None:
    acct = str(ACCOUNTING)
    assert jobs(run(capsys, "-f", acct, "-j", "-l", "license=2")[0]) == [5, 47]
    assert jobs(run(capsys, "-f", acct, "-j", "-l", "license=2,h_rt=60")[0]) == [5]
    # a time as the category writes it (seconds), and a name asked for with any value
    assert jobs(run(capsys, "-f", acct, "-j", "-l", "h_rt=0:1:40")[0]) == [2]
    assert jobs(run(capsys, "-f", acct, "-j", "-l", "license")[0]) == [5, 46, 43, 44, 45, 47]
    assert total(run(capsys, "-f", acct, "-l", "nosuch=1")[0]) == 0


def test_d_counts_back_from_now_or_e_and_forward_from_b(capsys) -> None:
    acct = str(ACCOUNTING)
    started = {int(line.split(":")[5]): int(line.split(":")[9]) for line in LINES}
    last = max(started.values())

    def between(low: int, high: int) -> list[int]:
        return [n for n, start in started.items() if low <= start <= high]

    assert jobs(run(capsys, "-f", acct, "-j", "-d", "0", now=last)[0]) == between(last, last)
    assert len(jobs(run(capsys, "-f", acct, "-j", "-d", "1", now=last)[0])) == 28
    assert jobs(run(capsys, "-f", acct, "-j", "-d", "1", now=last + 86401)[0]) == []
    assert len(jobs(run(capsys, "-f", acct, "-j", "-d", "-1", now=last + 86401)[0])) == 28
    six = 1795327200  # 2026-11-22 06:00:00 UTC: a day from it, and a day up to it
    out = run(capsys, "-f", acct, "-j", "-b", "202611220600", "-d", "1")[0]
    assert jobs(out) == between(six, six + 86400) == [40, 46, 43, 44, 45, 48, 49, 47]
    out = run(capsys, "-f", acct, "-j", "-e", "202611220600", "-d", "1")[0]
    assert jobs(out) == between(six - 86400, six) and len(jobs(out)) == 20


def test_a_bare_file_name_is_the_accounting_file(capsys) -> None:
    assert run(capsys, str(ACCOUNTING), "-o") == run(capsys, "-f", str(ACCOUNTING), "-o")
    out, err, code = run(capsys, str(ACCOUNTING), str(ACCOUNTING))
    assert (out, code) == ("", 1) and err == help_text("qacct")


def test_values_gridd_refuses_where_8_1_9_guesses(capsys) -> None:
    out, err, code = run(capsys, "-f", str(ACCOUNTING), "-slots", "x")
    assert code == 1 and err.startswith("invalid number of slots, must be an unsigned integer\n")
    out, err, code = run(capsys, "-f", str(ACCOUNTING), "-b", "1122060x")
    assert code == 1 and err.startswith("\nInvalid format of date/hour-minute field.\n")
    out, err, code = run(capsys, "-f", str(ACCOUNTING), "-b", "02300000")  # 30 February
    assert code == 1 and err.startswith("\nInvalid day specification.\n")
    # -t names task ranges; 8.1.9 takes only the last of a list
    out, err, code = run(capsys, "-f", str(ACCOUNTING), "-j", "47", "-t", "1,3")
    assert (out, err, code) == ("", 'error: Job-array tasks 47.1-1:1,3-3:1 not found\n', 1)


def test_hosts_match_without_regard_to_case_and_show_as_stored(capsys) -> None:
    out = run(capsys, "-f", str(ACCOUNTING), "-h", "VM")[0]
    assert out.splitlines()[2].startswith("vm   ")


def test_a_group_id_means_its_group(capsys, monkeypatch) -> None:
    import grp

    class Root:
        gr_name = "root"

    monkeypatch.setattr(grp, "getgrgid", lambda gid: Root if gid == 0 else {}[gid])
    assert run(capsys, "-f", str(ACCOUNTING), "-g", "0") == run(
        capsys, "-f", str(ACCOUNTING), "-g", "root")


@pytest.fixture
def root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "common").mkdir()
    monkeypatch.setenv("GRIDD_ROOT", str(tmp_path))
    return tmp_path


def test_without_a_database_the_accounting_file_answers(root: Path, capsys) -> None:
    out, err, code = run(capsys, "-o")
    assert (out, code) == ("no jobs running since startup\n", 1)
    assert err == f"{root}/common/accounting: No such file or directory\n"
    (root / "common" / "accounting").write_text(ACCOUNTING.read_text())
    assert run(capsys, "-o") == run(capsys, "-f", str(ACCOUNTING), "-o")


@pytest.mark.parametrize("where", ["empty", "missing"])
def test_with_no_cell_qacct_says_so_alone(tmp_path: Path, capsys, monkeypatch,
                                          where: str) -> None:
    """8.1.9 says `error: SGE_ROOT directory "..." doesn't exist` (or the cell directory's)
    and exits 1; gridd says there is no cell as its other commands do. Not 'no jobs
    running since startup' and a missing accounting file's name: that is a cell's that
    has accounted no job yet."""
    root = tmp_path if where == "empty" else tmp_path / "nosuch"
    monkeypatch.setenv("GRIDD_ROOT", str(root))
    said = (f"error: no gridd cell at {root} (missing {root}/common, found by $GRIDD_ROOT); "
            "start one with 'gridd up' or set GRIDD_ROOT\n")
    for argv in ([], ["-o"], ["-j"], ["-j", "5"]):
        assert run(capsys, *argv) == ("", said, 1)
    assert jobs(run(capsys, "-f", str(ACCOUNTING), "-j", "47")[0]) == [47]  # no cell needed


def test_long_listings_come_in_pages(root: Path, capsys, monkeypatch) -> None:
    from gridd.accounting import db

    con = db.open_db(root / "common" / "reporting.duckdb")
    try:
        db.ingest_file(con, ACCOUNTING)
    finally:
        con.close()
    whole, from_file = run(capsys, "-j"), run(capsys, "-f", str(ACCOUNTING), "-j")
    assert len(jobs(whole[0])) == 28 and whole[0].endswith("0.000\n")  # then the summary
    monkeypatch.setattr(qacct, "PAGE", 5)
    assert run(capsys, "-j") == whole
    assert run(capsys, "-f", str(ACCOUNTING), "-j") == from_file
    # the database keeps no order of lines: records come in the order jobs ended
    numbers = [int(line.split(":")[5]) for line in LINES]
    ends = {n: int(line.split(":")[10]) for n, line in zip(numbers, LINES, strict=True)}
    assert jobs(whole[0]) == sorted(numbers, key=lambda n: (ends[n], n))
    assert jobs(from_file[0]) == numbers


def _database(root: Path, *lines: str) -> None:
    from gridd.accounting import db

    path = root / "accounting-in"
    path.write_text("".join(f"{line}\n" for line in lines))
    con = db.open_db(root / "common" / "reporting.duckdb")
    try:
        db.ingest_file(con, path)
    finally:
        con.close()


class _Counting:
    """A DuckDB connection that counts the statements it runs."""

    def __init__(self, con) -> None:
        self.con, self.statements = con, 0

    def execute(self, *args):
        self.statements += 1
        return self.con.execute(*args)

    def close(self) -> None:
        self.con.close()


def test_a_long_listing_reads_the_file_once_and_sorts_each_record_once(
        root: Path, capsys, monkeypatch) -> None:
    """Pages by LIMIT and OFFSET read the whole file, or sorted every record of the
    database, again for every page: quadratic in the records listed."""
    from gridd.accounting import query
    from gridd.accounting.qacct_file import AccountingFile
    from gridd.accounting.qacct_query import Request

    monkeypatch.setattr(qacct, "PAGE", 5)
    with AccountingFile([str(ACCOUNTING)]) as source:
        source._con = counting = _Counting(source._con)
        qacct.answer(Request(job="", groups={"o": "root"}), source, *_sinks())
    assert counting.statements == 2  # the listing, then the summary

    _database(root, *LINES)
    asked: list[tuple[str, list]] = []
    real = query.run_query

    def run_query(sql: str, params=None, **kw):
        asked.append((sql, params))
        return real(sql, params, **kw)

    monkeypatch.setattr(query, "run_query", run_query)
    listed = run(capsys, "-j")[0]
    sorted_by_listings = 0
    for sql, params in asked:
        if "ORDER BY end_time, job_number" in sql:  # a listing query: how much it sorts
            paged = sql.endswith(" LIMIT ? OFFSET ?")
            sql, params = (sql[: -len(" LIMIT ? OFFSET ?")], params[:-2]) if paged else (
                sql, params)
            sorted_by_listings += real(f"SELECT count(*) FROM ({sql})", params).rows[0][0]
    assert len(jobs(listed)) == sorted_by_listings == len(LINES)


def _sinks():
    import io

    return io.StringIO(), io.StringIO()


def test_a_listing_cut_by_end_times_is_the_whole_listing(root: Path, capsys,
                                                         monkeypatch) -> None:
    from gridd.accounting.record import parse_line, to_line

    rec = parse_line(LINES[-1])
    ends = [7, 7, 7, 8, 8, 0, 9, 0, 7]  # ties across every cut; no end time at all (0)
    _database(root, *(to_line(replace(rec, job_number=n, end_time=end and rec.end_time + end))
                      for n, end in enumerate(ends, 1)))
    whole = run(capsys, "-j")
    assert jobs(whole[0]) == [1, 2, 3, 9, 4, 5, 7, 6, 8]  # by end, then job; no end last
    for page in (1, 2, 3, 4):
        monkeypatch.setattr(qacct, "PAGE", page)
        assert run(capsys, "-j") == whole
        assert jobs(run(capsys, "-j", "5")[0]) == [5]
        assert jobs(run(capsys, "-j", "-E", "-b", "202001010000")[0]) == [1, 2, 3, 9, 4, 5, 7]


def test_a_long_file_found_not_utf8_on_the_way_lists_every_record_once(
        tmp_path: Path, capsys, monkeypatch) -> None:
    """DuckDB reads a long file in parts: the byte that is not UTF-8 may come after
    records were listed, and the listing goes on from the next one, decoded."""
    monkeypatch.setattr(qacct, "PAGE", 100)
    job_47 = LINES[-1]
    lines = [job_47.replace(":47:", f":{n}:") for n in range(1, 20_001)]
    lines[-2] = lines[-2].replace(":acctdemo:", ":d\xe9mo:")
    path = tmp_path / "accounting"
    path.write_bytes("".join(f"{line}\n" for line in lines).encode("latin-1"))
    out, err, code = run(capsys, "-f", str(path), "-j")
    assert (jobs(out), err, code) == (list(range(1, 20_001)), "", 0)
    assert out.count("jobname      d\ufffdmo") == 1


def _file(tmp_path: Path, *lines: str) -> str:
    path = tmp_path / "accounting"
    path.write_text("".join(f"{line}\n" for line in lines))
    return str(path)


def test_lines_that_are_not_records(tmp_path: Path, capsys) -> None:
    job_47 = LINES[-1]
    colon = job_47.replace("-u root -l", "-u root -l arch=a:b,x=1 -l")  # ':' in the category
    short = ":".join(job_47.split(":")[:44])  # a field missing
    spare = job_47 + ":0"  # one too many, and the fields after the category do not fit
    path = _file(tmp_path, "# header", short, colon, "", spare, job_47.replace(":47:", ":50:"))
    out, err, code = run(capsys, "-f", path, "-j")
    assert code == 0 and jobs(out) == [47, 50]
    assert "category     -u root -l arch=a:b,x=1 -l license=2 -pe mpi 2\n" in out
    assert err == ("error: ignoring invalid entry in line 1\n"
                   "error: ignoring invalid entry in line 3\n")
    # looking for one job, only lines that could be its records are read, and named
    out, err, code = run(capsys, "-f", path, "-j", "50")
    assert (jobs(out), err, code) == ([50], "", 0)


def test_a_file_that_is_not_utf8(tmp_path: Path, capsys) -> None:
    path = tmp_path / "accounting"
    path.write_bytes(LINES[-1].replace(":acctdemo:", ":d\xe9mo:").encode("latin-1") + b"\n")
    out, err, code = run(capsys, "-f", str(path), "-j", "47")
    assert code == 0 and "jobname      d\ufffdmo" in out


def _imports(code: str) -> set[str]:
    """The heavy modules loaded by the end of `code`, run in a fresh interpreter."""
    shown = "import sys; print(*[m for m in ('duckdb', 'trio', 'lark') if m in sys.modules])"
    result = subprocess.run([sys.executable, "-c", f"{code}\n{shown}"], capture_output=True,
                            text=True, check=True)
    return set(result.stdout.splitlines()[-1].split())


def test_help_and_answers_from_the_master_load_no_duckdb(tmp_path: Path) -> None:
    assert _imports("import gridd.cli.qacct as q; q.main(['-help'])") == set()
    # an answer from the master: run_query stands in for its reply
    (tmp_path / "common").mkdir()
    (tmp_path / "common" / "reporting.duckdb").touch()
    assert _imports(
        "import os, gridd.accounting.query as query, gridd.cli.qacct as q\n"
        f"os.environ['GRIDD_ROOT'] = {str(tmp_path)!r}\n"
        "query.run_query = lambda sql, params, base=None: query.Result(\n"
        "    [], [(1, 2, 0.5, 0.5, 1.0, 0.0, 0.0, 0.0)])\n"
        "assert q.main([]) == 0"
    ) == set()


def test_json_lists_records_then_the_total_as_the_text_does(capsys) -> None:
    from datetime import datetime

    from tests.json_schemas import check

    acct = str(ACCOUNTING)
    out, err, code = run(capsys, "-f", acct, "-j", "-json")
    found = check("qacct", out)
    text = run(capsys, "-f", acct, "-j")[0]
    assert code == 0 and err == ""
    assert [r["jobnumber"] for r in found["job"]] == jobs(text)
    assert found["total"]["wallclock"] == int(text.splitlines()[-1].split()[0])
    job_47 = next(r for r in found["job"] if r["jobnumber"] == 47)
    assert job_47["granted_pe"] == "mpi" and isinstance(job_47["slots"], int)
    assert job_47["taskid"] is None and job_47["arid"] is None
    start = int(next(ln for ln in LINES if ln.split(":")[5] == "47").split(":")[9])
    assert datetime.fromisoformat(job_47["start_time"]).timestamp() == start
    # one job: its records only; a summary per owner; nothing at all: a null total
    assert set(check("qacct", run(capsys, "-f", acct, "-j", "47", "-json")[0])) == {"job"}
    owners = check("qacct", run(capsys, "-f", acct, "-o", "-json")[0])["summary"]
    assert {line["owner"] for line in owners} and all("wallclock" in x for x in owners)
    assert check("qacct", run(capsys, "-f", acct, "-l", "nosuch=1", "-json")[0]) == \
        {"total": None}
    assert check("qacct", run(capsys, "-f", acct, "-j", "-l", "nosuch=1", "-json")[0]) == \
        {"job": [], "total": None}


def test_json_pages_make_one_document(root: Path, capsys, monkeypatch) -> None:
    from tests.json_schemas import check

    monkeypatch.setattr(qacct, "PAGE", 5)
    found = check("qacct", run(capsys, "-f", str(ACCOUNTING), "-j", "-json")[0])
    assert len(found["job"]) == 28


def test_json_of_a_job_not_found_is_said_as_in_the_text(capsys) -> None:
    assert run(capsys, "-f", str(ACCOUNTING), "-j", "999", "-json") == (
        "", "error: job id 999 not found\n", 1)


@pytest.mark.parametrize("argv", [["-j", "47"], ["-j", "99999"], ["-j"], ["-json", "-j", "47"],
                                  ["-o"], ["-j", "47", "-t", "x"], ["-bogus"]])
def test_what_the_accounting_process_prints_is_what_qacct_prints(
        root: Path, capsys, argv: list[str]) -> None:
    """cli.qacct.printed, which answers the quick `qacct -j N` on the accounting process's
    cursor: the same output and exit code as the command asking through the master."""
    from gridd.accounting import db, query

    _database(root, *LINES)
    con = db.open_db(root / "common" / "reporting.duckdb")
    try:
        printed = qacct.printed(argv, lambda sql, params: query.execute(con, sql, params), NOW)
    finally:
        con.close()
    assert printed == run(capsys, *argv)


@pytest.mark.parametrize("argv", [["-f", "/etc/shadow", "-j"], ["/etc/shadow"]])
def test_the_accounting_process_reads_no_file_it_is_named(argv: list[str]) -> None:
    def run(sql: str, params: object) -> None:
        raise AssertionError("nothing is asked of the database")

    assert qacct.printed(argv, run, NOW) == (
        "", "error: only the cell's records are asked this way\n", 1)
    assert qacct.printed(["-help"], run, NOW) == (help_text("qacct"), "", 0)

"""`gridd dbwriter`: Grid Engine's files into a database, a bar on a terminal only, and
clear refusals instead of tracebacks."""

from __future__ import annotations

import io
import subprocess
import sys
from pathlib import Path

import duckdb

from gridd import paths
from gridd.cli import render_text
from gridd.cli.gridd_cmd import main

GE = Path(__file__).resolve().parents[1] / "data" / "sge-8.1.9"


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def run(monkeypatch, tmp_path: Path, *args: str, err: io.StringIO | None = None) -> tuple[
        int, str]:
    monkeypatch.setenv("GRIDD_ROOT", str(tmp_path))
    err = err if err is not None else io.StringIO()
    monkeypatch.setattr(sys, "stderr", err)
    return main(["dbwriter", *args]), err.getvalue()


def test_ge_files_into_the_cells_database_and_again_nothing_new(monkeypatch, tmp_path) -> None:
    code, err = run(monkeypatch, tmp_path, str(GE / "accounting"), str(GE / "reporting"))
    assert code == 0
    assert err.startswith("gridd dbwriter: 139 records (28 accounting) from 2 files into "
                          f"{tmp_path / 'common' / 'reporting.duckdb'} in ")
    assert err.rstrip().endswith("records/s)") and "[" not in err  # no bar into a pipe
    code, err = run(monkeypatch, tmp_path, str(GE / "accounting"))
    assert code == 0 and "0 records" in err
    con = duckdb.connect(str(tmp_path / "common" / "reporting.duckdb"), read_only=True)
    assert con.execute("SELECT count(*) FROM accounting").fetchone() == (28,)
    assert con.execute("SELECT count(*) FROM view_ar_log").fetchone() == (4,)


def test_writing_the_cells_database_takes_the_accounting_files_marker_away(
        monkeypatch, tmp_path) -> None:
    """From now on the cell's database may hold records its accounting file lacks, so
    qacct -j must not read the file (accounting.whole_history); another --db is no
    concern of the cell's."""
    marker = paths.accounting_whole(tmp_path)
    marker.parent.mkdir()
    marker.write_text("1 2\n")
    code, _ = run(monkeypatch, tmp_path, "--db", str(tmp_path / "r.duckdb"),
                  str(GE / "accounting"))
    assert code == 0 and marker.exists()
    code, _ = run(monkeypatch, tmp_path, str(GE / "accounting"))
    assert code == 0 and not marker.exists()


def test_a_bar_on_a_terminal(monkeypatch, tmp_path) -> None:
    code, err = run(monkeypatch, tmp_path, "--db", str(tmp_path / "r.duckdb"),
                    str(GE / "accounting"), err=Terminal())
    assert code == 0
    bar, summary = err.split("\n")[:2]
    first, *_, last = bar.split("\r")[1:]
    assert first.startswith(f"accounting [{'.' * render_text.BAR}]   0% 0 records ")
    assert last.startswith(f"accounting [{'#' * render_text.BAR}] 100% 28 records ")
    assert summary.startswith("gridd dbwriter: 28 records")


def test_malformed_records_are_reported(monkeypatch, tmp_path) -> None:
    bad = tmp_path / "accounting"
    bad.write_text((GE / "accounting").read_text() + "all.q:vm:too:short\n")
    code, err = run(monkeypatch, tmp_path, str(bad))
    assert code == 0
    assert f"{bad}: 1 malformed records left out, the first: acct:all.q:vm:too:short" in err


def test_a_missing_file_is_refused_before_anything_is_written(monkeypatch, tmp_path) -> None:
    code, err = run(monkeypatch, tmp_path, str(GE / "accounting"), str(tmp_path / "nope"))
    assert (code, err) == (1, f"gridd dbwriter: no such file: {tmp_path / 'nope'}\n")
    assert not (tmp_path / "common" / "reporting.duckdb").exists()


def test_a_database_held_by_another_process_is_a_message(monkeypatch, tmp_path) -> None:
    path = tmp_path / "r.duckdb"
    holder = subprocess.Popen(
        [sys.executable, "-c", "import duckdb, sys, time; c = duckdb.connect(sys.argv[1]); "
         "print('open', flush=True); time.sleep(60)", str(path)],
        stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline() == "open\n"
        code, err = run(monkeypatch, tmp_path, "--db", str(path), str(GE / "accounting"))
    finally:
        holder.kill()
        holder.wait()
    assert code == 1
    assert err == (f"gridd dbwriter: {path} is in use by another process (a running cell's "
                   "accounting process keeps its database open): stop the cell, or write to "
                   "another --db\n")


def test_a_file_that_is_no_database_is_a_message(monkeypatch, tmp_path) -> None:
    path = tmp_path / "r.duckdb"
    path.write_text("not a database at all" * 100)
    code, err = run(monkeypatch, tmp_path, "--db", str(path), str(GE / "accounting"))
    assert code == 1 and err.startswith(f"gridd dbwriter: cannot open {path}: ")
    assert "Traceback" not in err

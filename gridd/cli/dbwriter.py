"""`gridd dbwriter FILE... [--db PATH]`: build or extend a reporting database from
accounting(5) files (colon lines, or JSON lines as accounting.jsonl holds them) and
reporting(5) files, gridd's, real Grid Engine's or Open Cluster Scheduler's accounting,
as ARCo's dbwriter did for its database.

Each file is read from where the database says the last run stopped (an offset per file),
so running it again on growing files, a cell's `accounting` and `accounting.jsonl` both,
adds only what is new. DuckDB lets one process open a database, so this
fails, with a message, while a running cell's accounting process holds its database.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path
from typing import TextIO

from gridd.cli.render_text import bar

REDRAW = 0.1  # seconds between progress bar updates


def configure(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser(
        "dbwriter", help="load accounting and reporting files into the reporting database")
    parser.add_argument("files", nargs="+", metavar="FILE",
                        help="accounting(5) files (colon or JSON lines) or reporting(5) "
                             "files, told apart by content")
    parser.add_argument("--db", type=Path,
                        help="the database (default: $GRIDD_ROOT/common/reporting.duckdb)")


def cmd_dbwriter(base: Path, args: argparse.Namespace) -> int:
    from gridd import paths

    target: Path = args.db or paths.reporting_db(base)
    missing = [name for name in args.files if not os.path.isfile(name)]
    if missing:
        return _fail(f"no such file: {', '.join(missing)}")
    # the cell's accounting file may not hold all of its database from now on
    own = target.resolve() == paths.reporting_db(base).resolve()
    try:
        return _load(target, [Path(name) for name in args.files],
                     paths.accounting_whole(base) if own else None)
    except KeyboardInterrupt:
        print(file=sys.stderr)
        return _fail("interrupted; what was committed stays, a new run continues from there",
                     code=130)


def _load(target: Path, files: list[Path], marker: Path | None) -> int:
    """Load the files; `marker`: the whole_history marker to take away once the
    database is open for writing (the cell's own database)."""
    import duckdb

    from gridd.accounting import db, schema
    from gridd.accounting.query import first_line

    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        con = db.open_db(target)
    except duckdb.IOException as exc:
        if "lock" in str(exc).lower():
            return _fail(f"{target} is in use by another process (a running cell's accounting "
                         "process keeps its database open): stop the cell, or write to "
                         "another --db")
        return _fail(f"cannot open {target}: {first_line(exc)}")
    except (duckdb.Error, schema.SchemaError, OSError) as exc:
        return _fail(f"cannot open {target}: {first_line(exc)}")
    if marker is not None:
        from gridd.accounting.whole_history import unmark

        unmark(marker)
    total = db.Ingested()
    started = time.perf_counter()
    try:
        for path in files:
            bar = _Bar(path.name, sys.stderr)
            try:
                done = db.ingest_file(con, path, bar.update if bar.shown else None)
            except (duckdb.Error, OSError) as exc:
                bar.close()
                return _fail(f"{path}: {first_line(exc)}")
            bar.close()
            total.add(done)
            if done.rejected:
                print(f"gridd dbwriter: {path}: {done.rejected:,} malformed records left out, "
                      f"the first: {done.first_rejected}", file=sys.stderr)
    finally:
        con.close()
    seconds = time.perf_counter() - started
    print(f"gridd dbwriter: {total.records:,} records ({total.accounting:,} accounting) from "
          f"{len(files)} file{'s' * (len(files) != 1)} into {target} in {seconds:.1f} s "
          f"({total.records / seconds if seconds else 0:,.0f} records/s)", file=sys.stderr)
    return 0


class _Bar:
    """A progress bar on a terminal, redrawn in place; nothing when stderr is redirected."""

    def __init__(self, label: str, out: TextIO) -> None:
        self.label, self.out = label, out
        self.shown = out.isatty()
        self.started = time.perf_counter()
        self.drawn = 0.0

    def update(self, done: int, size: int, records: int) -> None:
        now = time.perf_counter()
        if now - self.drawn < REDRAW and done < size:
            return
        self.drawn = now
        share = done / size if size else 1.0
        rate = records / (now - self.started) if now > self.started else 0.0
        self.out.write(f"\r{self.label} {bar(done, size)} {share:4.0%} "
                       f"{records:,} records {rate:,.0f}/s ")
        self.out.flush()

    def close(self) -> None:
        if self.shown and self.drawn:
            self.out.write("\n")
            self.out.flush()


def _fail(message: str, code: int = 1) -> int:
    print(f"gridd dbwriter: {message}", file=sys.stderr)
    return code

"""`gridd report`: the named SQL reports of reports/, ad hoc read-only SQL, Parquet
snapshots and an HTML page, over the cell's reporting database.

    gridd report                                     list the reports and their parameters
    gridd report NAME [--param K=V]... [--format table|csv|json|parquet] [--out FILE]
    gridd report --sql "SELECT ..." [--param K=V]... [--format ...] [--out FILE]
    gridd report --export DIR                        every table and view as DIR/NAME.parquet
    gridd report --html OUT.html [--param K=V]...    the reports and charts as one page

Analysts run it while the cell runs, so it only reads: anything but a query is refused.
It is a user command: duckdb is imported only once a query is about to run, not to list
the reports or to print a usage error.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from gridd.accounting.query import Result

FORMATS = ("table", "csv", "json", "parquet")


def configure(sub: argparse._SubParsersAction) -> None:
    """Add `report` to gridd's subcommands."""
    parser = sub.add_parser(
        "report", help="run named SQL reports or read-only SQL on the reporting database",
        description="Without arguments, list the named reports.")
    parser.add_argument("name", nargs="?", help="the report to run")
    parser.add_argument("--param", action="append", default=[], metavar="K=V",
                        help="a value for a report's (or the --sql's $K) parameter")
    parser.add_argument("--format", choices=FORMATS, default="table",
                        help="how the rows are written (default: %(default)s)")
    parser.add_argument("--out", metavar="FILE", help="write here instead of to stdout")
    parser.add_argument("--sql", help="run this one read-only SQL statement")
    parser.add_argument("--export", metavar="DIR",
                        help="write a snapshot of every table and view as Parquet files")
    parser.add_argument("--html", metavar="FILE", help="write the reports and charts as a page")


def cmd_report(base: Path, args: argparse.Namespace) -> int:
    from gridd.accounting.query import QueryError
    from gridd.accounting.report_catalog import ReportError

    try:
        return _dispatch(base, args)
    except (QueryError, ReportError, _CommandError) as exc:
        print(f"gridd report: {exc}", file=sys.stderr)
        return 1


class _CommandError(Exception):
    """A command line that asks for something impossible, or output that cannot be written."""


def _dispatch(base: Path, args: argparse.Namespace) -> int:
    actions = [flag for flag, given in (("NAME", args.name), ("--sql", args.sql),
                                        ("--export", args.export), ("--html", args.html))
               if given is not None]
    if len(actions) > 1:
        raise _CommandError(f"error: give one of {', '.join(actions)}, not several")
    params = _params(args.param)
    if args.format == "parquet" and not args.out:
        raise _CommandError("error: --format parquet needs --out FILE")
    if (args.export is not None or args.html is not None) and (
            args.out or args.format != "table"):
        raise _CommandError("error: --out and --format go with a report or --sql")
    if args.export is not None:
        return _export(base, Path(args.export))
    if args.html is not None:
        return _html(base, Path(args.html), params)
    if args.sql is not None:
        from gridd.accounting.query import run_query

        return _emit(run_query(args.sql, params or None, base=base), args)
    if args.name is not None:
        from gridd.accounting import report_catalog

        report = report_catalog.find(args.name)
        return _emit(report_catalog.run(report, params, base), args)
    return _list(params)


def _params(pairs: list[str]) -> dict[str, str]:
    params: dict[str, str] = {}
    for pair in pairs:
        name, sep, value = pair.partition("=")
        if not sep or not name.strip():
            raise _CommandError(f"error: --param {pair!r} is not NAME=VALUE")
        params[name.strip()] = value
    return params


def _list(params: dict[str, str]) -> int:
    from gridd.accounting.report_catalog import load

    if params:
        raise _CommandError("error: --param goes with a report, --sql or --html")
    reports = load()
    if not reports:
        print("no reports")
        return 0
    names = max(len(name) for name in reports)
    titles = max(len(report.title) for report in reports.values())
    for name, report in reports.items():
        params_text = " ".join(p.name if p.default is None else f"[{p.name}={p.default}]"
                               for p in report.params)
        print(f"{name:<{names}}  {report.title:<{titles}}  {params_text}".rstrip())
    return 0


def _emit(result: Result, args: argparse.Namespace) -> int:
    """Print (or write to --out) a result in the asked format."""
    from gridd.accounting import report_format

    if args.format == "parquet":
        from gridd.accounting.report_export import write_parquet

        write_parquet(result, args.out)
        return 0
    text = {"table": report_format.table, "csv": report_format.to_csv,
            "json": report_format.to_json}[args.format](result)
    if args.out:
        _write(Path(args.out), text)
    else:
        sys.stdout.write(text)
    return 0


def _export(base: Path, directory: Path) -> int:
    from gridd.accounting.query import export_snapshot

    exported = export_snapshot(directory, base=base).rows  # (name, path, rows)
    rows = sum(count for _, _, count in exported)
    print(f"gridd report: wrote {len(exported)} Parquet files ({rows} rows) to {directory}")
    return 0


def _html(base: Path, out: Path, params: dict[str, str]) -> int:
    """Run every report that has the values it needs and write the page."""
    from datetime import UTC, datetime

    from gridd import paths
    from gridd.accounting import report_catalog, report_html

    reports = report_catalog.load()
    unknown = report_html.unknown_params(reports, params)
    if unknown:
        raise _CommandError(f"error: no report takes --param {', '.join(unknown)}")
    sections = report_html.sections(
        reports, params, lambda report, own: report_catalog.run(report, own, base))
    page = report_html.render(sections, source=str(paths.reporting_db(base)),
                              generated=datetime.now(UTC))
    _write(out, page)
    print(f"gridd report: wrote {out}")
    return 0


def _write(path: Path, text: str) -> None:
    """Write under a temporary name, then rename: a reader sees the old file or the new."""
    from gridd.accounting.report_export import temporary_beside

    temporary = temporary_beside(path)
    try:
        temporary.write_text(text, encoding="utf-8")
        os.replace(temporary, path)
    except OSError as exc:
        temporary.unlink(missing_ok=True)
        raise _CommandError(f"error: cannot write {path}: {exc.strerror}") from None

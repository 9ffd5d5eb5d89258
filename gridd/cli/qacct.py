"""qacct: usage summaries and job records of finished jobs, with Grid Engine 8.1.9's
options, output and exit codes.

The answer comes from the cell's reporting database (through the master while it runs)
or, with -f, from an accounting file; either way DuckDB selects and sums
(gridd/accounting/qacct_query.py) and only the result is rendered here. A new cell has no
database before its first job is accounted: then the accounting file is read.

Start-up stays light: -help and the checks of the command line load neither duckdb nor
the protocol stack, and an answer from the master needs no duckdb either. The commonest
form, `qacct -j N` of a cell with its database, does not load this module at all: the
job's lines are read from the accounting file while it holds the whole database
(gridd.cli.qacct_quick), else the accounting process runs `printed` and sends the text
(gridd.cli.quick).
"""

from __future__ import annotations

import io
import os
import re
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from typing import IO, TYPE_CHECKING, Any, Protocol

import msgspec

from gridd import paths
from gridd.accounting.qacct_query import (
    DATABASE_ORDER,
    GROUPINGS,
    QacctError,
    Query,
    Request,
    TaskRange,
    cuts_query,
    job_is_id,
    listing_query,
    stretches,
    summary_keys,
    summary_query,
)
from gridd.manual import usage
from gridd.model.values import is_unsigned

if TYPE_CHECKING:
    from gridd.accounting.query import Result

# Options naming a grouping column, each with an optional value that selects one value.
_GROUPING_OPTIONS = {f"-{g.option}": g.option for g in GROUPINGS} | {"-u": "o"}
_FLAGS = ("-help", "-E", "-m", "-json")
_VALUED = ("-b", "-e", "-d", "-f", "-l")  # these always take the next word
# The options qacct takes (gridd.manual.qacct describes them).
OPTIONS = frozenset({*_GROUPING_OPTIONS, *_FLAGS, *_VALUED, "-j", "-t"})
_DAY = 86400
# Records fetched at a time when listing jobs (about as many from a database, whose
# records of one second come together): `qacct -j` of a whole history stays small.
PAGE = 20_000


class UsageError(Exception):
    """A command line qacct refuses; the message (possibly empty) precedes the usage."""


class CommandLine(msgspec.Struct):
    """What to ask (`request`), of which accounting file if not of the cell's records."""

    request: Request = msgspec.field(default_factory=Request)
    file: str | None = None
    help: bool = False
    json: bool = False  # -json: one JSON document instead of the text


def _optional_value(argv: Sequence[str], i: int) -> str | None:
    """The word after option i when it is the option's value (not another option)."""
    if i + 1 < len(argv) and not argv[i + 1].startswith("-"):
        return argv[i + 1]
    return None


def _unsigned(text: str, what: str) -> int:
    if not is_unsigned(text):
        raise UsageError(f"invalid {what}, must be an unsigned integer")
    return int(text)


def _group_name(text: str) -> str:
    """`-g` takes a group id or name; records hold names."""
    if is_unsigned(text):
        import grp

        try:
            return grp.getgrgid(int(text)).gr_name
        except (KeyError, OverflowError):  # no such group; beyond what a gid can be
            pass
    return text


def _grouping(req: Request, option: str, text: str | None) -> None:
    """Record a grouping option and the value it selects (None: every value). An AR id
    or slot count of 0 is GE's "not given": the option is then ignored."""
    if text is not None and option in ("ar", "slots"):
        what = "advance reservation id" if option == "ar" else "number of slots"
        if not _unsigned(text, what):
            req.groups.pop(option, None)
            return
    req.groups[option] = _group_name(text) if option == "g" and text is not None else text


def _date_time(text: str, now: float) -> int:
    from gridd.formats.names import date_time_complaint, parse_date_time

    try:
        return parse_date_time(text, now=now)
    except ValueError:
        raise UsageError(f"\n{date_time_complaint(text)}") from None


_TASK_RANGE = re.compile(r"([0-9]+)(?:-([0-9]+)(?::([0-9]+))?)?")


def _task_ranges(text: str) -> tuple[TaskRange, ...]:
    """`-t n[-m[:s]][,...]`; 0 alone means every task, as in GE."""
    if text == "0":
        return ()
    ranges = []
    for part in text.split(","):
        match = _TASK_RANGE.fullmatch(part)
        if match is None or match[3] is not None and int(match[3]) == 0:
            raise UsageError(f"invalid list of task id ranges: {text}")
        first, last = int(match[1]), int(match[2] or match[1])
        ranges.append(TaskRange(min(first, last), max(first, last), int(match[3] or 1)))
    return tuple(ranges)


def _resources(text: str) -> tuple[str, ...]:
    """`-l a=v,b=w` as the category writes requests; a bare name means any value."""
    from gridd.accounting.record import resource_request

    items = []
    for item in text.split(","):
        name, has_value, value = item.strip().partition("=")
        if name:
            items.append(resource_request(name, value) if has_value else name)
    return tuple(items)


def _window(req: Request, days: int | None, now: float) -> None:
    """-d counts back from -e, forward from -b, or back from now; negative means no limit."""
    if days is None or days < 0 or req.begin is not None and req.end is not None:
        return
    if req.begin is not None:
        req.end = req.begin + days * _DAY
    elif req.end is not None:
        req.begin = req.end - days * _DAY
    else:
        req.begin = int(now) - days * _DAY


def parse_args(argv: Sequence[str], now: float) -> CommandLine:
    """Read the options as GE's qacct does: a grouping option takes the next word as its
    value unless it is another option; UsageError for what qacct refuses."""
    line = CommandLine()
    req = line.request
    days: int | None = None
    i = 0
    while i < len(argv):
        option = argv[i]
        value = _optional_value(argv, i)
        consumed = value is not None
        if option in _FLAGS:
            consumed = False
            line.help |= option == "-help"
            line.json |= option == "-json"
            req.by_end |= option == "-E"
            req.master_only |= option == "-m"
        elif option in _GROUPING_OPTIONS:
            _grouping(req, _GROUPING_OPTIONS[option], value)
        elif option == "-j":
            req.job = value or ""
        elif option == "-t":
            if value is None:
                raise UsageError("-t option must have a list of task id ranges")
            req.tasks = _task_ranges(value)
        elif option in _VALUED:
            if i + 1 >= len(argv):
                raise UsageError("")
            value, consumed = argv[i + 1], True
            if option == "-b":
                req.begin = _date_time(value, now)
            elif option == "-e":
                req.end = _date_time(value, now)
            elif option == "-d":
                if not re.fullmatch(r"-?[0-9]+", value):
                    raise UsageError("")
                days = int(value)
            elif option == "-f":
                line.file = value
            else:
                req.resources = _resources(value)
        elif not option.startswith("-") and line.file is None:
            line.file, consumed = option, False  # `[[-f] acctfile]`
        else:
            raise UsageError("")
        i += 2 if consumed else 1
    if req.tasks and not req.job:
        raise UsageError("error: -t option requires -j option with an argument")
    _window(req, days, now)
    return line


class _Source(Protocol):
    unreadable: bool  # whether its relation names lines that are not records

    def rows(self, query: Query) -> list[tuple[Any, ...]]: ...

    def listing(self, req: Request, size: int) -> Iterator[list[tuple[Any, ...]]]: ...

    def unreadable_entries(self, lines: set[str]) -> list[str]: ...


class _Database:
    """The cell's reporting database, through the master while it runs (`run` given: on
    the accounting process's own cursor). It holds records only, in DATABASE_ORDER."""

    unreadable = False

    def __init__(self, run: Callable[[str, Any], Result] | None = None) -> None:
        self.run = run

    def __enter__(self) -> _Database:
        return self

    def __exit__(self, *exc: object) -> None:
        pass

    def rows(self, query: Query) -> list[tuple[Any, ...]]:
        from gridd.accounting.query import QueryError, run_query

        try:
            return (self.run or run_query)(query.sql, query.params).rows
        except QueryError as err:
            raise QacctError(str(err)) from None

    def listing(self, req: Request, size: int) -> Iterator[list[tuple[Any, ...]]]:
        """The records `req` asks for with -j, a stretch of end times of about `size`
        records at a time (a query each: the master answers each query whole); on the
        accounting process's cursor, which hands over no answer per query, all at once."""
        from gridd.accounting.record import FIELDS

        if self.run is not None:
            yield self.rows(listing_query(req, FIELDS, order=DATABASE_ORDER))
            return
        cuts = [cut for (cut,) in self.rows(cuts_query(req, size))]
        for stretch in stretches(cuts):
            yield self.rows(listing_query(req, FIELDS, order=DATABASE_ORDER, ended=stretch))

    def unreadable_entries(self, lines: set[str]) -> list[str]:
        raise AssertionError("a database has no lines")


class _Answer(Protocol):
    """Where the records and the summary go: qacct's text, or its JSON document."""

    def records(self, records: list[Any]) -> None: ...

    def summary(self, keys: Sequence[Any], rows: Sequence[Sequence[Any]]) -> None: ...

    def total(self, row: Sequence[Any]) -> None: ...

    def close(self, ok: bool) -> None: ...


class _Text:
    """qacct's text, as 8.1.9 prints it."""

    def __init__(self, out: IO[str]) -> None:
        self._out = out

    def records(self, records: list[Any]) -> None:
        from gridd.accounting.render import render_job

        self._out.write("".join(render_job(rec) for rec in records))

    def summary(self, keys: Sequence[Any], rows: Sequence[Sequence[Any]]) -> None:
        from gridd.accounting.render import render_summary

        self._out.write(render_summary(keys, rows))

    def total(self, row: Sequence[Any]) -> None:
        from gridd.accounting.render import render_total

        self._out.write(render_total(row))

    def close(self, ok: bool) -> None:
        pass


def _list_jobs(req: Request, source: _Source, shown: _Answer, unreadable: set[str]) -> bool:
    """Show the records asked for with -j; whether there was any. Lines that are not
    records go to `unreadable`."""
    from gridd.accounting.record import FIELDS, AccountingRecord

    found = False
    for rows in source.listing(req, PAGE):
        records = []
        for row in rows:
            if source.unreadable and row[-1] is not None:
                unreadable.add(row[-1])
            else:
                records.append(AccountingRecord(*row[: len(FIELDS)]))
        shown.records(records)
        found = found or bool(records)
    return found


def _summary(req: Request, source: _Source, shown: _Answer, unreadable: set[str]) -> None:
    keys = summary_keys(req)
    rows = source.rows(summary_query(req, source.unreadable))
    if source.unreadable:
        for row in rows:
            unreadable.update(row[-1] or ())
        rows = [row[:-1] for row in rows]
    if keys:  # a group of nothing but lines that are not records is no group
        shown.summary(keys, [row for row in rows if row[len(keys)]])
    else:
        shown.total(rows[0])


def _not_found(job: str, tasks: tuple[TaskRange, ...]) -> str:
    by_id = job_is_id(job)
    if tasks:
        named = str(int(job)) if by_id else f'"{job}"'
        return f"error: Job-array tasks {named}.{','.join(map(str, tasks))} not found"
    return f"error: job id {int(job)} not found" if by_id else f"error: job name {job} not found"


def answer(req: Request, source: _Source, out: IO[str], err: IO[str],
           as_json: bool = False) -> int:
    """Print what `req` asks for from `source` (as text, or -json's document); the exit
    code. `-j` with a job shows its records only; without one, every record and then
    the summary."""
    if as_json:
        from gridd.cli.render_qacct_json import JsonAnswer

        shown: _Answer = JsonAnswer(out, listing=req.job is not None)
    else:
        shown = _Text(out)
    unreadable: set[str] = set()
    found = _list_jobs(req, source, shown, unreadable) if req.job is not None else False
    if not req.job:
        _summary(req, source, shown, unreadable)
    ok = not (req.job and not found)
    shown.close(ok)
    if unreadable:
        for where in source.unreadable_entries(unreadable):
            err.write(f"error: ignoring invalid entry in {where}\n")
    if not ok:
        err.write(_not_found(req.job, req.tasks) + "\n")
        return 1
    return 0


def _open(line: CommandLine) -> Any:
    """The file asked for; else the database, or the accounting files while there is none:
    `accounting`, and `accounting.jsonl` beside it or instead of it (a cell that accounted
    no job yet has neither: 8.1.9's words for a missing `accounting` then). Where there is
    no cell at all, that is all qacct says."""
    if line.file is not None:
        files = [line.file]
    else:
        if os.path.exists(paths.reporting_db()):
            return _Database()
        common = paths.common_dir()
        if not os.path.isdir(common) or paths.grid_engine_cell(paths.root_dir()):
            raise QacctError(paths.no_cell(None, common))
        both = [str(paths.accounting_file()), str(paths.accounting_json_file())]
        files = [name for name in both if os.path.exists(name)] or both[:1]
    from gridd.accounting.qacct_file import AccountingFile

    job = line.request.job
    return AccountingFile(files, int(job) if job and job_is_id(job) else None)


def printed(argv: Sequence[str], run: Callable[[str, Any], Result],
            now: float) -> tuple[str, str, int]:
    """What qacct prints for `argv` (standard output and error) and its exit code, asked
    of the database `run` queries: the accounting process answers the quick `qacct -j N`
    so (protocol.DbQuery.qacct). A command line that names a file is refused: that
    process reads the database, not the files of whoever asks."""

    def database(line: CommandLine) -> _Database:
        if line.file is not None:
            raise QacctError("error: only the cell's records are asked this way")
        return _Database(run)

    out, err = io.StringIO(), io.StringIO()
    code = _run(argv, now, out, err, database)
    return out.getvalue(), err.getvalue(), code


def main(argv: Sequence[str] | None = None, *, now: float | None = None) -> int:
    return _run(sys.argv[1:] if argv is None else argv, time.time() if now is None else now,
                sys.stdout, sys.stderr, _open)


def _run(argv: Sequence[str], now: float, out: IO[str], err: IO[str],
         source: Callable[[CommandLine], Any]) -> int:
    """qacct's whole run, printing on `out` and `err`, answered from `source(line)`."""
    try:
        line = parse_args(argv, now)
    except UsageError as exc:
        err.write(f"{exc}\n" if str(exc) else "")
        err.write(usage("qacct"))
        return 1
    if line.help:
        out.write(usage("qacct"))
        return 0
    try:
        with source(line) as opened:
            return answer(line.request, opened, out, err, line.json)
    except QacctError as exc:
        out.write(exc.stdout)
        err.write(f"{exc.stderr}\n")
        return 1


if __name__ == "__main__":
    sys.exit(main())

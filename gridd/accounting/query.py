"""Read-only SQL over the cell's reporting database, for qacct and `gridd report`.

DuckDB lets one process open a database file for writing, and then no other process may
open it at all. While the cell runs, the accounting actor (in the process the master
starts for it) owns the file, so it answers queries on a cursor of its own connection
(`execute`); with no master running the file is opened read-only here. Either way a
statement that could write is refused before it runs.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from datetime import date, datetime, time, timedelta
from decimal import Decimal
from typing import TYPE_CHECKING, Any
from uuid import UUID

import msgspec

from gridd import paths
from gridd import protocol as p
from gridd.pidfile import running_master

if TYPE_CHECKING:  # pathlib costs qacct a few milliseconds of start-up
    from pathlib import Path

Params = dict[str, Any] | list[Any] | None


class QueryError(Exception):
    """A query that was refused or failed; the text is fit for the user."""


class Result(msgspec.Struct):
    columns: list[str]
    rows: list[tuple[Any, ...]]
    types: list[str] = msgspec.field(default_factory=list)  # DuckDB type names, as in DESCRIBE


def check_read_only(con: Any, sql: str) -> None:
    """Refuse anything but one SELECT (or EXPLAIN) statement: analysts read, the actor writes."""
    import duckdb

    try:
        statements = con.extract_statements(sql)
    except duckdb.Error as exc:
        raise QueryError(f"error: {first_line(exc)}") from None
    if len(statements) != 1:
        raise QueryError("error: give exactly one SQL statement")
    kind = statements[0].type
    if kind not in (duckdb.StatementType.SELECT, duckdb.StatementType.EXPLAIN):
        raise QueryError(f"error: only queries are allowed here, not {kind.name}")


def execute(con: Any, sql: str, params: Params = None) -> Result:
    """Run one read-only statement on a cursor of `con` (safe beside the actor's writes)."""
    import duckdb

    check_read_only(con, sql)
    cur = con.cursor()
    try:
        cur.execute(sql, params)
        description = cur.description or []
        rows = cur.fetchall()
    except duckdb.Error as exc:
        raise QueryError(f"error: {first_line(exc)}") from None
    finally:
        cur.close()
    return Result([d[0] for d in description], rows, [str(d[1]) for d in description])


def run_query(sql: str, params: Params = None, *, base: Path | None = None) -> Result:
    """Answer a query from the cell's database, read-only: through the master while it
    runs (without importing duckdb here), else from the file."""
    if running_master(base):
        return ask_master(p.DbQuery(sql=sql, params=params), base)
    with open_read_only(base) as con:
        return execute(con, sql, params)


def export_snapshot(directory: Path, *, base: Path | None = None) -> Result:
    """Every table and view as DIRECTORY/NAME.parquet, one consistent snapshot; the
    answer lists them (name, path, rows)."""
    if running_master(base):
        return ask_master(p.DbExport(directory=str(directory.resolve())), base)
    with open_read_only(base) as con:
        return snapshot(con, directory)


def snapshot(con: Any, directory: str | os.PathLike[str], staging: Path | None = None
             ) -> Result:
    """Export on an open database (the file, or the accounting actor's cursor, whose
    database writes only in `staging`)."""
    from gridd.accounting.report_export import export_parquet

    done = export_parquet(con, directory, staging)
    return Result(["name", "path", "rows"], [(e.name, str(e.path), e.rows) for e in done],
                  ["VARCHAR", "VARCHAR", "BIGINT"])


def ask_master(msg: p.DbQuery | p.DbExport, base: Path | None) -> Result:
    from gridd.client import Client, GriddError

    try:
        with Client(base) as client:
            answer = client.request(msg, timeout=None)
    except GriddError as exc:
        raise QueryError(exc.text) from None
    return result_of(answer)


def result_of(answer: p.Msg) -> Result:
    """The master's answer to a DbQuery as a Result, its values read back by their types."""
    if not isinstance(answer, p.DbAnswer):
        raise QueryError(f"error: unexpected answer {type(answer).__name__} from qmaster")
    if answer.error:
        raise QueryError(answer.error)
    readers = [_READERS.get(t.split("(")[0], _same) for t in answer.types]
    rows = [tuple(read(v) if isinstance(v, str) else v
                  for read, v in zip(readers, row, strict=True)) for row in answer.rows]
    return Result(answer.columns, rows, answer.types)


def answer(result: Result) -> p.DbAnswer:
    """A result as it travels: msgpack keeps numbers, text and aware datetimes; other
    values go as text (naive times and dates in ISO form, intervals as ISO durations,
    decimals and numbers beyond 64 bits as digits) and the types say how to read them."""
    rows = [[_wire(v) for v in row] for row in result.rows]
    return p.DbAnswer(columns=result.columns, types=result.types, rows=rows)


def _same(text: str) -> Any:
    return text


def _interval(text: str) -> timedelta:
    return msgspec.json.decode(f'"{text}"', type=timedelta)


# How the text form of a value of each DuckDB type (see `answer`) is read back.
_READERS: dict[str, Callable[[str], Any]] = {
    "TIMESTAMP": datetime.fromisoformat, "TIMESTAMP_S": datetime.fromisoformat,
    "TIMESTAMP_MS": datetime.fromisoformat, "TIMESTAMP_NS": datetime.fromisoformat,
    "DATE": date.fromisoformat, "TIME": time.fromisoformat, "INTERVAL": _interval,
    "DECIMAL": Decimal, "HUGEINT": int, "UHUGEINT": int, "UUID": UUID,
}


def _wire(value: Any) -> Any:
    if isinstance(value, int) and not -(2**63) <= value < 2**64:
        return str(value)
    if isinstance(value, timedelta):
        return msgspec.json.encode(value).decode().strip('"')
    if isinstance(value, (datetime, date, time)) and getattr(value, "tzinfo", None) is None:
        return value.isoformat()
    if isinstance(value, (Decimal, UUID)):
        return str(value)
    return value


def open_read_only(base: Path | None = None) -> Any:
    """The database opened read-only; a clear error when it is missing or held."""
    import duckdb

    path = paths.reporting_db(base)
    if not os.path.exists(path):
        raise QueryError(f"error: no reporting database at {path}")
    try:
        return duckdb.connect(str(path), read_only=True)
    except duckdb.Error as exc:
        raise QueryError(f"error: cannot open {path}: {first_line(exc)}") from None


def first_line(exc: Exception) -> str:
    return str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__

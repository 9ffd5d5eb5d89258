"""Read-only SQL over the cell's reporting database, for qacct and `gridd report`.

DuckDB lets one process open a database file for writing, and then no other process may
open it at all. While the cell runs, the master's accounting actor owns the file, so it
answers queries on a cursor of its own connection (`execute`); with no master running
the file is opened read-only here. Either way a statement that could write is refused
before it runs.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gridd import paths

Params = dict[str, Any] | list[Any] | None


class QueryError(Exception):
    """A query that was refused or failed; the text is fit for the user."""


@dataclass
class Result:
    columns: list[str]
    rows: list[tuple[Any, ...]]
    types: list[str] = field(default_factory=list)  # DuckDB type names, as in DESCRIBE


def check_read_only(con: Any, sql: str) -> None:
    """Refuse anything but one SELECT (or EXPLAIN) statement: analysts read, the actor writes."""
    import duckdb

    try:
        statements = con.extract_statements(sql)
    except duckdb.Error as exc:
        raise QueryError(f"error: {_first_line(exc)}") from None
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
        raise QueryError(f"error: {_first_line(exc)}") from None
    finally:
        cur.close()
    return Result([d[0] for d in description], rows, [str(d[1]) for d in description])


def run_query(sql: str, params: Params = None, *, base: Path | None = None) -> Result:
    """Answer a query from the cell's database, read-only."""
    with open_read_only(base) as con:
        return execute(con, sql, params)


def open_read_only(base: Path | None = None) -> Any:
    """The database opened read-only; a clear error when it is missing or held."""
    import duckdb

    path = paths.reporting_db(base)
    if not os.path.exists(path):
        raise QueryError(f"error: no reporting database at {path}")
    try:
        return duckdb.connect(str(path), read_only=True)
    except duckdb.Error as exc:
        raise QueryError(f"error: cannot open {path}: {_first_line(exc)}") from None


def _first_line(exc: Exception) -> str:
    return str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__

"""The reporting database's schema, migrated by version as ARCo's dbwriter did.

Each file `reports/schema/NNN_name.sql` takes the database from version NNN-1 to NNN and
ends by recording NNN in `sge_version`. Opening a database applies the files it has not
seen, each in a transaction of its own, so a database made by an older gridd is brought
up to date and a failed step leaves the previous version intact.

Before these files existed gridd kept one flat table `accounting`; such a database is
adopted: the table is renamed to `gridd_flat_accounting` for the writer to load into the
new tables (see db.py), and the name `accounting` is the view again.
"""

from __future__ import annotations

import re
from pathlib import Path

import duckdb

from gridd.resources import data_dir

FLAT_TABLE = "gridd_flat_accounting"
_NAME = re.compile(r"(\d{3})_[a-z0-9_]+\.sql")


class SchemaError(Exception):
    """A migration failed or the database is newer than this gridd."""


def migrations() -> list[tuple[int, Path]]:
    """The schema files by version; versions must run 1, 2, 3... without a gap."""
    found = sorted(
        (int(m.group(1)), path)
        for path in (data_dir("reports") / "schema").glob("*.sql")
        if (m := _NAME.fullmatch(path.name))
    )
    if [v for v, _ in found] != list(range(1, len(found) + 1)):
        raise SchemaError(f"schema files are not numbered 1..{len(found)}: {found}")
    return found


def version(con: duckdb.DuckDBPyConnection) -> int:
    """The version a database is at: 0 before the first migration."""
    if not has_table(con, "sge_version"):
        return 0
    (value,) = con.execute("SELECT coalesce(max(v_id), 0) FROM sge_version").fetchone()
    return int(value)


def migrate(con: duckdb.DuckDBPyConnection) -> int:
    """Bring the database to the newest version; return that version."""
    steps = migrations()
    current = version(con)
    if current > len(steps):
        raise SchemaError(f"the database is at schema version {current}, newer than this "
                          f"gridd knows ({len(steps)})")
    if current == 0 and has_table(con, "accounting", "BASE TABLE"):
        con.execute(f"ALTER TABLE accounting RENAME TO {FLAT_TABLE}")
    for number, path in steps[current:]:
        con.execute("BEGIN")
        try:
            con.execute(path.read_text(encoding="utf-8"))
            if version(con) != number:
                raise SchemaError(f"{path.name} did not record version {number} in sge_version")
            con.execute("COMMIT")
        except Exception as exc:
            con.execute("ROLLBACK")
            if isinstance(exc, SchemaError):
                raise
            raise SchemaError(f"{path.name}: {exc}") from exc
    return len(steps)


def has_table(con: duckdb.DuckDBPyConnection, name: str, kind: str | None = None) -> bool:
    """Whether a table (or view, or a table_type of `kind`) of that name exists."""
    query = "SELECT count(*) FROM information_schema.tables WHERE table_name = ?"
    params: list[str] = [name]
    if kind:
        query += " AND table_type = ?"
        params.append(kind)
    (count,) = con.execute(query, params).fetchone()
    return count > 0

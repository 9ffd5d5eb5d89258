"""Parquet files for analysts who want their own DuckDB (or pandas, or Spark) session.

DuckDB lets only one process open the reporting database while the master writes it, so
the way to work on the data elsewhere is a copy. `export_parquet` writes every table and
view of the database as of one moment (one transaction, whatever the accounting actor
commits meanwhile), and every file appears under its final name only once complete
(written under a temporary name, then renamed), so a reader never sees half a file.
It takes a connection, so the CLI calls it on the file opened read-only and the
accounting actor on a cursor of its own connection.
"""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gridd.accounting.query import QueryError, Result, first_line


@dataclass(frozen=True)
class Exported:
    name: str  # the table or view
    path: Path
    rows: int


def export_parquet(con: Any, directory: str | os.PathLike[str],
                   staging: Path | None = None) -> list[Exported]:
    """Write each table and view of the database to DIRECTORY/NAME.parquet, one snapshot.
    A database confined to `staging` (db.confine) writes there; the files then move."""
    import duckdb

    folder = Path(directory)
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise QueryError(f"error: cannot create {folder}: {exc.strerror}") from None
    cur = con.cursor()
    written: list[tuple[Path, Exported]] = []
    try:
        cur.execute("BEGIN TRANSACTION")
        names = [name for (name,) in cur.execute(
            "SELECT table_name FROM duckdb_tables() WHERE database_name = current_database() "
            "AND schema_name = 'main' AND NOT internal AND NOT temporary "
            "UNION ALL SELECT view_name FROM duckdb_views() "
            "WHERE database_name = current_database() AND schema_name = 'main' "
            "AND NOT internal AND NOT temporary ORDER BY 1").fetchall()]
        for name in names:
            final = folder / f"{name}.parquet"
            temporary = temporary_beside(final if staging is None else staging / final.name)
            (rows,) = cur.execute(f"COPY (SELECT * FROM {_identifier(name)}) TO "
                                  f"{_literal(temporary)} (FORMAT PARQUET)").fetchone()
            written.append((temporary, Exported(name, final, int(rows))))
        cur.execute("COMMIT")
        for temporary, exported in written:
            if staging is not None:  # beside the final name first: that rename is atomic
                beside = temporary_beside(exported.path)
                shutil.move(temporary, beside)
                temporary = beside
            os.replace(temporary, exported.path)
    except duckdb.Error as exc:
        _remove(temporary for temporary, _ in written)
        raise QueryError(f"error: export failed: {first_line(exc)}") from None
    except OSError as exc:
        _remove(temporary for temporary, _ in written)
        raise QueryError(f"error: cannot write {exc.filename}: {exc.strerror}") from None
    finally:
        cur.close()
    return [exported for _, exported in written]


def write_parquet(result: Result, path: str | os.PathLike[str]) -> None:
    """A query's answer as one Parquet file with DuckDB's column types.

    The answer has already left DuckDB (it may have come from the master), so it goes
    back in column by column: one typed list per column, unnested side by side, which
    DuckDB converts natively instead of row by row.
    """
    import duckdb

    final = Path(path)
    temporary = temporary_beside(final)
    columns = [list(column) for column in zip(*result.rows, strict=True)] or [
        [] for _ in result.columns]
    select = ", ".join(f"unnest(${i}::{kind}[]) AS {_identifier(name)}"
                       for i, (name, kind) in enumerate(zip(result.columns, result.types,
                                                            strict=True), 1))
    con = duckdb.connect()
    try:
        con.execute(f"CREATE TABLE answer AS SELECT {select}", columns)
        con.execute(f"COPY answer TO {_literal(temporary)} (FORMAT PARQUET)")
        os.replace(temporary, final)
    except duckdb.Error as exc:
        _remove([temporary])
        raise QueryError(f"error: cannot write {final}: {first_line(exc)}") from None
    except OSError as exc:
        _remove([temporary])
        raise QueryError(f"error: cannot write {final}: {exc.strerror}") from None
    finally:
        con.close()


def temporary_beside(final: Path) -> Path:
    """A name beside the final one (so the rename stays on one file system) that no reader
    globbing *.parquet (or opening the final name) picks up."""
    return final.with_name(f".{final.name}.{os.getpid()}.tmp")


def _remove(paths: Any) -> None:
    for path in paths:
        try:
            os.unlink(path)
        except FileNotFoundError:
            pass


def _identifier(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _literal(path: Path) -> str:
    return "'" + str(path).replace("'", "''") + "'"


"""Accounting records in DuckDB, for SQL analysis; the `accounting` file stays the record
GE tools read.

Rows are keyed by the master's outbox sequence number: the accounting actor may re-send a
batch after a crash, and the primary key turns that into a no-op instead of double counting.
"""

from __future__ import annotations

import os

import duckdb

from gridd.accounting.record import FIELDS, AccountingRecord
from gridd.resources import data_dir

_TIME_FIELDS = frozenset({"submission_time", "start_time", "end_time", "ar_submission_time"})
# Separators that cannot occur in accounting text, so a batch travels as one string.
_UNIT = "\x1f"
_ROW = "\x1e"


def open_db(path: str | os.PathLike[str]) -> duckdb.DuckDBPyConnection:
    """Open (creating if needed) the database with its `accounting` table."""
    con = duckdb.connect(str(path))
    con.execute((data_dir("reports") / "accounting.sql").read_text(encoding="utf-8"))
    return con


def _column(index: int, name: str) -> str:
    """SQL for one column of the split batch; the file's 0 for 'never' becomes NULL."""
    text = f"f[{index}]"
    if name in _TIME_FIELDS:
        return f"make_timestamp(NULLIF({text}::BIGINT, 0) * 1000000)"
    return text  # INSERT casts the text to the column's type


def _insert_sql() -> str:
    columns = ", ".join(f'"{name}"' for name in ("seq", *FIELDS))
    values = ", ".join(_column(i, name) for i, name in enumerate(("seq", *FIELDS), 1))
    return (
        f"INSERT INTO accounting ({columns}) SELECT {values} FROM "
        f"(SELECT string_split(row, chr({ord(_UNIT)})) AS f "
        f"FROM (SELECT unnest(string_split($1, chr({ord(_ROW)}))) AS row)) "
        "ON CONFLICT DO NOTHING"
    )


_INSERT = _insert_sql()


def _encode(seq: int, rec: AccountingRecord) -> str:
    cells = [str(seq), *(str(getattr(rec, name)) for name in FIELDS)]
    if any(_UNIT in cell or _ROW in cell for cell in cells):
        raise ValueError(f"accounting record seq {seq} holds a control separator character")
    return _UNIT.join(cells)


def insert_records(
    con: duckdb.DuckDBPyConnection, rows: list[tuple[int, AccountingRecord]]
) -> None:
    """Insert a batch as one statement; seqs already stored are skipped.

    The batch goes over as a single string that DuckDB splits itself: per-row parameters
    (executemany, or a VALUES list) cost far more per row than the statement does.
    """
    unique: dict[int, AccountingRecord] = {}
    for seq, rec in rows:  # a seq repeated inside the batch: the first one counts, like across
        unique.setdefault(seq, rec)
    if unique:
        con.execute(_INSERT, [_ROW.join(_encode(seq, rec) for seq, rec in unique.items())])


def max_seq(con: duckdb.DuckDBPyConnection) -> int:
    """Highest sequence number stored, 0 for an empty table: where re-sending may start."""
    (value,) = con.execute("SELECT coalesce(max(seq), 0) FROM accounting").fetchone()
    return int(value)

"""`qacct -f FILE`: an accounting file as the `accounting` relation, read by DuckDB.

DuckDB reads the file's lines and cuts them into fields itself, so the queries of
qacct_query.py run on a file as they do on the reporting database, several times faster
than the same work in Python. The relation follows the file's rules (record.py): a
line of 43 fields is a record written before GE 6.2 (no advance reservation), and a
line of more than 45 has ':' in its category, the one field that may hold it. Numbers
are read as Grid Engine's qacct reads them, leniently (what is not a number counts 0);
lines of any other length are not records, and GE's qacct names them on stderr. The
relation has one column more than the database's, `unreadable`, for those lines: the
queries carry them along (qacct_query.py), so that the file is read once.
"""

from __future__ import annotations

import codecs
import tempfile
from collections.abc import Iterator
from dataclasses import fields
from typing import IO, Any

from gridd.accounting.qacct_query import QacctError, Query, Request, listing_query
from gridd.accounting.query import first_line
from gridd.accounting.record import CATEGORY, FIELDS, PRE_62_COUNT, TIME_FIELDS, AccountingRecord
from gridd.accounting.record_sql import acct_text

_KINDS = {f.name: str(f.type) for f in fields(AccountingRecord)}


def _field(name: str) -> str:
    """SQL for one column of the split line `p`, whose category spans `extra` more
    fields; numbers read leniently."""
    text = acct_text(name, "p", "extra")
    if _KINDS[name] == "str":
        return text
    number = f"coalesce(TRY_CAST({text} AS {'DOUBLE' if _KINDS[name] == 'float' else 'BIGINT'}), 0)"
    if name in TIME_FIELDS:
        return f"make_timestamp(NULLIF({number}, 0) * 1000000)"
    return number


def _tail_fits() -> str:
    """SQL: the fields after a category holding ':' have their types (record.py's rule:
    a line with fields to spare is taken as such a category only then)."""
    checks = [
        f"TRY_CAST(p[len(p) - {len(_KINDS) - 1 - i}] AS DOUBLE) IS NOT NULL"
        for i, name in enumerate(_KINDS)
        if i > CATEGORY and _KINDS[name] != "str"
    ]
    return " AND ".join(checks)


_RECORD = (
    f"len(p) = {PRE_62_COUNT} OR len(p) = {len(FIELDS)} "
    f"OR len(p) > {len(FIELDS)} AND {_tail_fits()}"
)
# One pass over the lines: a line that is not a record comes out as a row whose fields
# are empty (NULL text, numbers 0) and whose `unreadable` is the line.
_RELATION = (
    "SELECT "
    + ", ".join(f'{_field(name)} AS "{name}"' for name in _KINDS)
    + ", CASE WHEN NOT record THEN line END AS unreadable FROM ("
    f"SELECT line, record, CASE WHEN record THEN p END AS p, "
    f"greatest(len(p) - {len(FIELDS)}, 0) AS extra FROM ("
    f"SELECT line, p, {_RECORD} AS record FROM ("
    "SELECT line, string_split(line, ':') AS p FROM lines)))"
)


class AccountingFile:
    """An open accounting file answering qacct's queries; its records come in the
    file's order, which is the order they were accounted in.

    `containing`, when given, is text every line of interest contains (`:47:` for job 47):
    lines without it are skipped before they are split, which makes `qacct -f FILE -j N`
    about as fast as a scan of the file.
    """

    unreadable = True

    def __init__(self, path: str, containing: str | None = None) -> None:
        import duckdb

        self._duckdb = duckdb
        self._path = path
        self._containing = containing
        self._decoded: IO[bytes] | None = None
        try:
            with open(path, "rb"):  # say what GE says before DuckDB says it differently
                pass
        except OSError as exc:  # missing, unreadable, or a directory
            why = (f"{path}: No such file or directory" if isinstance(exc, FileNotFoundError)
                   else f"error: unable to open {path}")
            raise QacctError(why, stdout="no jobs running since startup\n") from None
        self._con = duckdb.connect()
        self._define(path)

    def __enter__(self) -> AccountingFile:
        return self

    def __exit__(self, *exc: object) -> None:
        self._con.close()
        if self._decoded is not None:
            self._decoded.close()

    def _define(self, path: str) -> None:
        quoted = path.replace("'", "''")
        only = ""
        if self._containing is not None:
            only = f" AND contains(line, '{self._containing.replace(chr(39), chr(39) * 2)}')"
        self._con.execute(
            "CREATE OR REPLACE TEMP VIEW lines AS SELECT line FROM read_csv("
            f"'{quoted}', columns={{'line': 'VARCHAR'}}, delim='\\x01', quote='', escape='', "
            "header=false, auto_detect=false, strict_mode=false) "
            f"WHERE line <> '' AND NOT starts_with(line, '#'){only}"
        )
        self._con.execute(f"CREATE OR REPLACE TEMP VIEW accounting AS {_RELATION}")

    def rows(self, query: Query) -> list[tuple[Any, ...]]:
        return [row for batch in self.batches(query, 1 << 20) for row in batch]

    def listing(self, req: Request, size: int) -> Iterator[list[tuple[Any, ...]]]:
        """The records `req` asks for with -j, in file order, `size` at a time: one pass
        over the file, whatever its length."""
        return self.batches(listing_query(req, FIELDS, unreadable=True), size)

    def batches(self, query: Query, size: int) -> Iterator[list[tuple[Any, ...]]]:
        """The rows of `query`, `size` at a time, from one cursor. A file found not to be
        UTF-8 on the way is read again decoded, from the row after the last one given."""
        given = 0
        while True:
            try:
                cursor = self._con.execute(query.sql, query.params)
                skip = given
                while skip > 0 and (batch := cursor.fetchmany(min(skip, size))):
                    skip -= len(batch)
                while batch := cursor.fetchmany(size):
                    given += len(batch)
                    yield batch
                return
            except self._duckdb.InvalidInputException as exc:
                if "unicode" not in str(exc).lower() or self._decoded is not None:
                    raise QacctError(f"error: {self._path}: {first_line(exc)}") from None
                self._decode()  # not UTF-8 throughout: read it with replacement characters
            except self._duckdb.Error as exc:
                raise QacctError(f"error: {self._path}: {first_line(exc)}") from None

    def _decode(self) -> None:
        """Read a copy of the file in UTF-8, with U+FFFD for bytes that were not UTF-8."""
        decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self._decoded = tempfile.NamedTemporaryFile(prefix="qacct-", suffix=".utf8")
        with open(self._path, "rb") as source:
            while chunk := source.read(1 << 22):
                self._decoded.write(decoder.decode(chunk).encode())
            self._decoded.write(decoder.decode(b"", final=True).encode())
        self._decoded.flush()
        self._define(self._decoded.name)

    def line_numbers(self, lines: set[str]) -> list[int]:
        """Where `lines` are in the file, counted as GE's qacct counts (comments and empty
        lines not counted): read again only when there are lines to name."""
        numbers, number = [], 0
        path = self._decoded.name if self._decoded is not None else self._path
        with open(path, encoding="utf-8", errors="replace", newline="\n") as stream:
            for raw in stream:
                line = raw.rstrip("\r\n")
                if not line or line.startswith("#"):
                    continue
                number += 1
                if line in lines:
                    numbers.append(number)
        return numbers

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

A file whose first record is a JSON object holds JSON lines (accounting.jsonl,
record_json.py): each line is taken apart into the same fields, and one that is not a
record (not JSON, or without a key every record has) is named as a colon line of the
wrong length is. Several files (a cell's `accounting` and `accounting.jsonl`, when its
accounting_format changed) are one relation, their records in the order jobs ended in.
"""

from __future__ import annotations

import codecs
import tempfile
from collections.abc import Iterator, Sequence
from dataclasses import fields
from typing import IO, Any

from gridd.accounting import record_json
from gridd.accounting.accounting_file import holds_json
from gridd.accounting.qacct_query import (
    DATABASE_ORDER,
    QacctError,
    Query,
    Request,
    listing_query,
)
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
_COLON_SPLIT = "SELECT line, string_split(line, ':') AS p FROM {lines}"
_JSON_SPLIT = (f"SELECT line, {record_json.fields_sql('x')} AS p FROM "
               f"(SELECT line, {record_json.extract_sql('line')} AS x FROM {{lines}})")


def _relation(lines: str, json_lines: bool) -> str:
    """One pass over the view `lines`: a line that is not a record comes out as a row
    whose fields are empty (NULL text, numbers 0) and whose `unreadable` is the line."""
    split = (_JSON_SPLIT if json_lines else _COLON_SPLIT).format(lines=lines)
    return (
        "SELECT "
        + ", ".join(f'{_field(name)} AS "{name}"' for name in _KINDS)
        + ", CASE WHEN NOT record THEN line END AS unreadable FROM ("
        f"SELECT line, record, CASE WHEN record THEN p END AS p, "
        f"greatest(len(p) - {len(FIELDS)}, 0) AS extra FROM ("
        f"SELECT line, p, {_RECORD} AS record FROM ({split})))"
    )


class AccountingFile:
    """Open accounting files answering qacct's queries; the records of one file come in
    its order, which is the order they were accounted in, those of several in the order
    jobs ended in.

    `job`, when given, is the job asked for with -j: lines that do not contain its number
    (`:47:` in a colon line) are skipped before they are split, which makes
    `qacct -f FILE -j N` about as fast as a scan of the file.
    """

    unreadable = True

    def __init__(self, paths: Sequence[str], job: int | None = None) -> None:
        import duckdb

        self._duckdb = duckdb
        self._paths = list(paths)
        self._job = job
        self._decoded: list[IO[bytes]] = []
        for path in self._paths:
            try:
                with open(path, "rb"):  # say what GE says before DuckDB says it differently
                    pass
            except OSError as exc:  # missing, unreadable, or a directory
                why = (f"{path}: No such file or directory"
                       if isinstance(exc, FileNotFoundError) else f"error: unable to open {path}")
                raise QacctError(why, stdout="no jobs running since startup\n") from None
        self._json = [holds_json(path) for path in self._paths]
        self._order = DATABASE_ORDER if len(self._paths) > 1 else ""
        self._con = duckdb.connect()
        self._define(self._paths)

    def __enter__(self) -> AccountingFile:
        return self

    def __exit__(self, *exc: object) -> None:
        self._con.close()
        for copy in self._decoded:
            copy.close()

    def _containing(self, json_lines: bool) -> str:
        """SQL: the condition a line of interest meets (a JSON line's spacing is free)."""
        if self._job is None:
            return ""
        return f" AND contains(line, '{self._job if json_lines else f':{self._job}:'}')"

    def _define(self, paths: Sequence[str]) -> None:
        """The `accounting` view over `paths` (the files, or their decoded copies)."""
        relations = []
        for i, (path, json_lines) in enumerate(zip(paths, self._json, strict=True)):
            quoted = path.replace("'", "''")
            self._con.execute(
                f"CREATE OR REPLACE TEMP VIEW lines_{i} AS SELECT line FROM read_csv("
                f"'{quoted}', columns={{'line': 'VARCHAR'}}, delim='\\x01', quote='', "
                "escape='', header=false, auto_detect=false, strict_mode=false) "
                f"WHERE line <> '' AND NOT starts_with(line, '#'){self._containing(json_lines)}"
            )
            relations.append(_relation(f"lines_{i}", json_lines))
        self._con.execute(
            f"CREATE OR REPLACE TEMP VIEW accounting AS {' UNION ALL '.join(relations)}")

    def rows(self, query: Query) -> list[tuple[Any, ...]]:
        return [row for batch in self.batches(query, 1 << 20) for row in batch]

    def listing(self, req: Request, size: int) -> Iterator[list[tuple[Any, ...]]]:
        """The records `req` asks for with -j, `size` at a time: one pass over the
        files, whatever their length."""
        return self.batches(listing_query(req, FIELDS, order=self._order, unreadable=True),
                            size)

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
                if "unicode" not in str(exc).lower() or self._decoded:
                    raise QacctError(f"error: {self._named()}: {first_line(exc)}") from None
                self._decode()  # not UTF-8 throughout: read it with replacement characters
            except self._duckdb.Error as exc:
                raise QacctError(f"error: {self._named()}: {first_line(exc)}") from None

    def _named(self) -> str:
        return ", ".join(self._paths)

    def _decode(self) -> None:
        """Read copies of the files in UTF-8, with U+FFFD for bytes that were not UTF-8."""
        for path in self._paths:
            decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
            copy = tempfile.NamedTemporaryFile(prefix="qacct-", suffix=".utf8")
            self._decoded.append(copy)
            with open(path, "rb") as source:
                while chunk := source.read(1 << 22):
                    copy.write(decoder.decode(chunk).encode())
                copy.write(decoder.decode(b"", final=True).encode())
            copy.flush()
        self._define([copy.name for copy in self._decoded])

    def unreadable_entries(self, lines: set[str]) -> list[str]:
        """Where `lines` are, "line N" counted as GE's qacct counts (comments and empty
        lines not counted), "of FILE" after it when there are several: the files are read
        again only when there are lines to name."""
        found = []
        read = [copy.name for copy in self._decoded] or self._paths
        for path, shown in zip(read, self._paths, strict=True):
            of = f" of {shown}" if len(self._paths) > 1 else ""
            number = 0
            with open(path, encoding="utf-8", errors="replace", newline="\n") as stream:
                for raw in stream:
                    line = raw.rstrip("\r\n")
                    if not line or line.startswith("#"):
                        continue
                    number += 1
                    if line in lines:
                        found.append(f"line {number}{of}")
        return found

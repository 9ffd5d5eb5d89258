"""Reading accounting and reporting files in chunks, and where a file was read up to.

A file's progress is its row in ARCo's sge_checkpoint (with gridd's columns: the file,
the byte offset, and the size and hash of the file's head when first read), saved in
the transaction that stores the chunk's records. The head tells a file that grew from
one that was replaced or rotated, which is read from its start again.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

import duckdb

from gridd.accounting.record_sql import TYPE_NAMES

HEAD_BYTES = 4096  # bytes of a file's head that identify it across runs

_REPORTING_LINE = re.compile(rf"\d+:({'|'.join(TYPE_NAMES)}):")


def read_lines(f: BinaryIO, size: int) -> bytes:
    """The next chunk of about `size` bytes of whole lines (b"" at the end, or when only a
    torn line, still being written, is left)."""
    start = f.tell()
    want = size
    while True:
        data = f.read(want)
        cut = data.rfind(b"\n")
        if cut >= 0:
            f.seek(start + cut + 1)
            return data[: cut + 1]
        if len(data) < want:  # end of file inside a line: leave it for next time
            f.seek(start)
            return b""
        f.seek(start)
        want *= 2


def is_reporting(record: bytes | None) -> bool:
    """Whether a file's first record (record_json.first_record) is a reporting file's:
    its records start "time:type:"; an accounting file's with a queue."""
    return record is not None and bool(
        _REPORTING_LINE.match(record.decode("utf-8", errors="replace")))


@dataclass
class FileMark:
    """A file's row in sge_checkpoint: how far it was read, and what its head was."""

    ch_id: int
    file: str
    offset: int
    line: int
    head_size: int
    head_hash: str

    @classmethod
    def load(cls, con: duckdb.DuckDBPyConnection, path: Path, f: BinaryIO,
             size: int) -> FileMark:
        """Where to go on in the file open as `f` (of `size` bytes): 0 for a new one."""
        name = str(path.resolve())
        row = con.execute(
            "SELECT ch_id, ch_offset, ch_line, ch_head_size, ch_head_hash FROM sge_checkpoint "
            "WHERE ch_file = ?", [name]).fetchone()
        if row:
            ch_id, offset, line, head_size, head_hash = row
            if size >= offset and _head(f, head_size) == head_hash:
                return cls(ch_id, name, offset, line, head_size, head_hash)
        else:
            (ch_id,) = con.execute(
                "SELECT coalesce(max(ch_id), 0) + 1 FROM sge_checkpoint").fetchone()
        head_size = min(size, HEAD_BYTES)
        return cls(ch_id, name, 0, 0, head_size, _head(f, head_size))

    def advance(self, size: int, lines: int) -> None:
        self.offset += size
        self.line += lines

    def save(self, con: duckdb.DuckDBPyConnection) -> None:
        con.execute(
            "INSERT OR REPLACE INTO sge_checkpoint (ch_id, ch_line, ch_time, ch_file, ch_offset, "
            "ch_head_size, ch_head_hash) "
            "VALUES (?, ?, current_timestamp AT TIME ZONE 'UTC', ?, ?, ?, ?)",
            [self.ch_id, self.line, self.file, self.offset, self.head_size, self.head_hash])


def _head(f: BinaryIO, size: int) -> str:
    f.seek(0)
    return hashlib.sha256(f.read(size)).hexdigest()

"""The accounting files on disk: durable appends, reading, and crash recovery help.

The accounting actor is the only writer. A crash can leave a torn last line, so an append
first cuts the file back to its last complete line; `tail_keys` then tells the restarted
actor which records already made it to disk. The `reporting` file has the same header and
is appended the same way (`append_lines`, `tail_lines`). `accounting.jsonl` holds the same
records as JSON lines (record_json.py), without a header, appended by the same rules;
readers tell the two forms apart by a file's first record.
"""

from __future__ import annotations

import io
import os
from collections.abc import Iterable, Iterator
from pathlib import Path

from gridd.accounting.record import FILE_HEADER, AccountingRecord, to_line
from gridd.accounting.record_json import holds_json_lines, parse, to_json
from gridd.durable import fsync_dir, write_all

_CHUNK = 64 * 1024

RecordKey = tuple[int, int, str, int, int]


def _complete_length(fd: int, size: int) -> int:
    """Length of the file up to and including its last newline."""
    end = size
    while end > 0:
        start = max(0, end - _CHUNK)
        chunk = os.pread(fd, end - start, start)
        cut = chunk.rfind(b"\n")
        if cut >= 0:
            return start + cut + 1
        end = start
    return 0


def append_records(path: str | os.PathLike[str], records: Iterable[AccountingRecord], *,
                   json_lines: bool = False) -> None:
    """Append records, as colon lines or JSON lines, and return only once they are on
    disk (the master's outbox relies on it)."""
    if json_lines:
        append_lines(path, map(to_json, records), header=())
    else:
        append_lines(path, map(to_line, records))


def append_lines(path: str | os.PathLike[str], lines: Iterable[str],
                 header: tuple[str, ...] = FILE_HEADER) -> None:
    """Append lines (without their newlines) to an accounting or reporting file, durably.

    A torn last line left by a crash is cut off first; a new or empty file gets `header`.
    """
    path = Path(path)
    created = not path.exists()
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        size = os.fstat(fd).st_size
        keep = _complete_length(fd, size)
        if keep != size:
            os.ftruncate(fd, keep)
        text = "".join(f"{line}\n" for line in (*(header if keep == 0 else ()), *lines))
        os.lseek(fd, keep, os.SEEK_SET)
        write_all(fd, text.encode())
        os.fsync(fd)
    finally:
        os.close(fd)
    if created:
        fsync_dir(path.parent)


def holds_json(path: str | os.PathLike[str]) -> bool:
    """Whether a file's records are JSON lines: its first record tells."""
    with open(path, "rb") as stream:
        return holds_json_lines(stream)


def read_records(path: str | os.PathLike[str]) -> Iterator[AccountingRecord]:
    """Yield the file's records in order, colon or JSON lines; a malformed line raises
    ValueError naming it."""
    with open(path, "rb") as raw:
        json_lines = holds_json_lines(raw)
        raw.seek(0)
        stream = io.TextIOWrapper(raw, encoding="utf-8", errors="surrogateescape")
        for number, line in enumerate(stream, 1):
            try:
                record = parse(line, json_lines)
            except ValueError as err:
                raise ValueError(f"{path}:{number}: {err}") from None
            if record is not None:
                yield record


def _last_lines(path: Path, n: int) -> list[bytes]:
    """The last n complete lines, read backwards so a huge file costs only its tail."""
    with open(path, "rb") as stream:
        end = _complete_length(stream.fileno(), os.fstat(stream.fileno()).st_size)
        data = b""
        start = end
        while start > 0 and data.count(b"\n") <= n:
            start = max(0, start - _CHUNK)
            data = os.pread(stream.fileno(), end - start, start)
    return data.splitlines()[-n:] if n > 0 else []


def tail_lines(path: str | os.PathLike[str], n: int) -> list[str]:
    """The last n complete lines that are not comments (the header), oldest first."""
    path = Path(path)
    if not path.exists():
        return []
    lines = (raw.decode("utf-8", "surrogateescape") for raw in _last_lines(path, n))
    return [line for line in lines if not line.startswith("#")]


def tail_keys(path: str | os.PathLike[str], n: int) -> set[RecordKey]:
    """The keys (record_key) of the last n records on disk.

    Header lines and lines that do not parse count against n but give no key: recovery only
    needs to know what certainly was written.
    """
    path = Path(path)
    if not path.exists():
        return set()
    keys: set[RecordKey] = set()
    for raw in _last_lines(path, n):
        try:  # a JSON line is one, whatever the file's other lines: the tail tells
            rec = parse(raw.decode("utf-8", "surrogateescape"), raw.startswith(b"{"))
        except ValueError:
            continue
        if rec is not None:
            keys.add(record_key(rec))
    return keys


def record_key(rec: AccountingRecord) -> RecordKey:
    """What tells a record from any other: a job's task, its PE task (two of qrsh
    -inherit may start and end in the same second) and its run's times."""
    return (rec.job_number, rec.task_number, rec.pe_taskid, int(rec.start_time),
            int(rec.end_time))

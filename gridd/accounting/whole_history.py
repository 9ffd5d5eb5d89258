"""Whether the cell's accounting file holds the reporting database's whole accounting
history: then `qacct -j N` reads the file, as Grid Engine's qacct does, in a fraction of
the time that a connection to the master and a DuckDB query take (gridd.cli.qacct_quick).

The database is what qacct answers from; the file may hold less of it: accounting may
have been switched off, or to JSON lines, for a while (records in the database alone),
the file may have been rotated, cut or replaced, `gridd dbwriter` may have added other
files' records. So the accounting process, the only writer of both while the cell runs,
counts the records of each after every batch: where the counts are equal it leaves a
marker (`common/.accounting.whole`: the file's inode and size), where they differ it
takes the marker away. A reader trusts the marker only while the file is that inode at
that size: a record appended since (its batch not yet in the database), or any change by
hand, sends it to the database. The marker goes at the accounting process's start, before
anything else, and `gridd dbwriter` takes it away before it writes the cell's database:
the database may have changed while no accounting process watched it.

Equal counts stand for equal records: the file's records all went to the database too
(each line of a batch goes to both), so the database holds no other only where it holds
as many. What is not seen is an edit by hand that keeps the file's size, which the
file's header forbids ("DO NOT MODIFY THIS FILE MANUALLY!").
"""

from __future__ import annotations

import os

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path

State = tuple[int, int]  # a file's inode and size
_CHUNK = 1 << 20


def state(path: str | os.PathLike[str]) -> State | None:
    """The file's inode and size; None when there is none."""
    try:
        st = os.stat(path)
    except FileNotFoundError:
        return None
    return st.st_ino, st.st_size


def marked(marker: str | os.PathLike[str]) -> State | None:
    """The state the marker vouches for; None without a (readable) marker."""
    try:
        with open(marker, "rb") as f:
            inode, size = f.read(64).split()
        return int(inode), int(size)
    except (OSError, ValueError):
        return None


def mark(marker: Path, file_state: State) -> None:
    """Vouch for the file at `file_state`; the marker is replaced whole, never torn."""
    temporary = marker.with_name(marker.name + ".new")
    temporary.write_text(f"{file_state[0]} {file_state[1]}\n")
    os.replace(temporary, marker)


def unmark(marker: Path) -> None:
    marker.unlink(missing_ok=True)


def count_records(path: str | os.PathLike[str]) -> int:
    """The records of an accounting file: its complete lines but the comments (the
    header). Counted by the byte, not read line by line: the accounting process counts
    a file of millions of records when it starts."""
    count, last = 0, b"\n"
    try:
        with open(path, "rb") as f:
            while chunk := f.read(_CHUNK):
                count += chunk.count(b"\n") - (last + chunk).count(b"\n#")
                last = chunk[-1:]
    except FileNotFoundError:
        return 0
    return count


class Keeper:
    """The accounting process's side: what it knows of the file's records, and the
    marker it keeps by the database's count."""

    def __init__(self, file: Path, marker: Path) -> None:
        self.file, self.marker = file, marker
        self._counted: tuple[State, int] | None = None  # the file's records at a state
        self._marked: State | None = None
        unmark(marker)

    def appending(self) -> State | None:
        """Call before appending to the file; pass what it returns to `appended`."""
        return state(self.file)

    def appended(self, before: State | None, records: int) -> None:
        """The process appended `records` to the file it found at `before`: the count
        follows without reading the file again, if it was the file counted."""
        after = state(self.file)
        if before is None:  # a new file: the header and these records
            counted = 0
        elif self._counted is not None and self._counted[0] == before:
            counted = self._counted[1]
        else:
            self._counted = None
            return
        self._counted = (after, counted + records) if after is not None else None

    def forget(self) -> None:
        """Know nothing: take the marker away and count the file again."""
        self._counted = self._marked = None
        unmark(self.marker)

    def judge(self, database_records: int) -> None:
        """Mark the file whole if it has as many records as the database, or unmark."""
        now = state(self.file)
        if now is not None and (self._counted is None or self._counted[0] != now):
            self._counted = (now, count_records(self.file))
            if state(self.file) != now:  # changed while being read: count it next time
                self._counted, now = None, None
        if now is not None and self._counted is not None and (
                self._counted[1] == database_records):
            if self._marked != now:
                mark(self.marker, now)
                self._marked = now
        elif self._marked is not None:
            unmark(self.marker)
            self._marked = None

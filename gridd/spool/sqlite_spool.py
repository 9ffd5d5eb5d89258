"""The sqlite spooling method: every object a row of msgpack in one SQLite database.

WAL with synchronous=FULL makes each commit durable before the master answers; one
transaction per burst of requests keeps the fsync cost per burst, not per job. Readers
in other processes (`gridd spool check`, a backup) see the last commit, never half of one.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path

import msgspec

from gridd.spool.base import Change, Spool, SpoolError
from gridd.spool.records import TYPES

FILE = "spool.db"

_SCHEMA = """
CREATE TABLE IF NOT EXISTS objects (kind TEXT NOT NULL, key TEXT NOT NULL, body BLOB NOT NULL,
                                    PRIMARY KEY (kind, key)) WITHOUT ROWID;
"""


class SqliteSpool(Spool):
    method = "sqlite"

    def __init__(self, path: Path) -> None:
        super().__init__(path)
        try:
            path.mkdir(parents=True, exist_ok=True)
            self.db = sqlite3.connect(path / FILE, isolation_level=None,
                                      check_same_thread=False)
            self.db.execute("PRAGMA journal_mode=WAL")
            self.db.execute("PRAGMA synchronous=FULL")
            self.db.executescript(_SCHEMA)
        except (OSError, sqlite3.Error) as exc:
            raise SpoolError(f"cannot open the spool {path / FILE}: {exc}") from exc
        self._enc = msgspec.msgpack.Encoder()
        self._dec = {kind: msgspec.msgpack.Decoder(t) for kind, t in TYPES.items()}

    def read_all(self) -> Iterator[tuple[str, str, object]]:
        try:
            rows = self.db.execute("SELECT kind, key, body FROM objects").fetchall()
        except sqlite3.Error as exc:
            raise SpoolError(f"cannot read the spool: {exc}") from exc
        for kind, key, body in rows:
            decoder = self._dec.get(kind)
            if decoder is None:
                raise SpoolError(f"unknown object kind {kind!r} (key {key!r})")
            try:
                yield kind, key, decoder.decode(body)
            except msgspec.DecodeError as exc:
                raise SpoolError(f"{kind} {key}: {exc}") from exc

    def write(self, changes: list[Change]) -> None:
        puts = [(c.kind, c.key, self._enc.encode(c.obj)) for c in changes if c.obj is not None]
        deletes = [(c.kind, c.key) for c in changes if c.obj is None]
        try:
            self.db.execute("BEGIN IMMEDIATE")
            try:
                self.db.executemany(
                    "INSERT OR REPLACE INTO objects (kind, key, body) VALUES (?, ?, ?)", puts)
                self.db.executemany("DELETE FROM objects WHERE kind = ? AND key = ?", deletes)
                self.db.execute("COMMIT")
            except BaseException:
                if self.db.in_transaction:  # SQLITE_FULL at COMMIT has rolled back already
                    self.db.execute("ROLLBACK")
                raise
        except sqlite3.Error as exc:
            raise SpoolError(f"cannot write the spool: {exc}") from exc

    def backup(self, target: Path) -> None:
        try:
            target.mkdir(parents=True, exist_ok=True)
            copy = sqlite3.connect(target / FILE)
            try:
                self.db.backup(copy)
            finally:
                copy.close()
        except (OSError, sqlite3.Error) as exc:
            raise SpoolError(f"cannot back up the spool to {target}: {exc}") from exc

    def close(self) -> None:
        self.db.close()

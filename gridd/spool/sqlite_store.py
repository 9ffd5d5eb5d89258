"""The master's spool: every object in one SQLite database, one transaction per batch.

WAL with synchronous=FULL makes each commit durable before the master answers; batching
every request that arrived together into one commit keeps the fsync cost per batch, not
per job.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable
from pathlib import Path

import msgspec

from gridd.master.core import MasterState
from gridd.model.ar import AdvanceReservation
from gridd.model.cluster import ExecHost
from gridd.model.config import Configuration
from gridd.model.job import Job
from gridd.model.report import Report

_SCHEMA = """
CREATE TABLE IF NOT EXISTS objects (kind TEXT NOT NULL, key TEXT NOT NULL, body BLOB NOT NULL,
                                    PRIMARY KEY (kind, key)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS counters (name TEXT PRIMARY KEY, value INTEGER NOT NULL);
"""

_TYPES: dict[str, type] = {"job": Job, "host": ExecHost, "outbox": tuple[int, int],
                           "config": Configuration, "flags": dict[str, str],
                           "ar": AdvanceReservation, "report": Report}


class SpoolError(Exception):
    """The spool could not make a change durable; the request must fail."""


class SqliteSpool:
    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.db = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute("PRAGMA synchronous=FULL")
        self.db.executescript(_SCHEMA)
        self._enc = msgspec.msgpack.Encoder()
        self._dec = {kind: msgspec.msgpack.Decoder(t) for kind, t in _TYPES.items()}

    def load(self) -> MasterState:
        state = MasterState()
        tables = {"job": state.jobs, "host": state.hosts, "ar": state.ars,
                  "report": state.reports}
        for kind, key, body in self.db.execute("SELECT kind, key, body FROM objects"):
            obj = self._dec[kind].decode(body)
            if kind == "outbox":
                state.outbox[int(key)] = tuple(obj)
            elif kind == "config":
                state.config = obj
            elif kind == "flags":
                state.flags = obj
            else:
                tables[kind][key if kind == "host" else int(key)] = obj
        counters = dict(self.db.execute("SELECT name, value FROM counters"))
        state.next_job_id = counters.get("next_job_id", 1)
        state.next_seq = counters.get("next_seq", 1)
        state.next_ar_id = counters.get("next_ar_id", 1)  # arseqnum
        return state

    def is_empty(self) -> bool:
        return self.db.execute("SELECT count(*) FROM objects").fetchone()[0] == 0 and not (
            self.db.execute("SELECT count(*) FROM counters").fetchone()[0]
        )

    def commit(
        self,
        puts: Iterable[tuple[str, str, object]],
        deletes: Iterable[tuple[str, str]],
        counters: dict[str, int] | None = None,
    ) -> None:
        """Apply one batch atomically and durably, or raise SpoolError and change nothing."""
        rows = [(kind, key, self._enc.encode(obj)) for kind, key, obj in puts]
        try:
            self.db.execute("BEGIN IMMEDIATE")
            try:
                self.db.executemany(
                    "INSERT OR REPLACE INTO objects (kind, key, body) VALUES (?, ?, ?)", rows)
                self.db.executemany("DELETE FROM objects WHERE kind = ? AND key = ?",
                                    list(deletes))
                if counters:
                    self.db.executemany(
                        "INSERT OR REPLACE INTO counters (name, value) VALUES (?, ?)",
                        list(counters.items()))
                self.db.execute("COMMIT")
            except BaseException:
                self.db.execute("ROLLBACK")
                raise
        except sqlite3.Error as exc:
            raise SpoolError(f"cannot write spool: {exc}") from exc

    def close(self) -> None:
        self.db.close()

"""The Accounting actor: finished tasks into the accounting file and DuckDB, exactly once.

Each task arrives with the sequence number of the master's durable outbox entry. The
DuckDB rows carry that number, so a replay after a crash inserts nothing twice; the
accounting file has no such column, so the tail of the file is checked for the
task's key before a line is appended. Only then is the master told to drop the entry.
"""

from __future__ import annotations

import logging
from pathlib import Path

import trio
import zmq

from gridd import paths
from gridd import protocol as p
from gridd.accounting.accounting_file import append_records, tail_keys
from gridd.accounting.record import AccountingRecord, record_for
from gridd.transport import TrioSocket

log = logging.getLogger("gridd.accounting")

RECENT = 10_000  # accounting lines checked for duplicates after a restart


class Sinks:
    """The accounting file and the DuckDB table, written from a worker thread."""

    def __init__(self, base: Path) -> None:
        from gridd.accounting import store  # duckdb is heavy: only the master loads it

        self.store = store
        self.file = paths.accounting_file(base)
        self.db = store.open_db(paths.reporting_db(base))
        self.recent = tail_keys(self.file, RECENT) if self.file.exists() else set()

    def write(self, batch: list[tuple[int, AccountingRecord]]) -> None:
        fresh = [rec for _, rec in batch if _key(rec) not in self.recent]
        if fresh:
            append_records(self.file, fresh)
        self.store.insert_records(self.db, batch)


def _key(rec: AccountingRecord) -> tuple[int, int, int, int]:
    return (rec.job_number, rec.task_number, int(rec.start_time), int(rec.end_time))


async def run(ctx: zmq.Context, endpoint: str, base: Path) -> None:
    sock = TrioSocket.create(ctx, zmq.PAIR, SNDHWM=0, RCVHWM=0)
    sock.connect(endpoint)
    try:
        sinks = await trio.to_thread.run_sync(Sinks, base)
        while True:
            frames = [await sock.recv()]
            while (more := sock.recv_nowait()) is not None:
                frames.append(more)
            batch = []
            for parts in frames:
                msg = p.decode(parts[-1])
                if isinstance(msg, p.AccountTask):
                    batch.append((msg.seq, record_for(msg.job, msg.task)))
            if batch:
                await trio.to_thread.run_sync(sinks.write, batch)
                await sock.send([p.encode(p.Accounted(seqs=[seq for seq, _ in batch]))])
    finally:
        sock.close()

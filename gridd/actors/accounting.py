"""The Accounting actor: finished tasks into the accounting file and DuckDB, exactly once.

Each task arrives with the sequence number of the master's durable outbox entry. The
DuckDB rows carry that number, so a replay after a crash inserts nothing twice; the
accounting file has no such column, so the keys of lines already written (found in the
file's tail at start, then remembered) are checked before a line is appended. Only when
both sinks hold a batch is the master told to drop its entries; a sink that fails (a
full disk, a database another process has locked) is retried, and nothing is lost.

Advance reservation records (ReportRecord: new_ar, ar_attr, ar_log, ar_acct) go to the
reporting file only, and are confirmed as soon as they are on disk. A record's line is
fully determined by the record, so the line itself is the key against writing a resent
record twice: the last RECENT lines of the reporting file are read at start, and lines
written since are remembered. A record is confirmed right after its fsync, so one the
master resends after a crash is always among the last lines written. (The price: two
records whose lines are identical to the second, which 8.1.9's readers could not tell
apart either, are written once.)
"""

from __future__ import annotations

import logging
import math
from collections import OrderedDict
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

import trio
import zmq

from gridd import paths
from gridd import protocol as p
from gridd.accounting import report_lines
from gridd.accounting.accounting_file import append_lines, append_records, tail_keys, tail_lines
from gridd.accounting.record import AccountingRecord, record_for
from gridd.transport import TrioSocket

log = logging.getLogger("gridd.accounting")

RECENT = 10_000  # keys of accounting (and reporting) lines remembered against duplicates
RETRY = 5.0  # seconds between attempts when a sink fails
FLUSH_TIME = 1.0  # seconds a row may wait for its DuckDB batch
DB_BATCH = 1000  # rows that make a DuckDB batch at once

Key = tuple[int, int, int, int]
Batch = list[tuple[int, AccountingRecord]]
Reports = list[tuple[int, str]]  # outbox seq, reporting-file line
B = TypeVar("B", Batch, Reports)


class Sinks:
    """The accounting and reporting files and the DuckDB table, written from a worker thread."""

    def __init__(self, base: Path) -> None:
        self.base = base
        self.file = paths.accounting_file(base)
        self.recent: OrderedDict[Key, None] = OrderedDict(
            (k, None) for k in (tail_keys(self.file, RECENT) if self.file.exists() else ()))
        self.db = None
        self.report = paths.reporting_file(base)
        self.recent_lines: OrderedDict[str, None] = OrderedDict(
            (line, None) for line in tail_lines(self.report, RECENT))

    def write_file(self, batch: list[tuple[int, AccountingRecord]]) -> None:
        fresh = [rec for _, rec in batch if _key(rec) not in self.recent]
        if fresh:
            append_records(self.file, fresh)
            for rec in fresh:
                self.recent[_key(rec)] = None
            while len(self.recent) > RECENT:
                self.recent.popitem(last=False)

    def write_db(self, batch: list[tuple[int, AccountingRecord]]) -> None:
        from gridd.accounting import store  # duckdb is heavy: only the master loads it

        if self.db is None:
            self.db = store.open_db(paths.reporting_db(self.base))
        try:
            store.insert_records(self.db, batch)
        except Exception:
            self.db.close()
            self.db = None
            raise

    def write_report(self, batch: Reports) -> None:
        """Append the lines not yet in the reporting file (a batch may repeat one, too)."""
        fresh = list(dict.fromkeys(line for _, line in batch if line not in self.recent_lines))
        if fresh:
            append_lines(self.report, fresh)
            for line in fresh:
                self.recent_lines[line] = None
            while len(self.recent_lines) > RECENT:
                self.recent_lines.popitem(last=False)


def _key(rec: AccountingRecord) -> Key:
    return (rec.job_number, rec.task_number, int(rec.start_time), int(rec.end_time))


async def run(ctx: zmq.Context, endpoint: str, base: Path) -> None:
    """Lines go to the accounting file at once; DuckDB gets them in batches.

    A DuckDB statement costs milliseconds whatever its size, so rows wait up to
    FLUSH_TIME (or until DB_BATCH of them are waiting); the master's outbox entries are
    confirmed only once the rows are in the database.
    """
    sock = TrioSocket.create(ctx, zmq.PAIR, SNDHWM=0, RCVHWM=0)
    sock.connect(endpoint)
    sinks = await trio.to_thread.run_sync(Sinks, base)
    waiting: list[tuple[int, AccountingRecord]] = []
    deadline = math.inf
    try:
        while True:
            frames = []
            with trio.move_on_at(deadline):
                frames.append(await sock.recv())
            while (more := sock.recv_nowait()) is not None:
                frames.append(more)
            batch, reports = _records(frames)
            if reports:
                await _persist(sinks.write_report, reports)
                await sock.send([p.encode(p.Accounted(seqs=[seq for seq, _ in reports]))])
            if batch:
                await _persist(sinks.write_file, batch)
                waiting += batch
                deadline = min(deadline, trio.current_time() + FLUSH_TIME)
            if waiting and (len(waiting) >= DB_BATCH or trio.current_time() >= deadline):
                await _persist(sinks.write_db, waiting)
                await sock.send([p.encode(p.Accounted(seqs=[seq for seq, _ in waiting]))])
                waiting, deadline = [], math.inf
    finally:
        if waiting:  # shutting down: give DuckDB what it has not got (replays dedupe)
            with trio.CancelScope(shield=True):
                try:
                    await trio.to_thread.run_sync(sinks.write_db, waiting)
                except Exception as exc:
                    log.error("rows left for the next start: %s", exc)
        sock.close()


async def _persist(write: Callable[[B], None], batch: B) -> None:
    """Write a batch, retrying until the sink takes it: nothing may be dropped."""
    while True:
        try:
            await trio.to_thread.run_sync(write, batch)
            return
        except Exception as exc:
            log.error("cannot write accounting (retrying in %g s): %s", RETRY, exc)
            await trio.sleep(RETRY)


def _records(frames: list[list[bytes]]) -> tuple[Batch, Reports]:
    """Finished tasks to account, and AR records as reporting-file lines.

    A record that cannot be turned into a line is logged and left unconfirmed.
    """
    batch: Batch = []
    reports: Reports = []
    for parts in frames:
        try:
            msg = p.decode(parts[-1])
            if isinstance(msg, p.AccountTask):
                batch.append((msg.seq, record_for(msg.job, msg.task)))
            elif isinstance(msg, p.ReportRecord):
                reports.append((msg.seq, report_lines.line(msg.record)))
        except Exception:  # one bad record must not stop the others
            log.exception("cannot account a finished task or report an AR record")
    return batch, reports

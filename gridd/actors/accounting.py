"""The Accounting actor: what the cell reports into the files and DuckDB, exactly once;
and the reporting database's only door while the cell runs.

It runs in a process of its own (`main`), which the master starts and supervises
(gridd.actors.accounting_process), so that DuckDB's tens of MiB stay out of the master.

Records arrive with the sequence number of the master's durable outbox entry: finished
tasks (AccountTask) and reporting records (ReportRecord). Lines go to the `accounting`
(or, with accounting_format=json, `accounting.jsonl`) and `reporting` files at once; the
database gets them in batches, at the latest after reporting_params' flush_time (a DuckDB
statement costs milliseconds whatever its size), and at once when somebody asks a query,
so that answers include every record written.
Only when the files and the database hold a record is the master told to drop it.
A configuration change (ConfigRecord, the configuration's history) is a record of the
database alone: Grid Engine's reporting file has no such line, and the history is kept
whatever reporting_params say, so it skips the files and is confirmed with its batch.

Exactly once across crashes: the database ingests a record (its seq with its line)
only once (its ledger commits with the rows); the files have no such column, so the keys
of accounting lines already written (found in the tails of both accounting files at
start, the form may have changed since; then remembered) are checked before a line is
appended, and a reporting line, fully determined by its
record, is its own key against the last lines written. A record is confirmed only after
it is on disk, so one the master resends after a crash is always among the last lines
written. (The price: two records whose lines are identical to the second, which 8.1.9's
readers could not tell apart either, are written once.) A sink that fails (a full disk,
a database another process has locked) is retried, and nothing is lost.

DuckDB lets one process open the database, so queries of qacct and `gridd report` come
here through the master (DbQuery, DbExport) and run, read-only, on a cursor of their own
beside the writes. Either process may die alone: the master resends what was not
confirmed to the accounting process it starts again, and one that outlives its master
writes what it holds and stops, before its successor starts (accounting_lock).
"""

from __future__ import annotations

import contextlib
import fcntl
import logging
import math
import socket
import sys
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol, TypeVar

import trio

from gridd import paths
from gridd import protocol as p
from gridd.accounting import config_history, report_lines
from gridd.accounting.accounting_file import (
    RecordKey,
    append_lines,
    append_records,
    record_key,
    tail_keys,
    tail_lines,
)
from gridd.accounting.record import AccountingRecord, acct_line, record_for
from gridd.accounting.whole_history import Keeper
from gridd.actors.link import Link
from gridd.model.report import ConfigRecord

log = logging.getLogger("gridd.accounting")

RECENT = 10_000  # keys of accounting (and reporting) lines remembered against duplicates
RETRY = 5.0  # seconds between attempts when a sink fails
DB_BATCH = 5000  # rows that make a DuckDB batch at once

R = TypeVar("R")


@dataclass
class Item:
    """One outbox record: a finished task's accounting record, or a reporting line; a
    line not `in_file` (a configuration change) is the database's alone."""

    seq: int
    acct: AccountingRecord | None = None
    line: str = ""
    in_file: bool = True


class Writers:
    """The files and the database, used from worker threads (one writer at a time)."""

    def __init__(self, base: Path) -> None:
        self.base = base
        self.conf = p.ReportingParams()
        # the accounting file of each form: a record is in one of them, whichever the
        # form was when it was written, so both tails tell what is written already
        self.files = {"colon": paths.accounting_file(base),
                      "json": paths.accounting_json_file(base)}
        self.recent: OrderedDict[RecordKey, None] = OrderedDict(
            (k, None) for file in self.files.values() for k in tail_keys(file, RECENT))
        self.whole = Keeper(self.files["colon"], paths.accounting_whole(base))
        self.report = paths.reporting_file(base)
        self.recent_lines: OrderedDict[str, None] = OrderedDict(
            (line, None) for line in tail_lines(self.report, RECENT))
        self.db: Any = None
        self.reader: Any = None  # the queries' cursor

    def write_files(self, items: list[Item]) -> list[tuple[int, str]]:
        """Append what the files lack; return the database's lines (seq, line)."""
        accounting: list[AccountingRecord] = []
        reporting: list[str] = []
        rows: list[tuple[int, str]] = []
        for item in items:
            if item.acct is None:
                if item.in_file:
                    reporting.append(item.line)
                rows.append((item.seq, item.line))
                continue
            if self.conf.accounting:
                accounting.append(item.acct)
            if self.conf.accounting or self.conf.reporting:
                line = acct_line(item.acct)
                rows.append((item.seq, line))
                if self.conf.reporting:
                    reporting.append(line)
        self._append_accounting(accounting)
        self._append_reporting(reporting)
        return rows

    def _append_accounting(self, records: list[AccountingRecord]) -> None:
        fresh = {record_key(rec): rec for rec in records if record_key(rec) not in self.recent}
        if fresh:
            form = self.conf.accounting_format
            before = self.whole.appending()  # the colon file's: JSON lines add none to it
            append_records(self.files[form], fresh.values(), json_lines=form == "json")
            self.whole.appended(before, len(fresh) if form == "colon" else 0)
            _remember(self.recent, fresh)

    def _append_reporting(self, lines: list[str]) -> None:
        fresh = list(dict.fromkeys(line for line in lines if line not in self.recent_lines))
        if fresh:
            append_lines(self.report, fresh)
            _remember(self.recent_lines, fresh)

    def _open(self) -> Any:
        from gridd.accounting import db

        if self.db is None:
            self.db = db.open_db(paths.reporting_db(self.base))
            db.confine(self.db, paths.export_staging(self.base))
            self.reader = self.db.cursor()
        return self.db

    def _settled(self) -> None:
        """Fold what waits in the database's inbox into ARCo's tables, so that a query
        or a snapshot sees every record ingested."""
        from gridd.accounting import db

        db.settle(self._open())

    def write_db(self, rows: list[tuple[int, str]]) -> None:
        from gridd.accounting import db

        con = self._open()
        try:
            db.ingest_stream(con, rows)
        except Exception:
            self.close()
            raise
        self._judge_whole(con)

    def judge_whole(self) -> None:
        """At the start of a cell that has a database: whether the file holds it whole."""
        if not paths.reporting_db(self.base).exists():
            return
        try:
            con = self._open()
        except Exception as exc:  # the first batch tries again, and judges then
            log.error("cannot open the reporting database: %s", exc)
            return
        self._judge_whole(con)

    def _judge_whole(self, con: Any) -> None:
        """Leave the marker of a whole accounting file, or take it away (whole_history);
        a failure here costs qacct its quick way, never a record."""
        from gridd.accounting import db

        try:
            self.whole.judge(db.accounting_records(con))
        except Exception as exc:
            log.error("cannot tell whether the accounting file is whole: %s", exc)
            with contextlib.suppress(OSError):
                self.whole.forget()

    def answer(self, ask: p.DbQuery | p.DbExport) -> p.DbAnswer:
        """A query's rows, or the files of a snapshot, on the queries' cursor."""
        from gridd.accounting import query

        try:
            self._settled()
            if isinstance(ask, p.DbQuery) and ask.qacct is not None:
                return self._qacct(ask.qacct)
            if isinstance(ask, p.DbQuery):
                return query.answer(query.execute(self.reader, ask.sql, ask.params))
            return query.answer(query.snapshot(self.reader, ask.directory,
                                               paths.export_staging(self.base)))
        except query.QueryError as exc:
            return p.DbAnswer(error=str(exc))

    def _qacct(self, argv: list[str]) -> p.DbAnswer:
        """What qacct prints for `argv`, from the database (cli.qacct.printed)."""
        from gridd.accounting import query
        from gridd.cli import qacct

        def run(sql: str, params: query.Params) -> query.Result:
            return query.execute(self.reader, sql, params)

        out, err, code = qacct.printed(argv, run, time.time())
        return p.DbAnswer(text=out, error=err, code=code)

    def close(self) -> None:
        """Leave the database settled (whole for readers of the file) and closed."""
        if self.db is not None:
            try:
                self._settled()
            except Exception as exc:  # the next start folds what is left
                log.error("cannot fold the database's inbox: %s", exc)
            self.db.close()
        self.db = self.reader = None


def _remember(recent: OrderedDict, keys: Any) -> None:
    for key in keys:
        recent[key] = None
    while len(recent) > RECENT:
        recent.popitem(last=False)


class Channel(Protocol):
    """What the actor talks to the master over: a socket pair's Link in its own process
    (gridd.actors.link), a PAIR socket in the tests that play the master."""

    async def send(self, parts: list[bytes]) -> None: ...
    async def recv(self) -> list[bytes]: ...
    def recv_nowait(self) -> list[bytes] | None: ...


async def run(sock: Channel, base: Path) -> None:
    """Serve the master until it closes its end (trio.EndOfChannel) or this is cancelled;
    either way what the database has not got yet is written first."""
    writers = await trio.to_thread.run_sync(Writers, base)
    await trio.to_thread.run_sync(writers.judge_whole)
    readers = trio.CapacityLimiter(1)  # one query at a time on the queries' cursor
    waiting: list[tuple[int, str]] = []  # rows for the database
    deadline = math.inf
    try:
        async with trio.open_nursery() as nursery:
            while True:
                frames = []
                with trio.move_on_at(deadline):
                    try:
                        frames.append(await sock.recv())
                    except trio.EndOfChannel:  # the master closed its end: it stops, or died
                        break
                while (more := sock.recv_nowait()) is not None:
                    frames.append(more)
                items, asks = _read(frames, writers)
                if items:
                    rows = await _persist(writers.write_files, items)
                    lone = {item.seq for item in items} - {seq for seq, _ in rows}
                    if lone:  # nothing for the database (accounting and reporting off)
                        await sock.send([p.encode(p.Accounted(seqs=sorted(lone)))])
                    waiting += rows
                    if rows:
                        deadline = min(deadline, trio.current_time() + writers.conf.flush_time)
                if waiting and (asks or len(waiting) >= DB_BATCH
                                or trio.current_time() >= deadline):
                    await _persist(writers.write_db, waiting)
                    await sock.send([p.encode(p.Accounted(seqs=[seq for seq, _ in waiting]))])
                    waiting, deadline = [], math.inf
                for ask in asks:
                    nursery.start_soon(_answer, sock, writers, ask, readers)
            nursery.cancel_scope.cancel()  # nobody is left to hear the answers
    finally:
        with trio.CancelScope(shield=True):
            if waiting:  # shutting down: give DuckDB what it has not got (replays dedupe)
                try:
                    await trio.to_thread.run_sync(writers.write_db, waiting)
                except Exception as exc:
                    log.error("rows left for the next start: %s", exc)
            await trio.to_thread.run_sync(writers.close)


async def _answer(sock: Channel, writers: Writers, ask: p.DbQuery | p.DbExport,
                  readers: trio.CapacityLimiter) -> None:
    try:
        reply = await trio.to_thread.run_sync(writers.answer, ask, limiter=readers)
    except Exception as exc:  # a query must never take the actor down
        log.exception("query failed")
        reply = p.DbAnswer(error=f"error: {exc}")
    reply.client, reply.rid = ask.client, ask.rid
    try:
        frame = p.encode(reply)
    except Exception as exc:  # a value msgpack cannot carry
        frame = p.encode(p.DbAnswer(error=f"error: cannot send the answer: {exc}",
                                    client=ask.client, rid=ask.rid))
    await sock.send([frame])


async def _persist(write: Callable[[list], R], batch: list) -> R:
    """Write a batch, retrying until the sink takes it: nothing may be dropped."""
    while True:
        try:
            return await trio.to_thread.run_sync(write, batch)
        except Exception as exc:
            log.error("cannot write accounting (retrying in %g s): %s", RETRY, exc)
            await trio.sleep(RETRY)


def _read(frames: list[list[bytes]],
          writers: Writers) -> tuple[list[Item], list[p.DbQuery | p.DbExport]]:
    """Records to write and queries to answer; the newest ReportingParams apply from now on.

    A record that cannot be turned into a line is logged and left unconfirmed.
    """
    items: list[Item] = []
    asks: list[p.DbQuery | p.DbExport] = []
    for parts in frames:
        try:
            msg = p.decode(parts[-1], max_size=None)
            if isinstance(msg, p.AccountTask):
                items.append(Item(msg.seq, acct=record_for(msg.job, msg.task,
                                                          pe_task=msg.pe_task)))
            elif isinstance(msg, p.ReportRecord):
                items.append(_report_item(msg))
            elif isinstance(msg, (p.DbQuery, p.DbExport)):
                asks.append(msg)
            elif isinstance(msg, p.ReportingParams):
                writers.conf = msg
        except Exception:  # one bad record must not stop the others
            log.exception("cannot account a finished task or report a record")
    return items, asks


def _report_item(msg: p.ReportRecord) -> Item:
    """A reporting record as the line it becomes; a configuration change's line is kept
    out of the reporting file (it goes the database's way, see config_history)."""
    if isinstance(msg.record, ConfigRecord):
        return Item(msg.seq, line=config_history.line(msg.record), in_file=False)
    return Item(msg.seq, line=report_lines.line(msg.record))


async def serve(sock: socket.socket, base: Path) -> None:
    """The actor on its end of the socket pair the master made."""
    link = Link(sock)
    async with trio.open_nursery() as nursery:
        nursery.start_soon(link.pump)
        await run(link, base)
        nursery.cancel_scope.cancel()


def main(argv: list[str]) -> int:
    """`python -m gridd.actors.accounting BASE FD`: the accounting process, started by
    the master (gridd.actors.accounting_process) with its end of their socket pair as FD.
    It stops when the master closes that end, on purpose or by dying (it runs in a
    session of its own: a terminal's signals are the master's to act on)."""
    from gridd.cli.gridd_cmd import log_to

    base, fd = Path(argv[0]), int(argv[1])
    log_to(paths.master_spool(base) / "messages")
    sock = socket.socket(fileno=fd)
    with open(paths.accounting_lock(base), "a") as lock:
        # a predecessor that outlived its master finishes writing first
        fcntl.flock(lock, fcntl.LOCK_EX)
        trio.run(serve, sock, base)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

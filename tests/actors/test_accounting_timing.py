"""The accounting actor's timing rules, in virtual time (see virtual_time.py).

The test plays the master, as in test_accounting_reports: it binds the PAIR socket the
actor connects to, sends finished tasks and takes the Accounted that confirm them. The
files get a record at once; the database at the latest reporting_params' flush_time
after the first record of its batch, at once when a query comes or the batch is full;
a record for neither is confirmed at once; a sink that fails is tried again every RETRY.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import pytest
import trio

from gridd import protocol as p
from gridd.actors import accounting
from gridd.transport import TrioSocket
from tests.actors.test_accounting_reports import (
    accounted_jobs,
    accounting_on_pair,
    finished,
    make_cell,
)
from tests.actors.virtual_time import threads_inline

VIRTUAL_LIMIT = 300.0  # seconds a test may take on trio's clock


class PlayedMaster:
    def __init__(self, sock: TrioSocket) -> None:
        self.sock = sock

    async def send(self, *msgs: p.Msg) -> None:
        for msg in msgs:
            await self.sock.send([p.encode(msg)])

    async def receive(self) -> tuple[float, p.Msg]:
        """The actor's next message, with when (trio's clock) it came."""
        (frame,) = await self.sock.recv()
        return trio.current_time(), p.decode(frame, max_size=None)

    async def confirmed(self) -> tuple[float, list[int]]:
        at, msg = await self.receive()
        assert isinstance(msg, p.Accounted)
        return at, msg.seqs


@asynccontextmanager
async def accounting_actor(base: Path, monkeypatch: pytest.MonkeyPatch,
                           **params: object) -> AsyncIterator[PlayedMaster]:
    """The accounting actor, told `params` (ReportingParams) first, as the master does."""
    threads_inline(monkeypatch)
    async with accounting_on_pair(base, **params) as sock:
        with trio.fail_after(VIRTUAL_LIMIT):  # its threads take no virtual time
            yield PlayedMaster(sock)


async def test_the_database_gets_a_batch_flush_time_after_its_first_record(
        tmp_path, autojump_clock, monkeypatch):
    base = make_cell(tmp_path)
    async with accounting_actor(base, monkeypatch, flush_time=60.0) as master:
        await master.send(finished(1))
        await trio.sleep(20.0)
        assert accounted_jobs(base) == ["1"]  # the file at once
        await master.send(finished(2))
        assert await master.confirmed() == (60.0, [1, 2])
        await master.send(finished(3))  # a batch of its own
        assert await master.confirmed() == (120.0, [3])


async def test_a_query_has_the_batch_written_first(tmp_path, autojump_clock, monkeypatch):
    """A query's answer includes every record sent before it."""
    base = make_cell(tmp_path)
    async with accounting_actor(base, monkeypatch, flush_time=60.0) as master:
        await master.send(finished(1), finished(2))
        await trio.sleep(3.0)
        await master.send(p.DbQuery(sql="SELECT job_number FROM accounting ORDER BY 1",
                                    client=b"qacct", rid=7))
        assert await master.confirmed() == (3.0, [1, 2])
        at, answer = await master.receive()
        assert isinstance(answer, p.DbAnswer) and at == 3.0
        assert (answer.rows, answer.client, answer.rid) == ([[1], [2]], b"qacct", 7)


async def test_a_full_batch_is_written_at_once(tmp_path, autojump_clock, monkeypatch):
    monkeypatch.setattr(accounting, "DB_BATCH", 3)
    base = make_cell(tmp_path)
    async with accounting_actor(base, monkeypatch, flush_time=60.0) as master:
        await master.send(finished(1), finished(2))
        await trio.sleep(5.0)
        await master.send(finished(3))
        assert await master.confirmed() == (5.0, [1, 2, 3])


async def test_a_record_for_no_file_nor_the_database_is_confirmed_at_once(
        tmp_path, autojump_clock, monkeypatch):
    base = make_cell(tmp_path)
    async with accounting_actor(base, monkeypatch, accounting=False, reporting=False,
                                flush_time=60.0) as master:
        await trio.sleep(2.0)
        await master.send(finished(1))
        assert await master.confirmed() == (2.0, [1])


async def test_a_failing_database_is_tried_again_every_retry(
        tmp_path, autojump_clock, monkeypatch):
    """Nothing is confirmed before the database takes it; then all of it is."""
    write_db, failures = accounting.Writers.write_db, []

    def failing_twice(self: accounting.Writers, rows: list[tuple[int, str]]) -> None:
        if len(failures) < 2:
            failures.append(trio.current_time())
            raise OSError("database locked")
        write_db(self, rows)

    monkeypatch.setattr(accounting.Writers, "write_db", failing_twice)
    base = make_cell(tmp_path)
    async with accounting_actor(base, monkeypatch, flush_time=10.0) as master:
        await master.send(finished(1))
        assert await master.confirmed() == (10.0 + 2 * accounting.RETRY, [1])
        assert failures == [10.0, 10.0 + accounting.RETRY]


async def test_failing_files_are_tried_again_every_retry(
        tmp_path, autojump_clock, monkeypatch):
    write_files, failures = accounting.Writers.write_files, []

    def failing_once(self: accounting.Writers, items: list) -> list[tuple[int, str]]:
        if not failures:
            failures.append(trio.current_time())
            raise OSError("No space left on device")
        return write_files(self, items)

    monkeypatch.setattr(accounting.Writers, "write_files", failing_once)
    base = make_cell(tmp_path)
    async with accounting_actor(base, monkeypatch, flush_time=10.0) as master:
        await master.send(finished(1))
        assert await master.confirmed() == (accounting.RETRY + 10.0, [1])
        assert failures == [0.0] and accounted_jobs(base) == ["1"]

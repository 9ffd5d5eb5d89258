"""The master actor's limits on one connection: request rate and message size.

The master runs in this trio process (with its scheduler and accounting actors) on an
ipc endpoint in a temporary cell, with CURVE and a user key made for the test; the
clients are trio-driven DEALERs. Limits are set low so that a few messages cross them.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import pytest
import trio
import zmq

from gridd import keys
from gridd import protocol as p
from gridd.actors.master import MasterActor
from gridd.transport import TrioSocket


class Cell:
    def __init__(self, base: Path, endpoint: str, ctx: zmq.Context) -> None:
        self.base = base
        self.endpoint = endpoint
        self.ctx = ctx
        self.user = keys.create(keys.key_file(base, keys.USERS, "tester"))
        self.server = keys.read_public(keys.key_file(base, keys.MASTER))

    def client(self) -> TrioSocket:
        sock = TrioSocket.create(self.ctx, zmq.DEALER, CURVE_SERVERKEY=self.server,
                                 CURVE_PUBLICKEY=self.user.public,
                                 CURVE_SECRETKEY=self.user.secret)
        sock.connect(self.endpoint)
        return sock


@asynccontextmanager
async def master(tmp_path: Path, **limits: float) -> AsyncIterator[Cell]:
    keys.make_dirs(tmp_path)
    key = keys.create(keys.key_file(tmp_path, keys.MASTER))
    endpoint = f"ipc://{tmp_path}/master.sock"
    actor = MasterActor(tmp_path, endpoint, key=key, **limits)
    ctx = zmq.Context()
    async with trio.open_nursery() as nursery:
        nursery.start_soon(actor.run)
        try:
            yield Cell(tmp_path, endpoint, ctx)
        finally:
            actor.stopping.set()
    ctx.destroy(linger=0)


async def replies(sock: TrioSocket, n: int) -> list[p.Msg]:
    with trio.fail_after(20):
        return [p.decode((await sock.recv())[-1]) for _ in range(n)]


async def test_over_the_rate_a_connection_is_answered_with_an_error(tmp_path):
    async with master(tmp_path, request_rate=5, request_burst=10) as cell:
        greedy, other = cell.client(), cell.client()
        for rid in range(1, 31):
            await greedy.send([p.encode(p.Ping(rid=rid))])
        answers = await replies(greedy, 30)
        assert [a.rid for a in answers] == list(range(1, 31))  # each answered, in order
        ok = [a for a in answers if isinstance(a, p.Ok)]
        refused = [a for a in answers if isinstance(a, p.Error)]
        assert 10 <= len(ok) <= 12  # the burst, and what the rate added meanwhile
        assert len(ok) + len(refused) == 30
        assert refused[0].text == ("error: too many requests on this connection (more than "
                                   "5 a second): try again later")
        assert all(a.later for a in refused)  # unapplied: may be sent again
        await other.send([p.encode(p.Ping(rid=7))])
        assert await replies(other, 1) == [p.Ok(rid=7)]  # others are not held back
        greedy.close()
        other.close()


async def test_a_message_over_the_size_limit_is_refused_and_far_over_cut_off(
        tmp_path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setattr(p, "MAX_MESSAGE", 4096)
    async with master(tmp_path) as cell:
        big, other = cell.client(), cell.client()
        await big.send([p.encode(p.Ping(rid=1)) + bytes(8000)])
        (answer,) = await replies(big, 1)
        assert isinstance(answer, p.Error) and "exceeds 4096" in answer.text
        # Over four times the limit ZeroMQ drops the connection before the master reads it.
        await big.send([p.encode(p.Ping(rid=2)) + bytes(20_000)])
        await other.send([p.encode(p.Ping(rid=3))])
        assert await replies(other, 1) == [p.Ok(rid=3)]
        with trio.move_on_after(1.0) as waited:
            await big.recv()
        assert waited.cancelled_caught
        big.close()
        other.close()

"""The trio adapter for pyzmq under concurrency and cancellation.

A plain echo test does not show the edge-triggered hangs: these tests have several tasks
sending and receiving on one socket at once, and cancel receivers at random moments.
"""

from __future__ import annotations

import random

import pytest
import trio
import zmq

from gridd.transport import TrioSocket


def pair(kind_a: int, kind_b: int, endpoint: str) -> tuple[zmq.Context, TrioSocket, TrioSocket]:
    ctx = zmq.Context()
    a = TrioSocket.create(ctx, kind_a)
    a.bind(endpoint)
    b = TrioSocket.create(ctx, kind_b)
    b.connect(endpoint)
    return ctx, a, b


@pytest.mark.parametrize("kind", ["inproc", "ipc", "tcp"])
async def test_router_dealer_many_concurrent_senders_and_receivers(kind, tmp_path):
    endpoint = {"inproc": "inproc://t1", "ipc": f"ipc://{tmp_path}/t.sock",
                "tcp": "tcp://127.0.0.1:*"}[kind]
    ctx = zmq.Context()
    router = TrioSocket.create(ctx, zmq.ROUTER)
    where = router.bind(endpoint)
    dealer = TrioSocket.create(ctx, zmq.DEALER)
    dealer.connect(where)
    n_senders, per = 4, 300
    got: list[bytes] = []

    async def echo() -> None:
        while True:
            ident, body = await router.recv()
            await router.send([ident, body])

    async def sender(k: int) -> None:
        for i in range(per):
            await dealer.send([f"{k}:{i}".encode()])

    all_in = trio.Event()

    async def receiver() -> None:
        while True:
            (body,) = await dealer.recv()
            got.append(body)
            if len(got) == n_senders * per:
                all_in.set()

    with trio.fail_after(20):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(echo)
            nursery.start_soon(echo)
            nursery.start_soon(receiver)
            nursery.start_soon(receiver)
            for k in range(n_senders):
                nursery.start_soon(sender, k)
            await all_in.wait()
            nursery.cancel_scope.cancel()
    assert sorted(got) == sorted(f"{k}:{i}".encode() for k in range(n_senders)
                                 for i in range(per))
    router.close()
    dealer.close()
    ctx.term()


async def test_random_cancellation_loses_no_wakeup():
    ctx, a, b = pair(zmq.PAIR, zmq.PAIR, "inproc://cancel")
    rng = random.Random(7)
    total = 500
    received: list[int] = []

    async def producer() -> None:
        for i in range(total):
            await a.send([str(i).encode()])
            if rng.random() < 0.3:
                await trio.sleep(0)

    all_in = trio.Event()

    async def flaky_receiver() -> None:
        while True:
            with trio.move_on_after(rng.random() * 0.002):
                (body,) = await b.recv()
                received.append(int(body))
                if len(received) == total:
                    all_in.set()

    with trio.fail_after(20):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(producer)
            nursery.start_soon(flaky_receiver)
            nursery.start_soon(flaky_receiver)
            await all_in.wait()
            nursery.cancel_scope.cancel()
    assert sorted(received) == list(range(total))
    a.close()
    b.close()
    ctx.term()


async def test_pub_sub_and_close_wakes_waiters():
    ctx, pub, sub = pair(zmq.PUB, zmq.SUB, "inproc://pubsub")
    sub.zsock.setsockopt(zmq.SUBSCRIBE, b"")
    with trio.fail_after(5):
        while True:  # a subscription takes a moment to reach the publisher
            await pub.send([b"hello"])
            with trio.move_on_after(0.01):
                assert await sub.recv() == [b"hello"]
                break
    woke = trio.Event()

    async def waiter() -> None:
        try:
            await sub.recv()
        except trio.ClosedResourceError:
            woke.set()

    with trio.fail_after(5):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(waiter)
            await trio.sleep(0.01)
            sub.close()
            await woke.wait()
    pub.close()
    ctx.term()


async def test_send_nowait_wakes_a_receiver_on_the_same_socket():
    """A direct send may eat the edge a receiver sleeps on: it must wake that receiver."""
    ctx, a, b = pair(zmq.PAIR, zmq.PAIR, "inproc://nowait")
    total = 200
    got: list[bytes] = []
    all_in = trio.Event()

    async def echo() -> None:
        while True:
            await a.send(await a.recv())

    async def receiver() -> None:
        while True:
            got.append((await b.recv())[0])
            if len(got) == total:
                all_in.set()

    with trio.fail_after(10):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(echo)
            nursery.start_soon(receiver)
            for i in range(total):
                b.send_nowait([str(i).encode()])
                await trio.sleep(0)
            await all_in.wait()
            nursery.cancel_scope.cancel()
    assert sorted(int(x) for x in got) == list(range(total))
    a.close()
    b.close()
    ctx.term()

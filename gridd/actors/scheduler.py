"""The Scheduler actor: a mirror of the master's state and the dispatch loop.

It plans as soon as something changed (so an idle cell starts a job within
milliseconds) and at least every schedule interval, but never while the master has not
yet answered its previous Dispatch: that answer carries the orders' effects, so the
mirror never books the same slots twice.
"""

from __future__ import annotations

import logging
import time

import trio
import zmq

from gridd import protocol as p
from gridd.sched.firstfit import SchedView, plan
from gridd.transport import TrioSocket

log = logging.getLogger("gridd.scheduler")


async def run(ctx: zmq.Context, endpoint: str, interval: float) -> None:
    sock = TrioSocket.create(ctx, zmq.PAIR, SNDHWM=0, RCVHWM=0)
    sock.connect(endpoint)
    view = SchedView()
    synced = False
    awaiting = False
    try:
        await sock.send([p.encode(p.SchedHello())])
        while True:
            with trio.move_on_after(interval):
                frames = [await sock.recv()]
                while (more := sock.recv_nowait()) is not None:
                    frames.append(more)
                for parts in frames:
                    msg = p.decode(parts[-1])
                    if isinstance(msg, p.SchedState):
                        view.reset(msg)
                        synced, awaiting = True, False
                    elif isinstance(msg, p.SchedEvent) and synced:
                        if not view.apply(msg):
                            log.warning("missed scheduler events; asking for a resync")
                            synced = False
                            await sock.send([p.encode(p.SchedHello())])
                            break
                        awaiting = awaiting and not msg.answers_dispatch
            if not synced or awaiting:
                continue
            if view.jobs:
                orders = plan(view, time.time())
                if orders.orders or orders.unschedulable:
                    awaiting = True
                    await sock.send([p.encode(orders)])
    finally:
        sock.close()

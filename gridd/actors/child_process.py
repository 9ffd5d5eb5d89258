"""The master's side of its child processes: start one, feed it, start it again.

Two actors run in processes of their own, each fed by the master over a socket pair
(gridd.actors.link):
- the accounting actor (gridd.actors.accounting), so that DuckDB, which it alone loads,
  stays out of the master's memory. Each time its child starts, it is first told
  `hello()`: the reporting parameters and every record of the master's outbox it has not
  confirmed, which it writes once whatever its predecessor wrote;
- the scheduler actor (gridd.actors.scheduler), so that a pass over a long queue runs on
  another core than the master's answers to clients. Its child asks the master for the
  whole state when it starts (SchedHello), so it is told nothing first.

Messages the master queues in between wait for the next child; one that was on its way
to a child that died is lost, which the outbox makes good for records and the state a new
scheduler asks for makes good for its mirror (a query's client hears nothing and times
out).
"""

from __future__ import annotations

import logging
import math
import socket
import subprocess
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Protocol

import trio

from gridd import protocol as p
from gridd.actors.link import frame, frames, stream_of

log = logging.getLogger("gridd.master")

RESTART_AFTER = 1.0  # seconds before a child that ended is started again
STOP_WITHIN = 60.0  # seconds a child has to write what it holds when the master stops


class Child(Protocol):
    """What the master needs of its child: a trio.Process."""

    returncode: int | None

    async def wait(self) -> int: ...
    def kill(self) -> None: ...


class ChildProcess:
    """A child process and the queue of messages for it, which outlives each child:
    `python -m MODULE BASE FD ARGS...`, FD its end of the socket pair."""

    module = ""  # the actor's module, which runs it as a process
    name = ""  # what the log calls it

    def __init__(self, base: Path, hello: Callable[[], list[p.Msg]],
                 args: tuple[str, ...] = ()) -> None:
        self.base = base
        self.hello = hello
        self.args = args
        self._out, self._queued = trio.open_memory_channel[bytes](math.inf)

    def send_nowait(self, parts: list[bytes]) -> None:
        """Queue a message (its last frame): never waits, keeps message order."""
        self._out.send_nowait(frame(parts[-1]))

    async def run(self, source: str, deliver: trio.MemorySendChannel) -> None:
        """Keep a child running; what it says goes to `deliver` as
        (source, frames, None), as the master's other pumps put theirs."""
        async with deliver:
            while True:
                code = await self._life(source, deliver)
                log.error("the %s process ended (status %s): starting it again in %g s",
                          self.name, code, RESTART_AFTER)
                await trio.sleep(RESTART_AFTER)

    async def _life(self, source: str, deliver: trio.MemorySendChannel) -> int | None:
        """One child, from its start until its end of the socket pair closes; returns
        its exit status. Cancelled (the master stops), it is let finish its writes."""
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        with theirs:
            process = await self._start(theirs)
        stream = stream_of(ours)
        try:
            async with trio.open_nursery() as nursery:
                nursery.start_soon(self._write, stream)
                with _gone():
                    async for payload in frames(stream):
                        await deliver.send((source, [payload], None))
                nursery.cancel_scope.cancel()
        finally:
            with trio.CancelScope(shield=True):
                await stream.aclose()  # the child's cue to write what it holds and stop
                with trio.move_on_after(STOP_WITHIN):
                    await process.wait()
                if process.returncode is None:
                    log.error("the %s process did not stop within %g s: killed",
                              self.name, STOP_WITHIN)
                    process.kill()
                    await process.wait()
        return process.returncode

    async def _start(self, theirs: socket.socket) -> Child:
        """The child, given its end of the socket pair (closed here once it has it)."""
        return await trio.lowlevel.open_process(
            [sys.executable, "-m", self.module, str(self.base), str(theirs.fileno()),
             *self.args],
            pass_fds=(theirs.fileno(),), stdin=subprocess.DEVNULL, start_new_session=True)

    async def _write(self, stream: trio.SocketStream) -> None:
        with _gone():
            for msg in self.hello():
                await stream.send_all(frame(p.encode(msg)))
            async for data in self._queued:
                await stream.send_all(data)


@contextmanager
def _gone() -> Iterator[None]:
    """A child that died breaks the stream; the end of its reading says so."""
    try:
        yield
    except trio.BrokenResourceError:
        pass


class AccountingProcess(ChildProcess):
    """The accounting actor's process; `hello`: what each child is told first."""

    module = "gridd.actors.accounting"
    name = "accounting"


class SchedulerProcess(ChildProcess):
    """The scheduler actor's process, planning every `interval` seconds at least on the
    system's clock."""

    module = "gridd.actors.scheduler"
    name = "scheduler"

    def __init__(self, base: Path, interval: float) -> None:
        # told nothing first: each new child asks for the whole state (SchedHello)
        super().__init__(base, list, (repr(interval),))
        self.interval = interval

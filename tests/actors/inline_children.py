"""The master's accounting and scheduler actors as tasks of the test's trio run instead of
processes.

The master starts those actors as child processes (gridd.actors.child_process); in
virtual time a process would run on the wall clock while trio's clock jumps, so the tests
of the master actor run them in their own trio run, on the same socket pairs.
"""

from __future__ import annotations

import socket
from collections.abc import Awaitable, Callable
from pathlib import Path

import trio

from gridd.actors import accounting, scheduler
from gridd.actors.child_process import AccountingProcess, ChildProcess, SchedulerProcess
from gridd.actors.clock import Wall


class InlineChild:
    """The actor's task, with what the master asks of a trio.Process."""

    def __init__(self) -> None:
        self.returncode: int | None = None
        self.scope = trio.CancelScope()
        self.ended = trio.Event()

    async def serve(self, actor: Callable[[socket.socket], Awaitable[None]],
                    sock: socket.socket) -> None:
        """Serve until the master's end closes; cancelled with the test's run (the
        master's stop), it ends as a process would at that end: the actor writes first."""
        try:
            with self.scope:
                await actor(sock)
        finally:
            self.returncode = -9 if self.scope.cancelled_caught else 0
            self.ended.set()

    async def wait(self) -> int:
        await self.ended.wait()
        assert self.returncode is not None
        return self.returncode

    def kill(self) -> None:
        self.scope.cancel()


class Inline(ChildProcess):
    """A ChildProcess whose children are tasks of this trio run, each serving `_serve`."""

    async def run(self, source: str, deliver: trio.MemorySendChannel) -> None:
        async with trio.open_nursery() as self.nursery:
            await super().run(source, deliver)

    async def _start(self, theirs: socket.socket) -> InlineChild:
        child = InlineChild()
        self.nursery.start_soon(child.serve, self._serve, theirs.dup())
        return child

    async def _serve(self, sock: socket.socket) -> None:
        raise NotImplementedError


class InlineAccounting(Inline, AccountingProcess):
    async def _serve(self, sock: socket.socket) -> None:
        await accounting.serve(sock, self.base)


class InlineScheduler(Inline, SchedulerProcess):
    """Its children plan on `wall`."""

    def __init__(self, base: Path, interval: float, *, wall: Wall) -> None:
        super().__init__(base, interval)
        self.wall = wall

    async def _serve(self, sock: socket.socket) -> None:
        await scheduler.serve(sock, self.interval, self.base, wall=self.wall)

"""The master's accounting actor as a task of the test's trio run instead of a process.

The master starts its accounting actor as a child process (gridd.actors.accounting_process);
in virtual time a process would run on the wall clock while trio's clock jumps, so the
tests of the master actor run the actor in their own trio run, on the same socket pair.
"""

from __future__ import annotations

import socket
from pathlib import Path

import trio

from gridd.actors import accounting
from gridd.actors.accounting_process import AccountingProcess


class InlineChild:
    """The actor's task, with what the master asks of a trio.Process."""

    def __init__(self) -> None:
        self.returncode: int | None = None
        self.scope = trio.CancelScope()
        self.ended = trio.Event()

    async def serve(self, sock: socket.socket, base: Path) -> None:
        """Serve until the master's end closes; cancelled with the test's run (the
        master's stop), it ends as a process would at that end: the actor writes first."""
        try:
            with self.scope:
                await accounting.serve(sock, base)
        finally:
            self.returncode = -9 if self.scope.cancelled_caught else 0
            self.ended.set()

    async def wait(self) -> int:
        await self.ended.wait()
        assert self.returncode is not None
        return self.returncode

    def kill(self) -> None:
        self.scope.cancel()


class InlineAccounting(AccountingProcess):
    """AccountingProcess whose children are tasks of this trio run."""

    async def run(self, source: str, deliver: trio.MemorySendChannel) -> None:
        async with trio.open_nursery() as self.nursery:
            await super().run(source, deliver)

    async def _start(self, theirs: socket.socket) -> InlineChild:
        child = InlineChild()
        self.nursery.start_soon(child.serve, theirs.dup(), self.base)
        return child

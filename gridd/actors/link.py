"""Messages over a socket pair between the master and the process it started.

The master and its accounting process (gridd.actors.accounting_process) talk over a Unix
socket pair the master makes and the child inherits: nobody else can connect to it, it
needs no path in the cell's root, and either side learns that the other is gone from the
end of its stream. A message is one frame, a 4-byte big-endian length and the bytes;
the senders' side of gridd.transport's TrioSocket is mirrored (`send`, `send_nowait`,
`recv`, `recv_nowait`, a list of one frame each) so that the actor runs on either.
"""

from __future__ import annotations

import math
import socket
import struct
from collections.abc import AsyncIterator

import trio

HEADER = struct.Struct(">I")
READ_SIZE = 1 << 16


def frame(payload: bytes) -> bytes:
    return HEADER.pack(len(payload)) + payload


async def frames(stream: trio.abc.ReceiveStream) -> AsyncIterator[bytes]:
    """The frames read from `stream` until its end; a frame cut short by the end (the
    other side died while writing it) is dropped."""
    buffer = bytearray()
    while chunk := await stream.receive_some(READ_SIZE):
        buffer += chunk
        start = 0
        while len(buffer) - start >= HEADER.size:
            (size,) = HEADER.unpack_from(buffer, start)
            end = start + HEADER.size + size
            if end > len(buffer):
                break
            yield bytes(buffer[start + HEADER.size:end])
            start = end
        del buffer[:start]


def stream_of(sock: socket.socket) -> trio.SocketStream:
    return trio.SocketStream(trio.socket.from_stdlib_socket(sock))


class Link:
    """One end of a socket pair as a message socket, for the child's side: `pump` runs
    the reading and writing while the link is used; `recv` raises trio.EndOfChannel once
    the other side has closed its end."""

    def __init__(self, sock: socket.socket) -> None:
        self.stream = stream_of(sock)
        self._out, self._outbox = trio.open_memory_channel[bytes](math.inf)
        self._in, self._inbox = trio.open_memory_channel[list[bytes]](math.inf)

    async def pump(self) -> None:
        """Read and write until the other side closes its end."""
        async with trio.open_nursery() as nursery:
            nursery.start_soon(self._write)
            async with self._in:
                async for payload in frames(self.stream):
                    await self._in.send([payload])
            nursery.cancel_scope.cancel()

    async def _write(self) -> None:
        async for data in self._outbox:
            await self.stream.send_all(data)

    def send_nowait(self, parts: list[bytes]) -> None:
        """Queue a message (its last frame): never waits, keeps message order."""
        self._out.send_nowait(frame(parts[-1]))

    async def send(self, parts: list[bytes]) -> None:
        self.send_nowait(parts)
        await trio.lowlevel.checkpoint()

    async def recv(self) -> list[bytes]:
        return await self._inbox.receive()

    def recv_nowait(self) -> list[bytes] | None:
        try:
            return self._inbox.receive_nowait()
        except (trio.WouldBlock, trio.EndOfChannel):  # at the end, `recv` says so
            return None

    def close(self) -> None:
        self._out.close()

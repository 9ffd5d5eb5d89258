"""Await pyzmq sockets from trio tasks.

ZeroMQ signals readiness through one edge-triggered file descriptor per socket: it
becomes readable only when the socket's event state changes, and any send or receive
may consume a change another task is waiting for. So every operation is tried without
blocking first, only one task at a time sleeps on the descriptor, and whoever touches
the socket wakes the others so they look at ``zmq.EVENTS`` again.
"""

from __future__ import annotations

import trio
import zmq


class TrioSocket:
    """A zmq socket that many trio tasks may send and receive on concurrently."""

    def __init__(self, sock: zmq.Socket) -> None:
        self.zsock = sock
        self._fd = sock.getsockopt(zmq.FD)
        self._fd_scope: trio.CancelScope | None = None  # set while a task sleeps on the fd
        self._changed = trio.Event()  # the other waiters sleep on this
        self._closed = False

    @classmethod
    def create(cls, ctx: zmq.Context, kind: int, **opts: int | bytes) -> TrioSocket:
        sock = ctx.socket(kind)
        sock.setsockopt(zmq.LINGER, 0)
        for name, value in opts.items():
            sock.setsockopt(getattr(zmq, name), value)
        return cls(sock)

    def bind(self, endpoint: str) -> str:
        self.zsock.bind(endpoint)
        return self.zsock.getsockopt_string(zmq.LAST_ENDPOINT)

    def connect(self, endpoint: str) -> None:
        self.zsock.connect(endpoint)

    def _wake(self) -> None:
        """Make every waiter look at zmq.EVENTS again: our operation may have eaten its edge."""
        if self._fd_scope is not None:
            self._fd_scope.cancel()
        self._changed.set()
        self._changed = trio.Event()

    async def _wait(self) -> None:
        """Sleep until the socket's event state may have changed."""
        if self._fd_scope is not None:
            await self._changed.wait()
            return
        with trio.CancelScope() as scope:
            self._fd_scope = scope
            try:
                await trio.lowlevel.wait_readable(self._fd)
            finally:
                self._fd_scope = None
                self._wake()

    async def _ready(self, flag: int) -> None:
        while not self._closed and not (self.zsock.getsockopt(zmq.EVENTS) & flag):
            await self._wait()
        if self._closed:
            raise trio.ClosedResourceError("socket closed")

    async def send(self, parts: list[bytes]) -> None:
        await trio.lowlevel.checkpoint_if_cancelled()
        while True:
            if self._closed:
                raise trio.ClosedResourceError("socket closed")
            try:
                self.zsock.send_multipart(parts, zmq.NOBLOCK, copy=False)
            except zmq.Again:
                await self._ready(zmq.POLLOUT)
                continue
            self._wake()
            await trio.lowlevel.cancel_shielded_checkpoint()  # sent: cancelling now would lie
            return

    async def recv(self) -> list[bytes]:
        return await self._recv(copy=True)

    async def recv_frames(self) -> list[zmq.Frame]:
        """A message as zmq.Frames, which carry the connection's properties: the User-Id
        its key was authorized as (``frame.get("User-Id")``) and its Peer-Address."""
        return await self._recv(copy=False)

    async def _recv(self, copy: bool) -> list:
        await trio.lowlevel.checkpoint_if_cancelled()
        while True:
            if self._closed:
                raise trio.ClosedResourceError("socket closed")
            try:
                parts = self.zsock.recv_multipart(zmq.NOBLOCK, copy=copy)
            except zmq.Again:
                await self._ready(zmq.POLLIN)
                continue
            self._wake()
            await trio.lowlevel.cancel_shielded_checkpoint()  # received: must not be dropped
            return parts

    def send_nowait(self, parts: list[bytes]) -> None:
        """Queue a message without waiting; raises zmq.Again when it cannot be queued.

        For sockets with no high-water mark (inproc pairs, a ROUTER answering peers), where
        a send never has to wait: it keeps message order without a task switch.
        """
        self.zsock.send_multipart(parts, zmq.NOBLOCK, copy=False)
        self._wake()

    def recv_nowait(self) -> list[bytes] | None:
        """A message if one is queued, else None: lets a server drain a burst in one go."""
        try:
            parts = self.zsock.recv_multipart(zmq.NOBLOCK)
        except zmq.Again:
            return None
        self._wake()
        return parts

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        trio.lowlevel.notify_closing(self._fd)
        self._wake()
        self.zsock.close(linger=0)


def ipv6(endpoint: str) -> int:
    """ZeroMQ's IPV6 option for a socket that binds or connects `endpoint`: on for an IPv6
    address ([...]) alone, since with it IPv4 peers show as ::ffff:a.b.c.d and a host name
    may resolve to an IPv6 address the other end does not listen on."""
    return int(endpoint.startswith("tcp://["))

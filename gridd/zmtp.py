"""A blocking ZMTP 3.0 DEALER peer on a plain socket, for the command-line clients.

The master speaks ZeroMQ (a ROUTER socket); the q* commands talk to it with this small
implementation of the wire protocol instead of pyzmq, whose import alone costs a
command like qsub more than a third of its run time. NULL security only: the daemons
themselves keep using pyzmq. It sits on ``_socket`` directly: the ``socket`` module
wrapper costs milliseconds of start-up to build enums this client never needs.
"""

from __future__ import annotations

import _socket
import struct

_SIGNATURE = b"\xff" + bytes(8) + b"\x7f"
_GREETING = _SIGNATURE + b"\x03\x00" + b"NULL".ljust(20, b"\x00") + b"\x00" + bytes(31)
_MORE, _LONG, _COMMAND = 0x01, 0x02, 0x04


class ZmtpError(Exception):
    """The peer is not reachable or does not speak ZMTP 3."""


def _command(name: bytes, properties: dict[bytes, bytes]) -> bytes:
    body = bytes([len(name)]) + name
    for key, value in properties.items():
        body += bytes([len(key)]) + key + struct.pack(">I", len(value)) + value
    return _frame(body, _COMMAND)


def _frame(body: bytes, flags: int) -> bytes:
    if len(body) < 256:
        return bytes([flags, len(body)]) + body
    return bytes([flags | _LONG]) + struct.pack(">Q", len(body)) + body


def _connect(endpoint: str, timeout: float) -> _socket.socket:
    transport, _, address = endpoint.partition("://")
    if transport == "tcp":
        host, _, port = address.rpartition(":")
        host = host.strip("[]")
        family, target = (_socket.AF_INET6 if ":" in host else _socket.AF_INET), (host, port)
    elif transport == "ipc":
        family, target = _socket.AF_UNIX, address
    else:
        raise ZmtpError(f"unsupported endpoint {endpoint!r} (want tcp:// or ipc://)")
    sock = _socket.socket(family, _socket.SOCK_STREAM)
    try:
        sock.settimeout(timeout)
        if family != _socket.AF_UNIX:
            target = (target[0], int(target[1]))
            sock.setsockopt(_socket.IPPROTO_TCP, _socket.TCP_NODELAY, 1)
        sock.connect(target)
    except (OSError, ValueError) as exc:
        sock.close()
        raise ZmtpError(f"cannot connect to {endpoint}: {exc}") from None
    return sock


class Dealer:
    """One connection to a ROUTER: send and receive whole messages (lists of frames)."""

    def __init__(self, endpoint: str, timeout: float) -> None:
        self.sock = _connect(endpoint, timeout)
        self.buffer = bytearray()
        try:
            self.sock.sendall(_GREETING + _command(b"READY", {b"Socket-Type": b"DEALER"}))
            greeting = self._read(64)
            if greeting[:1] != b"\xff" or greeting[9:10] != b"\x7f" or greeting[10] < 3:
                raise ZmtpError(f"{endpoint} does not speak ZMTP 3")
            if greeting[12:32].rstrip(b"\x00") != b"NULL":
                raise ZmtpError(f"{endpoint} wants a security mechanism this client lacks")
            self._read_frame()  # the peer's READY
        except BaseException:
            self.close()
            raise

    def close(self) -> None:
        self.sock.close()

    def settimeout(self, timeout: float | None) -> None:
        self.sock.settimeout(timeout)

    def send(self, frames: list[bytes]) -> None:
        self.sock.sendall(self.encode(frames))

    def send_raw(self, data: bytes) -> None:
        """Send messages encoded with ``encode``, many in one system call."""
        self.sock.sendall(data)

    @staticmethod
    def encode(frames: list[bytes]) -> bytes:
        last = len(frames) - 1
        return b"".join(_frame(f, 0 if i == last else _MORE) for i, f in enumerate(frames))

    def recv(self) -> list[bytes]:
        """The next message; commands (ZMTP 3.1 pings and the like) are skipped."""
        frames: list[bytes] = []
        while True:
            flags, body = self._read_frame()
            if flags & _COMMAND:
                continue
            frames.append(body)
            if not flags & _MORE:
                return frames

    def _read_frame(self) -> tuple[int, bytes]:
        flags = self._read(1)[0]
        if flags & _LONG:
            (size,) = struct.unpack(">Q", self._read(8))
        else:
            size = self._read(1)[0]
        return flags, self._read(size)

    def _read(self, n: int) -> bytes:
        while len(self.buffer) < n:
            try:
                chunk = self.sock.recv(max(65536, n - len(self.buffer)))
            except TimeoutError:
                raise
            except OSError as exc:
                raise ZmtpError(f"connection lost: {exc}") from None
            if not chunk:
                raise ZmtpError("connection closed by the master")
            self.buffer += chunk
        data = bytes(self.buffer[:n])
        del self.buffer[:n]
        return data

"""The master's ZAP handler: which CURVE keys may connect, and as whom.

libzmq asks the ZAP handler (RFC 27) about every CURVE handshake on a socket with a ZAP
domain, through an inproc socket bound to ``inproc://zeromq.zap.01``. That socket has to
be bound before the CURVE socket binds and must stay open as long as it: while nobody is
bound there libzmq lets every client with the server's public key in. The handler here
is a trio task of the master; its answer names the key's owner in the User-Id that
libzmq attaches to each message of the connection ("user:NAME" or "host:NAME").

The keys authorized are the files in common/keys/users and common/keys/hosts. They are
read again whenever those directories change (two stat calls per handshake) and, at
most once a second, when an unknown key knocks: a key made with `gridd keys user NAME`
works at once, without restarting the master. Refusals are logged once per key and
minute, so that a client retrying with a bad key does not fill the log.
"""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Callable

import trio

from gridd import keys
from gridd.master.ratelimit import QuietLog
from gridd.transport import TrioSocket
from gridd.zmtp import z85_encode

log = logging.getLogger("gridd.master")

ENDPOINT = "inproc://zeromq.zap.01"
DOMAIN = b"gridd"
RESCAN_EVERY = 1.0  # seconds between rescans for unknown keys, at least
REPORT_EVERY = 60.0  # seconds between two log lines about one refused key
_REMEMBERED = 1024  # refused keys whose last log line is remembered


class Keyring:
    """The authorized public keys of a cell, as the key directories hold them."""

    def __init__(self, base: str | os.PathLike[str],
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.base = base
        self.clock = clock
        self.ids: dict[bytes, str] = {}
        self.keys: dict[str, bytes] = {}  # the other way: User-Id -> public key
        self.scanned: tuple[int, ...] | None = None  # the directories' mtimes when read
        self.scanned_at = float("-inf")
        self.problems: list[str] = []  # as the last scan found them: each logged once

    def _mtimes(self) -> tuple[int, ...]:
        out = []
        for kind in (keys.USERS, keys.HOSTS):
            try:
                out.append(os.stat(os.path.join(keys.keys_dir(self.base), kind)).st_mtime_ns)
            except OSError:
                out.append(0)
        return tuple(out)

    async def lookup(self, public: bytes) -> str | None:
        """The User-Id of a public key, None if it is not authorized."""
        if self._mtimes() != self.scanned:
            await self.load()
        user = self.ids.get(public)
        if user is None and self.clock() - self.scanned_at >= RESCAN_EVERY:
            await self.load()  # a key made within the directories' mtime granularity
            user = self.ids.get(public)
        return user

    async def load(self) -> None:
        self.scanned, self.scanned_at = self._mtimes(), self.clock()
        found = await trio.to_thread.run_sync(keys.authorized, self.base)
        for problem in found.problems:
            if problem not in self.problems:
                log.warning("key file not used: %s", problem)
        self.ids, self.problems = found.ids, found.problems
        self.keys = {user: public for public, user in found.ids.items()}

    def public_key(self, user: str) -> bytes | None:
        """The public key let in as `user` ("host:node1"), as the last scan found it."""
        return self.keys.get(user)


class Handler:
    """Answers ZAP requests from the keyring, logging refusals without flooding."""

    def __init__(self, keyring: Keyring) -> None:
        self.keyring = keyring
        self.reported: dict[bytes, float] = {}  # refused key -> when it was last logged
        self.quiet = QuietLog(log, rate=1.0, burst=20.0)

    async def answer(self, request: list[bytes]) -> list[bytes]:
        """The reply frames for one request (version, request id, status, text,
        user id, metadata)."""
        if len(request) < 6 or request[0] != b"1.0":
            return [b"1.0", request[1] if len(request) > 1 else b"", b"500",
                    b"malformed ZAP request", b"", b""]
        request_id, domain, address, mechanism = request[1], request[2], request[3], request[5]
        credentials = request[6:]
        if domain != DOMAIN or mechanism != b"CURVE" or len(credentials) != 1:
            self._refused(b"", address, f"mechanism {mechanism.decode(errors='replace')}")
            return [b"1.0", request_id, b"400", b"CURVE with a known key only", b"", b""]
        user = await self.keyring.lookup(credentials[0])
        if user is None:
            self._refused(credentials[0], address, "unknown key")
            return [b"1.0", request_id, b"400", b"unknown key", b"", b""]
        return [b"1.0", request_id, b"200", b"OK", user.encode(), b""]

    def _refused(self, key: bytes, address: bytes, why: str) -> None:
        now = self.keyring.clock()
        if now - self.reported.get(key, float("-inf")) < REPORT_EVERY:
            return
        if len(self.reported) >= _REMEMBERED:
            self.reported.clear()
        self.reported[key] = now
        shown = z85_encode(key) if len(key) == 32 else "-"
        self.quiet.warning(now, "refused a connection from %s: %s %s",
                           address.decode(errors="replace"), why, shown)


async def serve(sock: TrioSocket, handler: Handler) -> None:
    """Answer ZAP requests on `sock` (a REP socket bound to ENDPOINT) until cancelled."""
    await handler.keyring.load()
    while True:
        request = await sock.recv()
        try:
            reply = await handler.answer(request)
        except Exception:  # libzmq waits for an answer: never leave it without one
            log.exception("the ZAP handler failed; the connection is refused")
            reply = [b"1.0", request[1] if len(request) > 1 else b"", b"500",
                     b"authenticator failed", b"", b""]
        await sock.send(reply)

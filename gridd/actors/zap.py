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

The master's local socket (gridd.master_local) is NULL: there libzmq gives the handler
the peer's uid instead of a key, and the uid is let in as its user, "user:NAME", when
that user has an authorized key.
"""

from __future__ import annotations

import logging
import os
import pwd
import time
from collections.abc import Callable
from typing import TypeVar

import trio

from gridd import keys, master_local
from gridd.master.ratelimit import QuietLog
from gridd.transport import TrioSocket
from gridd.zmtp import z85_encode

log = logging.getLogger("gridd.master")

ENDPOINT = "inproc://zeromq.zap.01"
DOMAIN = b"gridd"
RESCAN_EVERY = 1.0  # seconds between rescans for unknown keys, at least
REPORT_EVERY = 60.0  # seconds between two log lines about one refused key
_REMEMBERED = 1024  # refused keys whose last log line is remembered, and uids' names
NAMES_FOR = 60.0  # seconds a uid's user name is taken as read
R = TypeVar("R")


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
        return await self._fresh(lambda: self.ids.get(public))

    async def known(self, user: str) -> bool:
        """Whether the User-Id `user` ("user:NAME") has an authorized key."""
        return await self._fresh(lambda: self.keys.get(user)) is not None

    async def _fresh(self, find: Callable[[], R | None]) -> R | None:
        """What `find` finds in the keys as the directories hold them now."""
        if self._mtimes() != self.scanned:
            await self.load()
        found = find()
        if found is None and self.clock() - self.scanned_at >= RESCAN_EVERY:
            await self.load()  # a key made within the directories' mtime granularity
            found = find()
        return found

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


def _user_name(uid: int) -> str | None:
    try:
        return pwd.getpwuid(uid).pw_name
    except KeyError:
        return None


class Handler:
    """Answers ZAP requests from the keyring, logging refusals without flooding."""

    def __init__(self, keyring: Keyring,
                 user_name: Callable[[int], str | None] = _user_name) -> None:
        """`user_name`: a uid's name in the password database, None if it has none."""
        self.keyring = keyring
        self.user_name = user_name
        self.reported: dict[bytes, float] = {}  # refused key -> when it was last logged
        self.quiet = QuietLog(log, rate=1.0, burst=20.0)
        self.names: dict[int, tuple[float, str | None]] = {}  # uid -> (when read, name)

    async def answer(self, request: list[bytes]) -> list[bytes]:
        """The reply frames for one request (version, request id, status, text,
        user id, metadata)."""
        if len(request) < 6 or request[0] != b"1.0":
            return [b"1.0", request[1] if len(request) > 1 else b"", b"500",
                    b"malformed ZAP request", b"", b""]
        request_id, domain, address, mechanism = request[1], request[2], request[3], request[5]
        credentials = request[6:]
        if domain == DOMAIN and mechanism == b"NULL" and not credentials:
            return await self._local(request_id, address)
        if domain != DOMAIN or mechanism != b"CURVE" or len(credentials) != 1:
            self._refused(b"", address, f"mechanism {mechanism.decode(errors='replace')}")
            return [b"1.0", request_id, b"400", b"CURVE with a known key only", b"", b""]
        user = await self.keyring.lookup(credentials[0])
        if user is None:
            self._refused(credentials[0], address, "unknown key")
            return [b"1.0", request_id, b"400", b"unknown key", b"", b""]
        return [b"1.0", request_id, b"200", b"OK", user.encode(), b""]

    async def _local(self, request_id: bytes, address: bytes) -> list[bytes]:
        """A connection to the local socket (gridd.master_local): let in as its uid's
        user when that user has an authorized key."""
        uid = master_local.peer_uid(address.decode(errors="replace"))
        if uid is None:
            self._refused(b"", address, "NULL mechanism from a peer of unknown uid")
            return [b"1.0", request_id, b"400", b"CURVE with a known key only", b"", b""]
        name = await self._name(uid)
        user = f"user:{name}"
        if name is None or not await self.keyring.known(user):
            why = (f"local uid {uid} has no user name" if name is None else
                   f"local user {name} (uid {uid}) has no key")
            self._refused(f"uid {uid}".encode(), address, why)
            return [b"1.0", request_id, b"400", b"unknown user", b"", b""]
        return [b"1.0", request_id, b"200", b"OK", user.encode(), b""]

    async def _name(self, uid: int) -> str | None:
        """A uid's user name, read again after NAMES_FOR (a name service may be slow:
        read in a thread)."""
        now = self.keyring.clock()
        known = self.names.get(uid)
        if known is None or now - known[0] >= NAMES_FOR:
            if len(self.names) >= _REMEMBERED:
                self.names.clear()
            known = self.names[uid] = (now, await trio.to_thread.run_sync(self.user_name, uid))
        return known[1]

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

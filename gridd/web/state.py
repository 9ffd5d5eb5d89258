"""What the web server holds while it runs: the logins of its browsers, the master
clients it lends out, and the master's last change number for the live pages."""

from __future__ import annotations

import secrets
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeVar

import anyio

from gridd.client import Client, Refused

T = TypeVar("T")

COOKIE = "gridd_session"


@dataclass
class Login:
    """A browser logged in as `user`: its master session and its forms' CSRF token."""

    user: str
    session: str  # the master's (WebSession.session): every request is made as it
    expires: float  # the master's end of the session, as the time it gave
    csrf: str = field(default_factory=lambda: secrets.token_urlsafe(32))


class ClientPool:
    """Connections to the master, one per request at a time, made as needed and kept:
    a request of a login is sent on one of them as that login's user (Client.session)."""

    def __init__(self, base: Path) -> None:
        self.base = base
        self._idle: list[Client] = []
        self._lock = threading.Lock()

    def run(self, session: str | None, fn: Callable[[Client], T]) -> T:
        """`fn(client)` with a client acting for `session` (None: the server's own user);
        blocking, for a worker thread. A client that failed is not used again; one the
        master answered with a refusal is (its connection is as sound as before)."""
        with self._lock:
            client = self._idle.pop() if self._idle else None
        if client is None:
            client = Client(self.base)
        client.session = session
        try:
            result = fn(client)
        except Refused:
            self._keep(client)
            raise
        except BaseException:
            client.close()
            raise
        self._keep(client)
        return result

    def _keep(self, client: Client) -> None:
        with self._lock:
            self._idle.append(client)

    def close(self) -> None:
        with self._lock:
            idle, self._idle = self._idle, []
        for client in idle:
            client.close()


class Changes:
    """The master's change number (its Watch answers), and the pages waiting for the next."""

    def __init__(self) -> None:
        self.version = 0
        self._waiting: set[anyio.Event] = set()

    def publish(self, version: int) -> None:
        self.version = version
        waiting, self._waiting = self._waiting, set()
        for event in waiting:
            event.set()

    async def after(self, seen: int) -> int:
        """The change number, once it is another than `seen`."""
        while self.version == seen:
            event = anyio.Event()
            self._waiting.add(event)
            await event.wait()
        return self.version


class WebState:
    """The server's whole state; nothing of it is kept when the server ends."""

    def __init__(self, base: Path) -> None:
        self.base = base
        self.logins: dict[str, Login] = {}  # cookie value -> login
        self.pool = ClientPool(base)
        self.changes = Changes()

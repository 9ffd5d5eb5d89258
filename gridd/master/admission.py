"""Who may send the master what: the checks made on a message before it is applied.

The master actor knows who sent a message from its connection (the key's User-Id, the
host its address resolves to) and hands that in as a Peer; it knows nothing else about
the sender. Here it is decided whether the message may be applied at all, as whom, and
whether its connection is an execd's: a host's key may only send reports about that host,
only a host's key may send reports (on a cell without security anybody is believed), a
connection may make so many requests a second, and a client request is stamped with its
user and host (gridd.master.identity) before the state machine sees it. What a user may then do to
which object is gridd.master.permissions', asked by the state machine.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

from gridd import protocol as p
from gridd.master import permissions
from gridd.master.identity import stamp
from gridd.master.ratelimit import Limiter, QuietLog
from gridd.model.config import Configuration
from gridd.model.host_names import same_host

# What only execds send: taken only from the key of the host the message is about.
EXECD = (p.Register, p.LoadReport, p.TaskStarted, p.TaskFinished)

# A user's primary group, uid and gid in the master's user database; ("", None, None)
# for a user unknown there.
Account = tuple[str, int | None, int | None]


class Peer(NamedTuple):
    """Where a client message came from: the User-Id its key was authorized as ("user:NAME"
    or "host:NAME"; "" on a cell without security) and the name of its host."""

    user_id: str
    host: str

    @property
    def user(self) -> str | None:
        """The user the key belongs to; None for a host's key or without security."""
        kind, _, name = self.user_id.partition(":")
        return name if kind == "user" else None


class Admitted(NamedTuple):
    """The verdict on one message: the error to answer instead of applying it, or None;
    and the host whose execd sent it (its connection is where that host's orders go)."""

    refusal: p.Error | None = None
    execd: str | None = None


_IN = Admitted()  # the verdict on most messages, made once


class Door:
    """The checks of every client and execd message, with what they remember: the
    request rate of each connection and the warnings already logged.

    `secured`: the cell has CURVE keys, so every connection names its key; without
    security (`gridd up --security none`) clients are whoever they claim to be."""

    def __init__(self, secured: bool, limiter: Limiter, quiet: QuietLog) -> None:
        self.secured = secured
        self.limiter = limiter
        self.quiet = quiet

    def dropped(self, ident: bytes, peer: Peer | None, frames: int, now: float) -> None:
        """A client message of other than two frames (routing id, message): not answered."""
        self.quiet.warning(now, "dropped a message of %d frames from %s", frames,
                           described(peer, ident))

    def garbage(self, ident: bytes, peer: Peer | None, problem: Exception,
                now: float) -> p.Error:
        """A client message that does not decode: counted against the connection's rate
        too, and answered with what is wrong with it."""
        self.quiet.warning(now, "bad message from %s: %s", described(peer, ident), problem)
        self.limiter.allow(ident, now)
        return p.Error(text=f"error: {problem}")

    def admit(self, ident: bytes, peer: Peer, msg: p.Msg, now: float,
              account: Callable[[str], Account]) -> Admitted:
        """Whether a client or execd message may be applied, stamped with who sent it
        (`account`: the user database's entry of a user)."""
        kind, _, name = peer.user_id.partition(":")
        what = type(msg).__name__
        if kind == "host":
            if isinstance(msg, EXECD) and same_host(reported_host(msg), name):
                return Admitted(execd=name)
            self.quiet.warning(now, "refused %s from %s: a host's key may only send "
                               "reports about that host", what, described(peer, ident))
            return Admitted(p.Error(text=f"error: the key of host {name} may only send its "
                                         "reports"))
        if isinstance(msg, EXECD):
            if kind == "user" or self.secured:
                self.quiet.warning(now, "refused %s from %s: only an execution host's key "
                                   "may send it", what, described(peer, ident))
                return Admitted(p.Error(text=f"error: {what} is for execution daemons only"))
            return Admitted(execd=reported_host(msg))  # no security: believed
        if not self.limiter.allow(ident, now):
            self.quiet.warning(now, "refused a request from %s: more than %g a second",
                               described(peer, ident), self.limiter.rate)
            return Admitted(p.Error(text=f"error: too many requests on this connection (more "
                                         f"than {self.limiter.rate:g} a second): try again "
                                         "later", later=True))
        if kind == "user":
            group, uid, gid = account(name)
            stamp(msg, name, group, peer.host, uid=uid, gid=gid)
        elif self.secured:  # the ZAP handler names every key it lets in
            self.quiet.warning(now, "refused %s from %s: no user", what,
                               described(peer, ident))
            return Admitted(p.Error(text="error: this connection is not authenticated as a "
                                         "user"))
        return _IN


def unless_manager(config: Configuration, user: str | None) -> p.Error | None:
    """The refusal of what only managers may do, None when the client may; on a cell
    without security nobody is known (None), and everybody may."""
    if user is None or permissions.is_manager(config, user):
        return None
    return p.Error(text=permissions.must_be_manager(user))


def reported_host(msg: p.Msg) -> str:
    """The host an execd's message is about."""
    return msg.report.host if isinstance(msg, p.TaskFinished) else msg.host


def name_reporter(msg: p.Msg, host: str) -> None:
    """Name in an execd's message the host it is about as `host`."""
    if isinstance(msg, p.TaskFinished):
        msg.report.host = host
    else:
        msg.host = host


def described(peer: Peer | None, ident: bytes) -> str:
    """A peer for the log: its key's name and host, and its connection."""
    if peer is None:
        return repr(ident)
    return f"{peer.user_id or 'anonymous'}@{peer.host} ({ident.hex()})"

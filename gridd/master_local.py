"""The master's second door, for commands on its own machine: a Unix socket in Linux's
abstract namespace, where the kernel tells each side who the other is.

Over TCP every command proves who it is with its CURVE key: loading libsodium, reading
its key files, three round trips and five boxes: some 3 ms of qdel's 16. On
the master's machine the kernel already knows the caller: a Unix socket's peer
credentials (SO_PEERCRED) name its uid, and libzmq hands them to the ZAP handler as the
address of a NULL-mechanism connection (``host:uid:gid:pid``). So the master, when it
has keys, also binds such a socket (NULL, with the same ZAP domain) and names it in
common/master_local; the ZAP handler lets a uid in as its user when that user has an
authorized key, as if it had connected with that key.

A client checks the other way round just as the kernel tells it: the socket's owner must
be the uid that wrote common/master_local, so that nobody can stand in for the master
by taking the name first on another machine that shares the cell's files. Anything that
does not work out (no such file, another machine or network namespace, a refusal, a key
named by $GRIDD_KEY or not in order: gridd.connection) leaves the command to connect over
TCP with CURVE, as before.
"""

from __future__ import annotations

import _socket
import os
import sys

from gridd import paths
from gridd.zmtp import Dealer, ZmtpError

FILE = "master_local"  # in common/
_CRED_SIZE = 12  # struct ucred: pid, uid, gid, 32 bits each


def location(base: str | os.PathLike[str] | None = None) -> str:
    return os.path.join(paths.common_dir(base), FILE)


def new_endpoint() -> str:
    """A fresh abstract name: a master's start never meets an old one's clients."""
    return f"ipc://@gridd-{os.urandom(8).hex()}"


def publish(base: str | os.PathLike[str], endpoint: str) -> None:
    from gridd import durable

    durable.replace(location(base), f"{endpoint}\n".encode())


def withdraw(base: str | os.PathLike[str], endpoint: str) -> None:
    """Remove the file if it still names `endpoint` (not a newer master's)."""
    where = location(base)
    try:
        with open(where) as f:
            if f.read().strip() != endpoint:
                return
        os.unlink(where)
    except OSError:
        pass


def peer_uid(address: str) -> int | None:
    """The uid in the address libzmq gives a Unix socket's peer (``host:uid:gid:pid``);
    None for any other address (a TCP peer's is an IP address)."""
    parts = address.rsplit(":", 3)
    if (len(parts) != 4 or ":" in parts[0]  # an IPv6 address has colons before its last three
            or not all(p.isascii() and p.isdigit() for p in parts[1:])):
        return None
    return int(parts[1])


def published(base: str | os.PathLike[str] | None) -> tuple[str, int] | None:
    """The local socket the cell's master named, and the uid that named it (whose the
    socket must be); None where there is none."""
    try:
        with open(location(base)) as f:
            endpoint = f.read().strip()
            owner = os.fstat(f.fileno()).st_uid
    except OSError:
        return None
    return (endpoint, owner) if endpoint.startswith("ipc://@") else None


def connect(endpoint: str, owner: int, timeout: float) -> Dealer | None:
    """A connection through the local socket at `endpoint` when `owner` holds it; None
    where the command is to connect over TCP."""
    try:
        dealer = Dealer(endpoint, timeout)
    except (ZmtpError, OSError):
        return None
    if server_uid(dealer) != owner:
        dealer.close()
        return None
    return dealer


def server_uid(dealer: Dealer) -> int:
    """The uid of the process at the other end of a Unix socket, as the kernel says."""
    cred = dealer.sock.getsockopt(_socket.SOL_SOCKET, _socket.SO_PEERCRED, _CRED_SIZE)
    return int.from_bytes(cred[4:8], sys.byteorder)

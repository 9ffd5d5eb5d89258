"""Reaching the master: where it listens, which keys to show it, and how a failure to
reach it reads. What every client shares, gridd.client (whose requests are msgspec
structs) and the quick forms of the q* commands (gridd.cli.quick, plain values), which
is why it imports no more than the wire needs: a command pays for every import.
"""

from __future__ import annotations

import os

from gridd import master_local, paths
from gridd.zmtp import Curve, Dealer, ZmtpError

TYPE_CHECKING = False  # typing's own costs a q* command milliseconds to import
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import TypeVar

    T = TypeVar("T")

CONNECT_TIMEOUT = float(os.environ.get("GRIDD_CONNECT_TIMEOUT", "3"))
REPLY_TIMEOUT = float(os.environ.get("GRIDD_TIMEOUT", "60"))


class GriddError(Exception):
    """A request the master refused or could not be reached for; carries the exit code."""

    def __init__(self, text: str, code: int = 1) -> None:
        super().__init__(text)
        self.text = text
        self.code = code


class Refused(GriddError):
    """The master's answer was a refusal (an Error), not a failure to reach it."""


class NoAnswer(GriddError):
    """The master did not answer within the time the request allowed."""


def connect(base: str | os.PathLike[str] | None = None,
            endpoint: str | None = None) -> tuple[Dealer, str]:
    """A connection to the cell's master (at `endpoint`, else where the cell says) and
    the endpoint; GriddError saying why not and what to try. On the master's machine,
    its local socket (gridd.master_local), where it is not told an endpoint."""
    local = None if endpoint else master_local.published(base)
    if local is not None and _own_key_in_order(base):
        dealer = master_local.connect(*local, CONNECT_TIMEOUT)
        if dealer is not None:
            return dealer, local[0]
    endpoint = endpoint or read_endpoint(base)
    curve, key_file = own_keys(base)
    try:
        return Dealer(endpoint, CONNECT_TIMEOUT, curve), endpoint
    except (ZmtpError, TimeoutError) as exc:
        refused = "refused the connection" in str(exc) or "key refused" in str(exc)
        hint = ("is the cell up? try 'gridd status'" if not refused else
                f"the cell does not know the key in {key_file}: the administrator makes "
                "a user's key with 'gridd keys user NAME'")
        raise GriddError(f"error: unable to contact qmaster at {endpoint}: {exc} "
                         f"({hint})") from None


def transfer(endpoint: str, op: Callable[..., T], *args: object) -> T:
    """Run a socket operation, turning its failures into one-line GriddErrors."""
    try:
        return op(*args)
    except TimeoutError:
        raise NoAnswer(f"error: no answer from qmaster at {endpoint}") from None
    except (ZmtpError, OSError, ValueError) as exc:
        raise GriddError(f"error: lost the connection to qmaster at {endpoint}: "
                         f"{exc}") from None


def not_utf8(exc: UnicodeEncodeError) -> GriddError:
    """A request with text that cannot be sent: Python hands over command-line words and
    files that are not UTF-8 with their bad bytes as lone surrogates, which the protocol
    cannot carry."""
    return GriddError(f"error: cannot send text that is not UTF-8: "
                      f"{exc.object[exc.start:exc.end]!r}")


def unreadable(endpoint: str, exc: Exception) -> GriddError:
    """An answer that is not a message this client knows."""
    return GriddError(f"error: cannot read the answer of qmaster at {endpoint}: {exc}")


def _own_key_in_order(base: str | os.PathLike[str] | None) -> bool:
    """Whether this command would connect with its user's own key, and the key is in
    order: the local socket lets the uid in as that user, where the key is not used (it
    must still be private); anything else connects with CURVE, which says what is
    wrong."""
    from gridd import keys

    if os.environ.get("GRIDD_KEY"):  # a key chosen by hand decides who the command is
        return False
    try:
        keys.read_secret(keys.secret_file(base, keys.USERS, current_user()))
    except keys.KeyFileError:
        return False
    return True


def own_keys(base: str | os.PathLike[str] | None) -> tuple[Curve | None, str]:
    """The keys to connect with, and the secret key file they come from: $GRIDD_KEY,
    else the running user's in the cell. A cell made with `--security none` (only ever
    for measuring) has none."""
    from gridd import keys

    if keys.security(base) == keys.NONE:
        return None, ""
    user = current_user()
    try:
        server = keys.read_public(keys.key_file(base, keys.MASTER))
    except keys.KeyFileError as exc:
        raise GriddError(f"error: {exc} (the master's public key, which 'gridd up' "
                         "makes)") from None
    secret_file = os.environ.get("GRIDD_KEY", "")
    try:
        secret_file = secret_file or keys.secret_file(base, keys.USERS, user)
        pair = keys.read_secret(secret_file)
    except keys.KeyFileError as exc:
        fix = (f": the administrator makes one with 'gridd keys user {user}' (or set "
               "GRIDD_KEY to your secret key file)" if isinstance(exc, keys.KeyMissing) else "")
        raise GriddError(f"error: {exc}{fix}") from None
    return Curve(server, pair.public, pair.secret), secret_file


def current_user() -> str:
    """Who runs this process (the real uid's name): whose key a client uses, and the
    name the q* commands give as theirs."""
    import pwd

    try:
        return pwd.getpwuid(os.getuid()).pw_name
    except KeyError:
        return str(os.getuid())


def time_zone() -> str:
    """This process's time zone by name, for a listing the master prints for it: $TZ
    (empty is UTC, as for the C library), else the zone /etc/localtime links to; "" when
    it cannot be named (the master's is used)."""
    zone = os.environ.get("TZ")
    if zone is not None:
        return zone or "UTC"
    try:
        target = os.readlink("/etc/localtime")
    except FileNotFoundError:
        return "UTC"  # as the C library takes it
    except OSError:  # a copy of a zone file, not a link: nameless
        return ""
    return target.partition("zoneinfo/")[2]


def current_group() -> str:
    """The running process's group, by name (its number when it has none)."""
    import grp

    try:
        return grp.getgrgid(os.getgid()).gr_name
    except KeyError:
        return str(os.getgid())


def home_dir() -> str:
    """The running user's home, as a submission names it: the password database's, else
    $HOME (a uid with no entry)."""
    import pwd

    try:
        return pwd.getpwuid(os.getuid()).pw_dir
    except KeyError:
        return os.environ.get("HOME", "/")


def read_endpoint(base: str | os.PathLike[str] | None) -> str:
    where = paths.endpoint_location(base)
    try:
        with open(where) as f:
            return f.read().strip()
    except OSError:
        raise GriddError(paths.no_cell(base, where)) from None

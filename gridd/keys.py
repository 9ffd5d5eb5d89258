"""The CURVE key pairs of a cell: what lets a process talk to the master, and as whom.

Under ``$GRIDD_ROOT/common/keys/``: ``master.key`` (+ ``master.key_secret``), one pair per
user in ``users/`` and one per execution host in ``hosts/``. The master authorizes a
connection by its public key alone, so the name a key file bears is the identity every
request made with it carries; whoever may write these directories is an administrator.
The files are ZeroMQ certificates as ``zmq.auth`` writes them (``public-key = "..."``,
``secret-key = "..."`` in Z85), so pyzmq's tools read them too.

Reading a key needs no pyzmq: a q* command reads its key on every run, and importing zmq
would cost it 60 ms. Only making keys does (``zmq.curve_keypair``).
"""

from __future__ import annotations

import os
import stat
import time

from gridd import paths
from gridd.zmtp import z85_decode, z85_encode

MASTER, USERS, HOSTS = "master", "users", "hosts"
CURVE, NONE = "curve", "none"  # a cell's security: what `gridd up --security` chose
SECRET_SUFFIX = "_secret"
# A key's name becomes a file name and a User-Id ("user:NAME"): no path separators, no
# leading dot (hidden, and "." / ".."), nothing a shell or a log line would misread.
# (Checked without re, as the key lines are read: a q* command reads both on every run,
# and importing re is a good part of its start-up.)
_NAME_FIRST = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_")
_NAME_REST = _NAME_FIRST | frozenset(".@-")
_MAX_NAME = 255
_BLANK = " \t"
_QUOTES = "\"'"


_MAX_KEY_FILE = 64 * 1024  # a certificate is a few hundred bytes


class KeyFileError(Exception):
    """A key file that is missing, malformed or not private enough: the text names the
    file and what to do about it."""


class KeyMissing(KeyFileError):
    """The key file is not there: someone has to make it."""


class KeyPair(tuple):
    """(public, secret), 32 raw bytes each, as pyzmq's socket options and the ZAP
    protocol take them (a tuple with names, not a typing.NamedTuple, as zmtp.Curve)."""

    __slots__ = ()

    def __new__(cls, public: bytes, secret: bytes) -> KeyPair:
        return super().__new__(cls, (public, secret))

    @property
    def public(self) -> bytes:
        return self[0]

    @property
    def secret(self) -> bytes:
        return self[1]


def keys_dir(base: str | os.PathLike[str] | None = None) -> str:
    return os.path.join(paths.common_dir(base), "keys")


def key_file(base: str | os.PathLike[str] | None, kind: str, name: str = "") -> str:
    """The public key file of the master (kind MASTER), of a user (USERS) or of a host
    (HOSTS); its secret key is the same path + SECRET_SUFFIX."""
    if kind == MASTER:
        return os.path.join(keys_dir(base), "master.key")
    if not valid_name(name):
        raise KeyFileError(f"not a usable name for a key: {name!r}")
    return os.path.join(keys_dir(base), kind, f"{name}.key")


def secret_file(base: str | os.PathLike[str] | None, kind: str, name: str = "") -> str:
    return key_file(base, kind, name) + SECRET_SUFFIX


def valid_name(name: str) -> bool:
    return (0 < len(name) <= _MAX_NAME and name[0] in _NAME_FIRST
            and all(c in _NAME_REST for c in name))


def security(base: str | os.PathLike[str] | None = None) -> str:
    """CURVE unless the cell was made with `gridd up --security none` (for measuring)."""
    try:
        with open(_security_file(base)) as f:
            return f.read().strip() or CURVE
    except FileNotFoundError:
        return CURVE


def set_security(base: str | os.PathLike[str], mode: str) -> None:
    with open(_security_file(base), "w") as f:
        f.write(f"{mode}\n")


def _security_file(base: str | os.PathLike[str] | None) -> str:
    return os.path.join(paths.common_dir(base), "security")


def read_public(path: str) -> bytes:
    """A public key (raw) from a certificate file."""
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except FileNotFoundError:
        raise KeyMissing(f"no key file {path}") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise KeyFileError(f"cannot read the key file {path}: {exc}") from None
    return _parse(text, path)[0]


class NotPrivate(Exception):
    """A file that holds a secret and that others may read or change."""

    def __init__(self, mode: int) -> None:
        super().__init__(f"mode {mode:04o}")
        self.mode = mode


class NotRegular(Exception):
    """Where a private file is to be read, something else than a file (a pipe that would
    block, a device)."""


def read_private(path: str, limit: int) -> bytes:
    """Up to `limit` + 1 bytes (so that a caller tells one too large) of a regular file
    only its owner may read and change, checked on the file opened; OSError when it
    cannot be opened, NotRegular or NotPrivate when it is not such a file."""
    fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise NotRegular(path)
        if stat.S_IMODE(info.st_mode) & 0o077:
            raise NotPrivate(stat.S_IMODE(info.st_mode))
        return os.read(fd, limit + 1)
    finally:
        os.close(fd)


def read_secret(path: str) -> KeyPair:
    """A key pair from a secret certificate file, which must be private: a secret key
    others may read lets them act as its owner, one they may write lets them swap it."""
    try:
        data = read_private(path, _MAX_KEY_FILE)
    except FileNotFoundError:
        raise KeyMissing(f"no secret key file {path}") from None
    except OSError as exc:
        raise KeyFileError(f"cannot read the secret key file {path}: {exc.strerror}") from None
    except NotRegular:
        raise KeyFileError(f"the secret key file {path} is not a regular file") from None
    except NotPrivate as exc:
        raise KeyFileError(
            f"the secret key file {path} may be read or changed by others (mode "
            f"{exc.mode:04o}); it must be private to its owner: run 'chmod 600 {path}'"
        ) from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise KeyFileError(f"cannot read the secret key file {path}: {exc}") from None
    public, secret = _parse(text, path)
    if secret is None:
        raise KeyFileError(f"{path} holds no secret key")
    return KeyPair(public, secret)


def key_lines(text: str) -> dict[str, str]:
    """The `public-key = "..."` and `secret-key = "..."` lines of a certificate, the last
    of each kind: the value as written, without the blanks around it and one quote at
    each end."""
    found = {}
    for line in text.split("\n"):
        line = line.lstrip(_BLANK)
        kind = line[:6]
        if kind not in ("public", "secret") or line[6:10] != "-key":
            continue
        rest = line[10:].lstrip(_BLANK)
        if not rest.startswith("="):
            continue
        value = rest[1:].lstrip(_BLANK)
        value = value[1:] if value[:1] in _QUOTES and value else value
        value = value.rstrip(_BLANK)
        found[kind] = value[:-1] if value[-1:] in _QUOTES and value else value
    return found


def _parse(text: str, path: str) -> tuple[bytes, bytes | None]:
    found = key_lines(text)
    keys: dict[str, bytes] = {}
    for kind, value in found.items():
        try:
            raw = z85_decode(value)
        except ValueError as exc:
            raise KeyFileError(f"{path}: the {kind} key is not Z85 text: {exc}") from None
        if len(raw) != 32:
            raise KeyFileError(f"{path}: the {kind} key is not a CURVE key "
                               f"({len(raw)} bytes instead of 32)")
        keys[kind] = raw
    if "public" not in keys:
        raise KeyFileError(f"{path} holds no public key")
    return keys["public"], keys.get("secret")


def create(path: str, owner: tuple[int, int] | None = None) -> KeyPair:
    """A new key pair in `path` (public, mode 0644) and `path`_secret (0600), replacing
    any pair there; `owner` (uid, gid) gets the secret file, when root makes a user's
    key. The secret file is private from its first byte on: written under a temporary
    name created 0600, then renamed."""
    import zmq

    public, secret = zmq.curve_keypair()
    pair = KeyPair(z85_decode(public.decode()), z85_decode(secret.decode()))
    install(path, pair, owner)
    return pair


def install(path: str, pair: KeyPair, owner: tuple[int, int] | None = None) -> None:
    """Write the key pair `pair` to `path` and its secret file, as `create` does: the
    pair of a host that joins with a bundle made on the master (gridd.join_bundle)."""
    directory = os.path.dirname(path)
    os.makedirs(directory, exist_ok=True)
    stamp = time.strftime("%Y-%m-%d %H:%M:%S")
    body = f'curve\n    public-key = "{z85_encode(pair.public)}"\n'
    write_file(path + SECRET_SUFFIX, 0o600, owner,
               f"#   ****  Generated on {stamp} by gridd  ****\n"
               "#   ZeroMQ CURVE **Secret** Certificate\n"
               "#   DO NOT PROVIDE THIS FILE TO OTHER USERS nor change its permissions.\n\n"
               f'metadata\n{body}    secret-key = "{z85_encode(pair.secret)}"\n')
    install_public(path, pair.public)


def install_public(path: str, public: bytes) -> None:
    """A public certificate file alone: the master's key on a host that joins."""
    from gridd.durable import fsync_dir

    directory = os.path.dirname(path)
    os.makedirs(directory, exist_ok=True)
    write_file(path, 0o644, None,
               f"#   ****  Generated on {time.strftime('%Y-%m-%d %H:%M:%S')} by gridd  ****\n"
               "#   ZeroMQ CURVE Public Certificate\n\n"
               f'metadata\ncurve\n    public-key = "{z85_encode(public)}"\n')
    fsync_dir(directory)


def write_file(path: str, mode: int, owner: tuple[int, int] | None, text: str) -> None:
    """`text` in `path` with `mode` from its first byte on (created under a temporary name
    with that mode, then renamed), so that a secret is never readable by others.
    (gridd.durable is imported here: a q* command reads keys, it never writes them.)"""
    from gridd.durable import write_all

    directory, name = os.path.split(path)
    temporary = os.path.join(directory, f".{name}.new")
    try:
        os.unlink(temporary)  # a leftover of an interrupted run, maybe with another mode
    except FileNotFoundError:
        pass
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW
                 | os.O_CLOEXEC, mode)
    try:
        os.fchmod(fd, mode)  # whatever the umask
        if owner is not None:
            os.fchown(fd, *owner)
        write_all(fd, text.encode())
        os.fsync(fd)
    finally:
        os.close(fd)
    os.replace(temporary, path)


def ensure(base: str | os.PathLike[str], kind: str, name: str = "",
           owner: tuple[int, int] | None = None) -> bool:
    """Make the key pair unless it exists; True when it was made."""
    path = key_file(base, kind, name)
    if has_pair(path):
        return False
    make_dirs(base)
    create(path, owner)
    return True


def has_pair(path: str) -> bool:
    """Whether both files of the key pair at `path` (its public key file) are there."""
    return os.path.exists(path) and os.path.exists(path + SECRET_SUFFIX)


def make_dirs(base: str | os.PathLike[str]) -> None:
    """The key directories, readable by all (each user reads their own secret file in
    users/), writable by the cell's administrator only."""
    for directory in (keys_dir(base), os.path.join(keys_dir(base), USERS),
                      os.path.join(keys_dir(base), HOSTS)):
        os.makedirs(directory, exist_ok=True)
        os.chmod(directory, 0o755)


class Authorized:
    """The public keys the master lets in: raw key -> User-Id ("user:NAME"/"host:NAME"),
    and a line for each key file that could not be used."""

    def __init__(self, ids: dict[bytes, str], problems: list[str]) -> None:
        self.ids = ids
        self.problems = problems


def authorized(base: str | os.PathLike[str]) -> Authorized:
    ids: dict[bytes, str] = {}
    problems: list[str] = []
    ambiguous: set[bytes] = set()
    for kind, prefix in ((USERS, "user"), (HOSTS, "host")):
        try:
            files = _listed(base, kind)
        except OSError as exc:
            problems.append(f"cannot read the directory {exc.filename}: {exc.strerror}")
            continue
        for name, path in files:
            try:
                public = read_public(path)
            except KeyFileError as exc:
                problems.append(str(exc))
                continue
            if public in ids:  # whose would it be? neither's
                problems.append(f"{path}: the same key as {ids[public]}; neither is let in")
                ambiguous.add(public)
                continue
            ids[public] = f"{prefix}:{name}"
    for public in ambiguous:
        del ids[public]
    return Authorized(ids, problems)


def _listed(base: str | os.PathLike[str], kind: str) -> list[tuple[str, str]]:
    directory = os.path.join(keys_dir(base), kind)
    try:
        files = sorted(os.listdir(directory))
    except FileNotFoundError:
        return []
    return [(f[:-4], os.path.join(directory, f)) for f in files
            if f.endswith(".key") and valid_name(f[:-4])]


def listing(base: str | os.PathLike[str]) -> list[tuple[str, str, str, str]]:
    """(kind, name, public key in Z85, what is wrong or "") of every key file, for
    `gridd keys list`: the master's first, then users and hosts by name."""
    rows = []
    entries = [(MASTER, "master", key_file(base, MASTER))]
    entries += [(kind, name, path) for kind in (USERS, HOSTS) for name, path in _listed(base, kind)]
    for kind, name, path in entries:
        if kind == MASTER and not os.path.exists(path):
            continue
        try:
            public, problem = z85_encode(read_public(path)), ""
        except KeyFileError as exc:
            public, problem = "-", str(exc)
        rows.append((kind.rstrip("s"), name, public, problem))
    return rows

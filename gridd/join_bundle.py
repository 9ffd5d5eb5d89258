"""A join bundle: all an execution host on a machine without the cell's root needs.

`gridd keys host NAME --bundle FILE` writes it on the master; `gridd execd --join FILE`
installs it in the node's own cell root and runs the execd as NAME. It holds the host's
secret key, so it is written private (mode 0600) and read only when private. The format is
text, one ``field = value`` a line after a first line ``gridd-join-bundle 1``; lines
starting with ``#`` are comments; keys are Z85 text (40 characters for 32 bytes), as in
ZeroMQ's certificate files::

    gridd-join-bundle 1
    host = node7
    master_endpoint = tcp://10.77.0.1:6444
    master_public_key = <Z85>
    host_public_key = <Z85>
    host_secret_key = <Z85>

Every field must be there, once; the host's public key must be its secret key's.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import NamedTuple

from gridd import keys, paths
from gridd.zmtp import z85_decode, z85_encode

MAGIC = "gridd-join-bundle 1"
FIELDS = ("host", "master_endpoint", "master_public_key", "host_public_key",
          "host_secret_key")
MAX_SIZE = 64 * 1024  # a bundle is a few hundred bytes: anything far larger is not one


class BundleError(Exception):
    """A bundle that cannot be used: the text names the file and what is wrong."""


class Bundle(NamedTuple):
    host: str
    master_endpoint: str
    master_public: bytes
    pair: keys.KeyPair


def render(bundle: Bundle) -> str:
    return (f"# A gridd join bundle: run 'gridd execd --join FILE' on host {bundle.host}.\n"
            f"# It holds the host's secret key: keep it private, delete it once joined.\n"
            f"{MAGIC}\n"
            f"host = {bundle.host}\n"
            f"master_endpoint = {bundle.master_endpoint}\n"
            f"master_public_key = {z85_encode(bundle.master_public)}\n"
            f"host_public_key = {z85_encode(bundle.pair.public)}\n"
            f"host_secret_key = {z85_encode(bundle.pair.secret)}\n")


def write(path: str, bundle: Bundle) -> None:
    keys.write_file(os.path.abspath(path), 0o600, None, render(bundle))


def read(path: str) -> Bundle:
    """The bundle in `path`, checked whole: private, complete, keys that are keys."""
    try:
        data = keys.read_private(path, MAX_SIZE)
    except OSError as exc:
        raise BundleError(f"cannot read the bundle {path}: {exc.strerror}") from None
    except keys.NotRegular:
        raise BundleError(f"the bundle {path} is not a regular file") from None
    except keys.NotPrivate as exc:
        raise BundleError(f"the bundle {path} may be read or changed by others (mode "
                          f"{exc.mode:04o}): it holds a secret key; make it private "
                          f"('chmod 600 {path}') if nobody else could have read it, "
                          "else make a new one on the master with --renew") from None
    if len(data) > MAX_SIZE:
        raise BundleError(f"{path} is not a gridd join bundle (larger than {MAX_SIZE} bytes)")
    try:
        return parse(data.decode("utf-8"), path)
    except UnicodeDecodeError:
        raise BundleError(f"{path} is not a gridd join bundle (not text)") from None


def parse(text: str, path: str) -> Bundle:
    lines = [(number, ln.strip()) for number, ln in enumerate(text.splitlines(), 1)]
    lines = [(number, ln) for number, ln in lines if ln and not ln.startswith("#")]
    if not lines or lines[0][1] != MAGIC:
        raise BundleError(f"{path} is not a gridd join bundle (its first line is not "
                          f"{MAGIC!r}; make one with 'gridd keys host NAME --bundle FILE')")
    found: dict[str, str] = {}
    for number, line in lines[1:]:
        field, equals, value = (part.strip() for part in line.partition("="))
        if not equals or field not in FIELDS:  # the value unsaid: it may be a secret
            raise BundleError(f"{path}: line {number} is not FIELD = VALUE, FIELD one of "
                              f"{', '.join(FIELDS)}")
        if field in found:
            raise BundleError(f"{path}: {field} is given twice")
        found[field] = value
    missing = [f for f in FIELDS if f not in found]
    if missing:
        raise BundleError(f"{path}: no {', '.join(missing)}")
    if not keys.valid_name(found["host"]):
        raise BundleError(f"{path}: {found['host']!r} cannot name a host")
    endpoint = found["master_endpoint"]
    if not endpoint.startswith(("tcp://", "ipc://")) or len(endpoint) <= len("tcp://"):
        raise BundleError(f"{path}: master_endpoint {endpoint!r} is not a ZeroMQ endpoint "
                          "(tcp://HOST:PORT)")
    master, public, secret = (_key(path, found, f) for f in
                              ("master_public_key", "host_public_key", "host_secret_key"))
    import zmq  # only here: deriving a public key from a secret one needs libzmq

    if z85_decode(zmq.curve_public(z85_encode(secret).encode()).decode()) != public:
        raise BundleError(f"{path}: host_public_key is not the public key of "
                          "host_secret_key")
    return Bundle(found["host"], endpoint, master, keys.KeyPair(public, secret))


def _key(path: str, found: dict[str, str], field: str) -> bytes:
    try:
        raw = z85_decode(found[field])
    except ValueError:
        raw = b""
    if len(raw) != 32:
        raise BundleError(f"{path}: {field} is not a CURVE key (40 characters of Z85)")
    return raw


def install(base: Path, bundle: Bundle) -> None:
    """What the bundle holds, into the cell root `base` as the master's cell has it: the
    endpoint, the master's public key, the host's key pair. A root that is a master's own
    cell (it holds the master's secret key) keeps its master key: a bundle of another
    master is refused rather than break that cell."""
    master_key = keys.key_file(base, keys.MASTER)
    if os.path.exists(master_key + keys.SECRET_SUFFIX):
        try:
            ours = keys.read_public(master_key)
        except keys.KeyFileError:
            ours = b""
        if ours != bundle.master_public:
            raise BundleError(f"{base} holds the cell of another master (its secret key "
                              f"{master_key}{keys.SECRET_SUFFIX}): set GRIDD_ROOT to a "
                              "directory for this node's cell")
    keys.make_dirs(base)
    keys.install_public(master_key, bundle.master_public)
    keys.install(keys.key_file(base, keys.HOSTS, bundle.host), bundle.pair)
    paths.endpoint_file(base).write_text(f"{bundle.master_endpoint}\n")

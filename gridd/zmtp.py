"""A blocking ZMTP 3.0 DEALER peer on a plain socket, for the command-line clients.

The master speaks ZeroMQ (a ROUTER socket); the q* commands talk to it with this small
implementation of the wire protocol instead of pyzmq, whose import alone costs a
command like qsub more than a third of its run time. It speaks the NULL mechanism and,
given keys, CURVE (CurveZMQ, RFC 26, as ZMTP's "CURVE" mechanism): encryption and
authentication by key. The cryptography is libsodium's, called through PyNaCl's compiled
module only when CURVE is used. It sits on ``_socket`` directly: the ``socket`` module wrapper costs
milliseconds of start-up to build enums this client never needs.
"""

from __future__ import annotations

import _socket
import os

TYPE_CHECKING = False  # typing's own costs a q* command milliseconds to import
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any, TypeVar

    R = TypeVar("R")

_SIGNATURE = b"\xff" + bytes(8) + b"\x7f"
_MORE, _LONG, _COMMAND = 0x01, 0x02, 0x04
_MESSAGE = b"\x07MESSAGE"
_LARGE = 1 << 20  # a frame at least this long is read into a buffer of its own
# What a ZAP handler's status code (the reason of the server's ERROR command) means.
_ZAP_STATUS = {b"300": "temporary failure", b"400": "this client's key is not authorized",
               b"500": "the authenticator failed"}
_Z85 = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.-:+=^!/*?&<>()[]{}@%$#"
_Z85_VALUE = {c: i for i, c in enumerate(_Z85)}


class ZmtpError(Exception):
    """The peer is not reachable, does not speak ZMTP 3, or refused the handshake."""


class _Closed(ZmtpError):
    """The peer closed or reset the connection: told apart during a CURVE handshake,
    where it is how libzmq answers a wrong server key."""


class Curve(tuple):
    """CurveZMQ keys, 32 raw bytes each: the server's public key, and this client's
    long-term pair, whose public half the server's authenticator (ZAP) knows. (A tuple
    with names, not a typing.NamedTuple: importing typing is a q* command's
    milliseconds.)"""

    __slots__ = ()

    def __new__(cls, server_public: bytes, public: bytes, secret: bytes) -> Curve:
        return super().__new__(cls, (server_public, public, secret))

    @property
    def server_public(self) -> bytes:
        return self[0]

    @property
    def public(self) -> bytes:
        return self[1]

    @property
    def secret(self) -> bytes:
        return self[2]


def z85_encode(raw: bytes) -> str:
    """Z85 (RFC 32) text of ``raw`` (a multiple of 4 bytes), as key files hold keys."""
    if len(raw) % 4:
        raise ValueError("Z85 encodes a multiple of 4 bytes")
    return "".join(_Z85[int.from_bytes(raw[at:at + 4], "big") // 85**k % 85]
                   for at in range(0, len(raw), 4) for k in (4, 3, 2, 1, 0))


def z85_decode(text: str) -> bytes:
    """The bytes of Z85 ``text``; ValueError if it is not Z85 (bad length or character)."""
    if len(text) % 5:
        raise ValueError("Z85 text is a multiple of 5 characters")
    out = bytearray()
    for start in range(0, len(text), 5):
        value = 0
        for char in text[start:start + 5]:
            if char not in _Z85_VALUE:
                raise ValueError(f"not a Z85 character: {char!r}")
            value = value * 85 + _Z85_VALUE[char]
        if value > 0xFFFFFFFF:
            raise ValueError(f"not Z85: {text[start:start + 5]!r} exceeds 32 bits")
        out += value.to_bytes(4, "big")
    return bytes(out)


def _greeting(mechanism: bytes) -> bytes:
    """Version 3.0, the mechanism, as-server 0."""
    return _SIGNATURE + b"\x03\x00" + mechanism.ljust(20, b"\x00") + b"\x00" + bytes(31)


def _properties(properties: dict[bytes, bytes]) -> bytes:
    """ZMTP metadata: the form of READY's body and of CURVE's INITIATE and READY boxes."""
    return b"".join(bytes([len(key)]) + key + len(value).to_bytes(4, "big") + value
                    for key, value in properties.items())


def _metadata(identity: bytes) -> bytes:
    """This peer's READY (or INITIATE) metadata: a DEALER, with a routing id when given
    (the ROUTER then knows the connection by it: a session by qrsh's public key)."""
    properties = {b"Socket-Type": b"DEALER"}
    if identity:
        properties[b"Identity"] = identity
    return _properties(properties)


def _command(name: bytes, data: bytes) -> bytes:
    return _frame(bytes([len(name)]) + name + data, _COMMAND)


def _frame(body: bytes, flags: int) -> bytes:
    if len(body) < 256:
        return bytes([flags, len(body)]) + body
    return bytes([flags | _LONG]) + len(body).to_bytes(8, "big") + body


def _connect(endpoint: str, timeout: float) -> _socket.socket:
    """A stream socket connected to a tcp:// endpoint (an IP address or a host name, each
    address it resolves to tried in turn, as ZeroMQ does) or to an ipc:// one."""
    transport, _, address = endpoint.partition("://")
    if transport == "tcp":
        host, _, port = address.rpartition(":")
        host = host.strip("[]")
        # a str is IDNA-encoded first (loading encodings.idna, unicodedata, stringprep);
        # an ASCII name is its own IDNA form
        name: str | bytes = host.encode() if host.isascii() else host
        try:
            targets = [(family, target) for family, _, _, _, target in _socket.getaddrinfo(
                name, int(port), 0, _socket.SOCK_STREAM)]
        except (OSError, ValueError) as exc:
            raise ZmtpError(f"cannot connect to {endpoint}: {exc}") from None
    elif transport == "ipc":  # "@name" is in Linux's abstract namespace, as for libzmq
        targets = [(_socket.AF_UNIX, "\0" + address[1:] if address[:1] == "@" else address)]
    else:
        raise ZmtpError(f"unsupported endpoint {endpoint!r} (want tcp:// or ipc://)")
    failure = OSError("no address")
    for family, target in targets:
        sock = _socket.socket(family, _socket.SOCK_STREAM)
        try:
            sock.settimeout(timeout)
            if family != _socket.AF_UNIX:
                sock.setsockopt(_socket.IPPROTO_TCP, _socket.TCP_NODELAY, 1)
            sock.connect(target)
            return sock
        except OSError as exc:
            sock.close()
            failure = exc
    raise ZmtpError(f"cannot connect to {endpoint}: {failure}") from None


class _Refused(Exception):
    """libsodium refused a key (such as all zeros) or a box failed authentication."""


class _Sodium:
    """The libsodium calls the client's side of CurveZMQ makes, straight from PyNaCl's
    compiled module: nacl.bindings would load every binding PyNaCl has (65M instructions,
    a q* command's ~8 ms) for these five. The boxes are the "easy" form, the MAC first,
    which is what crypto_box gives once its 16 leading zero bytes are cut."""

    def __init__(self) -> None:
        from nacl._sodium import ffi, lib

        if lib.sodium_init() < 0:
            raise ZmtpError("libsodium cannot be initialised")
        self.ffi, self.lib = ffi, lib

    def _bytes(self, size: int) -> object:
        return self.ffi.new("unsigned char[]", max(size, 1))

    def crypto_box_keypair(self) -> tuple[bytes, bytes]:
        public, secret = self._bytes(32), self._bytes(32)
        self.lib.crypto_box_keypair(public, secret)
        return self.ffi.buffer(public, 32)[:], self.ffi.buffer(secret, 32)[:]

    def crypto_box(self, message: bytes, nonce: bytes, public: bytes, secret: bytes) -> bytes:
        out = self._bytes(len(message) + 16)
        _check(len(nonce) == 24 and self.lib.crypto_box_easy(
            out, message, len(message), nonce, public, secret) == 0)
        return self.ffi.buffer(out, len(message) + 16)[:]

    def crypto_box_open(self, box: bytes, nonce: bytes, public: bytes, secret: bytes) -> bytes:
        out = self._bytes(len(box) - 16)
        _check(len(box) >= 16 and len(nonce) == 24 and self.lib.crypto_box_open_easy(
            out, box, len(box), nonce, public, secret) == 0)
        return self.ffi.buffer(out, len(box) - 16)[:]

    def crypto_box_beforenm(self, public: bytes, secret: bytes) -> bytes:
        out = self._bytes(32)
        _check(self.lib.crypto_box_beforenm(out, public, secret) == 0)
        return self.ffi.buffer(out, 32)[:]

    def crypto_box_afternm(self, message: bytes, nonce: bytes, shared: bytes) -> bytes:
        out = self._bytes(len(message) + 16)
        _check(len(nonce) == 24 and self.lib.crypto_box_easy_afternm(
            out, message, len(message), nonce, shared) == 0)
        return self.ffi.buffer(out, len(message) + 16)[:]

    def crypto_box_open_afternm(self, box: memoryview, nonce: bytes,
                                shared: bytes) -> bytearray:
        """Opened into a bytearray of its own, read from `box` in place: a message can be
        tens of MB (qstat -xml over 100,000 jobs), each copy of it milliseconds."""
        _check(len(box) >= 16 and len(nonce) == 24)
        out = bytearray(len(box) - 16)
        _check(self.lib.crypto_box_open_easy_afternm(
            self.ffi.from_buffer(out), self.ffi.from_buffer(box), len(box), nonce,
            shared) == 0)
        return out


def _check(ok: bool) -> None:
    if not ok:
        raise _Refused


class _CurveSession:
    """The client side of one CurveZMQ connection, without I/O: builds HELLO and
    INITIATE, checks WELCOME and READY, then seals and opens MESSAGE commands.

    Short nonces come from one counter (HELLO 1, INITIATE 2, then each MESSAGE), and
    the server's must strictly increase, which is what stops replayed messages.
    """

    def __init__(self, keys: Curve, identity: bytes = b"") -> None:
        if any(len(key) != 32 for key in keys):
            raise ZmtpError("CURVE keys are 32 raw bytes each")
        self.sodium = _Sodium()
        self.crypto_error = _Refused
        self.keys = keys
        self.identity = identity
        self.public, self.secret = self.sodium.crypto_box_keypair()  # transient: C', c'
        self.nonce = 1
        self.peer_nonce = 0
        self.shared = b""  # crypto_box_beforenm(S', c') once WELCOME has named S'

    def _short(self) -> bytes:
        short = self.nonce.to_bytes(8, "big")
        self.nonce += 1
        return short

    def hello(self) -> bytes:
        """HELLO: version 1.0, anti-amplification padding, C', and Box[64 zeros](C'->S),
        which proves to the server that we know its public key."""
        short = self._short()
        try:
            signature = self.sodium.crypto_box(bytes(64), b"CurveZMQHELLO---" + short,
                                             self.keys.server_public, self.secret)
        except self.crypto_error:  # libsodium refuses keys such as all zeros
            raise ZmtpError("the server public key is not a usable CURVE key") from None
        return _command(b"HELLO", b"\x01\x00" + bytes(72) + self.public + short + signature)

    def initiate(self, welcome: bytes) -> bytes:
        """Open WELCOME (S' and the cookie, from S); answer INITIATE: the cookie back,
        our long-term key C and the vouch Box[C' + S](C->S') binding it to C'."""
        if len(welcome) != 160:
            raise ZmtpError("malformed CURVE WELCOME")
        try:
            plain = self.sodium.crypto_box_open(welcome[16:], b"WELCOME-" + welcome[:16],
                                              self.keys.server_public, self.secret)
        except self.crypto_error:
            raise ZmtpError("the server's CURVE WELCOME does not open with its public "
                            "key") from None
        server_transient, cookie = plain[:32], plain[32:]
        self.shared = self.sodium.crypto_box_beforenm(server_transient, self.secret)
        vouch_nonce = os.urandom(16)
        vouch = vouch_nonce + self.sodium.crypto_box(
            self.public + self.keys.server_public, b"VOUCH---" + vouch_nonce,
            server_transient, self.keys.secret)
        short = self._short()
        box = self.sodium.crypto_box_afternm(
            self.keys.public + vouch + _metadata(self.identity),
            b"CurveZMQINITIATE" + short, self.shared)
        return _command(b"INITIATE", cookie + short + box)

    def ready(self, data: bytes) -> None:
        """Check READY: that the server holds S' (its metadata is not needed)."""
        self._open(memoryview(data), b"CurveZMQREADY---")

    def seal(self, data: bytes) -> bytes:
        """Each ZMTP frame of ``data`` (as ``Dealer.encode`` made them) as a MESSAGE:
        Box[flags + body](C'->S'), in an outer frame without flags, as libzmq sends it."""
        out = []
        at = 0
        while at < len(data):
            flags = data[at]
            if flags & _LONG:
                size = int.from_bytes(data[at + 1:at + 9], "big")
                at += 9
            else:
                size = data[at + 1]
                at += 2
            short = self._short()
            box = self.sodium.crypto_box_afternm(bytes([flags & _MORE]) + data[at:at + size],
                                               b"CurveZMQMESSAGEC" + short, self.shared)
            out.append(_frame(_MESSAGE + short + box, 0))
            at += size
        return b"".join(out)

    def open(self, body: bytes) -> tuple[int, bytearray]:
        """The flags and body inside a MESSAGE from the server."""
        plain = self._open(memoryview(body)[len(_MESSAGE):], b"CurveZMQMESSAGES")
        if not plain:
            raise ZmtpError("malformed CURVE MESSAGE")
        flags = plain[0]
        del plain[:1]  # a bytearray drops its first bytes without a copy
        return flags, plain

    def _open(self, data: memoryview, prefix: bytes) -> bytearray:
        short = bytes(data[:8])
        nonce = int.from_bytes(short, "big")
        if len(short) < 8 or nonce <= self.peer_nonce:
            raise ZmtpError("CURVE nonce from the server did not increase (a replay?)")
        try:
            plain = self.sodium.crypto_box_open_afternm(data[8:], prefix + short, self.shared)
        except self.crypto_error:
            raise ZmtpError("a CURVE command from the server failed authentication") from None
        self.peer_nonce = nonce  # only once authentic: a forgery cannot move it
        return plain


class Dealer:
    """One connection to a ROUTER: send and receive whole messages (lists of frames).

    With ``curve`` the connection uses the CURVE mechanism; the API is the same: frames
    from ``encode`` are encrypted as ``send_raw`` sends them, in order, so that their
    nonces increase as the server requires.
    """

    def __init__(self, endpoint: str, timeout: float, curve: Curve | None = None,
                 identity: bytes = b"") -> None:
        self.sock = _connect(endpoint, timeout)
        self.buffer = bytearray()
        self.curve: _CurveSession | None = None
        try:
            self._handshake(endpoint, timeout, curve, identity)
        except BaseException:
            self.close()
            raise

    def _handshake(self, endpoint: str, timeout: float, keys: Curve | None,
                   identity: bytes) -> None:
        mechanism = b"CURVE" if keys else b"NULL"
        session = _CurveSession(keys, identity) if keys else None
        try:
            # Signature and major version first, as ZMTP allows: libzmq then sends its whole
            # greeting, so that a server of the other mechanism is named, not just a closed
            # connection (which is all a mismatched greeting of ours gets).
            ours = _greeting(mechanism)
            self.sock.sendall(ours[:11])
            greeting = self._read(64)
            if greeting[:1] != b"\xff" or greeting[9:10] != b"\x7f" or greeting[10] < 3:
                raise ZmtpError(f"{endpoint} does not speak ZMTP 3")
            theirs = greeting[12:32].rstrip(b"\x00")
            if theirs != mechanism:
                raise ZmtpError(f"{endpoint} uses the {theirs.decode(errors='replace')} "
                                f"security mechanism, not {mechanism.decode()}")
            if session is None:
                self.sock.sendall(ours[11:] + _command(b"READY", _metadata(identity)))
                self._expect(b"READY")
                return
            self.sock.sendall(ours[11:] + session.hello())
            self.sock.sendall(session.initiate(self._expect(b"WELCOME")))
            session.ready(self._expect(b"READY"))
            self.curve = session
        except TimeoutError:
            raise ZmtpError(f"{endpoint} did not complete the {mechanism.decode()} handshake "
                            f"within {timeout:g} s") from None
        except _Closed:
            if session is None:
                raise
            raise ZmtpError(f"{endpoint} closed the connection during the CURVE handshake "
                            "(a wrong server public key, or this client's key refused)"
                            ) from None

    def _expect(self, name: bytes) -> bytes:
        """The data of the next command, which must be ``name``; an ERROR is raised."""
        _, body = self._read_frame()
        if not body or body[1:1 + body[0]] != name:
            raise self._unexpected(body, name.decode())
        return body[1 + len(name):]

    @staticmethod
    def _unexpected(body: bytes, wanted: str) -> ZmtpError:
        if body[:6] == b"\x05ERROR":
            reason = body[7:7 + body[6]] if len(body) > 6 else b""
            meaning = _ZAP_STATUS.get(reason)
            text = reason.decode(errors="replace") + (f" ({meaning})" if meaning else "")
            return ZmtpError(f"the server refused the connection: {text}")
        return ZmtpError(f"unexpected ZMTP frame (wanted {wanted}): {body[:16]!r}")

    def close(self) -> None:
        self.sock.close()

    def shutdown(self) -> None:
        """End the connection both ways without closing it: a recv blocked in another
        thread returns (connection closed)."""
        try:
            self.sock.shutdown(_socket.SHUT_RDWR)
        except OSError:  # closed already
            pass

    def settimeout(self, timeout: float | None) -> None:
        self.sock.settimeout(timeout)

    def fileno(self) -> int:
        """The socket's descriptor, for select: readable when bytes arrive."""
        return self.sock.fileno()

    def buffered(self) -> bool:
        """Whether a whole frame is already read and waits here, which select cannot see:
        a loop calls recv while this holds before it selects again."""
        if len(self.buffer) < 2:
            return False
        if self.buffer[0] & _LONG:
            if len(self.buffer) < 9:
                return False
            size = int.from_bytes(self.buffer[1:9], "big")
            return len(self.buffer) >= 9 + size
        return len(self.buffer) >= 2 + self.buffer[1]

    def send(self, frames: list[bytes]) -> None:
        self.send_raw(self.encode(frames))

    def send_raw(self, data: bytes) -> None:
        """Send messages encoded with ``encode``, many in one system call."""
        self.sock.sendall(self.curve.seal(data) if self.curve else data)

    @staticmethod
    def encode(frames: list[bytes]) -> bytes:
        last = len(frames) - 1
        return b"".join(_frame(f, 0 if i == last else _MORE) for i, f in enumerate(frames))

    def recv(self) -> list[bytes]:
        """The next message; commands (ZMTP 3.1 pings and the like) are skipped."""
        frames: list[bytes] = []
        while True:
            flags, body = self._read_frame()
            if self.curve:
                if body[:len(_MESSAGE)] != _MESSAGE:
                    raise self._unexpected(body, "MESSAGE")
                flags, body = self.curve.open(body)
                if flags & ~_MORE:  # a command inside (libzmq marks those with 0x02)
                    continue
            if flags & _COMMAND:
                continue
            frames.append(body)
            if not flags & _MORE:
                return frames

    def _read_frame(self) -> tuple[int, bytes]:
        flags = self._read(1)[0]
        if flags & _LONG:
            size = int.from_bytes(self._read(8), "big")
        else:
            size = self._read(1)[0]
        return flags, self._read(size)

    def _read(self, n: int) -> bytes | bytearray:
        if n >= _LARGE and len(self.buffer) < n:
            return self._read_large(n)
        while len(self.buffer) < n:
            self.buffer += self._received(self.sock.recv, max(65536, n - len(self.buffer)))
        data = bytes(memoryview(self.buffer)[:n])  # one copy (a bytearray slice is two)
        del self.buffer[:n]
        return data

    def _read_large(self, n: int) -> bytearray:
        """A large frame read straight into a bytearray of its size: no copy but the
        socket's, where appending chunks to the buffer would copy it again and again."""
        data = bytearray(n)
        view = memoryview(data)
        have = len(self.buffer)
        view[:have] = self.buffer
        self.buffer.clear()
        while have < n:
            have += self._received(self.sock.recv_into, view[have:])
        return data

    @staticmethod
    def _received(read: Callable[[Any], R], into: Any) -> R:
        """One read from the socket (recv or recv_into): what it gave, never nothing; a
        timeout as it is, a closed or broken connection as ZmtpError."""
        try:
            got = read(into)
        except TimeoutError:
            raise
        except ConnectionResetError as exc:
            raise _Closed(f"connection lost: {exc}") from None
        except OSError as exc:
            raise ZmtpError(f"connection lost: {exc}") from None
        if not got:
            raise _Closed("connection closed by the master")
        return got

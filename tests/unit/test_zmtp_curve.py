"""The command-line client's CURVE mechanism (gridd/zmtp.py) against a real libzmq ROUTER.

The tests use pyzmq as the server; the client side must not import it (nor PyNaCl unless
CURVE is used), which a subprocess checks.
"""

from __future__ import annotations

import os
import socket
import struct
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import closing, contextmanager
from pathlib import Path
from typing import NamedTuple

import pytest
import zmq
import zmq.auth
from zmq.auth.thread import ThreadAuthenticator
from zmq.utils import z85

from gridd.zmtp import Curve, Dealer, ZmtpError, _CurveSession, z85_decode, z85_encode


class Server(NamedTuple):
    router: zmq.Socket
    endpoint: str
    keys: Curve  # what a client authorized by the server uses


@pytest.fixture
def ctx() -> Iterator[zmq.Context]:
    context = zmq.Context()
    yield context
    context.term()


def _router(ctx: zmq.Context, public: bytes, secret: bytes, tmp_path: Path,
            kind: str = "tcp") -> zmq.Socket:
    router = ctx.socket(zmq.ROUTER)
    # As the master's router: a ROUTER at its default high-water mark (1,000) silently
    # drops replies to a client that has not read yet, which a loaded machine reaches.
    router.sndhwm = router.rcvhwm = 0
    router.curve_server = True
    router.curve_publickey, router.curve_secretkey = public, secret
    router.bind("tcp://127.0.0.1:*" if kind == "tcp" else f"ipc://{tmp_path}/r.sock")
    return router


@contextmanager
def _serve(ctx: zmq.Context, tmp_path: Path, kind: str = "tcp") -> Iterator[Server]:
    server_public, server_secret = zmq.curve_keypair()
    public, secret = zmq.curve_keypair()
    router = _router(ctx, server_public, server_secret, tmp_path, kind)
    try:
        yield Server(router, router.getsockopt_string(zmq.LAST_ENDPOINT),
                     Curve(z85.decode(server_public), z85.decode(public), z85.decode(secret)))
    finally:
        router.close(linger=0)


@pytest.fixture(params=["tcp", "ipc"])
def server(request: pytest.FixtureRequest, ctx: zmq.Context, tmp_path: Path) -> Iterator[Server]:
    with _serve(ctx, tmp_path, request.param) as running:
        yield running


@pytest.fixture
def tcp_server(ctx: zmq.Context, tmp_path: Path) -> Iterator[Server]:
    with _serve(ctx, tmp_path) as running:
        yield running


def _dealer(endpoint: str, keys: Curve | None) -> closing[Dealer]:
    return closing(Dealer(endpoint, timeout=5, curve=keys))


def _recv(router: zmq.Socket) -> tuple[bytes, list[bytes]]:
    assert router.poll(5000), "the router got nothing"
    ident, *frames = router.recv_multipart()
    return ident, frames


def test_small_and_large_multipart_messages_both_ways(server: Server) -> None:
    # 3 MB: over the size a frame is read into a buffer of its own at (zmtp._LARGE)
    frames = [b"", b"small", bytes(range(256)) * 2, os.urandom(70_000), os.urandom(3 << 20)]
    with _dealer(server.endpoint, server.keys) as dealer:
        dealer.send(frames)
        ident, got = _recv(server.router)
        assert got == frames
        server.router.send_multipart([ident, *reversed(frames)])
        server.router.send_multipart([ident, b"last"])
        assert dealer.recv() == frames[::-1]
        assert dealer.recv() == [b"last"]


def test_many_pipelined_messages_keep_their_order_and_nonces(tcp_server: Server) -> None:
    count = 3000
    with _dealer(tcp_server.endpoint, tcp_server.keys) as dealer:
        # As Client.submit_many does: frames encoded first, sent in one call.
        dealer.send_raw(b"".join(Dealer.encode([b"%d" % i, b"x" * (i % 400)])
                                 for i in range(count)))
        for i in range(count):
            ident, got = _recv(tcp_server.router)
            assert got == [b"%d" % i, b"x" * (i % 400)]
            tcp_server.router.send(ident, zmq.SNDMORE)
            tcp_server.router.send(b"%d" % i)
        assert [dealer.recv() for _ in range(count)] == [[b"%d" % i] for i in range(count)]


def test_a_wrong_server_key_fails_clearly_and_fast(tcp_server: Server) -> None:
    public, secret = zmq.curve_keypair()
    wrong = Curve(z85.decode(public), tcp_server.keys.public, tcp_server.keys.secret)
    start = time.monotonic()
    with pytest.raises(ZmtpError, match="closed the connection during the CURVE handshake "
                                        r"\(a wrong server public key"):
        Dealer(tcp_server.endpoint, timeout=10, curve=wrong)
    assert time.monotonic() - start < 2


def test_a_key_the_authenticator_refuses_is_a_clear_error(ctx: zmq.Context,
                                                          tmp_path: Path) -> None:
    allowed, refused = tmp_path / "allowed", tmp_path / "refused"
    allowed.mkdir()
    refused.mkdir()
    zmq.auth.create_certificates(allowed, "user")
    zmq.auth.create_certificates(refused, "stranger")
    auth = ThreadAuthenticator(ctx)
    auth.start()
    try:
        auth.configure_curve(domain="*", location=allowed)
        with _serve(ctx, tmp_path) as server:
            def keys(name: str, where: Path) -> Curve:
                public, secret = zmq.auth.load_certificate(where / f"{name}.key_secret")
                assert secret is not None
                return Curve(server.keys.server_public, z85.decode(public),
                             z85.decode(secret))

            with pytest.raises(ZmtpError, match=r"the server refused the connection: 400 "
                                                r"\(this client's key is not authorized\)"):
                Dealer(server.endpoint, timeout=10, curve=keys("stranger", refused))
            with _dealer(server.endpoint, keys("user", allowed)) as dealer:
                dealer.send([b"let in"])
                assert _recv(server.router)[1] == [b"let in"]
    finally:
        auth.stop()


def test_a_silent_server_times_out_in_the_handshake() -> None:
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        port = listener.getsockname()[1]
        public, secret = zmq.curve_keypair()
        keys = Curve(z85.decode(public), z85.decode(public), z85.decode(secret))
        start = time.monotonic()
        with pytest.raises(ZmtpError, match="did not complete the CURVE handshake within 0.3 s"):
            Dealer(f"tcp://127.0.0.1:{port}", timeout=0.3, curve=keys)
        assert time.monotonic() - start < 2


def test_mechanism_mismatches_are_clear(ctx: zmq.Context, tcp_server: Server) -> None:
    with pytest.raises(ZmtpError, match="uses the CURVE security mechanism, not NULL"):
        Dealer(tcp_server.endpoint, timeout=5)
    plain = ctx.socket(zmq.ROUTER)
    try:
        plain.bind("tcp://127.0.0.1:*")
        with pytest.raises(ZmtpError, match="uses the NULL security mechanism, not CURVE"):
            Dealer(plain.getsockopt_string(zmq.LAST_ENDPOINT), timeout=5, curve=tcp_server.keys)
    finally:
        plain.close(linger=0)


def test_the_null_mechanism_still_works(ctx: zmq.Context) -> None:
    router = ctx.socket(zmq.ROUTER)
    try:
        router.bind("tcp://127.0.0.1:*")
        with _dealer(router.getsockopt_string(zmq.LAST_ENDPOINT), None) as dealer:
            dealer.send([b"a", b"b" * 300])
            ident, got = _recv(router)
            assert got == [b"a", b"b" * 300]
            large = os.urandom(3 << 20)
            router.send_multipart([ident, b"c", large])
            router.send_multipart([ident, b"d"])
            assert dealer.recv() == [b"c", large]
            assert dealer.recv() == [b"d"]
    finally:
        router.close(linger=0)


def test_server_nonces_must_increase() -> None:
    with pytest.raises(ZmtpError, match="not a usable CURVE key"):
        _CurveSession(Curve(bytes(32), bytes(32), bytes(32))).hello()
    session = _CurveSession(Curve(bytes(32), bytes(32), bytes(32)))
    session.peer_nonce = 5
    with pytest.raises(ZmtpError, match="did not increase"):
        session.open(b"\x07MESSAGE" + struct.pack(">Q", 5) + bytes(17))
    with pytest.raises(ZmtpError, match="failed authentication"):
        session.open(b"\x07MESSAGE" + struct.pack(">Q", 6) + bytes(17))
    assert session.peer_nonce == 5


def test_z85_matches_pyzmq() -> None:
    for size in (0, 4, 8, 32, 32, 32, 64):
        raw = os.urandom(size)
        text = z85.encode(raw).decode()
        assert z85_encode(raw) == text
        assert z85_decode(text) == raw
    assert z85_encode(b"\x86\x4f\xd2\x6f\xb5\x59\xf7\x5b") == "HelloWorld"  # RFC 32
    assert z85_encode(b"\xff" * 4) == "%nSc0"
    for bad in ("abcd", "abcd~", "%nSc1", "#####"):
        with pytest.raises(ValueError):
            z85_decode(bad)
    with pytest.raises(ValueError):
        z85_encode(b"abc")


def test_the_client_imports_neither_zmq_nor_nacl_without_curve() -> None:
    code = ("import sys, gridd.client, gridd.zmtp as z; z.z85_decode(z.z85_encode(bytes(32)));"
            "print(sorted(m for m in ('zmq', 'nacl') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, cwd=Path(__file__).parents[2])
    assert out.stdout.strip() == "[]"




@pytest.mark.parametrize("curve", [True, False])
def test_the_identity_property_names_the_connection_at_the_router(
        ctx: zmq.Context, tmp_path: Path, curve: bool) -> None:
    """qrsh's session is known at execd's ROUTER by qrsh's public key: with CURVE (in
    INITIATE's metadata) and without (in READY's, on a cell without security)."""
    with _serve(ctx, tmp_path) as server:
        router, endpoint = server.router, server.endpoint
        if not curve:
            router = ctx.socket(zmq.ROUTER)
            endpoint = f"tcp://127.0.0.1:{router.bind_to_random_port('tcp://127.0.0.1')}"
        identity = server.keys.public
        try:
            with closing(Dealer(endpoint, timeout=5, curve=server.keys if curve else None,
                                identity=identity)) as dealer:
                dealer.send([b"hi"])
                assert _recv(router) == (identity, [b"hi"])
        finally:
            if not curve:
                router.close(linger=0)


def test_buffered_says_whether_a_whole_frame_waits_unread(ctx: zmq.Context) -> None:
    """A select loop cannot see bytes already read into the Dealer's buffer."""
    router = ctx.socket(zmq.ROUTER)
    port = router.bind_to_random_port("tcp://127.0.0.1")
    try:
        with closing(Dealer(f"tcp://127.0.0.1:{port}", timeout=5)) as dealer:
            assert not dealer.buffered()
            for frame in (b"short", b"x" * 300):
                data = Dealer.encode([frame])
                dealer.buffer += data[:-1]
                assert not dealer.buffered()
                dealer.buffer += data[-1:]
                assert dealer.buffered()
                assert dealer.recv() == [frame]
            assert not dealer.buffered()
    finally:
        router.close(linger=0)

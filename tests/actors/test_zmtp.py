"""The command-line clients' ZMTP peer against a real ZeroMQ ROUTER."""

from __future__ import annotations

import os
import socket
import threading

import pytest
import zmq

from gridd.zmtp import Dealer, ZmtpError


@pytest.mark.parametrize("kind", ["tcp", "ipc", "abstract"])
def test_dealer_talks_to_a_zeromq_router(kind, tmp_path):
    ctx = zmq.Context()
    router = ctx.socket(zmq.ROUTER)
    router.bind({"tcp": "tcp://127.0.0.1:*", "ipc": f"ipc://{tmp_path}/r.sock",
                 "abstract": f"ipc://@gridd-test-{os.getpid()}"}[kind])
    endpoint = router.getsockopt_string(zmq.LAST_ENDPOINT)
    dealer = Dealer(endpoint, timeout=5)
    big = bytes(range(256)) * 300
    dealer.send([b"hello", big])
    assert router.poll(5000)
    ident, *frames = router.recv_multipart()
    assert frames == [b"hello", big]
    router.send_multipart([ident, b"answer", big])
    router.send_multipart([ident, b""])
    assert dealer.recv() == [b"answer", big]
    assert dealer.recv() == [b""]
    dealer.close()
    router.close(linger=0)
    ctx.term()


@pytest.mark.parametrize("host", ["localhost", socket.gethostname(), "[::1]"])
def test_dealer_reaches_a_router_by_host_name_or_ipv6_address(host):
    """common/master_endpoint names the master's host when it listens on every address:
    the client resolves it, and tries each address it resolves to (the machine's name may
    come first with an address the master does not listen on)."""
    ctx = zmq.Context()
    router = ctx.socket(zmq.ROUTER)
    router.setsockopt(zmq.IPV6, 1)
    port = router.bind_to_random_port("tcp://*")
    dealer = Dealer(f"tcp://{host}:{port}", timeout=5)
    dealer.send([b"hello"])
    assert router.poll(5000)
    assert router.recv_multipart()[1:] == [b"hello"]
    dealer.close()
    router.close(linger=0)
    ctx.term()


def test_refused_and_non_zmtp_peers_are_clear_errors():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    with pytest.raises(ZmtpError, match="cannot connect"):
        Dealer(f"tcp://127.0.0.1:{port}", timeout=2)
    with pytest.raises(ZmtpError, match="cannot connect to tcp://nosuch.invalid:1: "):
        Dealer("tcp://nosuch.invalid:1", timeout=2)
    with pytest.raises(ZmtpError, match="unsupported endpoint"):
        Dealer("udp://127.0.0.1:1", timeout=1)


def test_a_peer_speaking_something_else_is_refused():
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen()

        def speak_http() -> None:
            conn, _ = server.accept()
            with conn:
                conn.sendall(b"HTTP/1.0 400 Bad Request\r\n\r\n" + bytes(64))

        thread = threading.Thread(target=speak_http)
        thread.start()
        try:
            with pytest.raises(ZmtpError, match="does not speak ZMTP"):
                Dealer(f"tcp://127.0.0.1:{server.getsockname()[1]}", timeout=2)
        finally:
            thread.join()

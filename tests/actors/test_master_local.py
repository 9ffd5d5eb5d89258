"""The master's local socket as a client finds it (gridd.master_local): which connections
it takes, against a real ZeroMQ ROUTER on an abstract Unix socket, and the peer
addresses that name a uid."""

from __future__ import annotations

import os

import pytest
import zmq

from gridd import master_local


@pytest.mark.parametrize(("address", "uid"), [
    ("localhost:1000:100:4242", 1000), ("localhost:0:0:1", 0), (":7:8:9", 7),
    ("127.0.0.1", None), ("::1", None), ("fe80::1:2:3", None), ("1::2:3:4", None),
    ("localhost:1:2", None), ("localhost:a:2:3", None), ("localhost:1:2:", None),
    ("localhost:١:2:3", None)])
def test_only_a_unix_peers_address_names_a_uid(address, uid):
    assert master_local.peer_uid(address) == uid


@pytest.fixture
def router():
    ctx = zmq.Context()
    sock = ctx.socket(zmq.ROUTER)
    sock.setsockopt(zmq.LINGER, 0)
    endpoint = master_local.new_endpoint()
    sock.bind(endpoint)
    yield sock, endpoint
    sock.close()
    ctx.term()


def test_a_client_takes_the_socket_the_file_names_when_its_owner_runs_it(router, tmp_path):
    sock, endpoint = router
    (tmp_path / "common").mkdir()
    assert master_local.published(tmp_path) is None  # no file: over TCP
    master_local.publish(tmp_path, endpoint)
    assert master_local.published(tmp_path) == (endpoint, os.geteuid())
    dealer = master_local.connect(endpoint, os.geteuid(), 5)
    dealer.send([b"ping"])
    assert sock.poll(5000) and sock.recv_multipart()[1:] == [b"ping"]
    dealer.close()


def test_a_socket_of_another_uid_or_of_nobody_is_not_taken(router, tmp_path):
    sock, endpoint = router
    (tmp_path / "common").mkdir()
    assert master_local.connect(master_local.new_endpoint(), os.geteuid(), 5) is None
    master_local.publish(tmp_path, "tcp://127.0.0.1:1")  # not a local socket
    assert master_local.published(tmp_path) is None
    # a socket of another uid than the file's (someone else took the name)
    assert master_local.connect(endpoint, os.geteuid() + 1, 5) is None


def test_a_master_withdraws_only_its_own_socket(tmp_path):
    (tmp_path / "common").mkdir()
    ours, newer = master_local.new_endpoint(), master_local.new_endpoint()
    assert ours != newer
    master_local.publish(tmp_path, newer)
    master_local.withdraw(tmp_path, ours)  # a newer master's file stays
    assert open(master_local.location(tmp_path)).read() == f"{newer}\n"
    master_local.withdraw(tmp_path, newer)
    assert not os.path.exists(master_local.location(tmp_path))
    master_local.withdraw(tmp_path, newer)  # gone already: nothing to do

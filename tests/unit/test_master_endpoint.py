"""A new cell's master port: tried outside the ephemeral range, then left to ZeroMQ."""

from __future__ import annotations

import random

from gridd import master_endpoint


def test_only_unchosen_ports_are_to_be_found():
    assert master_endpoint.port_unchosen("tcp://127.0.0.1:*")
    assert master_endpoint.port_unchosen("tcp://127.0.0.1:0")
    assert not master_endpoint.port_unchosen("tcp://127.0.0.1:6444")
    assert not master_endpoint.port_unchosen("tcp://[::1]:6444")


def test_candidates_avoid_the_ephemeral_range_and_end_with_zeromqs_pick():
    tries = master_endpoint.candidates("tcp://127.0.0.1:*", random.Random(1), (32768, 60999))
    assert len(tries) == master_endpoint.TRIES + 1 and tries[-1] == "tcp://127.0.0.1:*"
    ports = [int(t.rpartition(":")[2]) for t in tries[:-1]]
    assert len(set(ports)) == len(ports)
    assert all(20000 <= port < 32768 or 60999 < port < 65536 for port in ports)


def test_a_range_leaving_no_other_port_leaves_the_pick_to_zeromq():
    assert master_endpoint.candidates("tcp://127.0.0.1:*", random.Random(1),
                                      (1024, 65535)) == ["tcp://127.0.0.1:*"]
    few = master_endpoint.candidates("tcp://127.0.0.1:*", random.Random(1), (1024, 65530))
    assert sorted(few[:-1]) == [f"tcp://127.0.0.1:{p}" for p in range(65531, 65536)]

"""The master's names for its peers' addresses (gridd.actors.peer_names), with a resolver
of the test's own (trio's custom hostname resolver) and an address that is the master's."""

from __future__ import annotations

import ipaddress
import socket

import pytest
import trio

from gridd.actors import peer_names
from gridd.actors.peer_names import PeerNames

NAMES = {"10.77.0.2": "node7.example.org"}


class Resolver(trio.abc.HostnameResolver):
    """Names 10.77.0.2 and gives the machine `head` the address 10.77.0.1."""

    def __init__(self) -> None:
        self.asked: list[str] = []

    async def getaddrinfo(self, host, port, family=0, type=0, proto=0, flags=0):
        if host in ("head", b"head"):  # (trio hands the name on encoded)
            return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", ("10.77.0.1", 0))]
        raise socket.gaierror(socket.EAI_NONAME, "unknown")

    async def getnameinfo(self, sockaddr, flags):
        self.asked.append(sockaddr[0])
        if sockaddr[0] in NAMES:
            return NAMES[sockaddr[0]], "0"
        raise socket.gaierror(socket.EAI_NONAME, "unknown")


@pytest.fixture
async def resolver(monkeypatch: pytest.MonkeyPatch) -> Resolver:
    """The test's resolver, for this trio run; the machine's one interface 192.0.2.2."""
    monkeypatch.setattr(peer_names, "interface_addresses",
                        lambda: {ipaddress.ip_address("192.0.2.2")})
    mine = Resolver()
    trio.socket.set_custom_hostname_resolver(mine)
    return mine


async def test_the_masters_own_addresses_are_its_name(resolver: Resolver) -> None:
    names = PeerNames("head")
    await names.learn_own("10.88.0.1")  # listening on a bridge
    for address in ("127.0.0.1", "::1", "::ffff:127.0.0.1", "192.0.2.2", "::ffff:192.0.2.2",
                    "10.77.0.1", "10.88.0.1"):
        assert await names.name(address) == "head", address
    assert resolver.asked == []


async def test_other_addresses_go_by_the_resolvers_name_or_by_themselves(
        resolver: Resolver) -> None:
    names = PeerNames("head")
    await names.learn_own("0.0.0.0")  # every address: none of its own
    assert await names.name("10.77.0.2") == "node7.example.org"
    assert await names.name("10.77.0.3") == "10.77.0.3"
    assert await names.name("10.77.0.2") == "node7.example.org"  # remembered
    assert resolver.asked == ["10.77.0.2", "10.77.0.3"]


async def test_an_ipv4_peer_of_a_master_on_every_ipv6_address_is_named_as_itself(
        resolver: Resolver) -> None:
    names = PeerNames("head")
    await names.learn_own("::")
    assert await names.name("::ffff:10.77.0.2") == "node7.example.org"
    assert await names.name("::ffff:10.77.0.3") == "10.77.0.3"
    assert resolver.asked == ["10.77.0.2", "10.77.0.3"]


async def test_an_ipc_master_has_only_its_own_machine_for_peers(resolver: Resolver) -> None:
    assert await PeerNames("head", local_only=True).name("") == "head"


async def test_a_peer_of_the_local_socket_is_the_masters_machine(resolver: Resolver) -> None:
    names = PeerNames("head")
    await names.learn_own("10.88.0.1")
    for pid in range(3):
        assert await names.name(f"localhost:1000:100:{pid}") == "head"
    assert resolver.asked == [] and names.names == {}  # nothing remembered per process

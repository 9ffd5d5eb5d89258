"""The host name of a peer's address, as the master names the hosts its clients and
execds connect from (the submit and admin host checks judge that name).

The master's own machine goes by the name `gridd up` gave it (the one a new cell's
admin and submit host lists hold), whichever of its addresses a client comes from:
loopback, or any address of its interfaces, as when the master listens on a bridge or
on every address, and its local socket (gridd.master_local). Other addresses are named
by the resolver, and an address it has no name for goes by itself. Names are
remembered: a peer's address is looked up once.
"""

from __future__ import annotations

import fcntl
import ipaddress
import socket
import struct
from pathlib import Path

import trio

from gridd import master_local

RESOLVE_TIMEOUT = 2.0  # seconds to wait for the name of a peer's address
_REMEMBERED = 4096
_SIOCGIFADDR = 0x8915  # Linux: an interface's IPv4 address
_IF_INET6 = Path("/proc/net/if_inet6")  # Linux: the interfaces' IPv6 addresses

Address = ipaddress.IPv4Address | ipaddress.IPv6Address


class PeerNames:
    """Host names of peers' addresses, this machine's own addresses named `machine`."""

    def __init__(self, machine: str, *, local_only: bool = False) -> None:
        """`local_only`: the master listens on an ipc or inproc endpoint, so every peer
        is on this machine."""
        self.machine = machine
        self.local_only = local_only
        self.own: set[Address] = set()
        self.names: dict[str, str] = {}

    async def learn_own(self, listening: str = "") -> None:
        """Learn this machine's addresses: its interfaces', those its name resolves to,
        and `listening`, the address the master is bound to."""
        self.own = interface_addresses()
        with trio.move_on_after(RESOLVE_TIMEOUT):
            try:
                infos = await trio.socket.getaddrinfo(self.machine, None)
            except OSError:
                infos = []
            self.own |= {a for info in infos if (a := _address(str(info[4][0])))}
        if (bound := _address(listening)) is not None and not bound.is_unspecified:
            self.own.add(bound)

    async def name(self, address: str) -> str:
        """The host name of a peer at `address`, from memory or found now."""
        if master_local.peer_uid(address) is not None:  # a peer of the local socket
            return self.machine
        found = self.names.get(address)
        if found is None:
            found = await self._find(address)
            if len(self.names) >= _REMEMBERED:
                self.names.clear()
            self.names[address] = found
        return found

    async def _find(self, address: str) -> str:
        if self.local_only:
            return self.machine
        ip = _address(address)
        if ip is None:
            return address
        mapped = getattr(ip, "ipv4_mapped", None)
        if mapped is not None:  # an IPv4 peer of a master listening on [::]
            ip, address = mapped, str(mapped)
        if ip.is_loopback or ip in self.own:
            return self.machine
        with trio.move_on_after(RESOLVE_TIMEOUT):
            try:
                name, _ = await trio.socket.getnameinfo((address, 0), socket.NI_NAMEREQD)
            except OSError:
                return address
            return name
        return address


def interface_addresses() -> set[Address]:
    """The addresses of this machine's network interfaces (Linux; none found elsewhere)."""
    found: set[Address] = set()
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
        for _, interface in socket.if_nameindex():
            request = struct.pack("256s", interface.encode()[:15])
            try:
                answer = fcntl.ioctl(sock.fileno(), _SIOCGIFADDR, request)
            except OSError:  # an interface without an IPv4 address
                continue
            found.add(ipaddress.IPv4Address(answer[20:24]))
    try:
        lines = _IF_INET6.read_text().splitlines()
    except OSError:
        lines = []
    for line in lines:
        words = line.split()
        if words and len(words[0]) == 32:
            found.add(ipaddress.IPv6Address(int(words[0], 16)))
    return found


def _address(text: str) -> Address | None:
    """An address as the connection or the resolver gives it (an IPv6 one perhaps with
    its %zone), or None when it is none."""
    try:
        return ipaddress.ip_address(text.partition("%")[0])
    except ValueError:
        return None

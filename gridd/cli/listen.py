"""Where the master listens and where the others reach it: `--listen ADDR:PORT`.

The master binds ``tcp://ADDR:PORT``; ``common/master_endpoint`` holds the address that
clients and execds connect to, which is ADDR itself or, when ADDR is a wildcard (all of
the machine's addresses), the machine's host name, as Grid Engine's act_qmaster names
the master's host. ZeroMQ binds to an address or an interface, never to a name that takes
DNS, so the bound endpoint is kept apart (``spool/qmaster/listen``): a master started
again binds where it did, also after `kill -9`.
"""

from __future__ import annotations

import ipaddress
import socket
from typing import NamedTuple

WILDCARDS = ("0.0.0.0", "*", "::")


class ListenError(ValueError):
    """An ADDR:PORT that cannot be listened on; the text says why."""


class Listen(NamedTuple):
    bind: str  # what the master's ROUTER binds
    public: str  # what common/master_endpoint says to clients and execds


def parse(text: str, host_name: str) -> Listen:
    """`ADDR:PORT` (an IPv6 ADDR in brackets, [fd00::1]:6444) as the endpoints to bind and
    to publish; `host_name` stands for a wildcard ADDR."""
    addr, colon, port_text = text.rpartition(":")
    addr = addr.removeprefix("[").removesuffix("]") if addr.startswith("[") else addr
    if not colon or not addr or not port_text.isdigit() or not 0 < int(port_text) < 65536:
        raise ListenError(f"--listen {text}: want ADDR:PORT, an address of this machine (or "
                          "0.0.0.0 for all of them) and a port from 1 to 65535")
    port = int(port_text)
    if addr in WILDCARDS:
        # "*" is ZeroMQ's word for every IPv4 address; "::" gets the IPv6 ones as well.
        return Listen(f"tcp://{'[::]' if addr == '::' else '*'}:{port}",
                      f"tcp://{host_name}:{port}")
    try:
        ip = ipaddress.ip_address(addr)
    except ValueError:
        raise ListenError(f"--listen {text}: {addr!r} is not an IP address: the master "
                          "binds an address of this machine, or 0.0.0.0 for all of them "
                          "(clients then reach it by the machine's host name)") from None
    where = f"[{ip}]" if ip.version == 6 else str(ip)
    return Listen(f"tcp://{where}:{port}", f"tcp://{where}:{port}")


def check_bindable(listen: Listen) -> None:
    """Bind and let go at once, so that an address not of this machine or a port taken is
    said now rather than in the master's log after a start-up timeout."""
    host, _, port = listen.bind.removeprefix("tcp://").rpartition(":")
    host = host.strip("[]")
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind(("" if host == "*" else host, int(port)))
        except OSError as exc:
            raise ListenError(f"cannot listen on {listen.bind.removeprefix('tcp://')}: "
                              f"{exc.strerror}") from None

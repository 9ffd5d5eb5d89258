"""Where a new cell's master listens: on a port the master finds free as it binds, which
it then publishes in common/master_endpoint for clients and execds, and binds again at
every start after, as a Grid Engine qmaster binds its configured port.

A port picked by one process and bound later by another may be taken in between, and
the master could not start at all. The port is also picked below the machine's range of
ephemeral ports, the ones every outgoing connection takes one of, so that no program's
connection can hold it while the cell is down and keep the master from starting again.
"""

from __future__ import annotations

import random
from pathlib import Path

from gridd import durable, paths

ANY_PORT = "tcp://127.0.0.1:*"
LOWEST = 20000  # well above the ports services are configured with
TRIES = 32  # ports tried before ZeroMQ picks one of the ephemeral range
EPHEMERAL_RANGE = "/proc/sys/net/ipv4/ip_local_port_range"


def port_unchosen(endpoint: str) -> bool:
    """True for an endpoint whose port is still to be found (``*`` or 0)."""
    return endpoint.rpartition(":")[2] in ("*", "0")


def candidates(endpoint: str, rng: random.Random, ephemeral: tuple[int, int]) -> list[str]:
    """The endpoints to try binding, in turn, for one whose port is unchosen: random
    ports outside `ephemeral` (first, last), then the endpoint itself for ZeroMQ to pick."""
    first, last = ephemeral
    ports = [*range(LOWEST, min(first, 65536)), *range(max(last + 1, LOWEST), 65536)]
    base = endpoint.rpartition(":")[0]
    return [f"{base}:{port}" for port in rng.sample(ports, min(TRIES, len(ports)))] + [endpoint]


def ephemeral_ports() -> tuple[int, int]:
    """This machine's range of ephemeral ports (Linux's default when it cannot be read)."""
    try:
        with open(EPHEMERAL_RANGE) as f:
            first, last = map(int, f.read().split())
    except (OSError, ValueError):
        return 32768, 60999
    return first, last


def publish(base: Path, bound: str) -> None:
    """Make `bound` where the cell reaches its master, and where it binds from now on."""
    durable.replace(paths.endpoint_file(base), f"{bound}\n".encode())
    paths.listen_file(base).unlink(missing_ok=True)

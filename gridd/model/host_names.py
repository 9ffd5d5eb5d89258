"""When two host names name one host: the rule of every comparison of host names.

Grid Engine compares host names case-insensitively and, with `ignore_fqdn` true (the
default of its bootstrap file, which gridd does not change), by their first label only:
`NODE7`, `node7` and `node7.example.org` are one host. A name that is an address (what
the master calls a peer whose address does not resolve) keeps its dots: `10.0.0.1` is
not host `10`. A first label of digits alone is taken for an IPv4 address's.
"""

from collections.abc import Collection
from functools import lru_cache


@lru_cache(maxsize=4096)  # the planner asks it of the same few names again and again
def host_key(name: str) -> str:
    """What of a host name decides which host it names: its first label, lower case."""
    low = name.lower()
    head, dot, _ = low.partition(".")
    if not dot or head.isdigit() or ":" in head:
        return low
    return head


def same_host(one: str, other: str) -> bool:
    """Whether two host names name the same host."""
    return one == other or host_key(one) == host_key(other)


def among(name: str, names: Collection[str]) -> bool:
    """Whether a list of host names (the submit hosts, say) names this host."""
    return find_host(name, names) is not None


def find_host(name: str, names: Collection[str]) -> str | None:
    """The name a collection (the exec hosts, say) gives the host `name` names: that
    name itself if it holds it, else the first of the same host, else None."""
    if name in names:
        return name
    key = host_key(name)
    return next((n for n in names if host_key(n) == key), None)

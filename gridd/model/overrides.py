"""A cluster queue attribute's value with per-host and per-host-group overrides, and the
rule that says which of them a queue instance gets.

Every attribute of a cluster queue but `qname` and `hostlist` may differ between its
queue instances: `slots 1,[vm=3],[@linux=2]` gives host vm three slots, the other hosts
of @linux two, and every other host one. gridd.formats.overrides reads and writes the
notation.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Overridable:
    """A default and its overrides keyed by host name or `@hostgroup`, in written order.

    The order is kept because Grid Engine prints overrides in the order they were given,
    and because the first written group override a host belongs to is the one it gets.
    """

    default: str
    overrides: dict[str, str] = field(default_factory=dict)

    def value_for(self, host: str, hostgroups_of_host: list[str]) -> str:
        """The value the instance on `host` gets: its `[host=...]` override, else the first
        written `[@group=...]` override of a group the host belongs to, else the default.
        Grid Engine flags a host whose groups disagree as configuration-ambiguous rather
        than choosing; detecting that is left to the caller, which knows the groups.
        """
        if host in self.overrides:
            return self.overrides[host]
        groups = set(hostgroups_of_host)
        for name, override in self.overrides.items():
            if name in groups:
                return override
        return self.default

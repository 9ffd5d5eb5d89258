"""The global configuration's qmaster_params, as the master reads them (sge_conf(5)):
words NAME or NAME=value, separated by commas or blanks; "none" for none. gridd acts
on ENABLE_RESCHEDULE_KILL and ENABLE_RESCHEDULE_SLAVE (reschedule_unknown's reach)."""

from __future__ import annotations

import functools

RESCHEDULE_KILL = "ENABLE_RESCHEDULE_KILL"  # reschedule_unknown ends the others too
RESCHEDULE_SLAVE = "ENABLE_RESCHEDULE_SLAVE"  # and looks at the slave tasks' hosts


@functools.lru_cache(maxsize=8)
def read(text: str) -> dict[str, str]:
    """The parameters by name (upper case); what it returns is shared: never changed."""
    words = text.replace(",", " ").split()
    if [w.lower() for w in words] == ["none"]:
        return {}
    return {name.upper(): value for name, _, value in (w.partition("=") for w in words)}


def enabled(text: str, name: str) -> bool:
    """Whether a boolean parameter is set: "true" or "1", or named without a value."""
    value = read(text).get(name)
    return value is not None and value.lower() in ("", "1", "true")

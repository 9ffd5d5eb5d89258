"""The complex attributes a new cell knows, and the names a job may request.

Grid Engine's default complex table; the configuration work (qconf -sc/-mc) turns this
into an editable object later.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Complex:
    name: str
    shortcut: str
    type: str
    requestable: bool


DEFAULT_COMPLEXES: tuple[Complex, ...] = tuple(
    Complex(*row)
    for row in (
        ("arch", "a", "STRING", True),
        ("calendar", "c", "STRING", True),
        ("cpu", "cpu", "DOUBLE", True),
        ("display_win_gui", "dwg", "BOOL", True),
        ("h_core", "h_core", "MEMORY", True),
        ("h_cpu", "h_cpu", "TIME", True),
        ("h_data", "h_data", "MEMORY", True),
        ("h_fsize", "h_fsize", "MEMORY", True),
        ("h_rss", "h_rss", "MEMORY", True),
        ("h_rt", "h_rt", "TIME", True),
        ("h_stack", "h_stack", "MEMORY", True),
        ("h_vmem", "h_vmem", "MEMORY", True),
        ("hostname", "h", "HOST", True),
        ("load_avg", "la", "DOUBLE", False),
        ("load_long", "ll", "DOUBLE", False),
        ("load_medium", "lm", "DOUBLE", False),
        ("load_short", "ls", "DOUBLE", False),
        ("m_core", "core", "INT", True),
        ("m_socket", "socket", "INT", True),
        ("m_thread", "thread", "INT", True),
        ("m_topology", "topo", "STRING", True),
        ("m_topology_inuse", "utopo", "STRING", True),
        ("mem_free", "mf", "MEMORY", True),
        ("mem_total", "mt", "MEMORY", True),
        ("mem_used", "mu", "MEMORY", True),
        ("min_cpu_interval", "mci", "TIME", False),
        ("np_load_avg", "nla", "DOUBLE", False),
        ("np_load_long", "nll", "DOUBLE", False),
        ("np_load_medium", "nlm", "DOUBLE", False),
        ("np_load_short", "nls", "DOUBLE", False),
        ("num_proc", "p", "INT", True),
        ("qname", "q", "STRING", True),
        ("rerun", "re", "BOOL", False),
        ("s_core", "s_core", "MEMORY", True),
        ("s_cpu", "s_cpu", "TIME", True),
        ("s_data", "s_data", "MEMORY", True),
        ("s_fsize", "s_fsize", "MEMORY", True),
        ("s_rss", "s_rss", "MEMORY", True),
        ("s_rt", "s_rt", "TIME", True),
        ("s_stack", "s_stack", "MEMORY", True),
        ("s_vmem", "s_vmem", "MEMORY", True),
        ("seq_no", "seq", "INT", False),
        ("slots", "s", "INT", True),
        ("swap_free", "sf", "MEMORY", True),
        ("swap_rate", "sr", "MEMORY", True),
        ("swap_rsvd", "srsv", "MEMORY", True),
        ("swap_total", "st", "MEMORY", True),
        ("swap_used", "su", "MEMORY", True),
        ("tmpdir", "tmp", "STRING", False),
        ("virtual_free", "vf", "MEMORY", True),
        ("virtual_total", "vt", "MEMORY", True),
        ("virtual_used", "vu", "MEMORY", True),
    )
)

_BY_NAME = {c.name: c for c in DEFAULT_COMPLEXES} | {c.shortcut: c for c in DEFAULT_COMPLEXES}


def resolve(name: str) -> Complex | None:
    """The complex a request names, by full name or shortcut."""
    return _BY_NAME.get(name)

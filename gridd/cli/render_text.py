"""Times and XML text as the q* commands print them; small on purpose, for the commands
that need only these (qrstat, qquota) not to load qstat's renderer."""

from __future__ import annotations

import time


def stamp(ts: float) -> str:
    """A time as qstat and qrstat show it, in local time."""
    return time.strftime("%m/%d/%Y %H:%M:%S", time.localtime(ts))


def xml_escape(text: str) -> str:
    """Escape the characters XML reserves in text and attribute values."""
    return (text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
            .replace('"', "&quot;").replace("'", "&apos;"))


def xml_stamp(ts: float) -> str:
    """A time as their -xml output shows it."""
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.localtime(ts))


BAR = 30  # characters between a progress bar's brackets


def bar(done: int, total: int) -> str:
    """A progress bar for a terminal, `done` of `total`: `[#####.....]`."""
    filled = min(BAR * done // total, BAR) if total > 0 else BAR
    return f"[{'#' * filled}{'.' * (BAR - filled)}]"

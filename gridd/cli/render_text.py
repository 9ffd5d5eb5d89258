"""A progress bar for a terminal, as `gridd sim` and `gridd dbwriter` draw it."""

from __future__ import annotations

BAR = 30  # characters between a progress bar's brackets


def bar(done: int, total: int) -> str:
    """A progress bar for a terminal, `done` of `total`: `[#####.....]`."""
    filled = min(BAR * done // total, BAR) if total > 0 else BAR
    return f"[{'#' * filled}{'.' * (BAR - filled)}]"

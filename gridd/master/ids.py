"""Job and AR numbers: the next one free, counting on from the last and wrapping at the
limit as Grid Engine does (numbers still in use are skipped)."""

from __future__ import annotations

from collections.abc import Container


def after(number: int, taken: Container[int], limit: int) -> int:
    """The number to hand out after `number`."""
    nxt = number + 1 if number < limit else 1
    while nxt in taken:
        nxt = nxt + 1 if nxt < limit else 1
    return nxt

"""Running actors in virtual time: under pytest-trio's `autojump_clock` fixture
(`trio.testing.MockClock(autojump_threshold=0)`), trio's clock jumps to the next timer
whenever every task waits, so an actor's intervals and timeouts take no real time.

An actor is given a wall clock for its record times (see gridd.actors.clock): the tests
give it one that moves with the virtual clock. While an actor waits for a worker thread,
every task waits too, so the clock would jump to whatever timer is next, the test's own
among them: the actor's threads run in trio's thread instead, taking no virtual time.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any, TypeVar

import pytest
import trio

from gridd.actors.clock import Wall

R = TypeVar("R")


def virtual_wall() -> Wall:
    """A wall clock that shows the real time now and from here on moves with trio's clock:
    the times a shepherd process writes on the real clock compare with its own."""
    offset = time.time() - trio.current_time()
    return lambda: offset + trio.current_time()



def threads_inline(monkeypatch: pytest.MonkeyPatch) -> None:
    """Make trio.to_thread.run_sync call its function in trio's thread, for this test."""

    async def run_sync(fn: Callable[..., R], *args: Any, **options: Any) -> R:
        await trio.lowlevel.checkpoint()
        return fn(*args)

    monkeypatch.setattr(trio.to_thread, "run_sync", run_sync)

"""Running actors in virtual time: under pytest-trio's `autojump_clock` fixture
(`trio.testing.MockClock(autojump_threshold=0)`), trio's clock jumps to the next timer
whenever every task waits, so an actor's intervals and timeouts take no real time.

An actor is given a wall clock for its record times (see gridd.actors.clock): the tests
give it one that moves with the virtual clock. While an actor waits for a worker thread,
every task waits too, so the clock would jump to whatever timer is next, the test's own
among them: the actor's threads run in trio's thread instead, taking no virtual time.
A process or a TCP connection cannot be made to take none: while an actor waits for
one, autojump would move the clock on to the actor's next timer, whatever is still on
its way. A test of such an actor keeps the clock still while real things happen
(pytest-trio's `mock_clock`) and moves it itself, or lets it jump (`autojumping`) once
nothing in flight matters; its waits are bounded in real seconds (`real_time_limit`).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, TypeVar

import pytest
import trio
from trio.testing import MockClock

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


@contextmanager
def real_move_on_after(seconds: float) -> Iterator[trio.CancelScope]:
    """`trio.move_on_after` in real seconds, which pass whatever trio's clock does."""
    token = trio.lowlevel.current_trio_token()
    with trio.CancelScope() as scope:
        timer = threading.Timer(seconds, token.run_sync_soon, (scope.cancel,))
        timer.start()
        try:
            yield scope
        finally:
            timer.cancel()


@contextmanager
def real_time_limit(seconds: float) -> Iterator[None]:
    """Fail the block once it has taken `seconds` of real time."""
    with real_move_on_after(seconds) as scope:
        yield
    if scope.cancelled_caught:
        raise TimeoutError(f"not done within {seconds:g} s of real time")


async def until(condition: Callable[[], bool], poll: float = 0.01) -> None:
    """Wait, in real time, until `condition()` holds: for what a process does."""
    while not condition():
        await trio.to_thread.run_sync(time.sleep, poll)


@contextmanager
def autojumping(clock: MockClock) -> Iterator[None]:
    """Trio's clock jumps to the next timer whenever every task waits, in the block."""
    threshold, clock.autojump_threshold = clock.autojump_threshold, 0.0
    try:
        yield
    finally:
        clock.autojump_threshold = threshold

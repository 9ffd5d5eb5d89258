"""Running actors in virtual time: under pytest-trio's `autojump_clock` fixture
(`trio.testing.MockClock(autojump_threshold=0)`), trio's clock jumps to the next timer
whenever every task waits, so an actor's intervals and timeouts take no real time.

An actor is given a wall clock for its record times (see gridd.actors.clock): the tests
give it one that moves with the virtual clock.
"""

from __future__ import annotations

import time

import trio

from gridd.actors.clock import Wall


def virtual_wall() -> Wall:
    """A wall clock that shows the real time now and from here on moves with trio's clock:
    the times a shepherd process writes on the real clock compare with its own."""
    offset = time.time() - trio.current_time()
    return lambda: offset + trio.current_time()


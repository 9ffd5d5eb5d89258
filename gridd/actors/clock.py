"""The clocks an actor reads, both handed to it by whoever starts it.

Timers and timeouts run on trio's clock (`trio.current_time`, `trio.sleep`,
`move_on_after`): `trio.run` is given that clock, the system's in the daemons and a
`trio.testing.MockClock` in tests, under which an actor's intervals pass in virtual
time. What records carry, and what is compared with times from elsewhere (a job's start
as its shepherd wrote it, the now a plan is made for), is read from a `Wall` the actor
is given: the daemons' entry points give `SYSTEM`; a test gives one that follows the
virtual clock, so that both move together.
"""

from __future__ import annotations

import time
from collections.abc import Callable

Wall = Callable[[], float]  # seconds since the epoch, now

SYSTEM: Wall = time.time

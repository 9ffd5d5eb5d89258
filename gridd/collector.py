"""Python's cyclic garbage collector, held off while the scheduler plans, while the
master reads its spool back, and while it handles a burst of requests until it has
answered them (qstat's rows over 100,000 jobs, say).

A full collection walks every object the process tracks. In a large cell the mirror of
the master's state and the planner's carried caches are hundreds of thousands of objects
(about 0.2 s a walk on the benchmark's cell of 10,000 pending jobs), and the walk lands in
whichever planning run happens to cross the allocation threshold, so one dispatch
decision in a few takes half as long again. Planning leaves little cyclic garbage, so
it runs with the collector off, and a collection that falls due is made after the run.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def held_off() -> Iterator[None]:
    """The collector off for the block, and afterwards as it was before."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()

"""`gridd sim` on several cores: stretches of the trace replayed side by side.

A replay set to the state another reached (a Checkpoint) goes on as that one does. So
the trace is cut into stretches at checkpoints that a simple model of the replay finds
(Simulation.split), each stretch is replayed on its own from its checkpoint, and this
process joins them in order (Simulation.join). Where a checkpoint proves wrong, this
process replays on until the two meet at an idle instant, or to the stretch's end: the
outcomes and the count of runs are always those of one replay.

The processes, this one among them, take the stretches one at a time, the largest first
and ever smaller ones after (shares), so that they finish at about the same time
whatever each run costs. Processes are forked: they start with this one's memory (the
trace, its order, the checkpoints), and send back only what their stretches found, over
pipes, once they have done. A process that fails takes the replay with it.
"""

from __future__ import annotations

import contextlib
import gc
import multiprocessing
import os
import traceback
from collections.abc import Callable, Iterator
from multiprocessing.connection import Connection
from multiprocessing.sharedctypes import Synchronized, SynchronizedArray

from gridd.sched.sim import START, Checkpoint, Outcome, Simulation, Stretch

JOBS_PER_PROCESS = 5_000  # fewer, and starting a process costs more than it saves
SMALLEST_SHARE = 1 / 64  # of a process's part of the replay: the least a stretch is
# Allocations between collections of the youngest generation while a replay runs.
_YOUNG_COLLECTED_EVERY = 100_000


def default_workers(jobs: int) -> int:
    """One process per core this one may use, while each has enough jobs to replay."""
    return max(1, min(len(os.sched_getaffinity(0)), jobs // JOBS_PER_PROCESS))


def run(sim: Simulation, workers: int, progress: Callable[[int], None] | None = None
        ) -> list[Outcome]:
    """Replay `sim` (new) to the end with up to `workers` processes, this one included."""
    with _rare_collections():  # (the processes forked inherit it)
        return _run(sim, workers, progress)


def _run(sim: Simulation, workers: int, progress: Callable[[int], None] | None
         ) -> list[Outcome]:
    if workers <= 1 or "fork" not in multiprocessing.get_all_start_methods():
        return sim.run(progress)
    made = shares(workers)
    # The first stretch begins with the trace: a process replays it while this one finds
    # the checkpoints (where they are the replay's), which ends it.
    head = sim.arrival_after(made[0])
    context = multiprocessing.get_context("fork")
    counts = context.Array("q", workers, lock=False)  # per process: jobs its replays ended
    taken = context.Value("i", 0)  # how many stretches of the order have been taken
    # The stretches and their order, once known, a copy per process: put by a thread of
    # this one's, so that it goes on while the process replaying the first has no ear.
    told: multiprocessing.Queue[tuple[list[tuple[Checkpoint, int]], list[int]]] = \
        context.Queue()
    children = []
    try:
        for worker in range(1, workers):
            receive, send = context.Pipe(duplex=False)
            child = context.Process(target=_replay, daemon=True, args=(
                sim, worker, head if worker == 1 else None, told, send, taken, counts))
            child.start()
            send.close()
            children.append((child, receive))
        if head is None:
            stretches = sim.split(made)
        else:  # (the first is taken already: the runs guessed for it matter no more)
            stretches = [(START, 0), *sim.split([m / (1 - made[0]) for m in made[1:]], head)]
        ends = [begin.arrival for begin, _ in stretches[1:]] + [len(sim.jobs)]
        bounds = [(begin, end) for (begin, _), end in zip(stretches, ends, strict=True)]
        order = sorted(range(head is not None, len(bounds)), key=lambda k: -stretches[k][1])
        for _ in children:
            told.put((bounds, order))
        shown = _shown(progress, counts, len(sim.jobs))
        found = _Share(bounds, order, taken, counts).replay(sim, 0, shown)
        for child, receive in children:
            found.update(_received(receive, child))
        counts[:] = [0] * workers  # what they ended is this replay's once joined
        sim.restart()
        for k in range(len(bounds)):
            sim.join(found[k], shown)
        if shown is not None:
            shown(sim.ended)  # all of them, whoever replayed the last
    finally:
        told.cancel_join_thread()  # (what a failed process never took is dropped)
        told.close()
        for child, receive in children:
            receive.close()
            if child.is_alive():
                child.terminate()
            child.join()
    return sim.outcomes()


class _Share:
    """The stretches (the checkpoint each begins at and the arrival it ends before), the
    order they are taken in, how many are taken and, per process, the jobs its replays
    have ended."""

    def __init__(self, bounds: list[tuple[Checkpoint, int]], order: list[int],
                 taken: Synchronized[int], counts: SynchronizedArray[int]) -> None:
        self.bounds, self.order, self.taken, self.counts = bounds, order, taken, counts

    def replay(self, sim: Simulation, worker: int,
               progress: Callable[[int], None] | None = None,
               found: dict[int, Stretch] | None = None) -> dict[int, Stretch]:
        """Take stretches and replay them until none is left; what each found, by its
        place in the trace (added to `found`, what this process replayed before)."""
        found = {} if found is None else found
        before = self.counts[worker]  # jobs ended by the stretches replayed before

        def count(ended: int) -> None:
            self.counts[worker] = before + ended
            if progress is not None:
                progress(0)

        while True:
            with self.taken.get_lock():
                next_ = self.taken.value
                if next_ == len(self.order):
                    return found
                self.taken.value = next_ + 1
            k = self.order[next_]
            found[k] = sim.stretch(*self.bounds[k], count)
            before += sim.ended
            self.counts[worker] = before


def shares(workers: int) -> list[float]:
    """Stretches' shares of the replay, for `workers` processes that take the largest
    left first: each a half of what is left over the processes, down to SMALLEST_SHARE of
    a process's part. Runs differ in cost: the small stretches that come last even out
    what the processes have done."""
    made: list[float] = []
    left = 1.0
    while left > 1e-9:
        piece = min(left, max(left / (2 * workers), SMALLEST_SHARE / workers))
        made.append(piece)
        left -= piece
    return made


def _replay(sim: Simulation, worker: int, head: int | None,
            told: multiprocessing.Queue[tuple[list[tuple[Checkpoint, int]], list[int]]],
            send: Connection, taken: Synchronized[int], counts: SynchronizedArray[int]
            ) -> None:
    """A forked process's part: the first stretch, to arrival `head`, if given, then
    stretches as they are shared out once this process hears what they are."""
    try:
        found = {} if head is None else {
            0: sim.stretch(START, head, lambda ended: counts.__setitem__(worker, ended))}
        bounds, order = told.get()
        send.send(_Share(bounds, order, taken, counts).replay(sim, worker, found=found))
    except BaseException:  # noqa: BLE001 - whatever it is, the parent must hear of it
        send.send(traceback.format_exc())
    finally:
        send.close()


def _received(receive: Connection, child: multiprocessing.process.BaseProcess
              ) -> dict[int, Stretch]:
    try:
        found = receive.recv()
    except EOFError:
        raise RuntimeError(f"a replay process ended without an answer (exit code "
                           f"{child.exitcode})") from None
    if isinstance(found, str):
        raise RuntimeError(f"a replay process failed:\n{found}")
    return found


@contextlib.contextmanager
def _rare_collections() -> Iterator[None]:
    """Collect garbage less often while a replay runs. Its runs make and drop many small
    containers, all freed as their counts reach zero (the planner leaves no cycles), so
    the collector finds nothing; each of its passes only walks the young survivors and,
    now and then, the whole trace: 3-4 % of a replay at the default threshold. At the
    end the young (what the replay still holds, the outcomes: tens of thousands) are made
    old as a pass finding them all alive would, without one: the lower threshold would
    start one at once, that walks them all (1 % of a replay)."""
    threshold = gc.get_threshold()
    gc.set_threshold(_YOUNG_COLLECTED_EVERY, *threshold[1:])
    try:
        yield
    finally:
        gc.freeze()  # (into the permanent generation, and out into the oldest: no walk)
        gc.set_threshold(*threshold)
        gc.unfreeze()


def _shown(progress: Callable[[int], None] | None, counts: SynchronizedArray[int],
           total: int) -> Callable[[int], None] | None:
    """The progress of all the replays at once: what the processes' stretches ended,
    then what this one has joined and replayed (a job two replays ended may count twice:
    never more than all of them are shown)."""
    if progress is None:
        return None

    def show(ended: int) -> None:
        progress(min(ended + sum(counts), total))

    return show

"""`gridd sim` on several cores: the trace's busy periods replayed side by side.

A replay that reaches an instant at which nothing runs or waits goes on as a new replay
begun there would. So the trace is cut at instants likely to be idle
(Simulation.split), each stretch after the first is replayed by a process of its own
from its cut as if nothing came before, and this process replays the first and then
joins the others in order, each at an idle instant the two replays share
(Simulation.join). Where a cut proves busy, this process replays on until the two
meet: the outcomes and the count of runs are always those of one replay.

Processes are forked: they start with this one's memory (the trace, the planner), and
send back only what their stretch found, over pipes. A process that fails takes the
replay with it.
"""

from __future__ import annotations

import multiprocessing
import os
import traceback
from collections.abc import Callable
from multiprocessing.connection import Connection
from multiprocessing.sharedctypes import SynchronizedArray

from gridd.sched.sim import Outcome, Simulation, Stretch

JOBS_PER_PROCESS = 5_000  # fewer, and starting a process costs more than it saves


def default_workers(jobs: int) -> int:
    """One process per core this one may use, while each has enough jobs to replay."""
    return max(1, min(len(os.sched_getaffinity(0)), jobs // JOBS_PER_PROCESS))


def run(sim: Simulation, workers: int, progress: Callable[[int], None] | None = None
        ) -> list[Outcome]:
    """Replay `sim` (new) to the end with up to `workers` processes, this one included."""
    cuts = sim.split(workers) if workers > 1 else [0]
    if len(cuts) == 1 or "fork" not in multiprocessing.get_all_start_methods():
        return sim.run(progress)
    context = multiprocessing.get_context("fork")
    counts = context.Array("q", len(cuts), lock=False)  # per stretch: jobs it ended
    children = []
    try:
        stretches = zip(cuts[1:], [*cuts[2:], len(sim.jobs)], strict=True)
        for k, (first, until) in enumerate(stretches, 1):
            receive, send = context.Pipe(duplex=False)
            child = context.Process(target=_replay, args=(sim, first, until, send, counts, k),
                                    daemon=True)
            child.start()
            send.close()
            children.append((child, receive))
        shown = _shown(progress, counts, len(sim.jobs))
        sim.replay(cuts[1], shown)
        for k, (child, receive) in enumerate(children, 1):
            stretch = _received(receive, child)
            sim.join(stretch, shown)
            counts[k] = 0  # what it ended counts as this replay's now, if it was taken
        sim.replay(len(sim.jobs), shown)
        if shown is not None:
            shown(sim.ended)  # all of them, whoever replayed the last
    finally:
        for child, receive in children:
            receive.close()
            if child.is_alive():
                child.terminate()
            child.join()
    return [o for o in sim.outcomes if o is not None]


def _replay(sim: Simulation, first: int, until: int, send: Connection,
            counts: SynchronizedArray[int], k: int) -> None:
    def count(ended: int) -> None:
        counts[k] = ended

    try:
        send.send(sim.stretch(first, until, count))
    except BaseException:  # noqa: BLE001 - whatever it is, the parent must hear of it
        send.send(traceback.format_exc())
    finally:
        send.close()


def _received(receive: Connection, child: multiprocessing.process.BaseProcess) -> Stretch:
    try:
        found = receive.recv()
    except EOFError:
        raise RuntimeError(f"a replay process ended without an answer (exit code "
                           f"{child.exitcode})") from None
    if isinstance(found, str):
        raise RuntimeError(f"a replay process failed:\n{found}")
    return found


def _shown(progress: Callable[[int], None] | None, counts: SynchronizedArray[int],
           total: int) -> Callable[[int], None] | None:
    """The progress of all the replays at once: this one's and the others' not joined yet
    (a job two replay may count twice: never more than all of them are shown)."""
    if progress is None:
        return None

    def show(ended: int) -> None:
        progress(min(ended + sum(counts), total))

    return show

"""The Scheduler actor: a mirror of the master's state and the dispatch loop.

It plans as soon as something planning depends on changed (so an idle cell starts a job
within milliseconds) and at least every schedule interval, but never while the master
has not yet answered its previous Dispatch: that answer carries the orders' effects, so
the mirror never books the same resources twice.

Those intervals and the answer's timeout run on trio's clock; a plan is made for the
now of the wall clock it is given (see gridd.actors.clock).

The master runs it in a process of its own (gridd.actors.child_process), so that a pass
over a long queue takes another core than the master's answers to clients; the two talk
over their socket pair (gridd.actors.link).
"""

from __future__ import annotations

import logging
import math
import socket
import sys
import time
from pathlib import Path
from typing import Protocol

import msgspec
import trio

from gridd import paths
from gridd import protocol as p
from gridd.actors.clock import SYSTEM, Wall
from gridd.actors.link import Link
from gridd.collector import held_off
from gridd.sched.info import Told
from gridd.sched.plan import Plan, Planner
from gridd.sched.view import SchedView

log = logging.getLogger("gridd.scheduler")

ANSWER_TIMEOUT = 30.0  # seconds; the master answers every Dispatch, this is a safety net


class MasterSocket(Protocol):
    """The scheduler's way to its master: a Link, or in tests a ZeroMQ PAIR socket."""

    async def send(self, parts: list[bytes]) -> None: ...
    async def recv(self) -> list[bytes]: ...
    def recv_nowait(self) -> list[bytes] | None: ...


async def run(sock: MasterSocket, interval: float, base: Path | None = None, *,
              wall: Wall = SYSTEM) -> None:
    """Mirror the master at the other end of `sock` and plan; `wall` gives the plans'
    now."""
    view = SchedView()
    planner = Planner()
    told = Told()
    synced = False  # the view holds a state from the master
    # On trio's clock: when the last Dispatch went out, while its answer is due; when the
    # last cycle ran.
    awaiting: float | None = None
    last_cycle = -math.inf
    monitoring = False  # qconf -tsm asked for the next cycle to be recorded
    await sock.send([p.encode(p.SchedHello())])
    while True:
        with trio.move_on_after(interval):
            frames = [await sock.recv()]
            while (more := sock.recv_nowait()) is not None:
                frames.append(more)
            for msg in _decoded(frames):
                if isinstance(msg, p.SchedState):
                    view.reset(msg)
                    synced, awaiting = True, None
                elif isinstance(msg, p.SchedEvent) and synced:
                    if not view.apply(msg):
                        log.warning("missed scheduler events; asking for a resync")
                        synced = False
                        break
                    if msg.answers_dispatch:
                        awaiting = None
                    monitoring = monitoring or msg.monitor
        now = trio.current_time()
        if awaiting is not None and now - awaiting > ANSWER_TIMEOUT:
            log.warning("no answer to the last dispatch; asking for a resync")
            synced, awaiting = False, None
        if not synced:
            await sock.send([p.encode(p.SchedHello())])
            await _wait_for_state(sock, view)
            synced = True
            continue
        due = view.changed or monitoring or now - last_cycle >= interval
        # With MONITOR each interval is recorded while something runs, as Grid Engine does.
        if awaiting is not None or not due or not (
                view.jobs or told.why or monitoring
                or (view.conf.monitor and view.running)):
            continue
        view.changed, last_cycle = False, now
        planned_for = wall()
        kept = view.conf  # a recorded cycle gathers the reasons whatever job_info says
        if monitoring:
            view.conf = msgspec.structs.replace(kept, job_info=True)
        try:
            with held_off():
                plan = planner.plan(view, planned_for)
        except Exception:  # a planning bug must not stop scheduling for good
            log.exception("planning failed; asking the master for a fresh state")
            synced = False
            continue
        finally:
            view.conf = kept
        if monitoring:
            _runlog(paths.common(base) / "schedd_runlog", planned_for, plan)
            monitoring = False
            if not kept.job_info:
                plan.why = {}  # gathered for the file only: the cell keeps none
        if plan.schedule is not None:
            _monitor(paths.common(base) / "schedule", plan.schedule)
        dispatch = told.dispatch(plan)
        if dispatch.orders or dispatch.unschedulable or dispatch.info \
                or dispatch.global_info is not None or dispatch.reserved is not None:
            awaiting = now
            await sock.send([p.encode(dispatch)])


def _monitor(path: Path, lines: list[str]) -> None:
    """Append a cycle's interval to the schedule file (MONITOR): a few lines, written at
    once; the file is never truncated, as in Grid Engine."""
    try:
        with path.open("a") as out:
            out.write("".join(f"{line}\n" for line in ["::::::::", *lines]))
    except OSError as exc:
        log.error("cannot write the schedule file %s: %s", path, exc)


def _runlog(path: Path, now: float, plan: Plan) -> None:
    """Append a cycle to the schedd_runlog file (qconf -tsm), as 8.1.9 words it: between
    a start and a stop line, why instances took no job, then why each job that waits
    does, every line led by the time."""
    lines = ["-------------START-SCHEDULER-RUN-------------", *plan.global_info,
             *(f"Job {job} {reason}" for job, reasons in plan.info.items()
               for reason in reasons),
             "--------------STOP-SCHEDULER-RUN-------------"]
    stamp = time.ctime(now)
    try:
        with path.open("a") as out:
            out.write("".join(f"{stamp}|{line}\n" for line in lines))
    except OSError as exc:
        log.error("cannot write the scheduler's run log %s: %s", path, exc)


def _decoded(frames: list[list[bytes]]) -> list[p.Msg]:
    out = []
    for parts in frames:
        try:
            out.append(p.decode(parts[-1], max_size=None))
        except p.ProtocolError as exc:
            log.error("bad message from the master: %s", exc)
    return out


async def _wait_for_state(sock: MasterSocket, view: SchedView) -> None:
    """After a SchedHello: skip stale events until the master's full state arrives."""
    while True:
        for msg in _decoded([await sock.recv()]):
            if isinstance(msg, p.SchedState):
                view.reset(msg)
                return


async def serve(sock: socket.socket, interval: float, base: Path, *,
                wall: Wall = SYSTEM) -> None:
    """The actor on its end of the socket pair the master made, until the master closes
    its end."""
    link = Link(sock)
    async with trio.open_nursery() as nursery:
        nursery.start_soon(link.pump)
        try:
            await run(link, interval, base, wall=wall)
        except trio.EndOfChannel:
            pass
        nursery.cancel_scope.cancel()


def main(argv: list[str]) -> int:
    """`python -m gridd.actors.scheduler BASE FD INTERVAL`: the scheduler process, started
    by the master (gridd.actors.child_process) with its end of their socket pair as FD.
    It stops when the master closes that end, on purpose or by dying (it runs in a
    session of its own: a terminal's signals are the master's to act on)."""
    from gridd.cli.gridd_cmd import log_to

    base, fd, interval = Path(argv[0]), int(argv[1]), float(argv[2])
    log_to(paths.master_spool(base) / "messages")
    trio.run(serve, socket.socket(fileno=fd), interval, base)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

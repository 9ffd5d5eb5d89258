"""The scheduler actor's timing rules, in virtual time (see virtual_time.py).

The test plays the master: it binds the PAIR socket the actor connects to and answers
with the state of a real master core (`Master`), sending the events the master would.
The actor plans as soon as something planning depends on changed and at least every
interval, never while its last Dispatch is unanswered, and asks for the whole state
again when an answer is overdue or an event was missed.
"""

from __future__ import annotations

import itertools
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from functools import partial
from pathlib import Path

import msgspec
import pytest
import trio
import zmq

from gridd import paths
from gridd import protocol as p
from gridd.actors import scheduler
from gridd.actors.clock import Wall
from gridd.master.bootstrap import CellConfig, initial_config
from gridd.master.core import Master
from gridd.master.state import Effects, MasterState
from gridd.model.job import JobSpec
from gridd.sched.plan import Plan, Planner
from gridd.sched.view import SchedView
from gridd.transport import TrioSocket
from tests.actors.virtual_time import virtual_wall

_endpoints = itertools.count()
VIRTUAL_LIMIT = 300.0  # seconds a test may take on trio's clock


class PlayedMaster:
    """The master's end of the scheduler's socket, with the core the scheduler mirrors."""

    def __init__(self, sock: TrioSocket, wall: Wall, hosts: int, slots: int) -> None:
        self.sock = sock
        self.wall = wall
        state = MasterState()
        initial_config(state, CellConfig(hosts=[f"node{i}" for i in range(1, hosts + 1)],
                                         slots=slots))
        self.core = Master(state)
        for host in state.hosts:
            self.core.register(p.Register(host=host, load={}), wall(), Effects())

    async def receive(self) -> tuple[float, p.Msg]:
        """The scheduler's next message, with when (trio's clock) it came."""
        (frame,) = await self.sock.recv()
        return trio.current_time(), p.decode(frame, max_size=None)

    async def next_orders(self) -> tuple[float, p.Dispatch]:
        """The next Dispatch with orders, and when it came; those before it, which only
        tell why jobs wait, are answered."""
        while True:
            at, msg = await self.receive()
            assert isinstance(msg, p.Dispatch)
            if msg.orders:
                return at, msg
            await self.answer(msg)

    async def silence(self, seconds: float) -> None:
        """Nothing comes from the scheduler for so long."""
        with trio.move_on_after(seconds):
            _, msg = await self.receive()
            pytest.fail(f"the scheduler sent {msg!r}")

    def submit(self, **spec: object) -> int:
        fields: dict[str, object] = dict(name="sleep", owner="alice", binary=True,
                                         command=["sleep", "1"])
        fields.update(spec)
        reply = self.core.submit(JobSpec(**fields), self.wall(), Effects())  # type: ignore[arg-type]
        assert isinstance(reply, p.Submitted)
        return reply.job_id

    async def send_state(self, conf: dict[str, object] | None = None) -> None:
        state = self.core.sched_state()
        if conf:
            state.conf = msgspec.structs.replace(state.conf, **conf)
        await self.sock.send([p.encode(state)])

    async def send_event(self, **changes: object) -> None:
        self.core.sched_seq += 1
        await self.sock.send([p.encode(p.SchedEvent(seq=self.core.sched_seq, **changes))])

    async def answer(self, dispatch: p.Dispatch) -> None:
        """Apply a Dispatch to the core and tell the scheduler what it did, as the master
        does once the orders are spooled."""
        fx = Effects()
        self.core.dispatch(dispatch, self.wall(), fx)
        await self.send_event(jobs=fx.sched, removed=fx.sched_removed,
                              started=fx.sched_started, answers_dispatch=True)

    async def finish(self, job_id: int) -> None:
        """The job's only task ends on node1."""
        fx = Effects()
        now = self.wall()
        self.core.task_finished(p.TaskReport(job_id=job_id, task_id=0, host="node1",
                                             start_time=now, end_time=now, exit_status=0),
                                now, fx)
        await self.send_event(ended=fx.sched_ended)


@asynccontextmanager
async def scheduling(base: Path, interval: float, hosts: int = 1,
                     slots: int = 1) -> AsyncIterator[PlayedMaster]:
    """The scheduler actor, planning every `interval` seconds, and its master; the
    SchedHello it starts with is taken."""
    paths.common(base).mkdir(parents=True, exist_ok=True)
    ctx = zmq.Context()
    endpoint = f"inproc://sched-timing-{next(_endpoints)}"
    sock = TrioSocket.create(ctx, zmq.PAIR, SNDHWM=0, RCVHWM=0)
    sock.bind(endpoint)
    theirs = TrioSocket.create(ctx, zmq.PAIR, SNDHWM=0, RCVHWM=0)
    theirs.connect(endpoint)
    wall = virtual_wall()
    try:
        async with trio.open_nursery() as nursery:
            nursery.start_soon(partial(scheduler.run, theirs, interval, base, wall=wall))
            master = PlayedMaster(sock, wall, hosts, slots)
            with trio.fail_after(VIRTUAL_LIMIT):  # no threads here: virtual time bounds
                _, hello = await master.receive()
                assert isinstance(hello, p.SchedHello)
                yield master
            nursery.cancel_scope.cancel()
    finally:
        sock.close()
        theirs.close()
        ctx.term()


def orders(msg: p.Msg) -> list[int]:
    assert isinstance(msg, p.Dispatch)
    return [order.job_id for order in msg.orders]


async def test_a_change_is_planned_at_once_and_a_waiting_job_at_the_next_interval(
        tmp_path, autojump_clock):
    """A job that arrives is dispatched when it arrives; one whose -a time comes while
    nothing changes is dispatched by the first cycle after that time, a cycle of the
    interval counted from the last. Plans are made for the wall clock's now."""
    async with scheduling(tmp_path, interval=10.0) as master:
        await master.send_state()
        await master.silence(3.0)  # nothing to plan: no Dispatch
        job = master.submit()
        later = master.submit(start_time=master.wall() + 25.0)  # at virtual time 28
        await master.send_event(jobs=[master.core.sched_job(master.core.s.jobs[job]),
                                      master.core.sched_job(master.core.s.jobs[later])])
        at, dispatch = await master.receive()
        assert (at, orders(dispatch)) == (3.0, [job])
        await master.answer(dispatch)  # the job runs on the only slot
        await trio.sleep(2.0)
        await master.finish(job)  # a change at 5: a cycle, before the -a time
        at, dispatch = await master.next_orders()
        assert (at, orders(dispatch)) == (35.0, [later])  # the cycles of 15, 25, then 35


async def test_no_dispatch_while_the_answer_to_the_last_is_due(tmp_path, autojump_clock):
    """Until the master answers, no cycle runs, however many intervals pass and whatever
    changes: the mirror does not know what the orders booked. Once answered, the
    waiting change is planned at once."""
    async with scheduling(tmp_path, interval=2.0, slots=2) as master:
        first = master.submit()
        await master.send_state()
        at, dispatch = await master.receive()
        assert (at, orders(dispatch)) == (0.0, [first])
        second = master.submit()
        await master.send_event(jobs=[master.core.sched_job(master.core.s.jobs[second])])
        await master.silence(25.0)
        await master.answer(dispatch)
        at, dispatch = await master.receive()
        assert (at, orders(dispatch)) == (25.0, [second])


async def test_an_answer_overdue_makes_the_scheduler_ask_for_the_state_again(
        tmp_path, autojump_clock):
    """ANSWER_TIMEOUT after the Dispatch, at the first wake-up past it (events that
    come meanwhile do not put it off), the scheduler says hello again and plans anew
    on the state the master sends."""
    async with scheduling(tmp_path, interval=2.0) as master:
        job = master.submit()
        await master.send_state()
        at, dispatch = await master.receive()
        assert (at, orders(dispatch)) == (0.0, [job])
        for _ in range(6):  # load reports, every 5 s
            await trio.sleep(5.0)
            await master.send_event(loads={"node1": {"load_avg": "0.1"}})
        at, hello = await master.receive()
        assert isinstance(hello, p.SchedHello)
        assert scheduler.ANSWER_TIMEOUT < at <= scheduler.ANSWER_TIMEOUT + 2.0
        await master.send_state()  # the orders were lost: the job still waits
        at_state = trio.current_time()
        at, dispatch = await master.receive()
        assert orders(dispatch) == [job] and at - at_state <= 2.0


async def test_a_missed_event_makes_the_scheduler_ask_for_the_state_at_once(
        tmp_path, autojump_clock):
    async with scheduling(tmp_path, interval=10.0) as master:
        await master.send_state()
        await trio.sleep(4.0)
        master.core.sched_seq += 1  # an event that never arrives
        await master.send_event(loads={"node1": {"load_avg": "0.1"}})
        at, hello = await master.receive()
        assert (at, hello) == (4.0, p.SchedHello())


async def test_a_planning_failure_makes_the_scheduler_ask_for_the_state_next_wake(
        tmp_path, autojump_clock, monkeypatch):
    """A planning bug costs a cycle: the scheduler says hello at its next wake-up (an
    interval later when nothing comes; not at once, so a bug that lasts does not make
    it ask over and over) and plans anew on the state."""
    plan, failures = Planner.plan, []

    def failing_once(self: Planner, view: SchedView, now: float) -> Plan:
        if not failures:
            failures.append(now)
            raise RuntimeError("a planning bug")
        return plan(self, view, now)

    monkeypatch.setattr(Planner, "plan", failing_once)
    async with scheduling(tmp_path, interval=2.0) as master:
        job = master.submit()
        await master.send_state()
        at, hello = await master.receive()
        assert (at, hello) == (2.0, p.SchedHello())
        assert failures == [pytest.approx(master.wall() - 2.0)]  # planned for the wall's now
        await master.send_state()
        at, dispatch = await master.receive()
        assert orders(dispatch) == [job] and at <= 4.0


async def test_with_monitor_each_interval_is_recorded_while_something_runs(
        tmp_path, autojump_clock):
    """sched_conf MONITOR: a cycle every interval while a job runs, each an interval
    in the schedule file; no cycle at all once nothing runs or waits."""
    schedule = paths.common(tmp_path) / "schedule"

    def recorded() -> int:
        return schedule.read_text().count("::::::::\n") if schedule.exists() else 0

    async with scheduling(tmp_path, interval=2.0) as master:
        job = master.submit()
        await master.send_state(conf={"monitor": True})
        at, dispatch = await master.receive()
        assert (at, orders(dispatch)) == (0.0, [job])
        await master.answer(dispatch)
        at, dispatch = await master.receive()  # why nothing else runs: the queue is full
        assert at == 0.0 and dispatch.global_info
        await master.answer(dispatch)
        await trio.sleep(1.0)
        at_first = recorded()  # the cycles at 0, for the state and for each answer
        await trio.sleep(8.0)
        assert recorded() == at_first + 4  # at 2, 4, 6 and 8
        await master.finish(job)
        await trio.sleep(20.0)
        assert recorded() == at_first + 4


async def test_qconf_tsm_records_the_next_cycle_at_the_wall_clocks_time(
        tmp_path, autojump_clock):
    runlog = paths.common(tmp_path) / "schedd_runlog"
    async with scheduling(tmp_path, interval=10.0) as master:
        master.submit(start_time=master.wall() + 3600.0)  # waits for the next hour
        await master.send_state()
        await master.silence(7.0)  # nothing to order, nothing to say
        await master.send_event(monitor=True)  # qconf -tsm, at 7: a cycle at once
        stamp = time.ctime(master.wall())
        await trio.sleep(1.0)
        lines = runlog.read_text().splitlines()
        assert lines[0] == f"{stamp}|-------------START-SCHEDULER-RUN-------------"
        assert {line.partition("|")[0] for line in lines} == {stamp}

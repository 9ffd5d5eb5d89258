"""The master actor's timing rules, in virtual time (see virtual_time.py).

The master runs in this trio process, with its scheduler and accounting actors (the
latter as a task, tests/actors/inline_accounting.py, not a process of its own), on an
inproc endpoint of a cell without security; the test plays its execd and a client on
DEALER sockets of the actor's ZeroMQ context. Inproc messages take no time and the
spool's and accounting's threads run inline, so trio's clock jumps whenever every task
waits, and the master's now is a wall clock that moves with it.

The master looks at its hosts four times in max_unheard, every 5 s at most: one unheard
for max_unheard goes unknown, and what runs there stays as it is until its execd
registers again, but for the rerunnable jobs once it has been unknown for
reschedule_unknown: they are rescheduled, and killed there if the host comes back. It
looks at advance reservations every AR_CHECK seconds: one starts, and ends, at the first
look at or after its time, and goes into error at the first look once its host is
unknown. The scheduler plans for the master's now. A task dispatched and not yet
confirmed is sent again with the host's first load report more than 10 s after the
dispatch, and at once when its execd registers.
A connection's request rate is counted on the wall clock. A Watch is answered once a
burst that changed the cell is committed, else at the next host check.
"""

from __future__ import annotations

import itertools
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
from gridd.actors.master import AR_CHECK, MasterActor
from gridd.master.bootstrap import CellConfig
from gridd.model.ar import ArSpec
from gridd.model.job import JobSpec
from gridd.transport import TrioSocket
from tests.actors.inline_children import InlineAccounting, InlineScheduler
from tests.actors.virtual_time import threads_inline, virtual_wall

HOST = "node1"
INSTANCE = f"all.q@{HOST}"
VIRTUAL_LIMIT = 1000.0  # seconds a test may take on trio's clock
_endpoints = itertools.count()


class Cell:
    """A running master, with an execd and a client of it."""

    def __init__(self, actor: MasterActor) -> None:
        self.wall = actor.wall
        self.client = self._connected(actor)
        self.execd = self._connected(actor)
        self.watcher = self._connected(actor)  # holds a Watch while the client asks

    @staticmethod
    def _connected(actor: MasterActor) -> TrioSocket:
        sock = TrioSocket.create(actor.ctx, zmq.DEALER, SNDHWM=0, RCVHWM=0)
        sock.connect(actor.endpoint)
        return sock

    def close(self) -> None:
        self.client.close()
        self.execd.close()
        self.watcher.close()

    async def ask(self, msg: p.Msg) -> p.Msg:
        await self.client.send([p.encode(msg)])
        (frame,) = await self.client.recv()
        return p.decode(frame)

    async def report(self, msg: p.Msg) -> None:
        """Send what execd sends."""
        await self.execd.send([p.encode(msg)])

    async def order(self) -> tuple[float, p.Msg]:
        """The master's next message to execd, with when (trio's clock) it came."""
        (frame,) = await self.execd.recv()
        return trio.current_time(), p.decode(frame)

    async def no_order(self, seconds: float) -> None:
        """Nothing comes to execd for so long."""
        with trio.move_on_after(seconds):
            _, msg = await self.order()
            pytest.fail(f"the master sent {msg!r}")

    async def submit(self, **kw) -> int:
        reply = await self.ask(p.Submit(spec=JobSpec(name="sleep", owner="root", binary=True,
                                                     command=["sleep", "1000"], **kw)))
        assert isinstance(reply, p.Submitted)
        return reply.job_id

    async def started(self) -> int:
        """Take the next StartTask and confirm it, as execd does once the job runs."""
        _, start = await self.order()
        assert isinstance(start, p.StartTask)
        await self.report(p.TaskStarted(host=HOST, job_id=start.job.job_id,
                                        task_id=start.task_id, start_time=self.wall()))
        return start.job.job_id

    async def configure(self, **values: str) -> None:
        """qconf -Mconf: the global configuration with these values changed."""
        shown = await self.ask(p.Qconf(argv=["-sconf"], user="root", host="head"))
        assert isinstance(shown, p.QconfReply) and shown.code == 0, shown
        lines = [line for line in shown.out[1:] if line and line.split()[0] not in values]
        text = "\n".join([*lines, *(f"{k} {v}" for k, v in values.items())]) + "\n"
        reply = await self.ask(p.Qconf(argv=["-Mconf", "/tmp/global"], user="root",
                                       host="head", files={"/tmp/global": text}))
        assert isinstance(reply, p.QconfReply) and reply.code == 0, reply

    async def unknown(self) -> list[str]:
        """The queue instances whose host is unknown ("u" in qstat -f)."""
        reply = await self.ask(p.SelectQueues(select=p.QueueSelect(states="u")))
        assert isinstance(reply, p.QueuesSelected)
        return reply.names

    async def task_state(self, job_id: int) -> str:
        reply = await self.ask(p.QueryJobs(ids=[str(job_id)]))
        assert isinstance(reply, p.JobsReply)
        [job] = reply.jobs
        return job.tasks[0].state

    async def ar_states(self) -> list[str]:
        reply = await self.ask(p.QueryArs(users=["*"]))
        assert isinstance(reply, p.ArsReply)
        return [ar.state for ar in reply.ars]


@asynccontextmanager
async def cell(base: Path, monkeypatch: pytest.MonkeyPatch, slots: int = 1,
               **limits: float) -> AsyncIterator[Cell]:
    """A cell of one host, HOST, whose master starts at trio's time 0."""
    assert trio.current_time() == 0.0
    threads_inline(monkeypatch)
    paths.common(base).mkdir(parents=True)
    (paths.common(base) / "bootstrap.json").write_bytes(msgspec.json.encode(
        CellConfig(hosts=[HOST], slots=slots, machine="head")))
    wall = virtual_wall()
    actor = MasterActor(base, f"inproc://master-timing-{next(_endpoints)}", 2.0, key=None,
                        accounting=InlineAccounting,
                        scheduling=partial(InlineScheduler, wall=wall), wall=wall, **limits)
    async with trio.open_nursery() as nursery:
        nursery.start_soon(actor.run)
        played = Cell(actor)
        try:
            with trio.fail_after(VIRTUAL_LIMIT):  # no real waits here: virtual time bounds
                yield played
        finally:
            played.close()  # before the actor ends its context
            actor.stopping.set()


async def test_a_host_unheard_for_max_unheard_goes_unknown_and_its_job_stays(
        tmp_path, monkeypatch, autojump_clock):
    """max_unheard is 300 s by default, the hosts checked every 5 s: the host last heard
    at 62.5 goes unknown at the first check after 362.5, that of 365. Its job runs on
    (reschedule_unknown is 0, never); one submitted meanwhile is not sent there. Once
    execd registers again with the job running, the job stays and the other starts."""
    async with cell(tmp_path, monkeypatch, slots=2) as c:
        await c.report(p.Register(host=HOST, load={}, load_report_time=10.0))
        job = await c.submit()
        assert await c.started() == job
        for when in (12.5, 22.5, 32.5, 42.5, 52.5, 62.5):
            await trio.sleep_until(when)
            await c.report(p.LoadReport(host=HOST, load={}, running=[(job, 0)]))
        await trio.sleep_until(364.5)
        assert await c.unknown() == []
        await trio.sleep_until(365.5)
        assert await c.unknown() == [INSTANCE]
        assert await c.task_state(job) == "r"
        other = await c.submit()
        await c.no_order(60.0)
        assert await c.task_state(job) == "r"
        await c.report(p.Register(host=HOST, load={}, running=[(job, 0)],
                                  load_report_time=10.0))
        at, start = await c.order()
        assert isinstance(start, p.StartTask) and (at, start.job.job_id) == (425.5, other)
        assert await c.unknown() == []
        assert await c.task_state(job) == "r"


async def test_a_short_max_unheard_set_with_qconf_is_checked_four_times_as_often(
        tmp_path, monkeypatch, autojump_clock):
    """max_unheard set to 10 s at 1 takes effect at the next check, that of 5; from then
    on the checks come every 2.5 s: the host last heard at 20 is unknown at 32.5."""
    async with cell(tmp_path, monkeypatch) as c:
        await c.report(p.Register(host=HOST, load={}, load_report_time=60.0))
        await trio.sleep_until(1.0)
        await c.configure(max_unheard="0:0:10")
        await trio.sleep_until(20.0)
        await c.report(p.LoadReport(host=HOST, load={}))
        await trio.sleep_until(32.4)
        assert await c.unknown() == []
        await trio.sleep_until(32.6)
        assert await c.unknown() == [INSTANCE]


async def test_a_rerunnable_job_is_rescheduled_and_killed_when_its_host_returns(
        tmp_path, monkeypatch, autojump_clock):
    """max_unheard 10 s and reschedule_unknown 20 s; the host last heard at 20: unknown
    at the check of 32.5, the job (-r y) rescheduled at the first check after 50, that
    of 50 (checks at 2.5 s steps from 5), its execd told to kill it then. It waits
    (Rq) until the host reports again with the old run still there at 70: that run is
    killed, and the job sent there again once the host reports it no longer runs, at 75
    (an execd runs one run of a task at a time)."""
    async with cell(tmp_path, monkeypatch) as c:
        await c.configure(max_unheard="0:0:10", reschedule_unknown="0:0:20")
        await c.report(p.Register(host=HOST, load={}, load_report_time=5.0))
        job = await c.submit(restart="y")
        assert await c.started() == job
        await trio.sleep_until(20.0)
        await c.report(p.LoadReport(host=HOST, load={}, running=[(job, 0)]))
        at, kill = await c.order()
        assert (at, kill) == (50.0, p.KillTask(job_id=job, task_id=0, reason="rescheduled"))
        assert await c.unknown() == [INSTANCE]
        await trio.sleep_until(60.0)
        assert await c.task_state(job) == "Rq"  # waiting, rerun
        await trio.sleep_until(70.0)
        await c.report(p.LoadReport(host=HOST, load={}, running=[(job, 0)]))
        assert await c.order() == (70.0, p.KillTask(job_id=job, task_id=0,
                                                    reason="not running here"))
        await c.no_order(5.0)  # not sent while the old run is there
        await c.report(p.LoadReport(host=HOST, load={}, running=[]))  # at 75, it is over
        at, start = await c.order()
        assert isinstance(start, p.StartTask) and start.job.job_id == job and at >= 75.0


async def test_an_advance_reservation_starts_and_ends_at_the_first_look_after_its_times(
        tmp_path, monkeypatch, autojump_clock):
    """Granted at 0 from 30.5 for 60 s: w until the look of 31, r until that of 91, then
    gone (it has no jobs to wait for)."""
    assert AR_CHECK == 1.0
    async with cell(tmp_path, monkeypatch) as c:
        await c.report(p.Register(host=HOST, load={}, load_report_time=40.0))
        reply = await c.ask(p.ArSubmit(spec=ArSpec(owner="root", start=c.wall() + 30.5,
                                                   duration=60.0)))
        assert isinstance(reply, p.Ok), reply
        for when, states in ((30.9, ["w"]), (31.1, ["r"]), (90.9, ["r"]), (91.1, [])):
            await trio.sleep_until(when)
            assert (when, await c.ar_states()) == (when, states)


async def test_a_start_unconfirmed_is_sent_again_10_s_after_the_dispatch(
        tmp_path, monkeypatch, autojump_clock):
    """With the first load report after 10 s, and at once when execd registers."""
    async with cell(tmp_path, monkeypatch) as c:
        await c.report(p.Register(host=HOST, load={}, load_report_time=4.0))
        job = await c.submit()
        at, start = await c.order()
        assert isinstance(start, p.StartTask) and (at, start.job.job_id) == (0.0, job)
        for when in (4.0, 8.0, 9.9):
            await trio.sleep_until(when)
            await c.report(p.LoadReport(host=HOST, load={}))
        await c.no_order(0.15)
        await c.report(p.LoadReport(host=HOST, load={}))  # at 10.05
        assert await c.order() == (10.05, start)
        await trio.sleep_until(12.0)
        await c.report(p.Register(host=HOST, load={}, load_report_time=4.0))
        assert await c.order() == (12.0, start)


async def test_a_connections_request_rate_is_counted_on_the_wall_clock(
        tmp_path, monkeypatch, autojump_clock):
    """A burst of 10 at once, then 5 a second of the wall clock."""
    async with cell(tmp_path, monkeypatch, request_rate=5, request_burst=10) as c:
        for _ in range(2):
            for rid in range(1, 31):
                await c.client.send([p.encode(p.Ping(rid=rid))])
            answers = [p.decode((await c.client.recv())[0]) for _ in range(30)]
            assert [a.rid for a in answers] == list(range(1, 31))
            assert [a.rid for a in answers if isinstance(a, p.Ok)] == list(range(1, 11))
            await trio.sleep(2.0)  # 10 more


async def test_an_advance_reservation_goes_into_error_at_the_first_tick_its_host_is_unknown(
        tmp_path, monkeypatch, autojump_clock):
    """The host, heard at 0 only, is unknown from the host check of 305 (max_unheard is
    300 s): the AR that started at 30.5 is E from the tick then (of the same time, or
    the next)."""
    async with cell(tmp_path, monkeypatch) as c:
        await c.report(p.Register(host=HOST, load={}, load_report_time=10.0))
        reply = await c.ask(p.ArSubmit(spec=ArSpec(owner="root", start=c.wall() + 30.5,
                                                   duration=600.0)))
        assert isinstance(reply, p.Ok), reply
        for when, states in ((304.5, ["r"]), (306.5, ["E"])):
            await trio.sleep_until(when)
            assert (when, await c.ar_states()) == (when, states)


async def test_a_jobs_start_time_is_reached_on_the_masters_wall_clock(
        tmp_path, monkeypatch, autojump_clock):
    """The scheduler plans for the master's now: a job submitted at 0 for 29.5 (-a)
    starts at the first cycle after, that of 30 (one every 2 s from 0)."""
    async with cell(tmp_path, monkeypatch) as c:
        await c.report(p.Register(host=HOST, load={}, load_report_time=10.0))
        reply = await c.ask(p.Submit(spec=JobSpec(
            name="sleep", owner="root", binary=True, command=["sleep", "1000"],
            start_time=c.wall() + 29.5)))
        assert isinstance(reply, p.Submitted)
        at, start = await c.order()
        assert isinstance(start, p.StartTask) and start.job.job_id == reply.job_id
        assert at == 30.0


async def test_a_watch_is_answered_once_a_change_is_spooled_else_at_the_next_host_check(
        tmp_path, monkeypatch, autojump_clock):
    """A watch held from 0.5 is not answered by the load report of 1 but by the submit
    of 2, at once; one held from 2.5, while nothing changes, at the host check of 5
    with the same version."""
    async with cell(tmp_path, monkeypatch) as c:
        await c.report(p.Register(host=HOST, load={}, load_report_time=60.0))
        await trio.sleep_until(0.5)
        version = (await c.ask(p.Watch(since=-1))).version
        await c.watcher.send([p.encode(p.Watch(since=version, rid=1))])
        await trio.sleep_until(1.0)
        await c.report(p.LoadReport(host=HOST, load={"load_avg": "0.5"}))
        await trio.sleep_until(2.0)
        job = await c.submit(hold=True)  # held: nothing starts meanwhile
        (frame,) = await c.watcher.recv()
        assert trio.current_time() == 2.0
        changed = p.decode(frame)
        assert changed.rid == 1 and changed.version > version
        await trio.sleep_until(2.5)
        version = (await c.ask(p.Watch(since=-1))).version
        await c.watcher.send([p.encode(p.Watch(since=version, rid=2))])
        (frame,) = await c.watcher.recv()
        assert (trio.current_time(), p.decode(frame)) == (5.0, p.Changed(version=version,
                                                                          rid=2))
        assert await c.task_state(job) == "hqw"

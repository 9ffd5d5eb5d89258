"""The execd actor's timing rules and its runner's, in virtual time (see virtual_time.py).

The test plays the master on a ROUTER socket the actor connects to over TCP, as a real
execd does. Connecting, messages on their way and the jobs' processes take real time:
trio's clock stands still while they do (pytest-trio's `mock_clock`) and the test moves
it itself, or lets it jump once only what the actor stamps its messages with (the wall
clock's usage times) depends on it. Load reports come every load_report_time, each
followed by every report the master has not acknowledged; a running task's online usage
grows with the clocks (its wallclock with the wall clock, its memory integral with
trio's, sampled every vmem_interval); a stopping execd waits for the jobs it killed
STOP_GRACE at most; h_rt and s_rt count from the job's start on the wall clock, so a
warning that fell due while no execd ran is not sent late.
"""

from __future__ import annotations

import contextlib
import getpass
import os
import signal
import socket
import threading
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path

import msgspec
import pytest
import trio
import zmq
from trio.testing import MockClock

from gridd import paths
from gridd import protocol as p
from gridd.actors import execd
from gridd.actors.clock import Wall
from gridd.actors.execd import ExecdActor
from gridd.execd.runner import (
    FAILED_AFTER_JOB,
    FAILED_LIMIT,
    REPORT,
    STARTED,
    JobStarted,
    TaskRunner,
    load_pending_reports,
    task_dir,
)
from gridd.model.job import Job, JobSpec, Task
from gridd.transport import TrioSocket
from tests.actors.virtual_time import (
    autojumping,
    real_move_on_after,
    real_time_limit,
    until,
    virtual_wall,
)

HOST = "node1"
REAL_LIMIT = 60.0  # real seconds a test may take
QUIET = 0.3  # real seconds in which a message on its way would have come
EPSILON = 2.0 ** -6  # a jump of trio's clock short of a time, exact in binary
_GIB = float(1 << 30)


class PlayedMaster:
    """The master's end of an execd's connection, and trio's clock, which stands still
    but for the test's jumps."""

    def __init__(self, ctx: zmq.Context, sock: TrioSocket, clock: MockClock) -> None:
        self.ctx = ctx
        self.sock = sock
        self.clock = clock
        self.execd = b""  # the connection's routing id

    async def receive(self) -> tuple[float, p.Msg]:
        """The execd's next message, with when (trio's clock) it came."""
        self.execd, frame = await self.sock.recv()
        return trio.current_time(), p.decode(frame)

    async def send(self, msg: p.Msg) -> None:
        await self.sock.send([self.execd, p.encode(msg)])

    async def registered(self) -> p.Register:
        """The execd's Register; what it sent before is passed over."""
        while not isinstance(msg := (await self.receive())[1], p.Register):
            pass
        return msg

    async def quiet_until(self, when: float) -> None:
        """Move trio's clock to `when`: nothing comes before."""
        self.clock.jump(when - EPSILON - trio.current_time())
        with real_move_on_after(QUIET):
            _, msg = await self.receive()
            pytest.fail(f"execd sent {msg!r} before {when}")
        self.clock.jump(EPSILON)

    async def load_reports(self, n: int) -> list[p.LoadReport]:
        """The next `n` load reports; what comes between them is passed over."""
        reports: list[p.LoadReport] = []
        while len(reports) < n:
            if isinstance(msg := (await self.receive())[1], p.LoadReport):
                reports.append(msg)
        return reports


@asynccontextmanager
async def execd_actor(base: Path, load_report_time: float, clock: MockClock,
                      wall: Wall) -> AsyncIterator[PlayedMaster]:
    """The actor, started at trio's time 0, and its master."""
    assert trio.current_time() == 0.0 and clock.autojump_threshold == float("inf")
    ctx = zmq.Context()
    sock = TrioSocket.create(ctx, zmq.ROUTER, SNDHWM=0, RCVHWM=0)
    endpoint = sock.bind("tcp://127.0.0.1:*")
    actor = ExecdActor(base, HOST, endpoint, load_report_time, None, wall=wall)
    master = PlayedMaster(ctx, sock, clock)
    try:
        with jobs_killed(base):
            async with trio.open_nursery() as nursery:
                nursery.start_soon(actor.run)
                with real_time_limit(REAL_LIMIT):
                    yield master
                nursery.cancel_scope.cancel()
    finally:
        master.sock.close()
        ctx.destroy(linger=0)


@contextmanager
def jobs_killed(base: Path) -> Iterator[None]:
    """Kill what the jobs started here left running (they outlive execd)."""
    try:
        yield
    finally:
        for started in base.glob(f"**/active_jobs/*/{STARTED}"):
            job = msgspec.json.decode(started.read_bytes(), type=JobStarted)
            try:
                os.killpg(job.job_pid, signal.SIGKILL)
            except ProcessLookupError:
                pass


def left_report(base: Path, job_id: int) -> p.TaskReport:
    """A report an earlier execd left unacknowledged in the spool."""
    report = p.TaskReport(job_id=job_id, task_id=0, host=HOST, start_time=1.0e9,
                          end_time=1.0e9 + 60, exit_status=0)
    directory = task_dir(paths.execd_spool(HOST, base), job_id, 0)
    directory.mkdir(parents=True)
    (directory / REPORT).write_bytes(msgspec.json.encode(report))
    return report


def start_of(base: Path, job_id: int, text: str, **limits: float) -> p.StartTask:
    """A task of a script job, run as this user in `base`/work."""
    for name in ("work", "home"):
        (base / name).mkdir(exist_ok=True)
    spec = JobSpec(name="job", owner=getpass.getuser(), o_home=str(base / "home"),
                   cwd=str(base / "work"), script=text, script_name="job.sh")
    job = Job(job_id=job_id, spec=spec, submit_time=0.0, tasks={0: Task(0)})
    return p.StartTask(job=job, task_id=0, queue=f"all.q@{HOST}",
                       granted=[(f"all.q@{HOST}", 1)], tmpdir=str(base / "tmp"), **limits)


async def test_load_reports_come_every_load_report_time_each_with_the_reports_unacknowledged(
        tmp_path, mock_clock):
    left = left_report(tmp_path, 5)
    async with execd_actor(tmp_path, 10.0, mock_clock, virtual_wall()) as master:
        register = await master.registered()
        assert register.finished == [left] and register.load_report_time == 10.0
        for when in (10.0, 20.0, 30.0):
            await master.quiet_until(when)
            at, report = await master.receive()
            assert (at, type(report)) == (when, p.LoadReport)
            assert (await master.receive())[1] == p.TaskFinished(report=left)
        await master.send(p.Ack(job_id=5, task_id=0))
        await until(lambda: not load_pending_reports(paths.execd_spool(HOST, tmp_path)))
        for when in (40.0, 50.0):
            await master.quiet_until(when)
            at, report = await master.receive()
            assert (at, type(report)) == (when, p.LoadReport)
        await master.quiet_until(60.0)  # nothing after them: the report was acknowledged


def bound(sock: TrioSocket, endpoint: str) -> bool:
    try:
        sock.bind(endpoint)
    except zmq.ZMQError as exc:
        if exc.errno != zmq.EADDRINUSE:
            raise
        return False
    return True


async def test_a_master_that_comes_back_hears_register_again(tmp_path, mock_clock):
    """ZeroMQ reconnects (in real time) and execd registers anew, with what the master
    has not acknowledged."""
    left = left_report(tmp_path, 5)
    async with execd_actor(tmp_path, 10.0, mock_clock, virtual_wall()) as master:
        await master.registered()
        endpoint = master.sock.zsock.getsockopt_string(zmq.LAST_ENDPOINT)
        master.sock.close()  # the master goes away
        master.sock = TrioSocket.create(master.ctx, zmq.ROUTER, SNDHWM=0, RCVHWM=0)
        await until(lambda: bound(master.sock, endpoint))  # once the old one let go
        register = await master.registered()
        assert register.finished == [left] and register.running == []


def sleeping(base: Path, job_id: int) -> bool:
    """Whether the job's process is sleep(1), at rest: its memory is what it stays."""
    started = task_dir(paths.execd_spool(HOST, base), job_id, 0) / STARTED
    if not started.exists():
        return False
    pid = msgspec.json.decode(started.read_bytes(), type=JobStarted).job_pid
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.startswith(f"{pid} (sleep) S ")


async def test_a_running_tasks_usage_grows_with_the_clocks(tmp_path, mock_clock):
    """Its wallclock is the wall clock's since the job's start; its memory integral
    adds the vmem sampled every second of trio's clock."""
    async with execd_actor(tmp_path, 10.0, mock_clock, virtual_wall()) as master:
        await master.registered()
        await master.send(start_of(tmp_path, 7, "exec sleep 1000\n"))
        while not isinstance(started := (await master.receive())[1], p.TaskStarted):
            pass
        assert started.job_id == 7
        await until(lambda: sleeping(tmp_path, 7))
        with autojumping(mock_clock):  # the reports' usage is stamped when it is taken
            reports = await master.load_reports(3)
        usages = [report.usage for report in reports]
        assert all([(job, task) for job, task, _ in usage] == [(7, 0)] for usage in usages)
        usage = [u for [(*_, u)] in usages]
        assert [u.wallclock - usage[0].wallclock for u in usage] == pytest.approx(
            [0.0, 10.0, 20.0])
        vmem = usage[-1].vmem
        assert vmem > 0 and all(u.vmem == vmem for u in usage)
        for earlier, later in zip(usage, usage[1:], strict=False):
            # ten samples between two reports; one more or less where their times meet
            assert later.mem - earlier.mem == pytest.approx(vmem / _GIB * 10, rel=0.11)
        await master.send(p.KillTask(job_id=7, task_id=0))
        while not isinstance(finished := (await master.receive())[1], p.TaskFinished):
            pass
        assert (finished.report.failed, finished.report.exit_status) == (FAILED_AFTER_JOB,
                                                                         137)


async def test_a_stopping_execd_waits_for_its_jobs_stop_grace_at_most(
        tmp_path, autojump_clock):
    """Until the tasks it killed are over (reported), polling every 0.05 s."""
    actor = ExecdActor(tmp_path, HOST, "tcp://127.0.0.1:1", 10.0, None,
                       wall=virtual_wall())
    try:
        actor.active = {(3, 0, "")}  # a task whose end never comes
        await actor.stop()
        assert trio.current_time() == pytest.approx(execd.STOP_GRACE)

        async def over_at(when: float) -> None:
            await trio.sleep_until(when)
            actor.active.clear()

        actor.active = {(4, 0, "")}
        async with trio.open_nursery() as nursery:
            nursery.start_soon(over_at, execd.STOP_GRACE + 1.02)
            await actor.stop()
        assert trio.current_time() == pytest.approx(execd.STOP_GRACE + 1.05)
    finally:
        actor.ctx.term()


# ---- the runner's limits, across a restart of execd --------------------------------


async def abandon(runner: TaskRunner, start: p.StartTask) -> float:
    """Start a task, then drop it once its job runs, as an execd that dies does; the
    job's start time (the wall clock's, from its shepherd)."""
    started: list[float] = []
    with trio.CancelScope() as scope:
        async def on_started(when: float) -> None:
            started.append(when)
            scope.cancel()

        await runner.run_task(start, on_started)
    return started[0]


async def taken_over(base: Path, start: p.StartTask, restarted_after: float) -> tuple[
        float, Wall, p.TaskReport]:
    """Run a task, drop it once its job runs and take it over with an execd that comes
    back `restarted_after` seconds after the job's start, by the wall clock, which
    moves on with trio's. The job's start, that wall clock, and the task's report.

    The job's script says it is ready (its traps set) in a file `ready`, which is
    waited for before the clock moves on."""
    spool = base / "spool"
    began = await abandon(TaskRunner(HOST, spool, "/opt/gridd"), start)
    await until((base / "work" / "ready").exists)
    wall = virtual_wall()
    shift = began + restarted_after - wall()

    def later() -> float:
        return wall() + shift

    restarted = TaskRunner(HOST, spool, "/opt/gridd", vmem_interval=60.0, wall=later)
    [state] = restarted.recover()
    return began, later, await restarted.resume(state)


async def test_s_rt_warns_a_job_taken_over_at_its_start_plus_s_rt(tmp_path, autojump_clock):
    start = start_of(tmp_path, 9, "trap 'echo warned; exit 5' USR1\n"
                     "echo > ready\nwhile true; do sleep 0.02; done\n", s_rt=60.0)
    with jobs_killed(tmp_path), real_time_limit(REAL_LIMIT):
        began, wall, report = await taken_over(tmp_path, start, restarted_after=30.0)
    assert (report.exit_status, report.failed) == (5, 0)
    assert (tmp_path / "work" / "job.o9").read_text() == "warned\n"
    assert wall() >= began + 60.0


async def test_a_warning_due_while_no_execd_ran_is_not_sent_late(tmp_path, autojump_clock):
    """Taken over two minutes after its start, a job with s_rt 60 s is not warned; its
    h_rt of an hour still kills it at its start + h_rt, never earlier."""
    start = start_of(tmp_path, 9, "trap 'echo warned; exit 5' USR1\n"
                     "echo > ready\nwhile true; do sleep 0.02; done\n", s_rt=60.0, h_rt=3600.0)
    with jobs_killed(tmp_path), real_time_limit(REAL_LIMIT):
        began, wall, report = await taken_over(tmp_path, start, restarted_after=120.0)
    assert (report.failed, report.exit_status) == (FAILED_LIMIT, 137)
    assert (tmp_path / "work" / "job.o9").read_text() == ""
    assert wall() >= began + 3600.0


async def test_an_execd_that_cannot_reach_its_master_says_so_and_again_less_often(
        tmp_path, mock_clock, capsys, caplog):
    """unreached_after seconds without a connection, from the start or from its loss, it
    says so in its log and on stderr, naming the endpoint; then after twice as long each
    time; not while connected."""
    with socket.socket() as s:  # a port nobody listens on, for now
        s.bind(("127.0.0.1", 0))
        endpoint = f"tcp://127.0.0.1:{s.getsockname()[1]}"
    actor = ExecdActor(tmp_path, HOST, endpoint, 1000.0, None, wall=virtual_wall(),
                       unreached_after=8.0)
    said = f"gridd execd {HOST}: cannot reach the master at {endpoint} (for "

    def told() -> list[str]:
        """What execd said since the last call on stderr; its log says the same."""
        err = [ln.removeprefix(said) for ln in capsys.readouterr().err.splitlines()]
        logged = [r.getMessage() for r in caplog.records if "cannot reach" in r.getMessage()]
        caplog.clear()
        assert logged == [f"cannot reach the master at {endpoint} (for {e}" for e in err]
        return err

    ctx = zmq.Context()
    try:
        async with trio.open_nursery() as nursery:
            nursery.start_soon(actor.run)
            with real_time_limit(REAL_LIMIT), autojumping(mock_clock):
                await trio.sleep(7.9)
                assert told() == []
                await trio.sleep(0.2)
                assert told() == ["8 s): retrying"]
                await trio.sleep(23.9 - 8.1)
                assert told() == []
                await trio.sleep(0.2)
                assert told() == ["24 s): retrying"]
                await trio.sleep(32.0)
                assert told() == ["56 s): retrying"]
            master = TrioSocket.create(ctx, zmq.ROUTER, SNDHWM=0, RCVHWM=0)
            master.bind(endpoint)
            with real_time_limit(REAL_LIMIT):
                await until(lambda: actor.connected)
            with real_time_limit(REAL_LIMIT), autojumping(mock_clock):
                await trio.sleep(100.0)
                assert told() == []  # connected: nothing to say
                master.close()
            with real_time_limit(REAL_LIMIT):
                await until(lambda: not actor.connected)
            with real_time_limit(REAL_LIMIT), autojumping(mock_clock):
                lost = trio.current_time()
                await trio.sleep(8.1)
                assert told() == ["8 s): retrying"]
                assert trio.current_time() - lost < 10
            nursery.cancel_scope.cancel()
    finally:
        ctx.destroy(linger=0)


class CutLink:
    """A TCP relay between execd and its master whose link can be cut: what crosses the
    cut connection from then on is swallowed, no FIN or RST, as when a machine is gone;
    connections made afterwards get through."""

    def __init__(self, target: str) -> None:
        host, _, port = target.removeprefix("tcp://").rpartition(":")
        self.target = (host, int(port))
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.endpoint = f"tcp://127.0.0.1:{self.listener.getsockname()[1]}"
        self.cut_ones: set[int] = set()
        self.made = 0
        self.sockets: list[socket.socket] = []
        threading.Thread(target=self._accept, daemon=True).start()

    def cut(self) -> None:
        self.cut_ones.add(self.made)

    def close(self) -> None:
        for sock in [self.listener, *self.sockets]:
            sock.close()

    def _accept(self) -> None:
        with contextlib.suppress(OSError):
            while True:
                near, _ = self.listener.accept()
                far = socket.create_connection(self.target)
                self.made += 1
                self.sockets += [near, far]
                for a, b in ((near, far), (far, near)):
                    threading.Thread(target=self._pump, args=(a, b, self.made),
                                     daemon=True).start()

    def _pump(self, source: socket.socket, sink: socket.socket, number: int) -> None:
        with contextlib.suppress(OSError):
            while data := source.recv(65536):
                if number not in self.cut_ones:
                    sink.sendall(data)


async def test_a_connection_gone_silent_is_dropped_and_made_again(tmp_path, mock_clock):
    """Heartbeats find a master gone without a word (its link cut): execd drops the
    connection, makes a new one and registers again. The heartbeats are ZeroMQ's, in real
    time: here a ping every 0.1 s, the connection dropped 0.3 s after one unanswered
    (CONNECTION's 10 s and 30 s measured 40.0 s from the cut to the new Register)."""
    ctx = zmq.Context()
    sock = TrioSocket.create(ctx, zmq.ROUTER, SNDHWM=0, RCVHWM=0)
    link = CutLink(sock.bind("tcp://127.0.0.1:*"))
    master = PlayedMaster(ctx, sock, mock_clock)
    actor = ExecdActor(tmp_path, HOST, link.endpoint, 1000.0, None, wall=virtual_wall(),
                       connection={**execd.CONNECTION, "HEARTBEAT_IVL": 100,
                                   "HEARTBEAT_TIMEOUT": 300})
    try:
        async with trio.open_nursery() as nursery:
            nursery.start_soon(actor.run)
            with real_time_limit(REAL_LIMIT):
                await master.registered()
                link.cut()
                await until(lambda: not actor.connected)
                await master.registered()
                assert link.made == 2
            nursery.cancel_scope.cancel()
    finally:
        link.close()
        ctx.destroy(linger=0)

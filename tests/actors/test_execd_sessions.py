"""Interactive tasks and PE tasks at execd: the session socket with a client made from
gridd.zmtp.Dealer (qrsh's part), real shepherds on pipes and on a pseudo-terminal, and
the rules of attaching and of a qrsh lost, in virtual time where they allow it."""

from __future__ import annotations

import getpass
import os
import pwd
import signal
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import TypeVar

import msgspec
import pytest
import trio
import zmq
from nacl.public import PrivateKey

from gridd import protocol as p
from gridd import session as s
from gridd.actors.clock import SYSTEM
from gridd.actors.execd import ExecdActor
from gridd.execd.runner import (
    FAILED_AFTER_JOB,
    STARTED,
    TaskRunner,
    forget,
    load_pending_reports,
    task_dir,
)
from gridd.execd.sessions import SessionSocket
from gridd.execd.streams import TaskStreams, open_streams
from gridd.model.job import Job, JobSpec, Task
from gridd.transport import TrioSocket
from gridd.zmtp import Curve, Dealer, ZmtpError

_M = TypeVar("_M", bound=p.Msg)
HOST = "localhost"  # the session endpoint names this host: it must resolve
LIMIT = 30.0  # real seconds a test may wait for what it expects


def key_pair() -> tuple[bytes, bytes]:
    secret = PrivateKey.generate()
    return bytes(secret.public_key), bytes(secret)


def start_task(work: Path, *argv: str, job_id: int = 17, pe_task: str = "",
               **fields: object) -> p.StartTask:
    """A StartTask of a -b y -shell n job (its words its argument vector)."""
    spec = JobSpec(name="job", owner=getpass.getuser(), cwd=str(work), binary=True,
                   noshell=True, command=list(argv), interactive="qrsh")
    job = Job(job_id=job_id, spec=spec, submit_time=0.0, tasks={0: Task(0)})
    start = p.StartTask(job=job, task_id=0, queue=f"all.q@{HOST}",
                        granted=[(f"all.q@{HOST}", 1)], tmpdir=str(work / "tmp"),
                        pe_task=pe_task)
    return msgspec.structs.replace(start, **fields)


class Conversation(msgspec.Struct):
    out: bytes = b""
    err: bytes = b""
    exit: s.Exit | None = None


def converse(endpoint: str, key: tuple[bytes, bytes], server: bytes | None,
             said: list[s.FromClient]) -> Conversation:
    """qrsh's part, blocking (run in a thread): connect, say `said`, gather the output
    until Exit."""
    curve = Curve(server, *key) if server is not None else None
    dealer = Dealer(endpoint, LIMIT, curve, identity=key[0])
    try:
        for msg in said:
            dealer.send([s.encode(msg)])
        dealer.settimeout(LIMIT)
        got = Conversation()
        while got.exit is None:
            [frame] = dealer.recv()
            match s.from_execd(frame):
                case s.Output(fd=1, data=data):
                    got.out += data
                case s.Output(fd=2, data=data):
                    got.err += data
                case s.Exit() as ended:
                    got.exit = ended
        return got
    finally:
        dealer.close()


@asynccontextmanager
async def session_socket(
    tmp_path: Path, kill: Callable[[tuple[int, int, str]], None],
    signal_task: Callable[[tuple[int, int, str], int], None] = lambda key, signum: None,
    secure: bool = True, **times: float,
) -> AsyncIterator[tuple[SessionSocket, bytes | None]]:
    """A serving session socket over ipc, a CURVE server unless `secure` is False; with
    the host's public key."""
    ctx = zmq.Context()
    host_public, host_secret = key_pair()
    curve = Curve(b"", host_public, host_secret) if secure else None
    sessions = SessionSocket(ctx, curve, kill=kill, signal=signal_task, **times)
    sessions.bind("ipc://master", HOST, tmp_path)
    try:
        async with trio.open_nursery() as nursery:
            await nursery.start(sessions.serve)
            yield sessions, host_public if secure else None
            nursery.cancel_scope.cancel()
    finally:
        ctx.destroy(linger=0)


async def run_interactive(runner: TaskRunner, sessions: SessionSocket, start: p.StartTask,
                          key: bytes, streams: TaskStreams) -> p.TaskReport:
    """What the execd actor does with an interactive task."""
    session = sessions.open(key, (start.job.job_id, start.task_id, start.pe_task), streams)
    report = await runner.run_task(start, None, streams)
    sessions.task_ended(session, report)
    return report


async def until(condition: Callable[[], bool]) -> None:
    with trio.fail_after(LIMIT):
        while not condition():
            await trio.sleep(0.02)


@pytest.fixture
def runner(tmp_path: Path) -> TaskRunner:
    return TaskRunner(HOST, tmp_path / "spool", str(tmp_path), vmem_interval=0.05)


# ---- a real task's streams ----------------------------------------------------------


async def test_a_task_on_pipes_gets_its_input_and_sends_output_and_exit(
        tmp_path: Path, runner: TaskRunner) -> None:
    key = key_pair()
    start = start_task(tmp_path, "sh", "-c",
                       'test -t 0 || read x; echo "out:$x"; echo err >&2; exit 3',
                       session_key=key[0])
    async with session_socket(tmp_path, kill=lambda k: runner.kill(*k)) as (sessions, server):
        async with trio.open_nursery() as nursery:
            reports: list[p.TaskReport] = []

            async def run() -> None:
                streams = open_streams(pty=False, nostdin=False)
                reports.append(await run_interactive(runner, sessions, start, key[0], streams))

            nursery.start_soon(run)
            got = await trio.to_thread.run_sync(
                converse, sessions.endpoint, key, server,
                [s.Alive(), s.Input(b"hi\n"), s.InputEnd()])
    assert (got.out, got.err) == (b"out:hi\n", b"err\n")
    assert got.exit == s.Exit(status=3)
    assert reports[0].exit_status == 3
    assert key[0] not in sessions.sessions  # closed: the key is let in no more


async def test_a_task_on_a_pseudo_terminal_sees_a_terminal_of_qrsh_s_size(
        tmp_path: Path, runner: TaskRunner) -> None:
    key = key_pair()
    start = start_task(tmp_path, "sh", "-c",
                       'read x; test -t 0 && test -t 1 && echo tty; stty size; echo "got:$x"; '
                       "exit 5", session_key=key[0], pty=True)
    async with session_socket(tmp_path, kill=lambda k: runner.kill(*k)) as (sessions, server):
        async with trio.open_nursery() as nursery:

            async def run() -> None:
                streams = open_streams(pty=True, nostdin=False)
                await run_interactive(runner, sessions, start, key[0], streams)

            nursery.start_soon(run)
            got = await trio.to_thread.run_sync(
                converse, sessions.endpoint, key, server,
                [s.Alive(), s.Window(rows=30, cols=100), s.Input(b"yo\r")])
    text = got.out.replace(b"\r\n", b"\n")
    assert b"yo\n" in text  # the terminal echoes
    assert b"tty\n30 100\ngot:yo\n" in text
    assert got.err == b""
    assert got.exit == s.Exit(status=5)


async def test_qlogin_runs_the_owner_s_login_shell_on_a_terminal(
        tmp_path: Path, runner: TaskRunner) -> None:
    key = key_pair()
    start = start_task(tmp_path, session_key=key[0], pty=True)
    start.job.spec.interactive = "qlogin"
    shell = pwd.getpwnam(getpass.getuser()).pw_shell
    async with session_socket(tmp_path, kill=lambda k: runner.kill(*k)) as (sessions, server):
        async with trio.open_nursery() as nursery:
            streams = open_streams(pty=True, nostdin=False)
            nursery.start_soon(run_interactive, runner, sessions, start, key[0], streams)
            got = await trio.to_thread.run_sync(
                converse, sessions.endpoint, key, server,
                [s.Alive(), s.Input(b'echo "login:$0"; exit 7\r')])
    assert f"login:{shell}".encode() in got.out
    assert got.exit == s.Exit(status=7)


async def test_a_signal_from_qrsh_reaches_the_task_and_nonsense_is_passed_over(
        tmp_path: Path, runner: TaskRunner) -> None:
    key = key_pair()
    start = start_task(tmp_path, "sh", "-c", "echo up; exec sleep 100", session_key=key[0])
    async with session_socket(tmp_path, kill=lambda k: runner.kill(*k),
                              signal_task=runner.signal) as (sessions, server):
        async with trio.open_nursery() as nursery:
            streams = open_streams(pty=False, nostdin=True)
            nursery.start_soon(run_interactive, runner, sessions, start, key[0], streams)
            await until(lambda: (task_dir(runner.spool_dir, 17, 0) / STARTED).exists())
            got = await trio.to_thread.run_sync(
                converse, sessions.endpoint, key, server,
                [s.Alive(), s.Signal(0), s.Signal(1 << 40), s.Signal(-9),
                 s.Window(rows=-1, cols=1 << 40), s.Signal(int(signal.SIGTERM))])
    assert got.out == b"up\n"
    assert got.exit == s.Exit(status=128 + signal.SIGTERM, signal="SIGTERM")


async def test_a_task_that_cannot_start_says_why(tmp_path: Path, runner: TaskRunner) -> None:
    key = key_pair()
    start = start_task(tmp_path, "true", session_key=key[0])
    spec = msgspec.structs.replace(start.job.spec, cwd=str(tmp_path / "nowhere"))
    start = msgspec.structs.replace(start, job=msgspec.structs.replace(start.job, spec=spec))
    async with session_socket(tmp_path, kill=lambda k: runner.kill(*k)) as (sessions, server):
        async with trio.open_nursery() as nursery:
            streams = open_streams(pty=False, nostdin=False)
            nursery.start_soon(run_interactive, runner, sessions, start, key[0], streams)
            got = await trio.to_thread.run_sync(
                converse, sessions.endpoint, key, server, [s.Alive()])
    assert got.exit is not None and got.exit.status == 1
    assert "can't chdir to" in got.exit.error


# ---- who may connect ------------------------------------------------------------------


async def test_only_the_key_of_a_session_held_here_gets_in(
        tmp_path: Path) -> None:
    held, other = key_pair(), key_pair()
    async with session_socket(tmp_path, kill=lambda k: None) as (sessions, server):
        assert server is not None
        sessions.open(held[0], (1, 0, ""), open_streams(pty=False, nostdin=False))

        def refused(key: tuple[bytes, bytes], identity: bytes) -> str:
            with pytest.raises(ZmtpError) as caught:
                Dealer(sessions.endpoint, 5.0, Curve(server, *key), identity=identity)
            return str(caught.value)

        assert "not authorized" in await trio.to_thread.run_sync(refused, other, other[0])
        # The key is what counts, not the Identity a connection presents.
        assert "not authorized" in await trio.to_thread.run_sync(refused, other, held[0])
        dealer = await trio.to_thread.run_sync(
            lambda: Dealer(sessions.endpoint, 5.0, Curve(server, *held), identity=held[0]))
        dealer.close()


# ---- attaching and losing qrsh -----------------------------------------------------------


async def test_a_task_nobody_attaches_to_is_killed_after_attach_within(
        tmp_path: Path, autojump_clock: trio.testing.MockClock) -> None:
    killed: list[tuple[float, tuple[int, int, str]]] = []
    async with session_socket(tmp_path, kill=lambda k: killed.append((trio.current_time(), k)),
                              secure=False) as (sessions, _):
        opened = trio.current_time()
        sessions.open(b"k" * 32, (3, 0, ""), open_streams(pty=False, nostdin=False))
        await trio.sleep(s.ATTACH_WITHIN + 1)
        assert killed == [(opened + s.ATTACH_WITHIN, (3, 0, ""))]
        assert sessions.sessions == {}


async def test_an_attached_qrsh_silent_for_lost_after_is_lost(
        tmp_path: Path, autojump_clock: trio.testing.MockClock) -> None:
    """In virtual time, with qrsh's attaching played (its connection is real below)."""
    killed: list[tuple[float, tuple[int, int, str]]] = []
    async with session_socket(tmp_path, kill=lambda k: killed.append((trio.current_time(), k)),
                              secure=False, alive_every=1000.0) as (sessions, _):
        session = sessions.open(b"k" * 32, (3, 0, ""), open_streams(pty=False, nostdin=False))
        await trio.sleep(7.0)
        session.heard = trio.current_time()  # its first message
        session.attached.set()
        await trio.sleep(s.LOST_AFTER + 1)
        assert killed == [(7.0 + s.LOST_AFTER, (3, 0, ""))]
        assert sessions.sessions == {}


async def test_a_silent_qrsh_is_lost_and_its_task_killed(tmp_path: Path) -> None:
    key = key_pair()
    killed: list[tuple[int, int, str]] = []
    async with session_socket(tmp_path, kill=killed.append, lost_after=0.5,
                              alive_every=0.1) as (sessions, server):
        assert server is not None
        sessions.open(key[0], (4, 0, "1.localhost"), open_streams(pty=False, nostdin=True))
        dealer = await trio.to_thread.run_sync(
            lambda: Dealer(sessions.endpoint, 5.0, Curve(server, *key), identity=key[0]))
        try:
            dealer.send([s.encode(s.Alive())])
            dealer.settimeout(LIMIT)
            said = await trio.to_thread.run_sync(dealer.recv)  # execd's own Alive
            assert s.from_execd(said[0]) == s.Alive()
            await until(lambda: bool(killed))
        finally:
            dealer.close()
    assert killed == [(4, 0, "1.localhost")]


async def test_a_qrsh_that_disconnects_is_lost_at_execd_s_next_alive(tmp_path: Path) -> None:
    key = key_pair()
    killed: list[tuple[int, int, str]] = []
    async with session_socket(tmp_path, kill=killed.append,
                              alive_every=0.1) as (sessions, server):
        assert server is not None
        sessions.open(key[0], (5, 0, ""), open_streams(pty=False, nostdin=False))

        def attach_and_go() -> None:
            dealer = Dealer(sessions.endpoint, 5.0, Curve(server, *key), identity=key[0])
            dealer.send([s.encode(s.Alive())])
            dealer.close()

        await trio.to_thread.run_sync(attach_and_go)
        await until(lambda: bool(killed))
        assert key[0] not in sessions.sessions
    assert killed == [(5, 0, "")]


# ---- PE tasks and restarts ------------------------------------------------------------------


async def test_a_pe_task_runs_its_command_with_qrsh_s_environment_where_qrsh_ran(
        tmp_path: Path, runner: TaskRunner) -> None:
    (tmp_path / "there").mkdir()
    start = start_task(tmp_path, "ignored", pe_task="1.localhost",
                       command=['echo "$X $PWD $SGE_TASK_ID";', "test -t 0 || cat"],
                       env={"X": "from-V", "JOB_ID": "999"}, cwd=str(tmp_path / "there"),
                       nostdin=True)
    streams = open_streams(pty=False, nostdin=True)
    report = await runner.run_task(start, None, streams)
    out = await streams.read(1, 4096)
    streams.close()
    assert out == f"from-V {tmp_path / 'there'} undefined\n".encode()
    assert (report.pe_task, report.exit_status, report.failed) == ("1.localhost", 0, 0)
    directory = task_dir(runner.spool_dir, 17, 0, "1.localhost")
    assert directory.name == "17.1.1.localhost"
    assert load_pending_reports(runner.spool_dir) == [report]
    forget(runner.spool_dir, 17, 0, "1.localhost")
    assert not directory.exists()


async def test_a_pe_task_s_words_are_shell_text_as_open_mpi_needs(
        tmp_path: Path, runner: TaskRunner) -> None:
    """As 8.1.9 runs them (measured): a leading blank, quoting and variables."""
    start = start_task(tmp_path, "x", pe_task="2.localhost",
                       command=[" echo", '"a;b"', "$JOB_ID", ";", "echo", "x"], nostdin=True)
    streams = open_streams(pty=False, nostdin=True)
    report = await runner.run_task(start, None, streams)
    out = await streams.read(1, 4096)
    streams.close()
    assert (out, report.exit_status) == (b"a;b 17\nx\n", 0)


async def test_a_job_s_tasks_here_share_its_tmpdir_which_the_last_removes(
        tmp_path: Path, runner: TaskRunner) -> None:
    tmpdir = tmp_path / "tmp" / "17.1.all.q"
    async with trio.open_nursery() as nursery:
        nursery.start_soon(runner.run_task, start_task(tmp_path, "sleep", "100"))
        await until(lambda: (task_dir(runner.spool_dir, 17, 0) / STARTED).exists())
        pe = start_task(tmp_path, "x", pe_task="1.localhost", nostdin=True,
                        command=['echo "$TMPDIR"; touch "$TMPDIR/left"'])
        streams = open_streams(pty=False, nostdin=True)
        report = await runner.run_task(pe, None, streams)
        out = await streams.read(1, 4096)
        streams.close()
        assert (out, report.exit_status) == (f"{tmpdir}\n".encode(), 0)
        assert (tmpdir / "left").exists()  # the job's task still uses it
        runner.kill(17, 0)
    assert not tmpdir.exists()


async def test_a_kill_without_pe_task_kills_the_task_and_its_pe_tasks(
        tmp_path: Path, runner: TaskRunner) -> None:
    job = start_task(tmp_path, "sleep", "100")
    pe = [start_task(tmp_path, "x", pe_task=f"{n}.localhost", command=["sleep", "100"])
          for n in (1, 2)]
    reports: dict[str, p.TaskReport] = {}

    async def run(start: p.StartTask) -> None:
        reports[start.pe_task] = await runner.run_task(start)

    async with trio.open_nursery() as nursery:
        for start in (job, *pe):
            nursery.start_soon(run, start)
        await until(lambda: all((task_dir(runner.spool_dir, 17, 0, x) / STARTED).exists()
                                for x in ("", "1.localhost", "2.localhost")))
        assert runner.kill(17, 0, "1.localhost")
        await until(lambda: "1.localhost" in reports)
        assert sorted(runner.running()) == [(17, 0, ""), (17, 0, "2.localhost")]
        assert runner.kill(17, 0)
    assert {x: (r.failed, r.signal) for x, r in reports.items()} == {
        x: (FAILED_AFTER_JOB, "SIGKILL") for x in ("", "1.localhost", "2.localhost")}


async def test_a_restarted_execd_kills_the_interactive_tasks_it_takes_over(
        tmp_path: Path, runner: TaskRunner) -> None:
    start = start_task(tmp_path, "sleep", "100", session_key=b"k" * 32)
    streams = open_streams(pty=False, nostdin=False)
    with trio.move_on_after(LIMIT) as scope:
        async def abandon_once_running() -> None:
            await runner.run_task(start, None, streams)

        async with trio.open_nursery() as nursery:
            nursery.start_soon(abandon_once_running)
            await until(lambda: (task_dir(runner.spool_dir, 17, 0) / STARTED).exists())
            nursery.cancel_scope.cancel()  # execd dies: the job and its shepherd go on
    assert not scope.cancelled_caught
    streams.close()
    restarted = TaskRunner(HOST, runner.spool_dir, str(tmp_path), vmem_interval=0.05)
    [state] = restarted.recover()
    assert state.interactive
    report = await restarted.resume(state)
    assert (report.failed, report.signal) == (FAILED_AFTER_JOB, "SIGKILL")


# ---- the actor ------------------------------------------------------------------------------


class PlayedMaster:
    """The master's end of an execd's connection."""

    def __init__(self, sock: TrioSocket) -> None:
        self.sock = sock
        self.execd = b""  # the routing id of execd's connection

    async def receive(self, kind: type[_M]) -> _M:
        """execd's next message of `kind`; the others are passed over."""
        while True:
            self.execd, frame = await self.sock.recv()
            if isinstance(msg := p.decode(frame), kind):
                return msg

    async def send(self, msg: p.Msg) -> None:
        await self.sock.send([self.execd, p.encode(msg)])


@asynccontextmanager
async def execd_actor(base: Path) -> AsyncIterator[tuple[ExecdActor, PlayedMaster]]:
    """An execd actor on a cell without security (its session socket has no CURVE and
    knows a connection by the Identity it presents), and its master."""
    ctx = zmq.Context()
    sock = TrioSocket.create(ctx, zmq.ROUTER, SNDHWM=0, RCVHWM=0)
    actor = ExecdActor(base, HOST, sock.bind("tcp://127.0.0.1:*"), 1000.0, None,
                       wall=SYSTEM)
    try:
        with trio.fail_after(LIMIT):
            async with trio.open_nursery() as nursery:
                nursery.start_soon(actor.run)
                yield actor, PlayedMaster(sock)
                nursery.cancel_scope.cancel()
    finally:
        sock.close()
        ctx.destroy(linger=0)


async def test_execd_registers_its_session_endpoint_and_runs_a_qrsh_task(
        tmp_path: Path) -> None:
    key = key_pair()
    async with execd_actor(tmp_path) as (actor, master):
        register = await master.receive(p.Register)
        assert register.session_endpoint.startswith("tcp://127.0.0.1:")  # a master on loopback
        assert register.running_pe == []
        await master.send(start_task(tmp_path, "sh", "-c", "cat; exit 4", session_key=key[0]))
        await master.receive(p.TaskStarted)
        got = await trio.to_thread.run_sync(
            converse, register.session_endpoint, key, None,
            [s.Alive(), s.Input(b"round trip\n"), s.InputEnd()])
        finished = await master.receive(p.TaskFinished)
        await master.send(p.Ack(job_id=17, task_id=0))
        await until(lambda: not task_dir(actor.spool, 17, 0).exists())
    assert (got.out, got.exit) == (b"round trip\n", s.Exit(status=4))
    assert finished.report.exit_status == 4


async def test_a_pe_task_is_reported_by_its_id_and_killed_when_execd_restarts(
        tmp_path: Path) -> None:
    """Its qrsh never attaches here; what counts is that the restarted execd kills it."""
    start = start_task(tmp_path, "x", pe_task="1.localhost", command=["sleep", "100"],
                       session_key=key_pair()[0], nostdin=True)
    async with execd_actor(tmp_path) as (actor, master):
        await master.receive(p.Register)
        await master.send(start)
        started = await master.receive(p.TaskStarted)
        assert (started.job_id, started.task_id, started.pe_task) == (17, 0, "1.localhost")
    async with execd_actor(tmp_path) as (actor, master):
        # The kill may be quicker than the connection: then its report is queued before
        # Register, which lists it again among the finished.
        early = []
        while not isinstance(msg := await master.receive(p.Register | p.TaskFinished),
                             p.Register):
            early.append(msg.report)
        register = msg
        assert register.running == []
        # Listed while it is being killed, unless that was quicker than the connection.
        assert register.running_pe in ([(17, 0, "1.localhost")], [])
        if early or register.finished:
            report = (early or register.finished)[0]
        else:
            report = (await master.receive(p.TaskFinished)).report
        assert (report.pe_task, report.failed, report.signal) == (
            "1.localhost", FAILED_AFTER_JOB, "SIGKILL")
        await master.send(p.Ack(job_id=17, task_id=0, pe_task="1.localhost"))
        await until(lambda: not task_dir(actor.spool, 17, 0, "1.localhost").exists())


async def test_a_terminal_is_held_open_until_its_task_ended() -> None:
    """What the job wrote last is read before the terminal hangs up: execd holds its
    side open until the task has ended, so that the master side never reads as hung up
    (EIO) while bytes may still be on their way to it."""
    streams = open_streams(pty=True, nostdin=False)
    try:
        job_side = os.dup(streams.child[1])
        streams.close_child()
        os.write(job_side, b"last words")
        os.close(job_side)  # the job is gone; its terminal still held by execd
        assert await streams.read(1, 100) == b"last words"
        with pytest.raises(BlockingIOError):
            os.read(streams.outputs[1], 100)  # nothing more, and not hung up
        streams.release_terminal()
        assert await streams.read(1, 100) == b""  # the task ended: now it hangs up
    finally:
        streams.close()

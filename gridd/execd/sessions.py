"""execd's session socket: where the qrsh of each interactive task here connects.

One ROUTER socket per execd, bound at start: ``tcp://*:0`` reported as
``tcp://HOST:PORT`` when the master is reached over tcp on another machine; on a cell of
one machine, whose execds' names are no machine's (node1...), ``ipc://SPOOL/session``,
or ``tcp://127.0.0.1:PORT`` when the master is reached on a loopback address. With
security it is a CURVE server with this host's key pair, and its ZAP handler (here, in
execd's own ZeroMQ context) lets in only the one-time key of a session execd holds, and
names the connection by it (its User-Id, the key's Z85): a connection speaks for its own
session alone, whatever routing id it has, and the first connection to speak is the one
the session answers. Without security (a cell made with ``--security none``) the session
is known by the ZMTP Identity qrsh presents, its key.

A session is opened with its task, before the task starts. Its rules (gridd.session has
the messages and the times):

- qrsh attaches with its first message. Not attached within ``attach_within`` seconds,
  the task is killed. Output is read only once qrsh is attached, so that nothing is lost
  (a task may well end before qrsh connects: its output waits in the pipes).
- Input is written to the task in order by a task of the session, so that a job that
  reads slowly holds up nobody else (at most MAX_QUEUED bytes wait; more is dropped, and
  said in the log); ``InputEnd`` closes a pipe; ``Signal`` goes to the task's process
  group; ``Window`` sets the pseudo-terminal's size.
- qrsh disconnected, or silent for ``lost_after`` seconds: the task is killed (its
  terminal went away). execd says ``Alive`` after ALIVE_EVERY seconds of its own silence,
  and a message for a qrsh no longer connected fails (``ROUTER_MANDATORY``): so a
  disconnection is found within ALIVE_EVERY seconds. (libzmq's ``ROUTER_NOTIFY``, which
  would say it at once, is a draft option that Debian's libzmq does not have.)
- Once the task ended and its outputs reached their end (or stayed silent OUTPUT_GRACE
  seconds after it: a process that left the job's group holds them), ``Exit`` says how it
  ended and the session closes; its key is let in no more.
"""

from __future__ import annotations

import ipaddress
import logging
import math
import signal
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import trio
import zmq

from gridd import session as s
from gridd.actors.zap import ENDPOINT as ZAP_ENDPOINT
from gridd.execd.runner import Key
from gridd.execd.streams import TaskStreams
from gridd.protocol import TaskReport
from gridd.transport import TrioSocket, ipv6
from gridd.zmtp import Curve, z85_decode, z85_encode

log = logging.getLogger("gridd.execd")

ZAP_DOMAIN = b"gridd-session"
OUTPUT_GRACE = 2.0  # seconds an ended task's outputs may stay silent before Exit is sent
MAX_QUEUED = 16 << 20  # bytes of input waiting for a task at most
SEND_RETRY = 0.01  # seconds between tries to queue a message for a qrsh that lags behind
SNDHWM = 256  # messages queued for one qrsh before execd waits (stops reading the task)
MAX_MESSAGE = 4 * s.CHUNK  # bytes of a message from qrsh at most: a larger one drops it


@dataclass(eq=False)
class Session:
    """One task's session, from its opening to its Exit."""

    key: bytes  # qrsh's one-time public key
    task: Key
    streams: TaskStreams
    opened: float  # trio time
    attached: trio.Event = field(default_factory=trio.Event)
    ended: trio.Event = field(default_factory=trio.Event)
    report: TaskReport | None = None
    heard: float = 0.0  # when qrsh last said something (trio time)
    sent: float = 0.0  # when execd last sent it something
    peer: bytes = b""  # the routing id of qrsh's connection, once attached
    queued: int = 0  # bytes of input waiting
    lost: str = ""  # why qrsh is taken for gone
    reads: set[trio.CancelScope] = field(default_factory=set)
    scope: trio.CancelScope = field(default_factory=trio.CancelScope)  # its following
    input_send: trio.MemorySendChannel[s.Input | s.InputEnd] | None = None
    input_receive: trio.MemoryReceiveChannel[s.Input | s.InputEnd] | None = None

    def __post_init__(self) -> None:
        self.input_send, self.input_receive = trio.open_memory_channel(math.inf)

    def named(self) -> str:
        job_id, task_id, pe_task = self.task
        return f"{job_id}.{task_id}" + (f" PE task {pe_task}" if pe_task else "")


def exit_message(report: TaskReport) -> s.Exit:
    """How qrsh ends: the task's exit status (128 + N for signal N), or 1 and the reason
    when it could not start."""
    if report.failed and not report.start_time:
        return s.Exit(status=1, error=report.failed_reason)
    return s.Exit(status=report.exit_status, signal=report.signal)


class SessionSocket:
    """The ROUTER socket and the sessions of one execd."""

    def __init__(self, ctx: zmq.Context, curve: Curve | None, *,
                 kill: Callable[[Key], None], signal: Callable[[Key, int], None],
                 attach_within: float = s.ATTACH_WITHIN, lost_after: float = s.LOST_AFTER,
                 alive_every: float = s.ALIVE_EVERY) -> None:
        """`curve`: this host's key pair (the master's key unused), None without security;
        `kill` and `signal` reach a task's processes (the runner's)."""
        self.ctx = ctx
        self.curve = curve
        self.kill = kill
        self.signal = signal
        self.attach_within = attach_within
        self.lost_after = lost_after
        self.alive_every = alive_every
        self.sessions: dict[bytes, Session] = {}
        self.zap: TrioSocket | None = None
        self.sock: TrioSocket | None = None
        self.endpoint = ""
        self._nursery: trio.Nursery | None = None

    def bind(self, master_endpoint: str, host: str, spool: Path) -> str:
        """Bind the socket (its ZAP handler first: libzmq lets everyone in while none is
        bound) and return the endpoint qrsh is to be told."""
        security: dict[str, int | bytes] = {}
        if self.curve is not None:
            self.zap = TrioSocket.create(self.ctx, zmq.REP)
            self.zap.bind(ZAP_ENDPOINT)
            security = {"CURVE_SERVER": 1, "CURVE_SECRETKEY": self.curve.secret,
                        "ZAP_DOMAIN": ZAP_DOMAIN}
        tcp = master_endpoint.startswith("tcp://")
        self.sock = TrioSocket.create(
            self.ctx, zmq.ROUTER, ROUTER_MANDATORY=1, SNDHWM=SNDHWM, MAXMSGSIZE=MAX_MESSAGE,
            IPV6=ipv6(master_endpoint) if tcp else 0, **security)
        if not tcp:
            try:
                self.endpoint = self.sock.bind(f"ipc://{spool}/session")
                return self.endpoint
            except zmq.ZMQError as exc:  # a path too long for a unix socket
                log.warning("cannot bind the session socket in %s (%s): using tcp", spool, exc)
        outside = tcp and not _loopback(master_endpoint)
        bound = self.sock.bind("tcp://*:0" if outside else "tcp://127.0.0.1:0")
        port = bound.rpartition(":")[2]
        self.endpoint = f"tcp://{host if outside else '127.0.0.1'}:{port}"
        return self.endpoint

    async def serve(self, task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED
                    ) -> None:
        """Answer ZAP requests and qrsh's messages until cancelled; sessions may be opened
        once it has started."""
        assert self.sock is not None
        try:
            async with trio.open_nursery() as nursery:
                self._nursery = nursery
                task_status.started()
                if self.zap is not None:
                    nursery.start_soon(self._answer_zap, self.zap)
                nursery.start_soon(self._receive, self.sock)
        finally:
            for sock in (self.sock, self.zap):
                if sock is not None:
                    sock.close()

    def open(self, key: bytes, task: Key, streams: TaskStreams) -> Session:
        """Hold a session for `key` (before the task starts) and follow it."""
        if self._nursery is None:
            raise RuntimeError("the session socket is not serving")
        if key in self.sessions:
            raise ValueError("that session key is in use already")
        now = trio.current_time()
        session = Session(key=key, task=task, streams=streams, opened=now, heard=now,
                          sent=now)
        self.sessions[key] = session
        self._nursery.start_soon(self._follow, session)
        return session

    def task_ended(self, session: Session, report: TaskReport) -> None:
        """The task is over: its outputs are read to their end (or a short silence)."""
        session.report = report
        session.ended.set()
        session.streams.release_terminal()
        for scope in session.reads:
            scope.deadline = min(scope.deadline, trio.current_time() + OUTPUT_GRACE)

    # -- ZAP

    async def _answer_zap(self, zap: TrioSocket) -> None:
        while True:
            request = await zap.recv()
            await zap.send(self._zap_reply(request))

    def _zap_reply(self, request: list[bytes]) -> list[bytes]:
        """200 for the key of a session held here, named by its Z85."""
        if len(request) < 6 or request[0] != b"1.0":
            return [b"1.0", request[1] if len(request) > 1 else b"", b"500",
                    b"malformed ZAP request", b"", b""]
        request_id, mechanism, credentials = request[1], request[5], request[6:]
        if (request[2] != ZAP_DOMAIN or mechanism != b"CURVE" or len(credentials) != 1
                or credentials[0] not in self.sessions):
            return [b"1.0", request_id, b"400", b"no such session", b"", b""]
        return [b"1.0", request_id, b"200", b"OK", z85_encode(credentials[0]).encode(), b""]

    # -- from qrsh

    async def _receive(self, sock: TrioSocket) -> None:
        while True:
            frames = await sock.recv_frames()
            if len(frames) != 2:
                continue
            peer = frames[0].bytes
            session = self.sessions.get(self._key_of(peer, frames[1]))
            if session is None or session.peer not in (b"", peer):
                continue  # a session closed meanwhile, or another connection of its key
            session.peer = peer
            try:
                msg = s.from_client(frames[1].bytes)
            except s.SessionError as exc:
                log.warning("session of task %s: %s", session.named(), exc)
                continue
            session.heard = trio.current_time()
            session.attached.set()
            try:
                self._take(session, msg)
            except Exception:  # what one qrsh sends must not end the others' sessions
                log.exception("session of task %s: %r not taken", session.named(), msg)

    def _key_of(self, peer: bytes, frame: zmq.Frame) -> bytes:
        """The session key a message came with: its connection's CURVE key as the ZAP
        handler named it, or without security the Identity the connection presented."""
        if self.curve is None:
            return peer
        try:
            return z85_decode(frame.get("User-Id"))
        except (zmq.ZMQError, ValueError):
            return b""

    def _take(self, session: Session, msg: s.FromClient) -> None:
        match msg:
            case s.Input() | s.InputEnd():
                size = len(msg.data) if isinstance(msg, s.Input) else 0
                if session.queued + size > MAX_QUEUED:
                    log.warning("task %s reads no input: %d bytes dropped", session.named(),
                                size)
                    return
                session.queued += size
                assert session.input_send is not None
                session.input_send.send_nowait(msg)
            case s.Signal() if 0 < msg.signum < signal.NSIG:
                self.signal(session.task, msg.signum)
            case s.Signal():
                log.warning("session of task %s: no signal %d", session.named(), msg.signum)
            case s.Window():
                session.streams.set_window(msg.rows, msg.cols)

    def _lose(self, session: Session, why: str) -> None:
        """qrsh is gone: so goes its task, unless over already."""
        if session.lost:
            return
        session.lost = why
        session.scope.cancel()
        if not session.ended.is_set():
            log.info("task %s is killed: %s", session.named(), why)
            self.kill(session.task)

    # -- following one session

    async def _follow(self, session: Session) -> None:
        try:
            with session.scope:
                with trio.move_on_after(self.attach_within):
                    await session.attached.wait()
                if not session.attached.is_set():
                    self._lose(session, f"no qrsh attached within {self.attach_within:g} s")
                    return
                async with trio.open_nursery() as nursery:
                    nursery.start_soon(self._watch, session)
                    nursery.start_soon(self._write_input, session)
                    async with trio.open_nursery() as outputs:
                        for number in session.streams.outputs:
                            outputs.start_soon(self._pump, session, number)
                    await session.ended.wait()
                    assert session.report is not None
                    await self._send(session, exit_message(session.report))
                    nursery.cancel_scope.cancel()
        finally:
            del self.sessions[session.key]
            session.streams.close()

    async def _watch(self, session: Session) -> None:
        """Say Alive when execd said nothing for a while; take qrsh for lost when it has
        (which cancels the session's following)."""
        while True:
            now = trio.current_time()
            if now - session.heard >= self.lost_after:
                self._lose(session, f"its qrsh was silent for {self.lost_after:g} s")
                return
            elif now - session.sent >= self.alive_every:
                await self._send(session, s.Alive())
            else:
                await trio.sleep_until(min(session.heard + self.lost_after,
                                           session.sent + self.alive_every))

    async def _write_input(self, session: Session) -> None:
        assert session.input_receive is not None
        async for msg in session.input_receive:
            if isinstance(msg, s.InputEnd):
                session.streams.close_input()
                continue
            session.queued -= len(msg.data)
            if not await session.streams.write(msg.data):
                session.queued = 0  # the job reads no more: what comes is dropped

    async def _pump(self, session: Session, number: int) -> None:
        while True:
            with trio.CancelScope() as scope:
                if session.ended.is_set():
                    scope.deadline = trio.current_time() + OUTPUT_GRACE
                session.reads.add(scope)
                try:
                    data = await session.streams.read(number, s.CHUNK)
                finally:
                    session.reads.discard(scope)
            if scope.cancelled_caught or not data:
                return
            await self._send(session, s.Output(fd=number, data=data))

    async def _send(self, session: Session, msg: s.FromExecd) -> None:
        """Queue a message for qrsh; wait while its queue is full. A qrsh that is no
        longer connected is lost (and the session's following cancelled)."""
        assert self.sock is not None
        frames = [session.peer, s.encode(msg)]
        while True:
            try:
                self.sock.send_nowait(frames)
            except zmq.Again:
                await trio.sleep(SEND_RETRY)
                continue
            except zmq.ZMQError:  # EHOSTUNREACH: no connection with that routing id
                self._lose(session, "its qrsh disconnected")
                await trio.lowlevel.checkpoint()  # cancelled here
                return
            session.sent = trio.current_time()
            return


def _loopback(endpoint: str) -> bool:
    """Whether a tcp:// endpoint names this machine alone (127.0.0.0/8, ::1, localhost):
    a master there serves a cell of one machine."""
    address = endpoint.removeprefix("tcp://").rpartition(":")[0].strip("[]")
    if address == "localhost":
        return True
    try:
        return ipaddress.ip_address(address).is_loopback
    except ValueError:
        return False

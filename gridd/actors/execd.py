"""The execd actor: one per execution host, running the jobs the master sends it.

Jobs outlive the master: when the connection comes back (ZeroMQ reconnects by itself;
a socket monitor tells us when) execd registers again with what it runs and every
report the master has not acknowledged yet, so each task is accounted exactly once.

Jobs outlive execd too (see ``gridd.execd.runner``): a starting execd first takes over
what the last one left in its spool. Tasks still running are followed to their end and
listed as running when it registers; tasks that ended meanwhile, or were lost, have
their reports among the unacknowledged ones. A report is sent again with every load
report until the master acknowledges it. Stopped with SIGTERM or SIGINT (``gridd down``,
``qconf -ke``) or killed outright (SIGKILL, a crash), execd ends at once and leaves its
jobs running for the next, as Grid Engine's does; their shepherds keep how they end. Told
to kill its jobs (SIGUSR1 from ``gridd down --kill-jobs``, ``qconf -kej``), it kills them
and waits (a few seconds at most) until they are over and reported first; a report that
did not get through is sent by the next execd. See ``gridd.execd.signals``.

execd connects with CURVE, with its host's key (common/keys/hosts/NAME.key_secret): the
master takes a host's reports only from that host's key, and sends its orders to the
connection they came on. A master that refuses the key refuses it for good: execd says so
in its log and on stderr and ends (REFUSED), where retrying would hang silently. A master
it cannot reach it says so after UNREACHED_AFTER seconds and again at growing intervals,
while ZeroMQ goes on trying (RECONNECT_IVL doubling up to RECONNECT_IVL_MAX, each attempt
given CONNECT_TIMEOUT); heartbeats drop a connection to a master that vanished without a
word (a machine gone, a link cut) so that it is made again, and HEARTBEAT_TTL lets the
master drop this one likewise.

Interactive tasks (qrsh, qlogin, qrsh -inherit) have their streams on execd's session
socket (``gridd.execd.sessions``), bound before execd registers, which tells the master
where it is (``Register.session_endpoint``). Tasks are known by (job, task, PE task id):
a PE task's start, report and Ack carry its id, and ``Register.running_pe`` lists those
running here, as ``running`` lists the tasks.
"""

from __future__ import annotations

import logging
import os
import signal
import sys
from collections.abc import Awaitable, Callable
from functools import partial
from pathlib import Path

import trio
import zmq
from zmq.utils.monitor import parse_monitor_message

from gridd import keys, paths
from gridd import protocol as p
from gridd.actors.clock import Wall
from gridd.execd import runner, shepherd, signals
from gridd.execd.load import read_load
from gridd.execd.sessions import SessionSocket
from gridd.execd.streams import open_streams
from gridd.pidfile import write_pid
from gridd.transport import TrioSocket, ipv6
from gridd.zmtp import Curve

log = logging.getLogger("gridd.execd")

Key = runner.Key
STOP_GRACE = 5.0  # seconds a stopping execd waits for the jobs it killed to be over


REFUSED = 1  # execd's exit status when the master refuses its key
# Handshakes broken off in a row before execd takes it for a refusal: one alone may be a
# master that went down in the middle; every one is a master that cannot read our HELLO,
# sealed for another master's key.
BROKEN_HANDSHAKES = 5
UNREACHED_AFTER = 8.0  # seconds without a connection before execd says so
UNREACHED_REPEAT_MAX = 600.0  # the longest silence between two such messages
# The connection's options: retries from 0.1 s doubling to 5 s; a connect to a machine
# that does not answer given up after 10 s; a ping every 10 s, the connection dropped 30 s
# after one went unanswered (and by the master 60 s after the last ping): a master that
# vanished is found lost within 40 s and tried again at once.
CONNECTION = {"RECONNECT_IVL": 100, "RECONNECT_IVL_MAX": 5000, "CONNECT_TIMEOUT": 10_000,
              "HEARTBEAT_IVL": 10_000, "HEARTBEAT_TIMEOUT": 30_000, "HEARTBEAT_TTL": 60_000}

# What the monitor reports: a connection made or lost, or one the master would not let in.
_CONNECTION_EVENTS = (zmq.EVENT_HANDSHAKE_SUCCEEDED | zmq.EVENT_DISCONNECTED
                      | zmq.EVENT_HANDSHAKE_FAILED_AUTH | zmq.EVENT_HANDSHAKE_FAILED_PROTOCOL
                      | zmq.EVENT_HANDSHAKE_FAILED_NO_DETAIL)


class ExecdActor:
    def __init__(self, base: Path, name: str, endpoint: str, load_report_time: float,
                 curve: Curve | None, *, wall: Wall,
                 unreached_after: float = UNREACHED_AFTER,
                 connection: dict[str, int] | None = None) -> None:
        """`curve`: the master's public key and this host's key pair; None only on a
        cell made with `gridd up --security none`. `wall`: the clock of the reports'
        times (see gridd.actors.clock). `unreached_after`: seconds without a connection
        before saying so; `connection`: ZeroMQ's options of the connection (CONNECTION;
        a test's heartbeats are shorter)."""
        self.base = base
        self.name = name
        self.endpoint = endpoint
        self.load_report_time = load_report_time
        self.curve = curve
        self.spool = paths.execd_spool(name, base)
        self.spool.mkdir(parents=True, exist_ok=True)
        self.wall = wall
        self.runner = runner.TaskRunner(name, self.spool, str(base), wall=wall)
        # Before anything else: what an earlier execd left behind.
        self.resumed = self.runner.recover()
        self.active: set[Key] = {  # not reported
            (t.job_id, t.task_id, t.pe_task) for t in self.resumed}
        self.starting: set[Key] = set()  # of those, sent here and whose job has not started
        self.unacked: dict[Key, p.TaskReport] = {
            (r.job_id, r.task_id, r.pe_task): r for r in runner.load_pending_reports(self.spool)
        }
        if self.active or self.unacked:
            log.info("taking over %d running task(s); %d report(s) to deliver",
                     len(self.active), len(self.unacked))
        self.stopping = False
        # Set when this execd is to end (qconf -ke, -kej, a signal): with whether its jobs
        # are to be killed first.
        self.told_to_stop = trio.Event()
        self.kill_jobs = False
        self.refused = False  # the master refused this host's key: execd ends (REFUSED)
        self.unreached_after = unreached_after
        self.connection = CONNECTION if connection is None else connection
        self.connected = False
        self.connection_changed = trio.Event()
        self.ctx = zmq.Context()
        # Where the qrsh of an interactive task here connects (bound by run).
        self.sessions = SessionSocket(self.ctx, curve, kill=lambda key: self.runner.kill(*key),
                                      signal=self.runner.signal)

    async def run(self) -> None:
        security: dict[str, int | bytes] = {}
        if self.curve is not None:
            security = {"CURVE_SERVERKEY": self.curve.server_public,
                        "CURVE_PUBLICKEY": self.curve.public,
                        "CURVE_SECRETKEY": self.curve.secret}
        sock = TrioSocket.create(self.ctx, zmq.DEALER, SNDHWM=0, RCVHWM=0,
                                 IPV6=ipv6(self.endpoint),
                                 **self.connection, **security)
        monitor = TrioSocket(sock.zsock.get_monitor_socket(_CONNECTION_EVENTS))
        session_endpoint = self.sessions.bind(self.endpoint, self.name, self.spool)
        sock.connect(self.endpoint)
        self.sock = sock
        log.info("execd %s connecting to %s (pid %d); sessions at %s", self.name,
                 self.endpoint, os.getpid(), session_endpoint)
        try:
            async with trio.open_nursery() as nursery:
                self.nursery = nursery
                await nursery.start(self.sessions.serve)
                nursery.start_soon(self._on_connect, monitor)
                nursery.start_soon(self._tell_unreached)
                nursery.start_soon(self._receive)
                nursery.start_soon(self._report_load)
                for state in self.resumed:
                    key = (state.job_id, state.task_id, state.pe_task)
                    nursery.start_soon(self._deliver, key, partial(self.runner.resume, state))
                self.resumed = []
        finally:
            monitor.close()
            sock.close()
            self.ctx.term()

    async def stop(self) -> None:
        """Kill the jobs running here and wait until their shepherds have recorded it.

        No task starts any more (the master sends it again to the next execd); one that
        was starting is killed as soon as it is under way.
        """
        self.stopping = True
        with trio.move_on_after(STOP_GRACE):
            while self.active:
                for key in self.runner.running():
                    self.runner.kill(*key)
                await trio.sleep(0.05)

    def _running(self) -> list[tuple[int, int]]:
        """The tasks to tell the master about as running: not those still starting, nor
        PE tasks (``_running_pe``).

        Until its job runs, a task must not count as running at the master: if execd died
        then, the next one would find nothing started and leave the task to the master to
        send again, which it does only for a task it still believes on its way.
        """
        return sorted(key[:2] for key in self.active - self.starting if not key[2])

    def _running_pe(self) -> list[Key]:
        """The PE tasks (qrsh -inherit) running here, for Register."""
        return sorted(key for key in self.active - self.starting if key[2])

    async def _send(self, msg: p.Msg) -> None:
        await self.sock.send([p.encode(msg)])

    async def _on_connect(self, monitor: TrioSocket) -> None:
        broken = 0  # handshakes broken off since the last one that succeeded
        while True:
            event = parse_monitor_message(await monitor.recv())["event"]
            if event == zmq.EVENT_HANDSHAKE_SUCCEEDED:
                broken = 0
            elif event == zmq.EVENT_HANDSHAKE_FAILED_NO_DETAIL:
                broken += 1
            refusal = self._refusal(event, broken)
            if refusal:
                self._say(logging.ERROR, f"{refusal}; execd ends")
                self.refused = True
                self.told_to_stop.set()
                return
            if event == zmq.EVENT_HANDSHAKE_FAILED_NO_DETAIL:
                continue
            self._set_connected(event == zmq.EVENT_HANDSHAKE_SUCCEEDED)
            if event == zmq.EVENT_DISCONNECTED:
                log.warning("lost the connection to the master at %s: reconnecting",
                            self.endpoint)
                continue
            log.info("connected to master: registering")
            await self._send(p.Register(
                host=self.name, load=read_load(), running=self._running(),
                finished=list(self.unacked.values()), load_report_time=self.load_report_time,
                session_endpoint=self.sessions.endpoint, running_pe=self._running_pe()))

    def _refusal(self, event: int, broken: int) -> str | None:
        """What a monitor event says of a master that will never let this execd in."""
        where = f"the master at {self.endpoint}"
        if event == zmq.EVENT_HANDSHAKE_FAILED_AUTH:
            return (f"{where} refused the key of host {self.name} "
                    f"({keys.key_file(self.base, keys.HOSTS, self.name)}): its cell has no "
                    "key of that host, or another; the cell's administrator makes one with "
                    f"'gridd keys host {self.name}' on the master")
        if event == zmq.EVENT_HANDSHAKE_FAILED_PROTOCOL:
            return f"{where} does not speak gridd's protocol (HANDSHAKE_FAILED_PROTOCOL)"
        if broken >= BROKEN_HANDSHAKES:
            return (f"{where} broke off {broken} handshakes in a row: this cell root's "
                    f"master key ({keys.key_file(self.base, keys.MASTER)}) is not that "
                    "master's; copy the master cell's common/keys/master.key, or join with "
                    "a new bundle")
        return None

    def _set_connected(self, connected: bool) -> None:
        self.connected = connected
        self.connection_changed.set()
        self.connection_changed = trio.Event()

    async def _until_connected(self, connected: bool) -> None:
        while self.connected != connected:
            await self.connection_changed.wait()

    async def _tell_unreached(self) -> None:
        """Say that the master cannot be reached once `unreached_after` seconds have passed
        without a connection (from the start, or since it was lost), then again after
        twice as long each time, every UNREACHED_REPEAT_MAX at most."""
        while True:
            await self._until_connected(False)
            since = trio.current_time()
            wait = self.unreached_after
            said_at = since + wait
            while True:
                with trio.move_on_at(said_at):
                    await self._until_connected(True)
                if self.connected:
                    break
                self._say(logging.WARNING, f"cannot reach the master at {self.endpoint} "
                          f"(for {trio.current_time() - since:.0f} s): retrying")
                wait = min(2 * wait, UNREACHED_REPEAT_MAX)
                said_at += wait

    def _say(self, level: int, text: str) -> None:
        """In the log and on stderr, for the administrator who started execd by hand."""
        log.log(level, "%s", text)
        print(f"gridd execd {self.name}: {text}", file=sys.stderr, flush=True)

    async def _report_load(self) -> None:
        while True:
            await trio.sleep(self.load_report_time)
            await self._send(p.LoadReport(host=self.name, load=read_load(),
                                          running=self._running(),
                                          usage=self.runner.usage()))
            for report in list(self.unacked.values()):
                await self._send(p.TaskFinished(report=report))

    async def _receive(self) -> None:
        while True:
            parts = await self.sock.recv()
            try:
                msg = p.decode(parts[-1])
            except p.ProtocolError as exc:
                log.warning("bad message from master: %s", exc)
                continue
            match msg:
                case p.StartTask():
                    self._start(msg)
                case p.KillTask():
                    self.runner.kill(msg.job_id, msg.task_id, msg.pe_task)
                case p.SuspendTask():
                    self.runner.suspend(msg.job_id, msg.task_id, msg.suspend)
                case p.StopExecd():
                    log.info("the master asks this execd to end%s",
                             ", killing its jobs" if msg.kill_jobs else "")
                    self.kill_jobs = msg.kill_jobs
                    self.told_to_stop.set()
                case p.Ack():
                    key = (msg.job_id, msg.task_id, msg.pe_task)
                    if self.unacked.pop(key, None) is not None:
                        runner.forget(self.spool, *key)
                case _:
                    log.warning("unexpected %s from master", type(msg).__name__)

    def _start(self, msg: p.StartTask) -> None:
        key = (msg.job.job_id, msg.task_id, msg.pe_task)
        if key in self.active or key in self.unacked or self.stopping:
            return  # a resend of something already under way or done, or too late
        self.active.add(key)
        self.starting.add(key)
        follow = (partial(self._run_interactive, msg, key) if runner.session_key(msg)
                  else partial(self.runner.run_task, msg))
        self.nursery.start_soon(self._deliver, key, follow)

    async def _run_interactive(self, msg: p.StartTask, key: Key,
                               started: runner.OnStarted) -> p.TaskReport:
        """Run a task whose streams go to its qrsh: its session is held before it starts
        and told when it ended, so that the last of its output and its Exit follow."""
        streams = open_streams(pty=runner.wants_pty(msg), nostdin=msg.nostdin)
        try:
            session = self.sessions.open(runner.session_key(msg), key, streams)
        except ValueError:
            streams.close()
            raise
        report = await self.runner.run_task(msg, started, streams)
        self.sessions.task_ended(session, report)
        return report

    async def _deliver(
        self, key: Key, follow: Callable[[runner.OnStarted], Awaitable[p.TaskReport]]
    ) -> None:
        """Follow a task (started here, or taken over) to its end and send its report.

        A task taken over says again that it started: the master ignores that unless the
        execd that started it died before telling it.
        """

        async def started(start_time: float) -> None:
            self.starting.discard(key)
            await self._send(p.TaskStarted(host=self.name, job_id=key[0], task_id=key[1],
                                           start_time=start_time, pe_task=key[2]))

        try:
            report = await follow(started)
        except Exception as exc:  # a bug here must cost one job, not the execd
            log.exception("task %d.%d %r could not be run", *key)
            report = p.TaskReport(job_id=key[0], task_id=key[1], host=self.name,
                                  start_time=0.0, end_time=self.wall(), exit_status=0,
                                  failed=runner.FAILED_BEFORE_JOB, failed_reason=str(exc),
                                  pe_task=key[2])
        self.unacked[key] = report
        self.active.discard(key)
        self.starting.discard(key)
        await self._send(p.TaskFinished(report=report))


def host_curve(base: Path, name: str) -> Curve | None:
    """The master's public key and host `name`'s key pair, from the cell's key files."""
    if keys.security(base) == keys.NONE:
        return None
    pair = keys.read_secret(keys.secret_file(base, keys.HOSTS, name))
    return Curve(keys.read_public(keys.key_file(base, keys.MASTER)), pair.public, pair.secret)


def serve(base: Path, name: str, endpoint: str, load_report_time: float, wall: Wall) -> int:
    """Run execd as host `name` until it is told to stop; its exit status (REFUSED when the
    master refused its key)."""
    if not os.access(shepherd.PROGRAM, os.X_OK):  # else every job would fail to start
        raise SystemExit(f"gridd: execd cannot run jobs: its shepherd program "
                         f"{shepherd.PROGRAM} is missing; installing gridd (pip install, "
                         f"make) builds it from {shepherd.SOURCE.name} with a C compiler")
    try:
        curve = host_curve(base, name)
    except keys.KeyFileError as exc:
        hint = (f" (the cell's administrator makes a host's key with 'gridd keys host {name}')"
                if isinstance(exc, keys.KeyMissing) else "")
        raise SystemExit(f"gridd: {exc}{hint}") from None
    pidfile = paths.execd_spool(name, base) / "execd.pid"
    pidfile.parent.mkdir(parents=True, exist_ok=True)
    write_pid(pidfile)
    actor = ExecdActor(base, name, endpoint, load_report_time, curve, wall=wall)

    async def signalled() -> None:
        with trio.open_signal_receiver(*signals.LEAVE_JOBS, signals.KILL_JOBS) as received:
            async for signum in received:
                log.info("signal %s: ending%s", signal.Signals(signum).name,
                         ", killing the jobs" if signum == signals.KILL_JOBS else
                         f", leaving {len(actor.active)} task(s) running")
                actor.kill_jobs = signum == signals.KILL_JOBS
                actor.told_to_stop.set()
                return

    async def main() -> None:
        async with trio.open_nursery() as nursery:
            nursery.start_soon(actor.run)
            nursery.start_soon(signalled)
            await actor.told_to_stop.wait()
            if actor.kill_jobs:
                await actor.stop()
            nursery.cancel_scope.cancel()

    try:
        trio.run(main)
    finally:
        pidfile.unlink(missing_ok=True)
    return REFUSED if actor.refused else 0

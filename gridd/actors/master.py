"""The master process: the Master actor, and the Scheduler and Accounting actors in
processes of their own that it starts (gridd.actors.child_process).

Every inbound message, from clients, execds, the scheduler or the accounting actor, goes
through one channel into one task, which applies a whole burst to the state machine,
commits the burst to the spool in one transaction and only then sends what it caused.

Clients and execds reach the master over CURVE: the ZAP handler (gridd/actors/zap.py)
lets in only the keys of the cell's users and hosts, and every message arrives with the
name its key was authorized as. The core's admission (gridd/master/admission.py) stamps
a client request with that user and the host it came from (gridd/master/identity.py),
whatever it claims, before any rule applies it; execds' reports are taken only from the
key of the host they are about. Each connection may make so many requests a second
(gridd/master/ratelimit.py).

What to do with a message is decided in the pure core (gridd.master.handle: its admission,
which rule of the state machine it goes to, its answer; gridd.master.events: what the
scheduler and accounting actors are told). This actor only moves bytes: it pumps
messages in with who sent them (the peer's address named by gridd.actors.peer_names), looks
users up in the user database, runs the spool's transactions and administration, and
sends what the core said once it is spooled.
"""

from __future__ import annotations

import errno
import grp
import logging
import os
import pwd
import random
import secrets
import signal
import subprocess
from collections.abc import Callable
from datetime import tzinfo
from functools import lru_cache
from pathlib import Path

import msgspec
import trio
import zmq

from gridd import keys, login_token, master_endpoint, master_local, paths
from gridd import protocol as p
from gridd.actors import zap
from gridd.actors.child_process import AccountingProcess, ChildProcess, SchedulerProcess
from gridd.actors.clock import SYSTEM, Wall
from gridd.actors.peer_names import PeerNames
from gridd.collector import held_off
from gridd.master import events, reporting
from gridd.master.admission import Account, Door, Peer
from gridd.master.bootstrap import CellConfig, initial_config
from gridd.master.core import Master
from gridd.master.handle import ACCT, CLIENT, SCHED, TICK, TIMER, Handler, unapplied_refusal
from gridd.master.ratelimit import Limiter, QuietLog
from gridd.master.state import Effects, MasterState
from gridd.model.objects import GlobalConf
from gridd.pidfile import (
    gridd_alive,
    master_pidfile,
    pid_and_machine,
    read_pid,
    this_machine,
    write_pid,
)
from gridd.spool import admin as spool_admin
from gridd.spool.base import SpoolError
from gridd.spool.methods import choose, open_spool
from gridd.spool.records import load
from gridd.spool.tracking import Tracker
from gridd.transport import TrioSocket, ipv6

log = logging.getLogger("gridd.master")

BATCH = 2000  # messages applied per spool commit at most
AR_CHECK = 1.0  # seconds between looks at advance reservations' start and end times

REQUEST_RATE = 2000.0  # requests a second one connection may make on average...
REQUEST_BURST = 10_000.0  # ...after this many at once (a pipelined submit_many)
HANDSHAKE_MS = 10_000  # a connection still not through its handshake by then is closed


class ListenFailed(Exception):
    """The master's endpoint could not be bound (a port taken, an address not this
    machine's): the master stops, and says so as its last line."""


class MasterActor:
    """The master's sockets, spool and timers around the core (gridd.master.handle), and
    the core's Outside: users' accounts, hosts' public keys, web login tokens, session ids
    and the spool's administration."""

    def __init__(self, base: Path, endpoint: str, schedule_interval: float = 2.0, *,
                 key: keys.KeyPair | None, request_rate: float = REQUEST_RATE,
                 request_burst: float = REQUEST_BURST, wall: Wall = SYSTEM,
                 accounting: type[AccountingProcess] = AccountingProcess,
                 scheduling: Callable[[Path, float], ChildProcess] = SchedulerProcess) -> None:
        """`key`: the master's CURVE key pair; None only for a cell made with
        `gridd up --security none`, whose clients are whoever they claim to be. `wall`:
        the clock of the now the state machine is given (see gridd.actors.clock).
        `accounting` and `scheduling`: how those actors are run, each a process of its
        own but in the tests of virtual time, where they run on `wall` too."""
        self.base = base
        self.wall = wall
        self.endpoint = endpoint
        self.key = key
        quiet = QuietLog(log, rate=1.0, burst=20.0)  # warnings a peer can cause
        door = Door(key is not None, Limiter(request_rate, request_burst), quiet)
        self.handler = Handler(door, self)  # the core; this actor is its Outside
        self.machine = _machine_name(base)
        self.peer_names = PeerNames(self.machine,
                                    local_only=endpoint.startswith(("ipc://", "inproc://")))
        self.accounts: dict[str, Account] = {}  # see account
        self.keyring = zap.Keyring(base)  # the keys let in, which host_key asks too
        self.execds: dict[str, bytes] = {}  # host -> routing id of its execd's connection
        spool_dir = paths.master_spool(base)
        self.spool = open_spool(spool_dir, choose(spool_dir))
        spooled = load(self.spool)
        self.tracker = Tracker(spooled)
        state = spooled or MasterState()
        if not state.config.queues:
            self._bootstrap(state)
        self.master = Master(state, master_host=self.machine)
        self.ctx = zmq.Context()
        self.acct = accounting(base, self._accounting_hello)
        self.sched = scheduling(base, schedule_interval)
        self.stopping = trio.Event()

    def _bind(self, front: TrioSocket) -> None:
        """Bind the master's endpoint; a new cell's on a port found free, published
        (gridd.master_endpoint)."""
        unchosen = master_endpoint.port_unchosen(self.endpoint)
        tries = [self.endpoint]
        if unchosen:
            tries = master_endpoint.candidates(self.endpoint, random.Random(),
                                               master_endpoint.ephemeral_ports())
        for endpoint in tries:
            try:
                bound = front.bind(endpoint)
                break
            except zmq.ZMQError as exc:
                if exc.errno != errno.EADDRINUSE or endpoint == tries[-1]:
                    raise ListenFailed(f"the master cannot listen at {endpoint}: "
                                       f"{zmq.strerror(exc.errno)}") from None
        if unchosen:
            self.endpoint = bound
            master_endpoint.publish(self.base, bound)

    def _bootstrap(self, state: MasterState) -> None:
        """A new cell: create all.q and the PEs from the bootstrap file gridd up wrote."""
        conf = paths.common(self.base) / "bootstrap.json"
        if not conf.exists():
            return
        cell = msgspec.json.decode(conf.read_bytes(), type=CellConfig)
        initial_config(state, cell)
        # Everything is new: the whole configuration is spooled, and is the first entry
        # of its history.
        fx = Effects(dirty_hosts=set(state.hosts), config_changed=True, counters_changed=True,
                     flags_changed=True)
        tx = self.spool.prepare()
        self.tracker.fill(tx, state, fx, self.wall())
        tx.commit()

    async def run(self) -> None:
        security: dict[str, int | bytes] = {}
        guard: TrioSocket | None = None
        if self.key is None:
            log.warning("security none: connections are neither authenticated nor "
                        "encrypted and requests are taken for whoever they claim to be "
                        "(a cell for measurements only)")
        else:
            # Bound before the CURVE socket binds, closed after it (see gridd.actors.zap).
            guard = TrioSocket.create(self.ctx, zmq.REP)
            guard.bind(zap.ENDPOINT)
            security = {"CURVE_SERVER": 1, "CURVE_SECRETKEY": self.key.secret,
                        "ZAP_DOMAIN": zap.DOMAIN}
        # Frames up to MAX_MESSAGE are decoded; larger ones, up to 4x, are answered with an
        # error; a peer sending more than that is cut off by ZeroMQ before we buffer it.
        # No ROUTER_HANDOVER: a peer that names its connection like another's must not
        # take that one over (execds are found by what their host key sends: master.admission).
        front = TrioSocket.create(self.ctx, zmq.ROUTER, MAXMSGSIZE=4 * p.MAX_MESSAGE,
                                  SNDHWM=0, RCVHWM=0, HANDSHAKE_IVL=HANDSHAKE_MS,
                                  IPV6=ipv6(self.endpoint), **security)
        self._bind(front)
        self.front = front
        local = self._bind_local(front) if guard is not None else ""
        send, inbox = trio.open_memory_channel(10_000)
        log.info("master listening on %s (pid %d)", self.endpoint, os.getpid())
        await self.peer_names.learn_own(_bound_address(self.endpoint))
        try:
            async with trio.open_nursery() as nursery:
                self.nursery = nursery
                if guard is not None:
                    nursery.start_soon(zap.serve, guard, zap.Handler(self.keyring))
                nursery.start_soon(self.acct.run, ACCT, send.clone())
                nursery.start_soon(self._pump_clients, front, send.clone())
                nursery.start_soon(self.sched.run, SCHED, send.clone())
                nursery.start_soon(self._apply_loop, inbox)
                nursery.start_soon(_timer, self._host_check_interval, TIMER, send.clone())
                nursery.start_soon(_timer, lambda: AR_CHECK, TICK, send.clone())
                await self.stopping.wait()
                nursery.cancel_scope.cancel()
        finally:
            front.close()
            if local:
                master_local.withdraw(self.base, local)
            if guard is not None:
                guard.close()
            self.spool.close()
            self.ctx.term()
            log.info("master stopped")

    def _bind_local(self, front: TrioSocket) -> str:
        """Also bind the local socket for commands on this machine, NULL and let in by
        peer credentials (gridd.master_local), and publish it; "" when the master is
        reached over ipc already. ZeroMQ takes the mechanism per bind: the TCP endpoint
        bound before stays CURVE."""
        if not self.endpoint.startswith("tcp://"):
            return ""
        local = master_local.new_endpoint()
        front.zsock.setsockopt(zmq.CURVE_SERVER, 0)
        try:
            front.bind(local)
        except zmq.ZMQError as exc:  # commands connect over TCP, as they can
            log.warning("no local socket for commands at %s: %s", local,
                        zmq.strerror(exc.errno))
            return ""
        finally:
            front.zsock.setsockopt(zmq.CURVE_SERVER, 1)
        master_local.publish(self.base, local)
        return local

    async def _pump_clients(self, front: TrioSocket, send: trio.MemorySendChannel) -> None:
        """Client and execd messages, each with who sent it (see Peer)."""
        async with send:
            while True:
                frames = await front.recv_frames()
                peer = await self._peer(frames[-1])
                await send.send((CLIENT, [frame.bytes for frame in frames], peer))

    async def _peer(self, frame: zmq.Frame) -> Peer:
        host = await self.peer_names.name(_property(frame, "Peer-Address"))
        return Peer(_property(frame, "User-Id"), host)

    async def _apply_loop(self, inbox: trio.MemoryReceiveChannel) -> None:
        while True:
            batch = [await inbox.receive()]
            while len(batch) < BATCH:
                try:
                    batch.append(inbox.receive_nowait())
                except trio.WouldBlock:
                    break
            # The collector held off until the burst is answered: a full collection walks
            # every job (and the scheduler's mirror of them), and one that fell due while
            # qstat's answer over 100,000 jobs was made would double its time.
            with held_off():
                await self._burst(batch)

    async def _burst(self, batch: list[tuple[str, list[bytes], Peer | None]]) -> None:
        """Apply a burst of messages, spool what it changed, then answer."""
        fx = Effects()
        now = self.wall()
        answered_dispatch = False
        for source, parts, peer in batch:
            answered_dispatch |= self._handle(source, parts, peer, now, fx)
        try:
            await self._commit(fx, now)
        except SpoolError as exc:
            log.error("%s; the burst is undone and its requests retried one by one", exc)
            await self._one_by_one(batch, now)
            return
        self._flush(fx, answered_dispatch)

    async def _commit(self, fx: Effects, now: float) -> None:
        """Spool what the effects changed, as one transaction; nothing is sent before."""
        tx = self.spool.prepare()
        self.tracker.fill(tx, self.master.s, fx, now)
        if tx.changes:
            await trio.to_thread.run_sync(tx.commit)

    async def _one_by_one(self, batch: list[tuple[str, list[bytes], Peer | None]],
                          now: float) -> None:
        """After a burst could not be spooled: start again from what the spool holds and
        apply its requests one at a time, so that those that change nothing (queries) are
        answered and each that cannot be spooled fails alone, with the spool's error. Once
        one has failed, the clients' job and AR changes left in the burst are refused
        unapplied: each would most likely fail too, and cost a reload of the whole spool."""
        self._reload()
        failed: SpoolError | None = None
        for index, (source, parts, peer) in enumerate(batch):
            if failed is not None and self._refused_unapplied(source, parts, failed):
                continue
            fx = Effects(sched_resync=index == 0)  # the scheduler's mirror starts afresh
            answered_dispatch = self._handle(source, parts, peer, now, fx)
            try:
                await self._commit(fx, now)
            except SpoolError as exc:
                failed = exc
                self._reload()
                for ident, reply in fx.replies:
                    self.front.send_nowait([ident, p.encode(
                        p.Error(text=f"error: {exc}", rid=reply.rid))])
                if index == 0:
                    self._to_scheduler(Effects(sched_resync=True), False)
                continue
            self._flush(fx, answered_dispatch)

    def _refused_unapplied(self, source: str, parts: list[bytes], exc: SpoolError) -> bool:
        """Refuse a client's change of jobs or ARs with the spool's error, if it is one."""
        refusal = unapplied_refusal(source, parts, f"error: {exc}")
        if refusal is None:
            return False
        self.front.send_nowait([parts[0], p.encode(refusal)])
        return True

    def _reload(self) -> None:
        """The state as last spooled: what failed to spool is forgotten, as if it had
        never been asked for (nobody heard of it)."""
        state = load(self.spool) or MasterState()
        self.master = self.master.reloaded(state)
        self.tracker = Tracker(state)

    def _handle(self, source: str, parts: list[bytes], peer: Peer | None, now: float,
                fx: Effects) -> bool:
        """Apply one message (gridd.master.handle) and do at once what it asks of the
        actor besides its effects; True when it was the scheduler's Dispatch."""
        handled = self.handler.handle(self.master, source, parts, peer, now, fx)
        if handled.execd is not None:
            self.execds[handled.execd] = parts[0]  # where this host's orders go
        if handled.to_accounting is not None:
            self._send_now(self.acct, handled.to_accounting)
        if fx.stop_master:
            self.stopping.set()
        return handled.answered_dispatch

    def account(self, user: str) -> Account:
        """A user's primary group, uid and gid in the master's user database (cached
        until the next host check); no group and no ids for a user unknown here."""
        found = self.accounts.get(user)
        if found is None:
            try:
                entry = pwd.getpwnam(user)
            except KeyError:
                found = ("", None, None)
            else:
                try:
                    group = grp.getgrgid(entry.pw_gid).gr_name
                except KeyError:
                    group = str(entry.pw_gid)
                found = (group, entry.pw_uid, entry.pw_gid)
            self.accounts[user] = found
        return found

    def forget_accounts(self) -> None:
        """At each host check: users' groups and ids may have changed since."""
        self.accounts.clear()

    def time_zone(self, name: str) -> tzinfo | None:
        return zone_named(name)

    def host_key(self, host: str) -> bytes:
        """A host's CURVE public key (its key by its name, or its name without domain),
        which qrsh opens a session at its execd with, from the keys the ZAP handler lets
        in (a host's execd is let in before it registers); b"" without security or when
        the host has none."""
        if self.key is None:
            return b""
        for name in dict.fromkeys((host, host.partition(".")[0])):
            found = self.keyring.public_key(f"host:{name}")
            if found is not None:
                return found
        return b""

    def open_login(self, token: str) -> login_token.Claim | str:
        """What a web login token claims: opened with the master's secret key and the
        public key of the user it names, as the ZAP handler last read the keys."""
        if self.key is None:
            return ("web logins need a cell with keys: this one was made with 'gridd up "
                    "--security none'")
        return login_token.open(token, self.key.secret,
                                lambda user: self.keyring.public_key(f"user:{user}"))

    def new_session_id(self) -> str:
        return secrets.token_urlsafe(32)

    def spool_action(self, req: p.SpoolRequest) -> p.Msg:
        """Check or back up the spool, between two transactions: it is consistent."""
        try:
            if req.action == "check":
                return p.Ok(lines=spool_admin.check(self.spool))
            if req.action == "backup":
                return p.Ok(lines=spool_admin.backup(self.spool, Path(req.target)))
        except (SpoolError, OSError) as exc:
            return p.Error(text=f"error: {exc}")
        return p.Error(text=f"error: unknown spool action {req.action!r}")

    def _send_now(self, child: ChildProcess, msg: p.Msg) -> None:
        """Queue for a child process: never blocks, keeps message order."""
        child.send_nowait([p.encode(msg)])

    def _flush(self, fx: Effects, answered_dispatch: bool) -> None:
        """Send what a spooled burst caused, with the watches it answers."""
        self.handler.committed(fx)
        for ident, reply in fx.replies:
            self.front.send_nowait([ident, p.encode(reply)])
        for host, msg in fx.to_execd:
            self._to_execd(host, msg)
        self._to_scheduler(fx, answered_dispatch)
        for msg in events.for_accounting(self.master, fx):
            self._send_now(self.acct, msg)
        for to, text in fx.mails:
            self.nursery.start_soon(self._mail, to, text)
        for level, text in fx.notices:
            log.log(level, "%s", text)

    def _host_check_interval(self) -> float:
        return self.master.host_check_interval()

    async def _mail(self, to: list[str], text: str) -> None:
        """Send through the configured mailer (`mailer -s subject address...`, the text
        on stdin); with the default mailer the message is only logged."""
        mailer = self.master.s.config.conf.mailer.strip()
        if not mailer or mailer == GlobalConf().mailer:
            log.info("mail to %s: %s", ",".join(to), text)
            return
        try:
            await trio.run_process([mailer, "-s", text, *to], stdin=text.encode(),
                                   capture_stdout=True, capture_stderr=True)
        except (OSError, subprocess.CalledProcessError) as exc:
            log.warning("mailer %s failed for %s: %s", mailer, ",".join(to), exc)

    def _to_execd(self, host: str, msg: p.Msg) -> None:
        ident = self.execds.get(host)
        if ident is None:  # not connected since the master started: it resends on register
            log.info("cannot reach execd %s: it has not reported yet", host)
            return
        try:
            self.front.send_nowait([ident, p.encode(msg)])
        except zmq.ZMQError as exc:  # host not connected: reconciliation resends later
            log.info("cannot reach execd %s: %s", host, exc)

    def _to_scheduler(self, fx: Effects, answered_dispatch: bool) -> None:
        msg = events.for_scheduler(self.master, fx, answered_dispatch)
        if msg is not None:
            self._send_now(self.sched, msg)

    def _accounting_hello(self) -> list[p.Msg]:
        """What an accounting process hears first: where records go, then what it (or
        the one before it, or the master before a restart) had not confirmed."""
        return [reporting.of(self.master), *self.master.pending_accounting()]


async def _timer(period: Callable[[], float], source: str,
                 send: trio.MemorySendChannel) -> None:
    """Put a message of `source` in the inbox every `period()` seconds, asked anew each
    time (the hosts' checks follow max_unheard as qconf -mconf changes it)."""
    async with send:
        while True:
            await trio.sleep(period())
            await send.send((source, [], None))


def _property(frame: zmq.Frame, name: str) -> str:
    """A connection property of a received message; "" when it has none (no User-Id
    without security)."""
    try:
        return frame.get(name)
    except zmq.ZMQError:
        return ""


def _bound_address(endpoint: str) -> str:
    """The address of a tcp:// endpoint (`tcp://[::1]:5000` -> `::1`); "" for others."""
    if not endpoint.startswith("tcp://"):
        return ""
    return endpoint.removeprefix("tcp://").rpartition(":")[0].strip("[]")


def _machine_name(base: Path) -> str:
    """This machine's name as `gridd up` put it in the admin and submit host lists."""
    conf = paths.common(base) / "bootstrap.json"
    try:
        machine = msgspec.json.decode(conf.read_bytes(), type=CellConfig).machine
    except (OSError, msgspec.DecodeError, msgspec.ValidationError):
        machine = ""
    return machine or os.uname().nodename


def _master_key(base: Path) -> keys.KeyPair | None:
    """The master's key pair, None on a cell made with `gridd up --security none`."""
    if keys.security(base) == keys.NONE:
        return None
    return keys.read_secret(keys.secret_file(base, keys.MASTER))


def serve(base: Path, endpoint: str, schedule_interval: float, wall: Wall) -> None:
    """Run the master until SIGTERM/SIGINT or a Shutdown request."""
    try:
        key = _master_key(base)
    except keys.KeyFileError as exc:
        hint = " ('gridd up' makes it)" if isinstance(exc, keys.KeyMissing) else ""
        raise SystemExit(f"gridd: {exc}{hint}") from None
    pidfile = Path(master_pidfile(base))
    pidfile.parent.mkdir(parents=True, exist_ok=True)
    running, machine = pid_and_machine(pidfile)
    if machine != this_machine():
        raise SystemExit(f"gridd: the master of this cell runs on {machine} (pid {running}, "
                         f"by {pidfile}); if that machine is gone, remove the file first")
    if running != os.getpid() and gridd_alive(running):
        raise SystemExit(f"gridd: a master already runs for this cell (pid {running})")
    write_pid(pidfile)
    actor = MasterActor(base, endpoint, schedule_interval, key=key, wall=wall)

    async def main() -> None:
        async with trio.open_nursery() as nursery:
            nursery.start_soon(_stop_on_signal, actor)
            await actor.run()
            nursery.cancel_scope.cancel()

    failed: ListenFailed | None = None
    try:
        trio.run(main)
    except* ListenFailed as group:
        # raised after the block: Python before 3.11.4 wraps what an except* block
        # raises in a group of its own, and the last line of the output is the traceback's
        failed = group.exceptions[0]
    finally:
        if read_pid(pidfile) == os.getpid():  # not another master's
            pidfile.unlink(missing_ok=True)
    if failed is not None:
        log.error("%s", failed)
        raise SystemExit(f"gridd: {failed}")


async def _stop_on_signal(actor: MasterActor) -> None:
    with trio.open_signal_receiver(signal.SIGTERM, signal.SIGINT) as signals:
        async for _ in signals:
            actor.stopping.set()
            return


@lru_cache(maxsize=64)  # clients may name any text: a few zones are kept
def zone_named(name: str) -> tzinfo | None:
    """The time zone `name` names (a client's $TZ, ":" first or not, or a zone file's
    name), None for "" or a name that names no zone file here."""
    if not name:
        return None
    from zoneinfo import ZoneInfo

    try:
        return ZoneInfo(name.removeprefix(":"))
    except (KeyError, ValueError, OSError):  # not found, not a key, not a zone file
        return None

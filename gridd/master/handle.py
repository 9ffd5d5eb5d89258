"""One inbound message, applied: decoded, admitted, routed to the state machine, answered.

The master actor pumps messages in from its sockets and timers and hands each to
Handler.handle with where it came from (its source, and for a client or execd the Peer
its connection names) and the time; what the message causes is written into the burst's
Effects, which the actor spools and then sends. Everything here is decided without I/O:
what needs the outside (the user database, the spool between two transactions) is asked
of the actor through Outside, and what must be sent before the spool commit is returned
in Handled. A web server's request made in a user's web session (AsUser) is unwrapped
here, before admission, and admitted as if that user had sent it
(gridd.master.web_sessions); the web sessions and the Watches waiting for the cell to
change (gridd.master.watches) live in the Handler.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Protocol

from msgspec import Struct

from gridd import protocol as p
from gridd.formats import qstat_rows
from gridd.master import ars
from gridd.master.admission import EXECD, Account, Door, Peer, name_reporter, unless_manager
from gridd.master.state import Effects
from gridd.master.watches import Watches
from gridd.master.web_sessions import ENDED, Claim, WebSessions
from gridd.model.job_rows import JobRows

if TYPE_CHECKING:
    from datetime import tzinfo

    from gridd.master.core import Master

log = logging.getLogger("gridd.master")

# Where a message comes from: a client or execd over the front socket, the scheduler
# and accounting actors of this process, the host check's and the AR check's timers.
CLIENT, SCHED, ACCT, TIMER, TICK = "client", "sched", "acct", "timer", "tick"
# Client requests that change jobs or ARs (see unapplied_refusal).
CHANGES = (p.Submit, p.Delete, p.Alter, p.Hold, p.Qmod, p.ArSubmit, p.ArDelete)
# What a web session's user may not send (AsUser): logins are the web server's, and
# reports its hosts'.
NOT_AS_USER = (p.AsUser, p.WebLogin, p.WebLogout, *EXECD)


class Outside(Protocol):
    """What the master actor answers for the core: questions that need I/O."""

    def account(self, user: str) -> Account:
        """A user's entry in the master's user database."""

    def forget_accounts(self) -> None:
        """Look users up afresh from now on."""

    def spool_action(self, req: p.SpoolRequest) -> p.Msg:
        """Check or back up the spool, as a manager asked: the answer to send."""

    def time_zone(self, name: str) -> tzinfo | None:
        """The time zone a client names (protocol.QueryRows.zone), from the system's zone
        files; None for "" or a name not known here: the master's own local time."""

    def host_key(self, host: str) -> bytes:
        """A host's CURVE public key, which qrsh opens its task's session with (b""
        without security or when the host has none)."""

    def open_login(self, token: str) -> Claim | str:
        """What a web login token claims, opened with the master's secret key and the
        user's public key (gridd.login_token); or why it cannot be, in words for the
        user."""

    def new_session_id(self) -> str:
        """A fresh random web session id, which nobody can guess."""


class Handled(Struct, frozen=True):
    """What the actor must do for one message besides its Effects, before the commit."""

    answered_dispatch: bool = False  # it was the scheduler's Dispatch, now applied
    execd: str | None = None  # its connection is this host's execd's
    to_accounting: p.Msg | None = None  # to hand the accounting actor now; it answers


NOTHING = Handled()  # what most messages leave the actor to do beyond their effects


class Handler:
    """Applies the master actor's messages: its Door, and the Outside that it asks; with
    the web sessions and the held Watches, which live as long as the actor."""

    def __init__(self, door: Door, outside: Outside) -> None:
        self.door = door
        self.outside = outside
        self.account = outside.account  # bound once: asked of every user's request
        self.sessions = WebSessions()
        self.watches = Watches()
        self.listings = Listings()

    def committed(self, fx: Effects) -> None:
        """A burst with these effects is spooled: the watches it answers go with it."""
        self.watches.committed(fx)

    def handle(self, m: Master, source: str, parts: list[bytes], peer: Peer | None,
               now: float, fx: Effects) -> Handled:
        """Apply one message to `m`: `parts` are its frames (a client's routing id, then
        the message), `peer` who sent a client's or an execd's (None for others)."""
        if source == TIMER:
            m.check_hosts(now, fx)
            self.outside.forget_accounts()  # users' groups are looked up afresh now and then
            self.sessions.expire(now)
            self.watches.answer(fx)  # a heartbeat: a watcher never waits for ever
            return NOTHING
        if source == TICK:
            m.tick(now, fx)
            return NOTHING
        ident = parts[0] if source == CLIENT else b""
        if source == CLIENT and len(parts) != 2:
            self.door.dropped(ident, peer, len(parts), now)
            return NOTHING
        try:
            # Only clients are untrusted; the scheduler runs in this process, the accounting
            # actor in the one it started, over a socket pair nobody else can reach.
            msg = p.decode(parts[-1], max_size=p.MAX_MESSAGE if source == CLIENT else None)
        except p.ProtocolError as exc:
            if source != CLIENT:
                log.warning("bad message from %s: %s", source, exc)
                return NOTHING
            fx.replies.append((ident, self.door.garbage(ident, peer, exc, now)))
            return NOTHING
        if isinstance(msg, p.AsUser) and peer is not None:
            unwrapped = self._as_user(msg, peer, now)
            if isinstance(unwrapped, p.Error):
                unwrapped.rid = msg.rid
                fx.replies.append((ident, unwrapped))
                return NOTHING
            msg, peer = unwrapped
        execd = None
        if peer is not None:  # a client's or an execd's
            refusal, execd = self.door.admit(ident, peer, msg, now, self.account)
            if refusal is not None:
                refusal.rid = msg.rid
                fx.replies.append((ident, refusal))
                return NOTHING
            if execd is not None:  # its reports go by the configuration's name of it
                execd = m.host_called(execd)
                name_reporter(msg, execd)
        forward = None
        try:
            forward = self._route(m, source, ident, msg, now, fx, peer)
        except Exception:  # a bug must not take the master down: log it and answer
            log.exception("failed to handle %s from %s", type(msg).__name__, source)
            if source == CLIENT:
                fx.replies.append((ident, p.Error(text="error: internal error in master",
                                                  rid=msg.rid)))
        answered = source == SCHED and isinstance(msg, p.Dispatch)
        if execd is None and forward is None and not answered:
            return NOTHING
        return Handled(answered, execd, forward)

    def _as_user(self, msg: p.AsUser, peer: Peer, now: float) -> tuple[p.Msg, Peer] | p.Error:
        """The request a web server sends in a session, and the session's user as its
        sender (from the web server's host); or the refusal of it."""
        session = self.sessions.find(msg.session, peer.user_id, now)
        if session is None:
            return p.Error(text=ENDED)
        try:
            inner = p.decode(msg.request)
        except p.ProtocolError as exc:
            return p.Error(text=f"error: {exc}")
        if isinstance(inner, NOT_AS_USER):
            return p.Error(text=f"error: {type(inner).__name__} cannot be sent as a web user")
        inner.rid = msg.rid
        return inner, Peer(f"user:{session.user}", peer.host)

    def _web_login(self, msg: p.WebLogin, peer: Peer, now: float) -> p.Msg:
        """A session for the user whose token this is, held by the connection's key."""
        claim = self.outside.open_login(msg.token)
        if isinstance(claim, str):
            return p.Error(text=f"error: web login refused: {claim}")
        session_id = self.outside.new_session_id()
        session = self.sessions.login(claim, peer.user_id, session_id, now)
        if isinstance(session, str):
            return p.Error(text=f"error: web login refused: {session}")
        log.info("web login of %s by %s@%s", session.user, peer.user_id, peer.host)
        return p.WebSession(session=session_id, user=session.user, expires=session.expires)

    def _route(self, m: Master, source: str, ident: bytes, msg: p.Msg, now: float,
               fx: Effects, peer: Peer | None) -> p.Msg | None:
        """Which message goes to which of the master's rules, and which answer goes back;
        the message to hand the accounting actor, if it is one for it. `peer`: a
        client's or execd's (None for other sources), whose `user` is the client's as
        its key says (None on a cell without security)."""
        user = peer.user if peer is not None else None
        reply: p.Msg | None = None
        forward: p.Msg | None = None
        match msg:
            case p.Dispatch() if source == SCHED:
                m.dispatch(msg, now, fx)
            case p.SchedHello() if source == SCHED:
                fx.sched_resync = True
            case p.Accounted() if source == ACCT:
                m.accounted(msg.seqs, fx)
            case p.DbAnswer() if source == ACCT:
                client, msg.client = msg.client, b""
                fx.replies.append((client, msg))
            case p.DbExport() if source == CLIENT and (
                    refused := unless_manager(m.s.config, user)):
                reply = refused  # the master's user writes the files, where the client says
            case p.DbQuery() | p.DbExport() if source == CLIENT:
                msg.client = ident  # the accounting actor answers; its answer comes back
                forward = msg
            case p.Submit():
                reply = m.submit(msg.spec, now, fx)
            case p.Delete():
                reply = m.delete(msg, now, fx)
            case p.Alter():
                reply = m.alter(msg, now, fx)
            case p.Hold():
                reply = m.hold(msg, fx)
            case p.Resubmit():
                reply = m.resubmit(msg, now, fx)
            case p.QueryJobs():
                if msg.select is not None:
                    self._groups(msg.select)
                reply = m.query_jobs(msg, now)
            case p.QueryRows():
                if msg.select is not None:
                    self._groups(msg.select)
                reply = printed(m.query_rows(msg, now), msg, self.listings,
                                self.outside.time_zone(msg.zone))
            case p.SelectQueues():
                self._groups(msg.select)
                reply = m.select_queues(msg)
            case p.WaitJob():
                reply = m.wait_job(ident, msg)
            case p.WaitTasks():
                reply = m.task_ends.wait(ident, msg, m.s.jobs)
            case p.WaitScheduled():
                reply = m.wait_scheduled(ident, msg)
            case p.WaitStarted():
                reply = m.wait_started(ident, msg, self.outside.host_key)
            case p.StartPeTask():
                reply = m.start_pe_task(ident, msg, now, fx)
            case p.Qconf():
                reply = m.qconf(msg, fx)
            case p.Qmod():
                reply = m.qmod(msg, now, fx)
            case p.QueryQuota():
                reply = m.quota(msg)
            case p.ArSubmit():
                reply = ars.submit(m, msg, now, fx)
            case p.ArDelete():
                reply = ars.delete(m, msg, now, fx)
            case p.QueryArs():
                reply = ars.query(m, msg, now)
            case p.SpoolRequest() if refused := unless_manager(m.s.config, msg.user):
                reply = refused
            case p.SpoolRequest():  # between two transactions the spool is consistent
                reply = self.outside.spool_action(msg)
            case p.Ping():
                reply = p.Ok()
            case p.WebLogin() if peer is not None:
                reply = self._web_login(msg, peer, now)
            case p.WebLogout() if peer is not None:
                self.sessions.logout(msg.session, peer.user_id)
                reply = p.Ok()
            case p.Watch():
                reply = self.watches.watch(ident, msg)
            case p.Shutdown() if refused := unless_manager(m.s.config, user):
                reply = refused
            case p.Shutdown():
                reply = p.Ok(lines=["master shutting down"])
                fx.stop_master = True
            case p.Register():
                m.register(msg, now, fx, self.outside.host_key)
            case p.LoadReport():
                m.load_report(msg, now, fx, self.outside.host_key)
            case p.TaskStarted():
                m.task_started(msg, now, fx, self.outside.host_key)
            case p.TaskFinished():
                m.task_finished(msg.report, now, fx)
            case _:
                log.warning("unexpected %s from %s", type(msg).__name__, source)
                reply = p.Error(text=f"error: unexpected request {type(msg).__name__}")
        if reply is not None and source == CLIENT:
            reply.rid = msg.rid
            fx.replies.append((ident, reply))
        return forward

    def _groups(self, select: p.QueueSelect) -> None:
        """Put in the primary groups of the users a selection names (-U), as access
        lists are judged with them."""
        select.groups = {user: self.account(user)[0] for user in select.users}


def unapplied_refusal(source: str, parts: list[bytes], text: str) -> p.Error | None:
    """The refusal, with `text`, of a client's change of jobs or ARs left in a burst
    after the spool failed (see the actor's one-by-one retry), a web session's user's
    too; None for anything else, which is applied."""
    if source != CLIENT or len(parts) != 2:
        return None
    try:
        msg = p.decode(parts[-1])
        inner = p.decode(msg.request) if isinstance(msg, p.AsUser) else msg
    except p.ProtocolError:
        return None  # answered as any bad message is
    if not isinstance(inner, CHANGES):
        return None
    return p.Error(text=text, rid=msg.rid)


def printed(rows: JobRows | p.Msg, req: p.QueryRows, listings: Listings,
            zone: tzinfo | None) -> p.Msg:
    """A plain qstat's listing as the client prints it (or the refusal), its times in
    `zone` (the one req.zone names, None for the master's own): the client decodes one
    string, however long the queue."""
    if not isinstance(rows, JobRows):
        return rows
    if req.xml:
        return p.Printed(text=qstat_rows.qstat_rows_xml(rows, zone, listings.xml))
    return p.Printed(text=qstat_rows.qstat_rows(rows, zone, listings.text))


class Listings:
    """The lines of the plain listings printed last, text and XML (qstat_rows.Memo)."""

    def __init__(self) -> None:
        self.text = qstat_rows.Memo()
        self.xml = qstat_rows.Memo()

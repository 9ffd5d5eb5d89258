"""The master's side of the web interface, as pure functions (gridd.master.handle):
logging in with a token, requests made as the session's user (AsUser) and Watch, with the
version a committed burst raises (gridd.master.watches)."""

from __future__ import annotations

import pytest

from gridd import protocol as p
from gridd.master.admission import Peer
from gridd.master.handle import CLIENT, TIMER, Handler
from gridd.master.state import Effects
from gridd.master.watches import raises_version
from gridd.master.web_sessions import ENDED
from tests.unit.test_master_core import spec
from tests.unit.test_master_handle import ID, frames, handler, make_master

WEB = Peer("user:root", "head")  # the web server's connection


def log_in(h: Handler, m, user: str = "alice", now: float = 1000.0,
           nonce: str = "n1") -> str:
    fx = Effects()
    h.handle(m, CLIENT, frames(p.WebLogin(token=f"{user}:{now + 300}:{nonce}", rid=7)), WEB,
             now, fx)
    (_, reply), = fx.replies
    assert isinstance(reply, p.WebSession) and reply.rid == 7, reply
    assert (reply.user, reply.expires) == (user, now + 12 * 3600)
    return reply.session


def as_user(h: Handler, m, session: str, msg: p.Msg, peer: Peer = WEB,
            now: float = 1000.0) -> p.Msg:
    fx = Effects()
    wrapped = p.AsUser(session=session, request=p.encode(msg), rid=21)
    h.handle(m, CLIENT, frames(wrapped), peer, now, fx)
    (ident, reply), = fx.replies
    assert ident == ID and reply.rid == 21
    return reply


def test_a_request_in_a_session_is_made_as_its_user_stamped_from_the_web_servers_host():
    h, outside = handler(secured=True)
    m = make_master()
    session = log_in(h, m)
    reply = as_user(h, m, session, p.Submit(spec=spec(owner="mallory", submit_host="far")))
    assert isinstance(reply, p.Submitted)
    kept = m.s.jobs[reply.job_id].spec
    assert (kept.owner, kept.group, kept.submit_host, kept.uid) == ("alice", "staff", "head",
                                                                      1000)
    assert outside.looked_up[-1] == "alice"  # the web server's own was root


def test_a_session_is_refused_to_another_key_after_logout_and_once_expired():
    h, _ = handler(secured=True)
    m = make_master()
    session = log_in(h, m)
    refused = p.Error(text=ENDED, rid=21)
    assert as_user(h, m, session, p.Ping(), peer=Peer("user:bob", "head")) == refused
    assert as_user(h, m, "nonsense", p.Ping()) == refused
    assert as_user(h, m, session, p.Ping(), now=1000.0 + 12 * 3600) == refused
    assert as_user(h, m, session, p.Ping()) == p.Ok(rid=21)
    fx = Effects()
    h.handle(m, CLIENT, frames(p.WebLogout(session=session, rid=3)), WEB, 1000.0, fx)
    assert fx.replies == [(ID, p.Ok(rid=3))]
    assert as_user(h, m, session, p.Ping()) == refused


@pytest.mark.parametrize("inner", [
    p.AsUser(session="x", request=p.encode(p.Ping())),
    p.WebLogin(token="alice:1100:n9"),
    p.WebLogout(session="x"),
    p.Register(host="node1", load={}),
])
def test_a_session_carries_no_login_no_nested_request_and_no_execd_report(inner: p.Msg):
    h, _ = handler(secured=True)
    m = make_master()
    session = log_in(h, m)
    reply = as_user(h, m, session, inner)
    assert reply == p.Error(text=f"error: {type(inner).__name__} cannot be sent as a web "
                                 "user", rid=21)
    assert "node1" not in m.host_up and len(h.sessions.sessions) == 1


def test_a_request_in_a_session_that_does_not_decode_is_refused():
    h, _ = handler(secured=True)
    m = make_master()
    fx = Effects()
    wrapped = p.AsUser(session=log_in(h, m), request=b"\x93garbage", rid=21)
    h.handle(m, CLIENT, frames(wrapped), WEB, 1000.0, fx)
    (_, reply), = fx.replies
    assert isinstance(reply, p.Error) and reply.text.startswith("error: malformed message")


def test_a_users_qconf_change_and_shutdown_in_a_session_are_refused_as_from_the_cli():
    h, _ = handler(secured=True)
    m = make_master()
    session = log_in(h, m)
    for msg in (p.Qconf(argv=["-am", "alice"], user="admin", host="head"), p.Shutdown()):
        fx = Effects()
        msg.rid = 21
        h.handle(m, CLIENT, frames(msg), Peer("user:alice", "head"), 1000.0, fx)
        (_, from_cli), = fx.replies
        assert as_user(h, m, session, msg) == from_cli
    assert "alice" not in m.s.config.managers and not fx.stop_master
    admin = log_in(h, m, user="admin", nonce="n2")
    reply = as_user(h, m, admin, p.Qconf(argv=["-am", "alice"], user="", host=""))
    assert reply.code == 0 and "alice" in m.s.config.managers


@pytest.mark.parametrize(("token", "text"), [
    ("garbage", "error: web login refused: not a token"),
    ("alice:1000:n1", "error: web login refused: the login token has expired: make another "
                      "with 'gridd web login'"),
])
def test_a_login_refused_says_why_and_opens_no_session(token: str, text: str):
    h, _ = handler(secured=True)
    m, fx = make_master(), Effects()
    h.handle(m, CLIENT, frames(p.WebLogin(token=token, rid=1)), WEB, 1000.0, fx)
    assert fx.replies == [(ID, p.Error(text=text, rid=1))]
    assert h.sessions.sessions == {}


def test_a_token_replayed_is_refused():
    h, _ = handler(secured=True)
    m, fx = make_master(), Effects()
    log_in(h, m)
    h.handle(m, CLIENT, frames(p.WebLogin(token="alice:1300.0:n1", rid=1)), WEB, 1010.0, fx)
    assert fx.replies == [(ID, p.Error(text="error: web login refused: the login token was "
                                            "used before: make another with 'gridd web "
                                            "login'", rid=1))]


def watch(h: Handler, m, since: int, fx: Effects, ident: bytes = ID, rid: int = 5) -> None:
    h.handle(m, CLIENT, frames(p.Watch(since=since, rid=rid), ident), WEB, 1000.0, fx)


def test_a_watch_is_answered_at_once_when_the_version_differs_else_after_a_change():
    h, _ = handler(secured=True)
    m, fx = make_master(), Effects()
    watch(h, m, since=3, fx=fx)
    assert fx.replies == [(ID, p.Changed(version=0, rid=5))]
    fx = Effects()
    watch(h, m, since=0, fx=fx)
    watch(h, m, since=0, fx=fx, ident=b"other", rid=6)
    h.committed(fx)
    assert fx.replies == []  # held: nothing changed
    fx = Effects()
    h.handle(m, CLIENT, frames(p.Submit(spec=spec(), rid=1)), Peer("user:alice", "head"),
             1000.0, fx)
    h.committed(fx)
    assert fx.replies[1:] == [(ID, p.Changed(version=1, rid=5)),
                              (b"other", p.Changed(version=1, rid=6))]
    fx = Effects()
    watch(h, m, since=1, fx=fx)
    h.committed(fx)
    assert fx.replies == [] and h.watches.held == [(ID, 5)]


def test_the_host_check_answers_every_watch_held_with_the_same_version():
    h, _ = handler(secured=True)
    m, fx = make_master(), Effects()
    watch(h, m, since=0, fx=fx)
    h.handle(m, TIMER, [], None, 1000.0, fx)
    assert fx.replies == [(ID, p.Changed(version=0, rid=5))]
    assert h.watches.held == []


def test_a_session_watches_too():
    h, _ = handler(secured=True)
    m = make_master()
    assert as_user(h, m, log_in(h, m), p.Watch(since=9)) == p.Changed(version=0, rid=21)


def test_the_version_is_raised_by_changes_of_what_pages_show_not_by_a_bare_load_report():
    m = make_master()
    fx = Effects()
    m.register(p.Register(host="node1", load={"load_avg": "0.1"}), 1000.0, fx)
    assert raises_version(fx)  # the host is up
    fx = Effects()
    m.load_report(p.LoadReport(host="node1", load={"load_avg": "0.5"}), 1010.0, fx)
    assert not raises_version(fx)
    assert not raises_version(Effects(sched_loads={"node1": {}}, counters_changed=True))
    for changed in ({"dirty_jobs": {1}}, {"dirty_tasks": {(1, 1)}}, {"gone_jobs": {1}},
                    {"dirty_ars": {1}}, {"gone_ars": {1}}, {"dirty_hosts": {"node1"}},
                    {"hosts_changed": True}, {"flags_changed": True},
                    {"config_changed": True}):
        assert raises_version(Effects(**changed)), changed

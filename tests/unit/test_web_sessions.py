"""Web sessions (gridd.master.web_sessions): which login claims open one, who may use it
and until when; time given, as the master actor gives it."""

from __future__ import annotations

from gridd.login_token import Claim
from gridd.master.web_sessions import MAX_AHEAD, PER_USER, SESSION_LIFETIME, WebSessions

WEB, OTHER = "user:root", "user:mallory"  # the web server's key, another key


def claim(expires: float = 1300.0, nonce: str = "n1", user: str = "alice") -> Claim:
    return Claim(user=user, expires=expires, nonce=nonce)


def test_a_claim_opens_a_session_of_twelve_hours_held_by_the_key_that_logged_in():
    sessions = WebSessions()
    session = sessions.login(claim(), WEB, "s1", now=1000.0)
    assert session == ("alice", WEB, 1000.0 + SESSION_LIFETIME)
    assert sessions.find("s1", WEB, now=1000.0 + SESSION_LIFETIME - 1) == session
    assert sessions.find("s1", WEB, now=1000.0 + SESSION_LIFETIME) is None
    assert sessions.find("s1", OTHER, now=1000.0) is None
    assert sessions.find("s2", WEB, now=1000.0) is None


def test_an_expired_token_or_one_valid_too_long_opens_none():
    sessions = WebSessions()
    assert "has expired" in sessions.login(claim(expires=1000.0), WEB, "s1", now=1000.0)
    assert "valid for more than 10 minutes" in sessions.login(
        claim(expires=1000.0 + MAX_AHEAD + 1), WEB, "s1", now=1000.0)
    assert sessions.sessions == {} and sessions.nonces == {}
    assert sessions.login(claim(expires=1000.0 + MAX_AHEAD), WEB, "s1", now=1000.0)


def test_a_token_is_used_once_and_its_nonce_forgotten_once_it_expired():
    sessions = WebSessions()
    sessions.login(claim(nonce="n1"), WEB, "s1", now=1000.0)
    again = sessions.login(claim(nonce="n1"), WEB, "s2", now=1100.0)
    assert again == "the login token was used before: make another with 'gridd web login'"
    assert "s2" not in sessions.sessions
    sessions.login(claim(expires=1500.0, nonce="n2"), WEB, "s3", now=1400.0)
    assert set(sessions.nonces) == {"n2"}  # n1's token expired at 1300
    sessions.expire(now=1500.0)
    assert sessions.nonces == {} and set(sessions.sessions) == {"s1", "s3"}


def test_only_its_holder_ends_a_session_and_expired_ones_are_forgotten():
    sessions = WebSessions()
    sessions.login(claim(), WEB, "s1", now=1000.0)
    sessions.logout("s1", OTHER)
    assert sessions.find("s1", WEB, now=1000.0) is not None
    sessions.logout("s1", WEB)
    assert sessions.find("s1", WEB, now=1000.0) is None
    sessions.logout("s1", WEB)  # twice: nothing
    sessions.login(claim(nonce="n2"), WEB, "s2", now=1000.0)
    sessions.expire(now=1000.0 + SESSION_LIFETIME)
    assert sessions.sessions == {}


def test_a_user_has_so_many_sessions_at_most_and_a_new_one_ends_the_oldest():
    sessions = WebSessions()
    for i in range(PER_USER):
        sessions.login(claim(nonce=f"a{i}"), WEB, f"a{i}", now=1000.0 + i)
    sessions.login(claim(nonce="b", user="bob"), WEB, "b", now=1000.0)
    sessions.login(claim(nonce="new"), WEB, "new", now=1200.0)
    assert "a0" not in sessions.sessions and {"a1", "b", "new"} <= set(sessions.sessions)
    assert len(sessions.sessions) == PER_USER + 1

"""Web login tokens (gridd.login_token): only the user's key makes one, only the master's
opens it, and a token changed, too long or under another name opens to no claim."""

from __future__ import annotations

import nacl.public
import pytest

from gridd import login_token
from gridd.master.web_sessions import WebSessions


def pair() -> tuple[bytes, bytes]:
    secret = nacl.public.PrivateKey.generate()
    return bytes(secret.public_key), bytes(secret)


MASTER, ALICE, BOB = pair(), pair(), pair()
PUBLIC = {"alice": ALICE[0], "bob": BOB[0]}
BASE64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"


def opened(token: str, master_secret: bytes = MASTER[1]) -> login_token.Claim | str:
    return login_token.open(token, master_secret, PUBLIC.get)


def test_a_token_opens_to_its_users_claim_with_an_expiry_and_a_fresh_nonce():
    token = login_token.make("alice", ALICE[1], MASTER[0], now=1000.0)
    again = login_token.make("alice", ALICE[1], MASTER[0], now=1000.0)
    assert token.startswith("alice.") and "=" not in token and len(token) < 200
    claim = opened(token)
    assert isinstance(claim, login_token.Claim)
    assert (claim.user, claim.expires) == ("alice", 1000.0 + login_token.LIFETIME)
    assert len(claim.nonce) == 32 and claim.nonce != opened(again).nonce


def test_a_changed_token_opens_to_nothing():
    token = login_token.make("alice", ALICE[1], MASTER[0], now=1000.0)
    body = token.partition(".")[2]
    for i in (0, len(body) // 2, len(body) - 1):
        # The character's highest bit: the last one's lowest bits may be padding.
        flipped = BASE64[BASE64.index(body[i]) ^ 32]
        changed = "alice." + body[:i] + flipped + body[i + 1:]
        assert opened(changed) == ("the login token was not made with the key of user "
                                   "alice, or was changed")
    assert "was changed" in opened("alice." + body[:-10])
    assert "was changed" in opened("alice.!!!")


def test_a_token_made_with_another_key_or_for_another_master_opens_to_nothing():
    by_bob = login_token.make("alice", BOB[1], MASTER[0], now=1000.0)
    assert "not made with the key of user alice" in opened(by_bob)
    elsewhere = login_token.make("alice", ALICE[1], pair()[0], now=1000.0)
    assert "not made with the key of user alice" in opened(elsewhere)
    token = login_token.make("alice", ALICE[1], MASTER[0], now=1000.0)
    assert "not made with the key" in opened(token, master_secret=pair()[1])


def test_another_users_name_in_front_of_a_token_opens_to_nothing():
    bobs = login_token.make("bob", BOB[1], MASTER[0], now=1000.0)
    assert "not made with the key of user alice" in opened("alice." + bobs.partition(".")[2])
    # Bob's own key, claiming Alice inside: the name in front is Bob's.
    claiming = login_token.make("alice", BOB[1], MASTER[0], now=1000.0)
    assert opened("bob." + claiming.partition(".")[2]) == ("the login token names user "
                                                           "alice, not bob")


def test_a_user_without_a_key_a_token_too_long_or_no_token_at_all():
    carol = pair()
    token = login_token.make("carol", carol[1], MASTER[0], now=1000.0)
    assert opened(token) == "the cell has no key of user carol"
    assert opened("x" * 1025) == "the login token is too long (1025 characters)"
    for nothing in ("", "alice", ".abc"):
        assert opened(nothing) == "this is not a login token (made by 'gridd web login')"


@pytest.mark.parametrize(("made", "used", "why"), [
    (1000.0, 1000.0 + login_token.LIFETIME, "has expired"),
    (1000.0, 1000.0, None),
])
def test_an_expired_token_opens_but_logs_nobody_in(made: float, used: float, why: str | None):
    claim = opened(login_token.make("alice", ALICE[1], MASTER[0], now=made))
    assert isinstance(claim, login_token.Claim)
    session = WebSessions().login(claim, "user:root", "s1", now=used)
    assert (why in session) if why else session.user == "alice"

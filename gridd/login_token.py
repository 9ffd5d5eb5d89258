"""Web login tokens: proof, made offline with a user's own key, that this user asks the
master for a web session.

`gridd web login` makes one; the master, not the web server, opens it. The token is the
user's name, a dot, and a NaCl box (the user's secret key, the master's public key)
holding who, until when and a nonce: only the holder of that user's secret key can make
it, only the master can read it. What a claim may then open (its expiry, a nonce used
once) is the master's to judge: gridd.master.web_sessions.
"""

from __future__ import annotations

import base64
import binascii
import os
import secrets
from collections.abc import Callable

import msgspec

LIFETIME = 300.0  # seconds a token made by `gridd web login` may be used in
MAX_TOKEN = 1024  # characters: a token is about 200; anything longer is not one


class Claim(msgspec.Struct, frozen=True):
    """What a token says: the user, until when it may be used (seconds since the
    epoch) and a nonce that makes it usable once."""

    user: str
    expires: float
    nonce: str


_decode_claim = msgspec.json.Decoder(Claim).decode


def make(user: str, secret: bytes, master_public: bytes, now: float,
         lifetime: float = LIFETIME) -> str:
    """A token for `user`, sealed with the user's secret key for the master's public key."""
    import nacl.public  # here: the master imports this module, and opens a token seldom

    claim = Claim(user=user, expires=now + lifetime, nonce=secrets.token_hex(16))
    box = nacl.public.Box(nacl.public.PrivateKey(secret), nacl.public.PublicKey(master_public))
    sealed = bytes(box.encrypt(msgspec.json.encode(claim)))
    return f"{user}.{base64.urlsafe_b64encode(sealed).rstrip(b'=').decode('ascii')}"


def open(token: str, master_secret: bytes,
         public_of: Callable[[str], bytes | None]) -> Claim | str:
    """The claim a token holds, or why it is none (words for the user). `public_of`:
    the public key of a user of the cell by name (None: no such user's key)."""
    if len(token) > MAX_TOKEN:
        return f"the login token is too long ({len(token)} characters)"
    user, dot, body = token.partition(".")
    if not dot or not user:
        return "this is not a login token (made by 'gridd web login')"
    public = public_of(user)
    if public is None:
        return f"the cell has no key of user {user}"
    import nacl.exceptions
    import nacl.public

    try:
        sealed = base64.urlsafe_b64decode(body + "=" * (-len(body) % 4))
        box = nacl.public.Box(nacl.public.PrivateKey(master_secret),
                              nacl.public.PublicKey(public))
        claim = _decode_claim(box.decrypt(sealed))
    except (binascii.Error, ValueError, nacl.exceptions.CryptoError, msgspec.DecodeError):
        return f"the login token was not made with the key of user {user}, or was changed"
    if claim.user != user:
        return f"the login token names user {claim.user}, not {user}"
    return claim


def for_current_user(base: str | os.PathLike[str] | None, now: float) -> str:
    """A token for the user running this process, with the key a client connects with
    ($GRIDD_KEY, else the user's in the cell); GriddError when there is none."""
    from gridd.client import GriddError, current_user, own_keys

    curve, _ = own_keys(base)
    if curve is None:
        raise GriddError("error: web logins need a cell with keys: this one was made with "
                         "'gridd up --security none'")
    return make(current_user(), curve.secret, curve.server_public, now)

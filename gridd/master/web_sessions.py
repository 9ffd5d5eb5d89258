"""Web sessions: who a web server's requests are made as, once a user logged in.

A user logs in to `gridd web` with a token made with their own key (gridd.login_token),
which the web server hands the master in a WebLogin. The master actor opens the token;
here it is decided whether the claim it holds may open a session: not expired, not
valid for longer than a token ever needs to be, its nonce never used before. A session
is bound to the key of the connection that logged in (the web server's): a request made
in it (AsUser) from another key is refused, as is one after it expired or ended.

Time and the session's random id are given: this module reads no clock and draws no
random numbers.
"""

from __future__ import annotations

from typing import NamedTuple, Protocol

SESSION_LIFETIME = 12 * 3600.0  # seconds a web login lasts
MAX_AHEAD = 600.0  # seconds a token may be valid for at most
PER_USER = 100  # sessions a user may have at once; the oldest ends for a new one

ENDED = ("error: your web login has expired or was ended: log in again with "
         "'gridd web login'")


class Claim(Protocol):
    """What an opened login token says (gridd.login_token.Claim)."""

    @property
    def user(self) -> str: ...

    @property
    def expires(self) -> float: ...

    @property
    def nonce(self) -> str: ...


class Session(NamedTuple):
    user: str  # whom its requests are made as
    holder: str  # the User-Id of the connection that logged in: the only one that may use it
    expires: float


class WebSessions:
    """The sessions open now, and the nonces of the tokens that opened them until
    those tokens expire (a token is used once)."""

    def __init__(self) -> None:
        self.sessions: dict[str, Session] = {}  # by id, oldest first
        self.nonces: dict[str, float] = {}  # nonce -> when its token expires

    def login(self, claim: Claim, holder: str, session_id: str, now: float) -> Session | str:
        """Open session `session_id` for the claim's user, held by the key `holder`; or
        why not, in words for the user."""
        if claim.expires <= now:
            return "the login token has expired: make another with 'gridd web login'"
        if claim.expires > now + MAX_AHEAD:
            return (f"the login token is valid for more than {MAX_AHEAD / 60:g} minutes: "
                    "make another with 'gridd web login'")
        self.expire(now)
        if claim.nonce in self.nonces:
            return "the login token was used before: make another with 'gridd web login'"
        self.nonces[claim.nonce] = claim.expires
        mine = [sid for sid, session in self.sessions.items() if session.user == claim.user]
        for sid in mine[:max(len(mine) + 1 - PER_USER, 0)]:
            del self.sessions[sid]
        session = self.sessions[session_id] = Session(claim.user, holder,
                                                      now + SESSION_LIFETIME)
        return session

    def find(self, session_id: str, holder: str, now: float) -> Session | None:
        """The session a request names, if it is open and `holder` holds it."""
        session = self.sessions.get(session_id)
        if session is None or session.holder != holder or session.expires <= now:
            return None
        return session

    def logout(self, session_id: str, holder: str) -> None:
        """End a session; only its holder may (for another, nothing happens)."""
        session = self.sessions.get(session_id)
        if session is not None and session.holder == holder:
            del self.sessions[session_id]

    def expire(self, now: float) -> None:
        """Forget the sessions and nonces whose time is over."""
        self.sessions = {sid: s for sid, s in self.sessions.items() if s.expires > now}
        self.nonces = {nonce: until for nonce, until in self.nonces.items() if until > now}

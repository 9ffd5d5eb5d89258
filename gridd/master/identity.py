"""Who sent a request: names the master fills in from the connection, never the client.

A client request names its sender in several places: a ``user`` field (qdel, qalter,
qmod, qconf, qrdel, gridd spool), the job or reservation spec's owner and group (qsub,
qrsub), and the host it was sent from (``host`` fields, a job's submit host). The master
knows the sender from the key the connection was authenticated with and the host from
its address, and overwrites all of those with what it knows, so that the core can trust
them: a client claiming another user's name is simply taken for who it is.

Generic over the protocol on purpose: a message that gains a ``user`` or ``host`` field
is stamped without a change here, unless its class names the field in ``NOT_STAMPED``
(StartPeTask's ``host`` is where the task is to run, which the user chooses).
"""

from __future__ import annotations

import msgspec

# Fields of a request's spec that name its sender, and which of the values they take.
_SPEC_FIELDS = (("owner", "user"), ("group", "group"), ("submit_host", "host"), ("uid", "uid"),
                ("gid", "gid"))


def stamp(msg: msgspec.Struct, user: str, group: str, host: str, *, uid: int | None = None,
          gid: int | None = None) -> None:
    """Set every field of `msg` naming who sent it, and from where, to these; a spec's
    uid and gid too when they are known (None: the user is unknown to the master)."""
    who = {"user": user, "group": group, "host": host, "uid": uid, "gid": gid}
    fields = msg.__struct_fields__
    kept = getattr(type(msg), "NOT_STAMPED", ())
    for name in ("user", "host"):
        if name in fields and name not in kept:
            setattr(msg, name, who[name])
    spec = getattr(msg, "spec", None) if "spec" in fields else None
    if isinstance(spec, msgspec.Struct):
        for name, what in _SPEC_FIELDS:
            if name in spec.__struct_fields__ and who[what] is not None:
                setattr(spec, name, who[what])

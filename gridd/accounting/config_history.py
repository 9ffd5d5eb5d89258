"""The configuration's history: how a ConfigRecord travels into the reporting database.

Grid Engine's reporting file has no line for a configuration change, so these records
never reach it; they reach DuckDB by the same road as every other record, because that
road already gives exactly-once (the outbox seq is checked against the ingest ledger), the
inbox's cheap batching and the fold's transaction. That road carries reporting(5)-shaped
lines, so a change travels as one:

    <epoch seconds>:config:{"time":<epoch, fractions kept>,"kind":K,"name":N,"body":B}

The part after the type is JSON rather than ':'-separated fields because an object's
body is JSON (full of ':') and its name is text no escaping should alter. B is the object
as the master encoded it, or null when the change deleted it. The fraction of the time
is kept: two changes of one object within a second must still be told apart and ordered.
The fold (arco_sql.CONFIG_HISTORY, one of arco_sql.INSERTS) turns these lines into rows
of sge_config_history.
"""

from __future__ import annotations

import msgspec

from gridd.model.report import ConfigRecord

TYPE = "config"  # the type field of the line; the reporting file knows no such type


class _Line(msgspec.Struct):
    time: float
    kind: str
    name: str
    body: msgspec.Raw | None


_encode = msgspec.json.Encoder().encode


def line(record: ConfigRecord) -> str:
    """The database line of a configuration change, without its newline.

    The body is decoded and encoded again: a body that is not JSON fails here, where it
    costs this one record (left unconfirmed, logged), not in the fold, where it would
    stop every batch after it; and the encoding is compact, so the line holds no newline
    whatever whitespace the body came with.
    """
    body = None if record.body is None else msgspec.Raw(
        _encode(msgspec.json.decode(record.body)))
    text = _encode(_Line(time=record.time, kind=record.kind, name=record.key, body=body))
    return f"{int(record.time)}:{TYPE}:{text.decode()}"

"""Times and XML text as the q* commands print them, wherever the text is made: in the
command, or on the master for a listing it prints for a client (qstat's plain listing,
gridd.formats.qstat_rows), in the client's time zone (`zoned`)."""

from __future__ import annotations

import time

TYPE_CHECKING = False  # typing's own costs a q* command milliseconds to import
if TYPE_CHECKING:
    from collections.abc import Callable
    from datetime import tzinfo

STAMP = "%m/%d/%Y %H:%M:%S"
XML_STAMP = "%Y-%m-%dT%H:%M:%S"


def stamp(ts: float) -> str:
    """A time as qstat and qrstat show it, in local time."""
    return time.strftime(STAMP, time.localtime(ts))


def xml_escape(text: str) -> str:
    """Escape the characters XML reserves in text and attribute values."""
    return (text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
            .replace('"', "&quot;").replace("'", "&apos;"))


def xml_stamp(ts: float) -> str:
    """A time as their -xml output shows it."""
    return time.strftime(XML_STAMP, time.localtime(ts))


def zoned(form: str, zone: tzinfo | None) -> Callable[[float], str]:
    """Times shown as `form` (STAMP, XML_STAMP) in the time zone `zone`: where the master
    prints a listing for a client, the client's (gridd.connection.time_zone, found by
    the master actor). This process's local time for None."""
    if zone is None:
        return lambda ts: time.strftime(form, time.localtime(ts))
    from datetime import datetime

    return lambda ts: datetime.fromtimestamp(ts, zone).strftime(form)

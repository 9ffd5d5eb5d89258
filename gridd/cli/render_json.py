"""What every q* command's -json output shares: one document per call, times in ISO 8601
with the local offset, numbers as numbers. Small on purpose (json and datetime are
stdlib), so a command that imports it stays light.

The documents carry what -xml carries (qacct, which has no XML, what its text carries),
under the XML's element names; the schemas/ folder describes each command's document.
"""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any


def iso(ts: float) -> str:
    """A time in ISO 8601, in local time with its offset: what -xml shows, made
    unambiguous."""
    return datetime.fromtimestamp(ts).astimezone().isoformat(timespec="seconds")


def number(text: str | None) -> int | float | None:
    """A value shown as text, as a number when it is one (an int when whole), else None."""
    if text is None:
        return None
    try:
        value = float(text)
    except ValueError:
        return None
    if value != value or value in (float("inf"), float("-inf")):  # JSON has no NaN
        return None
    return int(value) if value.is_integer() and "." not in text and "e" not in text.lower() \
        else value


def document(value: Any) -> str:
    """The command's whole output: one JSON document and a newline."""
    return json.dumps(value, indent=2, ensure_ascii=False) + "\n"

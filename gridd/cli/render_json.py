"""What every q* command's -json output shares: one document per call, times in ISO 8601
(UTC, as Open Cluster Scheduler 9.2 writes them), numbers as numbers. Small on purpose
(json and datetime are stdlib), so a command that imports it stays light.

The documents carry what -xml carries (qacct, which has no XML, what its text carries),
under Open Cluster Scheduler 9.2's keys where it has them (its `-fmt json`), else under
the XML's element names; the schemas/ folder describes each command's document.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any


def iso(ts: float) -> str:
    """A time in ISO 8601 as Open Cluster Scheduler writes it: UTC, milliseconds, Z."""
    stamp = datetime.fromtimestamp(ts, UTC).isoformat(timespec="milliseconds")
    return stamp.replace("+00:00", "Z")


def whole(value: float) -> int | float:
    """A number as JSON should carry it: a whole one as an integer."""
    return int(value) if float(value).is_integer() else value


def document(value: Any) -> str:
    """The command's whole output: one JSON document and a newline."""
    return json.dumps(value, indent=2, ensure_ascii=False) + "\n"


def mail_address(address: str) -> dict[str, str]:
    """A -M address as Open Cluster Scheduler's documents give it: user and host."""
    user, _, host = address.partition("@")
    return {"user": user, "host": host}

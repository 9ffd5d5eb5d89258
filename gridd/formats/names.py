"""Small value syntaxes of qconf objects and q* options: queue references and DATE_TIME.

Queue references (`-q`, `-masterq`, subordinate and RQS `queues` lists) follow Grid
Engine's rule of splitting at the first `@`: what precedes it is a cluster queue pattern
(empty means every cluster queue), what follows is a host pattern, or with a second `@`
a host group pattern. So `@node1` is every queue on host node1 and `@@linux` every queue
on the hosts of host group @linux; a bare `@linux` names a *host* called "linux".
"""

from __future__ import annotations

import calendar
import re
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from fnmatch import fnmatchcase

ToEpoch = Callable[[tuple[int, ...]], float]
FromEpoch = Callable[[float], time.struct_time]


@dataclass(frozen=True)
class QueueRef:
    """One element of a queue list, with its wildcards (fnmatch patterns) unexpanded.

    Patterns are kept rather than expanded because the set of queues and hosts changes
    after a job is submitted, and the job must then match the new ones too.
    """

    cluster_queue_pattern: str
    host_pattern: str | None = None
    hostgroup: str | None = None

    def matches(self, queue: str, host: str, hostgroups: Iterable[str] = ()) -> bool:
        """Whether queue instance `queue@host` is meant; `hostgroups` are those of `host`.

        Host names compare without regard to case, as host names do everywhere.
        """
        if not fnmatchcase(queue, self.cluster_queue_pattern or "*"):
            return False
        if self.host_pattern is not None:
            return fnmatchcase(host.lower(), self.host_pattern.lower())
        if self.hostgroup is not None:
            return any(fnmatchcase(group, self.hostgroup) for group in hostgroups)
        return True

    def __str__(self) -> str:
        if self.host_pattern is not None:
            return f"{self.cluster_queue_pattern}@{self.host_pattern}"
        if self.hostgroup is not None:
            return f"{self.cluster_queue_pattern}@{self.hostgroup}"
        return self.cluster_queue_pattern


def parse_queue_ref(text: str) -> QueueRef:
    """`all.q`, `all.q@node*`, `*@@linux`, `@node1` → QueueRef."""
    queue, has_at, place = text.strip().partition("@")
    if not has_at:
        if not queue:
            raise ValueError(f'invalid queue reference "{text}"')
        return QueueRef(queue)
    if place.startswith("@"):
        if len(place) == 1:
            raise ValueError(f'invalid queue reference "{text}"')
        return QueueRef(queue, hostgroup=place)
    if not place:
        raise ValueError(f'invalid queue reference "{text}"')
    return QueueRef(queue, host_pattern=place)


def parse_queue_list(text: str) -> list[QueueRef]:
    """A comma-separated queue list; empty elements are skipped like in other lists."""
    return [parse_queue_ref(item) for item in text.split(",") if item.strip()]


# --- DATE_TIME ----------------------------------------------------------------------

_DATE_TIME = re.compile(r"(?P<digits>(?:[0-9]{2}){4,6})(?:\.(?P<seconds>[0-9]{2}))?")


def parse_date_time(
    text: str,
    *,
    now: float,
    to_epoch: ToEpoch = time.mktime,
    from_epoch: FromEpoch = time.localtime,
) -> int:
    """Epoch seconds of `[[CC]YY]MMDDhhmm[.SS]` (`qsub -a`, `qrsub -a/-e`).

    The time zone is the pair `to_epoch`/`from_epoch` (local time by default; tests pass
    `calendar.timegm`/`time.gmtime`). Without a year, the year of `now` is meant; a
    two-digit year below 70 is in the 2000s, otherwise in the 1900s.
    """
    match = _DATE_TIME.fullmatch(text.strip())
    if match is None:
        raise ValueError(f'invalid date_time "{text}"')
    digits = match["digits"]
    fields = [int(digits[i : i + 2]) for i in range(0, len(digits), 2)]
    month, day, hour, minute = fields[-4:]
    if len(fields) == 6:
        year = fields[0] * 100 + fields[1]
    elif len(fields) == 5:
        year = fields[0] + (2000 if fields[0] < 70 else 1900)
    else:
        year = from_epoch(now).tm_year
    second = int(match["seconds"] or 0)
    if not (
        1 <= month <= 12
        and 1 <= day <= calendar.monthrange(year, month)[1]
        and hour <= 23
        and minute <= 59
        and second <= 59
    ):
        raise ValueError(f'invalid date_time "{text}"')
    return int(to_epoch((year, month, day, hour, minute, second, 0, 0, -1)))


_DATE_FORMAT = re.compile(r"(?:[0-9]{2}){4,6}")


def date_time_complaint(text: str) -> str:
    """8.1.9's words for what is wrong with a `[[CC]YY]MMDDhhmm[.SS]` that does not parse
    (qsub -a and -dl, qrsub -a and -e, qacct -b and -e say them)."""
    digits, dot, seconds = text.partition(".")
    if not _DATE_FORMAT.fullmatch(digits):
        return "Invalid format of date/hour-minute field."
    if dot and not re.fullmatch(r"[0-9]{2}", seconds):
        return "Invalid format of seconds field."
    month, _, hour, minute = (int(digits[-n : len(digits) - n + 2]) for n in (8, 6, 4, 2))
    if not 1 <= month <= 12:
        return "Invalid month specification."
    if hour > 23:
        return "Invalid hour specification."
    if minute > 59:
        return "Invalid minute specification."
    if dot and int(seconds) > 59:
        return "Invalid seconds specification."
    return "Invalid day specification."  # the one check left: the day within its month


def format_date_time(epoch: float, *, from_epoch: FromEpoch = time.localtime) -> str:
    """The full `CCYYMMDDhhmm.SS` form, which parse_date_time reads back unchanged."""
    return time.strftime("%Y%m%d%H%M.%S", from_epoch(epoch))


"""Small value syntaxes of qconf objects and q* options: DATE_TIME. (Queue references have
their rule in gridd.model.queue_ref, booleans in gridd.model.values.)"""

from __future__ import annotations

import re
import time
from collections.abc import Callable

ToEpoch = Callable[[tuple[int, ...]], float]
FromEpoch = Callable[[float], time.struct_time]


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
        and 1 <= day <= _days_in(year, month)
        and hour <= 23
        and minute <= 59
        and second <= 59
    ):
        raise ValueError(f'invalid date_time "{text}"')
    return int(to_epoch((year, month, day, hour, minute, second, 0, 0, -1)))


_DATE_FORMAT = re.compile(r"(?:[0-9]{2}){4,6}")


def _days_in(year: int, month: int) -> int:
    """Days in a month of the Gregorian calendar (here rather than calendar.monthrange,
    whose import of locale a q* command would pay for at every start)."""
    if month == 2:
        return 29 if year % 4 == 0 and (year % 100 != 0 or year % 400 == 0) else 28
    return 30 if month in (4, 6, 9, 11) else 31


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

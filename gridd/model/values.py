"""Grid Engine's TIME, MEMORY and BOOL values and its unsigned numbers (sge_types(5)).

Limits such as `h_rt` and `h_vmem` arrive as text from `-l`, queue configurations and
complex defaults; the scheduler and execd compare them as numbers, so every place that
reads one goes through these parsers and gets the same answer and the same errors. They
are rules about values, not a file format: the model (a complex attribute's default), the
planner and every text format share them, so they live here, in stdlib alone.
"""

from __future__ import annotations

import math
import re

INFINITY = "INFINITY"

# Lower case multiplies by powers of 1000, upper case by powers of 1024, as in Grid Engine.
_MEMORY_FACTORS = {
    "k": 1000.0,
    "K": 1024.0,
    "m": 1000.0**2,
    "M": 1024.0**2,
    "g": 1000.0**3,
    "G": 1024.0**3,
    "t": 1000.0**4,
    "T": 1024.0**4,
}


_DECIMAL = re.compile(r"[0-9]+(\.[0-9]*)?|\.[0-9]+")
_TIME_PART = re.compile(r"[0-9]*")


def is_unsigned(text: str) -> bool:
    """Digits 0-9 only: a number int() reads as written (str.isdigit() also takes "²",
    which int() refuses, and int() also takes signs, blanks and "٣")."""
    return text.isascii() and text.isdigit()


def _is_infinity(text: str) -> bool:
    return text.strip().upper() == INFINITY


def _number(text: str, what: str, original: str) -> float:
    """A non-negative decimal number; rejects nan/inf spellings float() would accept."""
    if not _DECIMAL.fullmatch(text):
        raise ValueError(f'invalid {what} value "{original}"')
    return float(text)


def parse_time(text: str) -> float:
    """Seconds in a TIME value `[[h:]m:]s` or `INFINITY`.

    Empty components count as zero (`::5` is five seconds) and components may exceed
    59 (`0:90:0` is 90 minutes), because configurations written by hand rely on both.
    """
    if is_unsigned(text):  # seconds alone, as most limits are given
        return float(text)
    if _is_infinity(text):
        return math.inf
    stripped = text.strip()
    parts = stripped.split(":")
    if not stripped or len(parts) > 3:
        raise ValueError(f'invalid time value "{text}"')
    if len(parts) == 1:
        return _number(stripped, "time", text)
    total = 0.0
    for part in parts:
        if not _TIME_PART.fullmatch(part):
            raise ValueError(f'invalid time value "{text}"')
        total = total * 60 + (int(part) if part else 0)
    return total



def time_or(text: str, default: float) -> float:
    """Seconds in a configuration's TIME value, `default` for one empty or not a time
    (qconf refuses those, but a spooled configuration must never stop the master)."""
    try:
        return parse_time(text) if text.strip() else default
    except ValueError:
        return default

def format_time(seconds: float) -> str:
    """`H:MM:SS` for a duration, `INFINITY` for an unlimited one.

    Rounds to whole seconds: Grid Engine never shows fractions of a second in limits.
    """
    if math.isinf(seconds) and seconds > 0:
        return INFINITY
    if math.isnan(seconds) or seconds < 0:
        raise ValueError(f"cannot format {seconds!r} as a time value")
    whole = int(round(seconds))
    hours, rest = divmod(whole, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}"


def parse_memory(text: str) -> float:
    """Bytes in a MEMORY value: a number with an optional `kKmMgGtT` suffix, or `INFINITY`."""
    if _is_infinity(text):
        return math.inf
    stripped = text.strip()
    factor = _MEMORY_FACTORS.get(stripped[-1:], 1.0)
    digits = stripped[:-1] if stripped[-1:] in _MEMORY_FACTORS else stripped
    return _number(digits, "memory", text) * factor


_TRUE = frozenset({"true", "1"})
_FALSE = frozenset({"false", "0"})


def parse_bool(text: str) -> bool:
    """Grid Engine's booleans: TRUE/FALSE in any case, or 1/0.

    YES/NO are not booleans in Grid Engine: they are keywords of the complex table's
    requestable and consumable columns, and a BOOL attribute refuses them.
    """
    word = text.strip().lower()
    if word in _TRUE:
        return True
    if word in _FALSE:
        return False
    raise ValueError(f'invalid boolean value "{text}"')


def format_bool(value: bool) -> str:
    """TRUE/FALSE, as queue, PE and scheduler configurations show booleans."""
    return "TRUE" if value else "FALSE"

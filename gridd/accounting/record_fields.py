"""The accounting(5) line's fields, their types, and how a line is cut into them.

Kept apart from the record type (record.py, a dataclass) so that `qacct -j N` can read
the cell's accounting file in a command that starts light (gridd.cli.qacct_quick): a
dataclass loads inspect, ast and dis, more than the rest of such a command.
"""

from __future__ import annotations

# Every field in the file's order, with its type (record.AccountingRecord's attributes).
_LAYOUT: tuple[tuple[str, type], ...] = (
    ("qname", str), ("hostname", str), ("group", str), ("owner", str),
    ("job_name", str), ("job_number", int), ("account", str), ("priority", int),
    ("submission_time", int), ("start_time", int), ("end_time", int), ("failed", int),
    ("exit_status", int), ("ru_wallclock", int), ("ru_utime", float), ("ru_stime", float),
    ("ru_maxrss", float), ("ru_ixrss", int), ("ru_ismrss", int), ("ru_idrss", int),
    ("ru_isrss", int), ("ru_minflt", int), ("ru_majflt", int), ("ru_nswap", int),
    ("ru_inblock", float), ("ru_oublock", int), ("ru_msgsnd", int), ("ru_msgrcv", int),
    ("ru_nsignals", int), ("ru_nvcsw", int), ("ru_nivcsw", int), ("project", str),
    ("department", str), ("granted_pe", str), ("slots", int), ("task_number", int),
    ("cpu", float), ("mem", float), ("io", float), ("category", str), ("iow", float),
    ("pe_taskid", str), ("maxvmem", float), ("arid", int), ("ar_submission_time", int),
)
FIELDS: tuple[str, ...] = tuple(name for name, _ in _LAYOUT)
KINDS: tuple[type, ...] = tuple(kind for _, kind in _LAYOUT)
# Lines written before GE 6.2 end at maxvmem: no advance reservations then.
PRE_62_COUNT = len(FIELDS) - 2
CATEGORY = FIELDS.index("category")  # the one field that may hold ':'
# Times: epoch seconds in a line (0 for never), TIMESTAMP (NULL for never) in the database.
TIME_FIELDS = frozenset({"submission_time", "start_time", "end_time", "ar_submission_time"})


def convert(name: str, kind: type, text: str) -> str | int | float:
    """A field's text as its type; ValueError naming the field when it is not one."""
    if kind is str:
        return text
    try:
        return float(text) if kind is float else int(text)
    except ValueError:
        pass
    try:  # some writers print integer counters as floats ("24.000000")
        number = float(text)
    except ValueError:
        raise ValueError(f"accounting field {name}: {text!r} is not a number") from None
    if kind is int and number.is_integer():
        return int(number)
    raise ValueError(f"accounting field {name}: {text!r} is not an integer")


def _tail_fits(tail: list[str], kinds: tuple[type, ...]) -> bool:
    try:
        for kind, text in zip(kinds, tail, strict=True):
            convert("", kind, text)
    except ValueError:
        return False
    return True


def split(line: str) -> tuple[list[str], int]:
    """Cut a line into fields and say how many of the current layout it fills.

    A category holding ':' adds fields in the middle; the fixed types of the fields after
    it show where it ends. Pre-6.2 lines are taken only at their exact length, so a
    truncated current line is not mistaken for one.
    """
    parts = line.split(":")
    if len(parts) == PRE_62_COUNT:
        return parts, PRE_62_COUNT
    extra = len(parts) - len(FIELDS)
    tail = parts[CATEGORY + 1 + extra :]
    if extra < 0 or not _tail_fits(tail, KINDS[CATEGORY + 1 :]):
        raise ValueError(
            f"accounting line has {len(parts)} fields, expected {len(FIELDS)} "
            f"(or {PRE_62_COUNT} before GE 6.2)"
        )
    category_text = ":".join(parts[CATEGORY : CATEGORY + extra + 1])
    return [*parts[:CATEGORY], category_text, *tail], len(FIELDS)


def values(parts: list[str]) -> list[str | int | float]:
    """Every field's value from a line's field texts (a pre-6.2 line's are fewer: its
    AR fields are 0); ValueError naming a field that is not of its type."""
    found = [convert(n, k, t) for n, k, t in zip(FIELDS, KINDS, parts, strict=False)]
    return found + [0] * (len(FIELDS) - len(found))

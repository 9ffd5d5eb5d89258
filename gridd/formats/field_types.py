"""The types of qconf objects' attributes, and Grid Engine's words for a value that is
not of its type.

gridd.formats.object_fields says which attribute has which type; the types are here so
that every kind shares them (a count is read alike in a queue and in a project). Grid
Engine finds some mistakes while reading a file (an "error reading file" line follows),
qconf others in what it read (and says it could not read the file), and the master the
rest (and names no file); InvalidValue.found says which, so that each command adds the
lines Grid Engine adds.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from gridd.model.objects import NONE, words
from gridd.model.rsmap import has_ids, parse, show
from gridd.model.values import format_bool, is_unsigned, parse_bool, parse_memory, parse_time

# Who finds a bad value: the reader of the file, qconf in what it read, or the master.
READING = "reading"
QCONF = "qconf"
MASTER = "master"


class InvalidValue(ValueError):
    """One value refused; `ge_lines` are Grid Engine's words for it, when known, and
    `found` who finds it (READING, QCONF or MASTER). Lines found READING are said with
    "error: " before them; the others as they are."""

    def __init__(self, message: str, ge_lines: Iterable[str] = (), *,
                 found: str = READING) -> None:
        super().__init__(message)
        self.ge_lines = tuple(ge_lines)
        self.found = found


# A check takes the attribute's name and one value (a default or a host's override) and
# returns the value as Grid Engine shows it; the name is for the messages that say it.
Check = Callable[[str, str], str]


@dataclass(frozen=True)
class FieldType:
    """What values an attribute takes. `label` names the type (STRING for free text,
    which takes anything): the tests draw wrong values by it."""

    label: str
    check: Check

    def __call__(self, attr: str, value: str) -> str:
        return self.check(attr, value)


_HOST = re.compile(r"@?[A-Za-z0-9_][A-Za-z0-9._-]*")
NAME = re.compile(r"[^\s,=\[\]@/\\:'\"]+")
# A value may list RSMAP ids in parentheses: `gpu=2(0 1)`.
_ASSIGNMENT = re.compile(r"([^\s,=]+)=([^\s,=(]+(?:\([^)]*\))?)")
DECIMAL = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
SIGNED = re.compile(r"[+-]?[0-9]+")
_ULONG_MAX = 2**32 - 1


def is_host(text: str) -> bool:
    """A host name or an @group, as host lists and [host=value] overrides take them."""
    return bool(_HOST.fullmatch(text))


def _queue_reading(value: str) -> str:
    """The line Grid Engine adds to every value it cannot read in a cluster queue."""
    return f'Error during parsing of attribute value "{value}"'


# ---- numbers ------------------------------------------------------------------------------


def _ulong_problem(attr: str, value: str, *, queue: bool) -> str | None:
    """Grid Engine's first line about a value that is no u_long32, or None if it is one."""
    if is_unsigned(value):
        return None if int(value) <= _ULONG_MAX else f'"{value}" is not an u_long32 value'
    if not DECIMAL.fullmatch(value):
        return f'error parsing unsigned long value from string "{value}"'
    if SIGNED.fullmatch(value) and value.startswith("-") and not queue:
        return f'parameter "{attr}" must be a positive number'
    return f'"{value}" is not an u_long32 value'


def check_count(attr: str, value: str) -> str:
    problem = _ulong_problem(attr, value, queue=False)
    if problem:
        raise InvalidValue(f'"{value}" is not an unsigned number', (problem,))
    return str(int(value))


def _queue_count(attr: str, value: str) -> str:
    """A cluster queue's counts, which say a negative number is no u_long32."""
    problem = _ulong_problem(attr, value, queue=True)
    if problem:
        raise InvalidValue(f'"{value}" is not an unsigned number', (problem,))
    return str(int(value))


COUNT = FieldType("COUNT", check_count)
QUEUE_COUNT = FieldType("COUNT", _queue_count)


def _double_value(value: str) -> float:
    if not DECIMAL.fullmatch(value):
        raise InvalidValue(f'"{value}" is not a number',
                           (f'error parsing double value from string "{value}"',))
    return float(value)


def check_double(attr: str, value: str) -> str:
    """Kept as written (exec hosts' scaling factors)."""
    _double_value(value)
    return value


def check_weight(attr: str, value: str) -> str:
    """Shown with six decimals, as the scheduler configuration shows its weights."""
    return f"{_double_value(value):f}"


WEIGHT = FieldType("DOUBLE", check_weight)


# ---- times, memory, booleans ----------------------------------------------------------------


def check_time(attr: str, value: str) -> str:
    """Kept as written (Grid Engine shows `0:10:0` and `00:00:60` unchanged)."""
    try:
        parse_time(value)
    except ValueError:
        raise InvalidValue(f'"{value}" is not a time value ([[h:]m:]s or INFINITY)',
                           (f'error parsing value "{value}"',)) from None
    return value


def _memory(attr: str, value: str) -> str:
    try:
        parse_memory(value)
    except (ValueError, IndexError):
        raise InvalidValue(f'"{value}" is not a memory value (number[kKmMgGtT] or INFINITY)',
                           (f'error parsing value "{value}"',)) from None
    return value


def _bool(attr: str, value: str) -> str:
    try:
        return format_bool(parse_bool(value))
    except ValueError:
        raise InvalidValue(f'"{value}" is not a boolean (TRUE or FALSE)',
                           (f'error parsing value "{value}"',)) from None


TIME = FieldType("TIME", check_time)
MEMORY = FieldType("MEMORY", _memory)
BOOL = FieldType("BOOL", _bool)


def in_queue(field: FieldType) -> FieldType:
    """The same type in a cluster queue, where Grid Engine says one line more."""

    def check(attr: str, value: str) -> str:
        try:
            return field(attr, value)
        except InvalidValue as error:
            if error.found != READING:
                raise
            raise InvalidValue(str(error), (*error.ge_lines, _queue_reading(value))) from None

    return FieldType(field.label, check)


# ---- text, names and lists ----------------------------------------------------------------


def _text(attr: str, value: str) -> str:
    return value


STRING = FieldType("STRING", _text)


def name_list(separator: str, pattern: re.Pattern[str] = NAME) -> FieldType:
    """A list of names, separated by commas or blanks on input, by `separator` when shown."""

    def check(attr: str, value: str) -> str:
        items = words(value)
        for item in items:
            if not pattern.fullmatch(item):
                raise InvalidValue(f'"{item}" is not a valid name in list "{value}"')
        return separator.join(items) if items else NONE

    return FieldType("NAMES", check)


NAMES = name_list(" ")


def _host_list(attr: str, value: str) -> str:
    items = words(value)
    for item in items:
        if not is_host(item):
            raise InvalidValue(f'"{item}" is not a valid host or @hostgroup name')
    return " ".join(items) if items else NONE


HOSTS = FieldType("HOSTS", _host_list)


def host_name(attr: str, value: str) -> str:
    """One host (or `global`), never a group."""
    if value.startswith("@") or not is_host(value):
        raise InvalidValue(f'"{value}" is not a valid host name')
    return value


def group_name(attr: str, value: str) -> str:
    if not value.startswith("@") or not is_host(value):
        raise InvalidValue(f'"{value}" is not a valid host group name (@name)')
    return value


def object_name(attr: str, value: str) -> str:
    """Queue, PE and project names: no blanks or list/override punctuation, no leading digit."""
    if not NAME.fullmatch(value) or value[0].isdigit():
        raise InvalidValue(f'"{value}" is not a valid object name')
    return value


def user_name(attr: str, value: str) -> str:
    """A user's name: no blanks or list punctuation (a leading digit is a valid login)."""
    if not NAME.fullmatch(value):
        raise InvalidValue(f'"{value}" is not a valid object name')
    return value


def project_or_none(attr: str, value: str) -> str:
    return value if value.upper() == NONE else object_name(attr, value)


OBJECT_NAME = FieldType("NAME", object_name)


def assignments(value: str) -> list[tuple[str, str]]:
    """The (name, value) items of a `name=value,...` list; InvalidValue if one is not."""
    pairs = []
    for item in words(value):
        match = _ASSIGNMENT.fullmatch(item)
        if match is None:
            raise InvalidValue(f'"{item}" is not of the form name=value')
        pairs.append((match.group(1), match.group(2)))
    return pairs


def _assignments(attr: str, value: str) -> str:
    """`name=value,...` lists such as complex_values and load_thresholds, whose values
    the complex table types (gridd.master.admin_refs); RSMAP ids as Open Cluster
    Scheduler prints them (`8(0-7)`)."""
    items = [f"{name}={_ids_shown(name, text)}" for name, text in assignments(value)]
    return ",".join(items) if items else NONE


def _ids_shown(name: str, text: str) -> str:
    if not has_ids(text):
        return text
    try:
        return show(parse(name, text))
    except ValueError:
        return text  # the master says why (gridd.model.complexes.capacity_problem)


ASSIGNMENTS = FieldType("ASSIGNMENTS", _assignments)


def factors(shown: Check) -> FieldType:
    """`name=number,...`: scaling factors and usage weights, each shown by `shown`."""

    def check(attr: str, value: str) -> str:
        items = [f"{name}={shown(attr, text)}" for name, text in assignments(value)]
        return ",".join(items) if items else NONE

    return FieldType("ASSIGNMENTS", check)


def choice(*allowed: str) -> FieldType:
    def check(attr: str, value: str) -> str:
        if value not in allowed:
            raise InvalidValue(f'"{value}" is none of {", ".join(allowed)}')
        return value

    return FieldType("CHOICE", check)


def said(field: FieldType, *lines: str) -> FieldType:
    """`field` refused in the master's words (`{value}` in a line is the value)."""

    def check(attr: str, value: str) -> str:
        try:
            return field(attr, value)
        except InvalidValue as error:
            raise InvalidValue(str(error), [line.format(value=value) for line in lines],
                               found=MASTER) from None

    return FieldType(field.label, check)

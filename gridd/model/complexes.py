"""Complex attributes: the names jobs request, queues and hosts offer, and the scheduler matches.

The table is edited as a whole (`qconf -Mc`/`-mc`), so validation takes the complete new
table together with the old one: uniqueness, protection of the built-in attributes and
attributes still referenced (by hosts, queues, quotas, jobs...) are properties of the
change, not of a row.
Messages are Grid Engine 8.1.9's where it prints one; where it silently accepts something
that breaks scheduling later (an INT default of "abc"), the row is refused with our own text.

Value parsing comes from `gridd.model.values` so that a default such as
"1G" is judged by the same parser the scheduler and execd use.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator, Mapping, Sequence

import msgspec

from gridd.model import rsmap
from gridd.model.values import parse_memory, parse_time

TYPES = ("INT", "STRING", "TIME", "MEMORY", "BOOL", "DOUBLE", "HOST", "CSTRING", "RESTRING",
         "RSMAP")
STRING_TYPES = frozenset({"STRING", "CSTRING", "RESTRING"})
# Types whose values are compared as numbers; BOOL is 1/0, an RSMAP its amount.
NUMERIC_TYPES = frozenset({"INT", "DOUBLE", "MEMORY", "TIME", "BOOL", "RSMAP"})
CONSUMABLE_TYPES = frozenset({"INT", "DOUBLE", "MEMORY", "TIME", "RSMAP"})
ORDERING_RELOPS = ("<=", "<", ">=", ">")
RELOPS = ("==", "!=", *ORDERING_RELOPS)
# The relop of an exclusive BOOL consumable (exclusive scheduling: gridd.sched.match).
EXCL = "EXCL"
REQUESTABLE = ("YES", "NO", "FORCED")
CONSUMABLE = ("YES", "NO", "JOB", "HOST")

_RELOPS_BY_TYPE = {
    "STRING": ("==", "!="),
    "CSTRING": ("==", "!="),
    "RESTRING": ("==", "!="),
    "HOST": ("==", "!="),
    "BOOL": ("==",),
    "RSMAP": (),  # always a consumable
}
_TRUE = frozenset({"true", "1"})
_FALSE = frozenset({"false", "0"})


class ComplexAttr(msgspec.Struct, frozen=True):
    """One row of the complex table, every column as Grid Engine keeps it (text).

    Columns stay text so that a row round-trips through `qconf -sc`/`-Mc` unchanged; the
    scheduler parses the values it compares once, when it builds its own structures.
    Field order is the column order, so `ComplexAttr(*row)` takes a parsed table row.
    """

    name: str
    shortcut: str
    type: str
    relop: str
    requestable: str = "YES"
    consumable: str = "NO"
    default: str = "0"
    urgency: str = "0"


def parse_value(type_: str, text: str) -> float | str:
    """A value of a complex type as the scheduler compares it.

    Numbers (INT, DOUBLE, MEMORY, TIME, BOOL) become floats; strings stay strings, folded to
    lower case where the type ignores case. Raises ValueError for text the type cannot hold.
    """
    if type_ in ("MEMORY", "INT", "DOUBLE"):
        return _number(type_, text)
    if type_ == "RSMAP":  # what a host offers lists ids after its amount
        return _number("INT", rsmap.amount_text(text))
    if type_ == "TIME":
        return parse_time(text)
    if type_ == "BOOL":
        return _bool(text)
    if type_ in ("CSTRING", "HOST"):
        return text.casefold()
    return text


def holds(type_: str, text: str) -> bool:
    """Whether the type can hold the text (parse_value would take it)."""
    try:
        parse_value(type_, text)
    except ValueError:
        return False
    return True


# How Grid Engine names each type when a value is not of it ("a integer", as it says).
TYPE_WORDS = {"TIME": "time", "MEMORY": "memory", "INT": "integer", "DOUBLE": "double",
              "BOOL": "boolean", "RSMAP": "integer"}


def value_problem(attr: ComplexAttr, text: str) -> str | None:
    """Grid Engine's words for a value (requested, offered or a threshold) the attribute's
    type cannot hold; None when it can. String types hold anything; an RSMAP is asked
    for by amount, its ids are the host's to list (capacity_problem)."""
    if attr.type in TYPE_WORDS and (not holds(attr.type, text) or (
            attr.type == "RSMAP" and rsmap.has_ids(text))):
        return f'attribute "{attr.name}" is not a {TYPE_WORDS[attr.type]} value'
    return None


def capacity_problem(attr: ComplexAttr, text: str) -> str | None:
    """Why a host or queue cannot offer `text` of the attribute (its complex_values);
    None when it can. An RSMAP offers its ids with their number (`2(0 1)`)."""
    if attr.type != "RSMAP":
        return value_problem(attr, text)
    try:
        rsmap.parse(attr.name, text)
    except ValueError as error:
        return str(error)
    return None


def _number(type_: str, text: str) -> float:
    """Plain numbers take the fast path; suffixed ones (`2k`, `1G`) the memory parser."""
    try:
        value = float(text)
    except ValueError:
        value = parse_memory(text)
    if value != value:
        raise ValueError(f'invalid {type_} value "{text}"')
    if type_ == "INT" and math.isfinite(value) and value != int(value):
        raise ValueError(f'invalid INT value "{text}"')
    return value


def _bool(text: str) -> float:
    lowered = text.strip().lower()
    if lowered in _TRUE:
        return 1.0
    if lowered in _FALSE:
        return 0.0
    raise ValueError(f'invalid BOOL value "{text}"')


def has_default(attr: ComplexAttr) -> bool:
    """Whether the default column asks for something: "0", "NONE", FALSE mean nothing."""
    text = attr.default.strip()
    if text in ("", "NONE"):
        return False
    if attr.type not in NUMERIC_TYPES:
        return True
    try:
        return parse_value(attr.type, text) != 0
    except ValueError:
        return True


def _row(*cols: str) -> ComplexAttr:
    return ComplexAttr(*cols)


DEFAULT_COMPLEXES: tuple[ComplexAttr, ...] = (
    _row("arch", "a", "STRING", "==", "YES", "NO", "NONE", "0"),
    _row("calendar", "c", "STRING", "==", "YES", "NO", "NONE", "0"),
    _row("cpu", "cpu", "DOUBLE", ">=", "YES", "NO", "0", "0"),
    _row("display_win_gui", "dwg", "BOOL", "==", "YES", "NO", "0", "0"),
    _row("h_core", "h_core", "MEMORY", "<=", "YES", "NO", "0", "0"),
    _row("h_cpu", "h_cpu", "TIME", "<=", "YES", "NO", "0:0:0", "0"),
    _row("h_data", "h_data", "MEMORY", "<=", "YES", "NO", "0", "0"),
    _row("h_fsize", "h_fsize", "MEMORY", "<=", "YES", "NO", "0", "0"),
    _row("h_rss", "h_rss", "MEMORY", "<=", "YES", "NO", "0", "0"),
    _row("h_rt", "h_rt", "TIME", "<=", "YES", "NO", "0:0:0", "0"),
    _row("h_stack", "h_stack", "MEMORY", "<=", "YES", "NO", "0", "0"),
    _row("h_vmem", "h_vmem", "MEMORY", "<=", "YES", "NO", "0", "0"),
    _row("hostname", "h", "HOST", "==", "YES", "NO", "NONE", "0"),
    _row("load_avg", "la", "DOUBLE", ">=", "NO", "NO", "0", "0"),
    _row("load_long", "ll", "DOUBLE", ">=", "NO", "NO", "0", "0"),
    _row("load_medium", "lm", "DOUBLE", ">=", "NO", "NO", "0", "0"),
    _row("load_short", "ls", "DOUBLE", ">=", "NO", "NO", "0", "0"),
    _row("m_core", "core", "INT", "<=", "YES", "NO", "0", "0"),
    _row("m_socket", "socket", "INT", "<=", "YES", "NO", "0", "0"),
    _row("m_thread", "thread", "INT", "<=", "YES", "NO", "0", "0"),
    _row("m_topology", "topo", "STRING", "==", "YES", "NO", "NONE", "0"),
    _row("m_topology_inuse", "utopo", "STRING", "==", "YES", "NO", "NONE", "0"),
    _row("mem_free", "mf", "MEMORY", "<=", "YES", "NO", "0", "0"),
    _row("mem_total", "mt", "MEMORY", "<=", "YES", "NO", "0", "0"),
    _row("mem_used", "mu", "MEMORY", ">=", "YES", "NO", "0", "0"),
    _row("min_cpu_interval", "mci", "TIME", "<=", "NO", "NO", "0:0:0", "0"),
    _row("np_load_avg", "nla", "DOUBLE", ">=", "NO", "NO", "0", "0"),
    _row("np_load_long", "nll", "DOUBLE", ">=", "NO", "NO", "0", "0"),
    _row("np_load_medium", "nlm", "DOUBLE", ">=", "NO", "NO", "0", "0"),
    _row("np_load_short", "nls", "DOUBLE", ">=", "NO", "NO", "0", "0"),
    _row("num_proc", "p", "INT", "==", "YES", "NO", "0", "0"),
    _row("qname", "q", "STRING", "==", "YES", "NO", "NONE", "0"),
    _row("rerun", "re", "BOOL", "==", "NO", "NO", "0", "0"),
    _row("s_core", "s_core", "MEMORY", "<=", "YES", "NO", "0", "0"),
    _row("s_cpu", "s_cpu", "TIME", "<=", "YES", "NO", "0:0:0", "0"),
    _row("s_data", "s_data", "MEMORY", "<=", "YES", "NO", "0", "0"),
    _row("s_fsize", "s_fsize", "MEMORY", "<=", "YES", "NO", "0", "0"),
    _row("s_rss", "s_rss", "MEMORY", "<=", "YES", "NO", "0", "0"),
    _row("s_rt", "s_rt", "TIME", "<=", "YES", "NO", "0:0:0", "0"),
    _row("s_stack", "s_stack", "MEMORY", "<=", "YES", "NO", "0", "0"),
    _row("s_vmem", "s_vmem", "MEMORY", "<=", "YES", "NO", "0", "0"),
    _row("seq_no", "seq", "INT", "==", "NO", "NO", "0", "0"),
    _row("slots", "s", "INT", "<=", "YES", "YES", "1", "1000"),
    _row("swap_free", "sf", "MEMORY", "<=", "YES", "NO", "0", "0"),
    _row("swap_rate", "sr", "MEMORY", ">=", "YES", "NO", "0", "0"),
    _row("swap_rsvd", "srsv", "MEMORY", ">=", "YES", "NO", "0", "0"),
    _row("swap_total", "st", "MEMORY", "<=", "YES", "NO", "0", "0"),
    _row("swap_used", "su", "MEMORY", ">=", "YES", "NO", "0", "0"),
    _row("tmpdir", "tmp", "STRING", "==", "NO", "NO", "NONE", "0"),
    _row("virtual_free", "vf", "MEMORY", "<=", "YES", "NO", "0", "0"),
    _row("virtual_total", "vt", "MEMORY", "<=", "YES", "NO", "0", "0"),
    _row("virtual_used", "vu", "MEMORY", ">=", "YES", "NO", "0", "0"),
)

# Every attribute of the default table is built in: load sensors, resource limits and the
# scheduler's own (slots, qname, hostname) rely on the name and the type being there.
BUILTIN: Mapping[str, ComplexAttr] = {attr.name: attr for attr in DEFAULT_COMPLEXES}


class ComplexTable:
    """A complex table with lookup by name or shortcut, as requests may use either."""

    __slots__ = ("rows", "_index")

    def __init__(self, rows: Iterable[ComplexAttr]) -> None:
        self.rows: tuple[ComplexAttr, ...] = tuple(rows)
        # Names win over shortcuts should a broken table ever let them collide.
        self._index = {a.shortcut: a for a in self.rows} | {a.name: a for a in self.rows}

    def resolve(self, name: str) -> ComplexAttr | None:
        """The attribute a request names, by full name or shortcut."""
        return self._index.get(name)

    def full_names(self, requests: Mapping[str, str]) -> dict[str, str]:
        """Requests keyed by full name, so that h_rt is found whatever was typed (an
        unknown name stays as it is)."""
        out = {}
        for name, value in requests.items():
            attr = self._index.get(name)
            out[attr.name if attr else name] = value
        return out

    def __iter__(self) -> Iterator[ComplexAttr]:
        return iter(self.rows)

    def __len__(self) -> int:
        return len(self.rows)


DEFAULT_TABLE = ComplexTable(DEFAULT_COMPLEXES)


def resolve(name: str) -> ComplexAttr | None:
    """The default-table attribute a request names, by full name or shortcut."""
    return DEFAULT_TABLE.resolve(name)


def fixed_relops(type_: str) -> tuple[str, ...]:
    """The relational operators an attribute of the type may have when it is no consumable."""
    return _RELOPS_BY_TYPE.get(type_, RELOPS)


def consumable_relops(type_: str) -> tuple[str, ...]:
    """The relational operator a consumable of the type has (a BOOL consumable is an
    exclusive one, EXCL); none: the type cannot be a consumable."""
    if type_ == "BOOL":
        return (EXCL,)
    return ("<=",) if type_ in CONSUMABLE_TYPES else ()


def editor_choices() -> dict[str, dict[str, list[str]]]:
    """Per type, the relational operators a row may have when it is not a consumable
    (`relops`) and when it is (`consumable_relops`; none: the type cannot be one), the
    rules validate_attr judges by: what an editor offers, and all it offers."""
    return {type_: {"relops": list(fixed_relops(type_)),
                    "consumable_relops": list(consumable_relops(type_))} for type_ in TYPES}


def no_default(type_: str) -> str:
    """The default column of an attribute that has none (not a consumable)."""
    return "0" if type_ in NUMERIC_TYPES else "NONE"


# ---- validation -------------------------------------------------------------------------


def validate_attr(attr: ComplexAttr) -> list[str]:
    """Why one row is not a usable attribute definition; empty when it is.

    Stops at the first keyword that is not understood: the remaining rules depend on it.
    """
    if not attr.urgency:
        return ["Complex urgency definition is missing"]
    keyword_error = _keyword_error(attr)
    if keyword_error:
        return [keyword_error]
    if attr.consumable != "NO":
        errors = _consumable_errors(attr)
    elif not fixed_relops(attr.type):  # RSMAP
        return [f'{attr.type} complex "{attr.name}" needs to be a consumable']
    else:
        errors = _fixed_errors(attr)
    errors.extend(_value_errors(attr))
    return errors


def _keyword_error(attr: ComplexAttr) -> str | None:
    if attr.type not in TYPES:
        return f'unknown complex attribute type "{attr.type}"'
    if attr.relop not in RELOPS and attr.relop != EXCL:
        return f'invalid relational operator "{attr.relop}" for complex "{attr.name}"'
    if attr.requestable not in REQUESTABLE:
        return (
            f'invalid requestable value "{attr.requestable}" for complex "{attr.name}" '
            "(YES, NO or FORCED)"
        )
    if attr.consumable not in CONSUMABLE:
        return (
            f'invalid consumable value "{attr.consumable}" for complex "{attr.name}" '
            "(YES, NO, JOB or HOST)"
        )
    return None


def _consumable_errors(attr: ComplexAttr) -> list[str]:
    name = attr.name
    errors = []
    allowed = consumable_relops(attr.type)
    if attr.type == "BOOL" and attr.relop != EXCL:
        errors.append(f'Exclusive complex "{name}" must have EXCL as relational operator')
    elif not allowed:
        errors.append(f'Complex "{name}" of type "{attr.type}" cannot be a consumable')
    if attr.relop != "<=" and attr.relop not in allowed:
        errors.append(f'Consumable "{name}" can have only <= as an relational operator')
    if attr.requestable == "FORCED" and has_default(attr):
        errors.append(
            f'Consumable "{name}" cannot have a (non-zero) default value because it is forced.'
        )
    if attr.requestable == "NO" and not has_default(attr):
        errors.append(
            f'Consumable "{name}" is not requestable and therefore needs a (non-zero) default value'
        )
    return errors


def _fixed_errors(attr: ComplexAttr) -> list[str]:
    errors = []
    allowed = fixed_relops(attr.type)
    if attr.relop not in allowed:
        errors.append(
            f'Complex "{attr.name}" of type "{attr.type}" can have only '
            f"{' or '.join(allowed)} as relational operator"
        )
    if has_default(attr):
        errors.append(
            f'Complex "{attr.name}" is not a consumable and cannot have a default value '
            f'("{attr.default}")'
        )
    return errors


def _value_errors(attr: ComplexAttr) -> list[str]:
    """Defaults and urgencies Grid Engine stores unchecked and later misreads as 0."""
    errors = []
    if attr.type in NUMERIC_TYPES and attr.default.strip() != "NONE":
        try:
            parse_value(attr.type, attr.default)
        except ValueError:
            errors.append(
                f'Complex "{attr.name}" has a default value "{attr.default}" '
                f"that is not a valid {attr.type} value"
            )
    try:
        float(attr.urgency)
    except ValueError:
        errors.append(f'Complex "{attr.name}" has an urgency "{attr.urgency}" that is not a number')
    return errors


def validate_table(
    new_rows: Sequence[ComplexAttr],
    old_table: Iterable[ComplexAttr] = DEFAULT_COMPLEXES,
    referenced: Mapping[str, str] | None = None,
) -> list[str]:
    """Why the complex table `new_rows` cannot replace `old_table`; empty when it can.

    `referenced` maps an attribute's name to the first object still naming it, in Grid
    Engine's words, e.g. {"license": 'host "global"'} for `complex_values license=5` of
    the global host; the caller collects it (gridd.master.admin_refs.complex_references).
    """
    errors: list[str] = []
    for attr in new_rows:
        errors.extend(validate_attr(attr))
    errors.extend(_duplicate_errors(new_rows))
    errors.extend(_builtin_errors(new_rows))
    errors.extend(_reference_errors(new_rows, old_table, referenced or {}))
    return errors


def _duplicate_errors(rows: Sequence[ComplexAttr]) -> list[str]:
    """Names and shortcuts share one namespace: a request may use either."""
    errors = []
    seen: set[str] = set()
    for attr in rows:
        if attr.name in seen or attr.shortcut in seen:
            errors.append(
                f"complex with name {attr.name} or shortcut {attr.shortcut} already exists"
            )
        seen.update((attr.name, attr.shortcut))
    return errors


def _builtin_errors(rows: Sequence[ComplexAttr]) -> list[str]:
    errors = []
    types = {attr.name: attr.type for attr in rows}
    for name, builtin in BUILTIN.items():
        new_type = types.get(name)
        if new_type is None:
            errors.append(f'denied: built-in complex attribute "{name}" cannot be deleted')
        elif not _same_kind(builtin.type, new_type):
            errors.append(
                f'denied: type of built-in complex attribute "{name}" cannot be changed '
                f"from {builtin.type} to {new_type}"
            )
    return errors


def _same_kind(builtin_type: str, new_type: str) -> bool:
    """Built-in strings may switch among STRING/CSTRING/RESTRING; other types are fixed."""
    if builtin_type in STRING_TYPES:
        return new_type in STRING_TYPES
    return new_type == builtin_type


def _reference_errors(
    rows: Sequence[ComplexAttr],
    old_table: Iterable[ComplexAttr],
    referenced: Mapping[str, str],
) -> list[str]:
    kept = {attr.name for attr in rows}
    return [f'denied: Complex attribute "{attr.name}" is still referenced in '
            f"{referenced[attr.name]}."
            for attr in old_table if attr.name not in kept and attr.name in referenced]

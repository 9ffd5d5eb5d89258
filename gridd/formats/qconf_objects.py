"""Configuration objects to and from qconf's `name value` pairs, validated like Grid Engine.

gridd.formats.objects reads and writes the lines; this module knows, per object kind,
which names exist, which are required, what each value may be, and how Grid Engine
normalizes it (`mpi,smp` is shown `mpi smp`, `true` is shown `TRUE`), so that an object
read from a file shows exactly as Grid Engine would show it. Where the reference
transcripts show Grid Engine's complaint about a value, the error's ge_message is that
text; elsewhere it follows the same shape with words of our own.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Container, Iterable, Iterator
from dataclasses import dataclass
from typing import Any

import msgspec

from gridd.formats.names import format_bool, parse_bool
from gridd.formats.objects import KEY_WIDTHS, parse_object, print_object
from gridd.formats.overrides import Overridable, parse_overridable, print_overridable
from gridd.formats.parsing import FormatError
from gridd.formats.values import is_unsigned, parse_memory, parse_time
from gridd.model.config import Userset
from gridd.model.objects import (
    NONE,
    ClusterQueue,
    ExecHostConf,
    GlobalConf,
    HostGroup,
    ParallelEnvConf,
    Project,
    SchedConf,
    User,
    words,
)

ConfObject = (
    ClusterQueue | ExecHostConf | HostGroup | ParallelEnvConf | Project | User | SchedConf
    | GlobalConf
)


class InvalidObject(FormatError):
    """An object file with a bad attribute. Pairs carry no positions, so the error names
    the attribute instead of a line and column.
    """

    def __init__(self, message: str, source: str, *, ge_message: str | None = None) -> None:
        super().__init__(message, source, 0, 0, ge_message=ge_message)

    def __str__(self) -> str:
        return f"{self.source}: {self.message}"


class _Invalid(ValueError):
    """One value rejected; `ge_lines` are Grid Engine's words for it, when known."""

    def __init__(self, message: str, ge_lines: Iterable[str] = ()) -> None:
        super().__init__(message)
        self.ge_lines = tuple(ge_lines)


# A check takes one value (a default or an override) and returns it as Grid Engine shows it.
Check = Callable[[str], str]

_HOST = re.compile(r"@?[A-Za-z0-9_][A-Za-z0-9._-]*")
_NAME = re.compile(r"[^\s,=\[\]@/\\:'\"]+")
_ASSIGNMENT = re.compile(r"([^\s,=]+)=([^\s,=]+)")


def _unsigned(value: str) -> str:
    if not is_unsigned(value):
        raise _Invalid(
            f'"{value}" is not an unsigned number',
            (
                f'error: error parsing unsigned long value from string "{value}"',
                f'error: Error during parsing of attribute value "{value}"',
            ),
        )
    return str(int(value))


def _priority(value: str) -> str:
    """Nice value of the jobs: -20 to 20, as nice(2) takes it."""
    try:
        number = int(value)
    except ValueError:
        number = None
    if number is None or not -20 <= number <= 20:
        raise _Invalid(f'priority "{value}" is not a number from -20 to 20')
    return str(number)


def _time(value: str) -> str:
    """Kept as written (Grid Engine shows `0:10:0` and `00:00:60` unchanged)."""
    try:
        parse_time(value)
    except ValueError:
        raise _Invalid(f'"{value}" is not a time value ([[h:]m:]s or INFINITY)') from None
    return value


def _memory(value: str) -> str:
    try:
        parse_memory(value)
    except (ValueError, IndexError):
        raise _Invalid(f'"{value}" is not a memory value (number[kKmMgG] or INFINITY)') from None
    return value


def _bool(value: str) -> str:
    try:
        return format_bool(parse_bool(value))
    except ValueError:
        raise _Invalid(f'"{value}" is not a boolean (TRUE or FALSE)') from None


def _text(value: str) -> str:
    return value


def _name_list(separator: str, pattern: re.Pattern[str] = _NAME) -> Check:
    """A list of names, separated by commas or blanks on input, by `separator` when shown."""

    def check(value: str) -> str:
        items = words(value)
        for item in items:
            if not pattern.fullmatch(item):
                raise _Invalid(f'"{item}" is not a valid name in list "{value}"')
        return separator.join(items) if items else NONE

    return check


def _host_list(value: str) -> str:
    items = words(value)
    for item in items:
        if not _HOST.fullmatch(item):
            raise _Invalid(f'"{item}" is not a valid host or @hostgroup name')
    return " ".join(items) if items else NONE


def _host_name(value: str) -> str:
    """One host (or `global`), never a group."""
    if value.startswith("@") or not _HOST.fullmatch(value):
        raise _Invalid(f'"{value}" is not a valid host name')
    return value


def _assignments(value: str) -> str:
    """`name=value,...` lists such as complex_values and load_thresholds."""
    items = words(value)
    for item in items:
        if not _ASSIGNMENT.fullmatch(item):
            raise _Invalid(f'"{item}" is not of the form name=value')
    return ",".join(items) if items else NONE


def _choice(*allowed: str) -> Check:
    def check(value: str) -> str:
        if value not in allowed:
            raise _Invalid(f'"{value}" is none of {", ".join(allowed)}')
        return value

    return check


_QTYPES = ("BATCH", "INTERACTIVE")


def _qtype(value: str) -> str:
    """Shown in Grid Engine's fixed order whatever the order written."""
    given = {item.upper() for item in words(value)}
    if not given <= set(_QTYPES):
        raise _Invalid(f'"{value}" is not a queue type (BATCH, INTERACTIVE or NONE)')
    return " ".join(t for t in _QTYPES if t in given) or NONE


def _subordinates(value: str) -> str:
    """`queue[=slots]` items; the slot threshold, when given, must be a number."""
    items = words(value)
    for item in items:
        name, _, threshold = item.partition("=")
        if not _NAME.fullmatch(name) or (threshold and not is_unsigned(threshold)):
            raise _Invalid(f'"{item}" is not a subordinate queue (queue[=slots])')
    return ",".join(items) if items else NONE


_ALLOCATION_VARIABLES = ("pe_slots", "fill_up", "round_robin")


def _allocation_rule(value: str) -> str:
    """$pe_slots, $fill_up, $round_robin or a fixed number of slots per host."""
    if value.startswith("$"):
        if value[1:] not in _ALLOCATION_VARIABLES:
            raise _Invalid(
                f'unknown allocation rule "{value}"', (f'unknown variable "{value[1:]}"',)
            )
        return value
    if not is_unsigned(value) or int(value) == 0:
        raise _Invalid(f'allocation rule "{value}" is no $variable and no positive number')
    return str(int(value))


def _urgency_slots(value: str) -> str:
    if value in ("min", "max", "avg"):
        return value
    return _unsigned(value)


_LIMITS: dict[str, Check] = {
    f"{kind}_{limit}": _time if limit in ("rt", "cpu") else _memory
    for limit in ("rt", "cpu", "fsize", "data", "stack", "core", "rss", "vmem")
    for kind in ("s", "h")
}

_NAMES = _name_list(" ")

_QUEUE_CHECKS: dict[str, Check] = {
    "qname": _text,
    "hostlist": _host_list,
    "seq_no": _unsigned,
    "load_thresholds": _assignments,
    "suspend_thresholds": _assignments,
    "nsuspend": _unsigned,
    "suspend_interval": _time,
    "priority": _priority,
    "min_cpu_interval": _time,
    "processors": _text,
    "qtype": _qtype,
    "ckpt_list": _NAMES,
    "pe_list": _NAMES,
    "rerun": _bool,
    "slots": _unsigned,
    "tmpdir": _text,
    "shell": _text,
    "prolog": _text,
    "epilog": _text,
    "shell_start_mode": _choice("posix_compliant", "script_from_stdin", "unix_behavior"),
    "starter_method": _text,
    "suspend_method": _text,
    "resume_method": _text,
    "terminate_method": _text,
    "notify": _time,
    "owner_list": _NAMES,
    "user_lists": _NAMES,
    "xuser_lists": _NAMES,
    "subordinate_list": _subordinates,
    "complex_values": _assignments,
    "projects": _NAMES,
    "xprojects": _NAMES,
    "calendar": _text,
    "initial_state": _choice("default", "enabled", "disabled"),
    **_LIMITS,
}

_EXECHOST_CHECKS: dict[str, Check] = {
    "hostname": _host_name,
    "load_scaling": _assignments,
    "complex_values": _assignments,
    "load_values": _text,
    "processors": _unsigned,
    "user_lists": _NAMES,
    "xuser_lists": _NAMES,
    "projects": _NAMES,
    "xprojects": _NAMES,
    "usage_scaling": _assignments,
    "report_variables": _name_list(","),
}

_PE_CHECKS: dict[str, Check] = {
    "pe_name": _text,
    "slots": _unsigned,
    "user_lists": _NAMES,
    "xuser_lists": _NAMES,
    "start_proc_args": _text,
    "stop_proc_args": _text,
    "allocation_rule": _allocation_rule,
    "control_slaves": _bool,
    "job_is_first_task": _bool,
    "urgency_slots": _urgency_slots,
    "accounting_summary": _bool,
    "qsort_args": _text,
}


def _object_name(value: str) -> str:
    """Queue, PE and project names: no blanks or list/override punctuation, no leading digit."""
    if not _NAME.fullmatch(value) or value[0].isdigit():
        raise _Invalid(f'"{value}" is not a valid object name')
    return value


def _user_name(value: str) -> str:
    """A user's name: no blanks or list punctuation (a leading digit is a valid login)."""
    if not _NAME.fullmatch(value):
        raise _Invalid(f'"{value}" is not a valid object name')
    return value


def _project_or_none(value: str) -> str:
    return value if value.upper() == NONE else _object_name(value)


def _group_name(value: str) -> str:
    if not value.startswith("@") or not _HOST.fullmatch(value):
        raise _Invalid(f'"{value}" is not a valid host group name (@name)')
    return value


@dataclass(frozen=True)
class _Kind:
    """What from_pairs needs to know about one object kind."""

    cls: type[Any]
    width_key: str
    name_key: str | None  # the required attribute naming the object
    checks: dict[str, Check]
    overridable: frozenset[str] = frozenset()
    trailer: str = ""  # Grid Engine's last error line, `{source}` filled in
    required: tuple[str, ...] = ()  # attributes a file must give, beside the name


def _all_text(cls: type[Any]) -> dict[str, Check]:
    return {name: _text for name in cls.__struct_fields__}


KINDS: dict[str, _Kind] = {
    "queue": _Kind(
        ClusterQueue,
        "queue",
        "qname",
        _QUEUE_CHECKS | {"qname": _object_name},
        frozenset(_QUEUE_CHECKS) - {"qname", "hostlist"},
        'error: error reading file: "{source}"',
    ),
    "exechost": _Kind(
        ExecHostConf,
        "exechost",
        "hostname",
        _EXECHOST_CHECKS,
        trailer='error: error reading file: "{source}"',
    ),
    "hostgroup": _Kind(
        HostGroup,
        "hostgroup",
        "group_name",
        {"group_name": _group_name, "hostlist": _host_list},
        trailer='error: error reading file: "{source}"',
    ),
    "pe": _Kind(
        ParallelEnvConf,
        "pe",
        "pe_name",
        _PE_CHECKS | {"pe_name": _object_name},
        trailer='error: error reading file: "{source}"',
    ),
    "project": _Kind(
        Project,
        "project",
        "name",
        {
            "name": _object_name,
            "oticket": _unsigned,
            "fshare": _unsigned,
            "acl": _NAMES,
            "xacl": _NAMES,
        },
        trailer='error: error reading file: "{source}"',
    ),
    "user": _Kind(
        User,
        "user",
        "name",
        {
            "name": _user_name,
            "oticket": _unsigned,
            "fshare": _unsigned,
            "delete_time": _unsigned,
            "default_project": _project_or_none,
        },
        trailer='error: error reading file: "{source}"',
        required=("oticket", "fshare", "delete_time", "default_project"),
    ),
    "sched": _Kind(SchedConf, "sched", None, _all_text(SchedConf)),
    "conf": _Kind(GlobalConf, "conf", None, _all_text(GlobalConf)),
}


def to_pairs(obj: ConfObject) -> list[tuple[str, str]]:
    """(name, value) in Grid Engine's order; absent optional attributes are left out."""
    pairs = [(name, getattr(obj, name)) for name in obj.__struct_fields__]
    return [(name, value) for name, value in pairs if value is not None]


def _checked(kind: _Kind, key: str, raw: str) -> str:
    """One attribute's value as shown, its overrides (if it may have any) checked one by one."""
    check = kind.checks[key]
    if key not in kind.overridable:
        return check(raw)
    try:
        value = parse_overridable(raw)
    except FormatError as error:
        raise _Invalid(f"bad host override: {error.message}") from None
    for host in value.overrides:
        if not _HOST.fullmatch(host):
            raise _Invalid(f'"{host}" is not a valid host or @hostgroup name')
    return print_overridable(
        Overridable(check(value.default), {h: check(v) for h, v in value.overrides.items()})
    )


# Grid Engine adds this second line to a bad number only when reading a cluster queue.
_QUEUE_ONLY = "error: Error during parsing of attribute value"


def _fail(
    kind: _Kind, message: str, source: str, ge_lines: Iterable[str] = (), *, trailer: bool = True
) -> InvalidObject:
    """The error for a bad object file. Its ge_message holds what Grid Engine prints while
    reading the file; the words qconf adds per option ("error reading in file", "Cluster
    queue file ... is not correct") are the caller's, which knows the option.
    """
    lines = list(ge_lines) or [f"error: {message}"]
    if kind.cls is not ClusterQueue:
        lines = [line for line in lines if not line.startswith(_QUEUE_ONLY)]
    if kind.trailer and trailer:
        lines.append(kind.trailer.format(source=source))
    return InvalidObject(message, source, ge_message="\n".join(lines))


def from_pairs(kind_name: str, pairs: Iterable[tuple[str, str]], *, source: str) -> Any:
    """The object described by `pairs` (from parse_object), normalized as Grid Engine
    shows it. Attributes left out take their defaults, except the one naming the object.

    Raises InvalidObject (a FormatError) for an unknown, repeated or missing attribute or
    a bad value; its ge_message is what `qconf -A*` prints on stderr.
    """
    kind = KINDS[kind_name]
    values: dict[str, str] = {}
    for key, text in _stripped(kind, pairs, kind.checks, source):
        try:
            values[key] = _checked(kind, key, text)
        except _Invalid as error:
            ge_lines = error.ge_lines
            if kind_name == "pe" and key == "allocation_rule" and ge_lines:
                # judged after reading: Grid Engine names the PE and not the file
                name = values.get("pe_name", "")
                line = f'error: parameter allocation_rule of pe "{name}": {ge_lines[0]}'
                raise _fail(kind, f"{key}: {error}", source, (line,), trailer=False) from None
            raise _fail(kind, f"{key}: {error}", source, ge_lines) from None
    if kind.name_key is not None and kind.name_key not in values:
        raise _fail(kind, f'required attribute "{kind.name_key}" is missing', source)
    missing = next((key for key in kind.required if key not in values), None)
    if missing is not None:
        raise _fail(kind, f'required attribute "{missing}" is missing', source, trailer=False)
    return msgspec.convert(values, kind.cls)


def _stripped(kind: _Kind, pairs: Iterable[tuple[str, str]], known: Container[str],
              source: str) -> Iterator[tuple[str, str]]:
    """The pairs with their values stripped; an unknown, repeated or empty attribute
    refuses the whole file."""
    seen: set[str] = set()
    for key, raw in pairs:
        if key not in known:
            raise _fail(kind, f'unknown attribute name "{key}"', source)
        if key in seen:
            raise _fail(kind, f'attribute "{key}" appears more than once', source)
        text = raw.strip()
        if not text:
            raise _fail(kind, f'attribute "{key}" has no value', source)
        seen.add(key)
        yield key, text


def show(kind_name: str, obj: ConfObject) -> str:
    """What `qconf -s<kind>` prints for the object (`-sconf` adds its own header)."""
    return print_object(to_pairs(obj), width=KEY_WIDTHS[KINDS[kind_name].width_key])


# ---- editor templates --------------------------------------------------------------------

# Exec host attributes that execd reports rather than an administrator configures:
# `qconf -se` shows them, but `-ae` and `-me` leave them out of the file they edit.
REPORTED = ("load_values", "processors")


def editable(kind_name: str, shown: str) -> str:
    """The text `qconf -m<kind>` opens the editor on, from what `-s<kind>` printed."""
    if kind_name != "exechost":
        return shown
    pairs = [(key, value) for key, value in parse_object(shown) if key not in REPORTED]
    return print_object(pairs, width=KEY_WIDTHS["exechost"])


def template(kind_name: str, name: str = "template") -> str:
    """The text `qconf -a<kind>` opens the editor on: the kind's defaults under `name`
    (Grid Engine's word is "template" where the command names nothing).
    """
    if kind_name == "userset":
        return show_userset(Userset(name))
    kind = KINDS[kind_name]
    obj = kind.cls(**({kind.name_key: name} if kind.name_key else {}))
    return editable(kind_name, show(kind_name, obj))


# ---- access lists ------------------------------------------------------------------------

USERSET_TYPES = ("ACL", "DEPT")
_USER = re.compile(r"@?[^\s,=\[\]@/\\:'\"]+")
_READING = 'error: error reading file: "{source}"'
_USERSET_KIND = _Kind(Userset, "userset", "name", {}, trailer=_READING)


def _userset_type(value: str) -> str:
    """ACL, DEPT or both (`ACL,DEPT` is shown `ACL DEPT`), in Grid Engine's order."""
    given = [item.upper() for item in words(value)]
    for item in given:
        if item not in USERSET_TYPES:
            raise _Invalid(
                f'"{item}" is no userset type (ACL or DEPT)',
                (f'error: reading conf file: unknown specifier "{item}" for userset type',),
            )
    if not given:
        raise _Invalid("a userset needs a type (ACL or DEPT)")
    return " ".join(t for t in USERSET_TYPES if t in given)


def _user_list(value: str) -> list[str]:
    items = words(value)
    for item in items:
        if not _USER.fullmatch(item):
            raise _Invalid(f'"{item}" is not a valid user or @group name')
    return list(dict.fromkeys(items))


def userset_from_pairs(pairs: Iterable[tuple[str, str]], *, source: str) -> Userset:
    """An access list or department from a `qconf -Au`/`-Mu` file, validated.

    Usersets are not among KINDS because their model keeps numbers and a list rather
    than text (the scheduler checks membership on every dispatch); the file format and
    the complaints are those of the other kinds.
    """
    kind = _USERSET_KIND
    checks: dict[str, Callable[[str], object]] = {
        "name": _object_name,
        "type": _userset_type,
        "fshare": lambda value: int(_unsigned(value)),
        "oticket": lambda value: int(_unsigned(value)),
        "entries": _user_list,
    }
    values: dict[str, object] = {}
    for key, text in _stripped(kind, pairs, checks, source):
        try:
            values[key] = checks[key](text)
        except _Invalid as error:
            raise _fail(kind, f"{key}: {error}", source, error.ge_lines) from None
    if "name" not in values:
        raise _fail(kind, 'required attribute "name" is missing', source)
    return msgspec.convert(values, Userset)


def userset_pairs(userset: Userset) -> list[tuple[str, str]]:
    """The lines of `qconf -su` (and of its spool file)."""
    return [
        ("name", userset.name),
        ("type", userset.type),
        ("fshare", str(userset.fshare)),
        ("oticket", str(userset.oticket)),
        ("entries", ",".join(userset.entries) or NONE),
    ]


def show_userset(userset: Userset) -> str:
    """What `qconf -su` prints for one list."""
    return print_object(userset_pairs(userset), width=KEY_WIDTHS["userset"])


# ---- host configurations -----------------------------------------------------------------

# A host's own configuration may set any parameter of the global one, and only those.
HOST_CONF_NAMES = frozenset(GlobalConf.__struct_fields__)
_HOST_CONF_KIND = _Kind(dict, "conf", None, {}, trailer=_READING)


def host_conf_from_pairs(pairs: Iterable[tuple[str, str]], *, source: str) -> dict[str, str]:
    """A host-local configuration (`qconf -Aconf`/`-Mconf` of a file named after the host):
    the parameters it overrides, in the order written, which is the order they are shown.
    """
    kind = _HOST_CONF_KIND
    values = dict(_stripped(kind, pairs, HOST_CONF_NAMES, source))
    if not values:
        raise InvalidObject(
            "the file sets no parameter", source,
            ge_message=kind.trailer.format(source=source),
        )
    return values

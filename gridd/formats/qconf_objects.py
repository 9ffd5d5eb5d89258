"""Configuration objects to and from qconf's `name value` pairs, validated like Grid Engine.

gridd.formats.objects reads and writes the lines; this module knows, per object kind,
which names exist and which are required, and reads each value through its type
(gridd.formats.object_fields), which says what it may be and how Grid Engine normalizes
it (`mpi,smp` is shown `mpi smp`, `true` is shown `TRUE`), so that an object read from
a file shows exactly as Grid Engine would show it. Where Grid Engine has a complaint
about a value, the error's ge_message is that text; elsewhere it follows the same shape
with words of our own.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

import msgspec

from gridd.formats import object_fields as fields
from gridd.formats.field_types import MASTER, QCONF, READING, FieldType, InvalidValue, is_host
from gridd.formats.objects import KEY_WIDTHS, parse_object, print_object
from gridd.formats.overrides import parse_overridable, print_overridable
from gridd.formats.parsing import FormatError
from gridd.model.config import Userset
from gridd.model.objects import (
    NONE,
    NOT_OVERRIDABLE,
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
from gridd.model.overrides import Overridable

ConfObject = (
    ClusterQueue | ExecHostConf | HostGroup | ParallelEnvConf | Project | User | SchedConf
    | GlobalConf
)


class InvalidObject(FormatError):
    """An object file with a bad attribute. Pairs carry no positions, so the error names
    the attribute instead of a line and column. `by_master` says the master refuses it,
    after qconf read the file: qconf then adds nothing of its own.
    """

    def __init__(self, message: str, source: str, *, ge_message: str | None = None,
                 by_master: bool = False) -> None:
        super().__init__(message, source, 0, 0, ge_message=ge_message)
        self.by_master = by_master

    def __str__(self) -> str:
        return f"{self.source}: {self.message}"


_READING = 'error: error reading file: "{source}"'


@dataclass(frozen=True)
class _Kind:
    """What from_pairs needs to know about one object kind."""

    cls: type[Any]
    width_key: str
    name_key: str | None  # the required attribute naming the object
    types: dict[str, FieldType]  # gridd.formats.object_fields
    overridable: frozenset[str] = frozenset()
    required: tuple[str, ...] = ()  # attributes a file must give, beside the name


KINDS: dict[str, _Kind] = {
    "queue": _Kind(ClusterQueue, "queue", "qname", fields.QUEUE,
                   frozenset(fields.QUEUE) - NOT_OVERRIDABLE),
    "exechost": _Kind(ExecHostConf, "exechost", "hostname", fields.EXECHOST),
    "hostgroup": _Kind(HostGroup, "hostgroup", "group_name", fields.HOSTGROUP),
    "pe": _Kind(ParallelEnvConf, "pe", "pe_name", fields.PE),
    "project": _Kind(Project, "project", "name", fields.PROJECT),
    "user": _Kind(User, "user", "name", fields.USER,
                  required=("oticket", "fshare", "delete_time", "default_project")),
    "sched": _Kind(SchedConf, "sched", None, fields.SCHED),
    "conf": _Kind(GlobalConf, "conf", None, fields.CONF),
}


def to_pairs(obj: ConfObject) -> list[tuple[str, str]]:
    """(name, value) in Grid Engine's order; absent optional attributes are left out."""
    pairs = [(name, getattr(obj, name)) for name in obj.__struct_fields__]
    return [(name, value) for name, value in pairs if value is not None]


def _checked(kind: _Kind, key: str, raw: str) -> str:
    """One attribute's value as shown, its overrides (if it may have any) checked one by one."""
    field = kind.types[key]
    if key not in kind.overridable:
        return field(key, raw)
    try:
        value = parse_overridable(raw)
    except FormatError as error:
        raise InvalidValue(f"bad host override: {error.message}") from None
    for host in value.overrides:
        if not is_host(host):
            raise InvalidValue(f'"{host}" is not a valid host or @hostgroup name')
    return print_overridable(Overridable(
        field(key, value.default), {h: field(key, v) for h, v in value.overrides.items()}))


def _fail(message: str, source: str, ge_lines: Iterable[str] = (), *,
          found: str = READING, trailer: bool = True) -> InvalidObject:
    """The error for a bad object file. Its ge_message holds what Grid Engine prints while
    reading the file, or checking what it read; the words qconf adds per option ("error
    reading in file", "Cluster queue file ... is not correct") are the caller's, which
    knows the option.
    """
    lines = list(ge_lines) or [message]
    if found == READING:
        lines = [f"error: {line}" for line in lines]
        if trailer:
            lines.append(_READING.format(source=source))
    return InvalidObject(message, source, ge_message="\n".join(lines),
                         by_master=found == MASTER)


def _values(kind: _Kind, pairs: Iterable[tuple[str, str]], source: str) -> dict[str, str]:
    """The attributes `pairs` give, each value checked against its type and shown as
    Grid Engine shows it, in the order written."""
    values: dict[str, str] = {}
    for key, text in _stripped(kind, pairs, source):
        try:
            values[key] = _checked(kind, key, text)
        except InvalidValue as error:
            ge_lines = error.ge_lines
            if kind.cls is ParallelEnvConf and key == "allocation_rule" and ge_lines:
                # judged after reading: Grid Engine names the PE and not the file
                name = values.get("pe_name", "")
                line = f'error: parameter allocation_rule of pe "{name}": {ge_lines[0]}'
                raise _fail(f"{key}: {error}", source, (line,), found=QCONF) from None
            raise _fail(f"{key}: {error}", source, ge_lines, found=error.found) from None
    return values


def from_pairs(kind_name: str, pairs: Iterable[tuple[str, str]], *, source: str) -> Any:
    """The object described by `pairs` (from parse_object), normalized as Grid Engine
    shows it. Attributes left out take their defaults, except the one naming the object.

    Raises InvalidObject (a FormatError) for an unknown, repeated or missing attribute or
    a bad value; its ge_message is what `qconf -A*` prints on stderr.
    """
    kind = KINDS[kind_name]
    values = _values(kind, pairs, source)
    if kind.name_key is not None and kind.name_key not in values:
        raise _fail(f'required attribute "{kind.name_key}" is missing', source)
    missing = next((key for key in kind.required if key not in values), None)
    if missing is not None:
        raise _fail(f'required attribute "{missing}" is missing', source, trailer=False)
    return msgspec.convert(values, kind.cls)


def _stripped(kind: _Kind, pairs: Iterable[tuple[str, str]], source: str
              ) -> Iterator[tuple[str, str]]:
    """The pairs with their values stripped; an unknown, repeated or empty attribute
    refuses the whole file."""
    seen: set[str] = set()
    for key, raw in pairs:
        if key not in kind.types:
            raise _fail(f'unknown attribute name "{key}"', source)
        if key in seen:
            raise _fail(f'attribute "{key}" appears more than once', source)
        text = raw.strip()
        if not text:
            raise _fail(f'attribute "{key}" has no value', source)
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

_USERSET_KIND = _Kind(Userset, "userset", "name", fields.USERSET)


def userset_from_pairs(pairs: Iterable[tuple[str, str]], *, source: str) -> Userset:
    """An access list or department from a `qconf -Au`/`-Mu` file, validated.

    Usersets are not among KINDS because their model keeps numbers and a list rather
    than text (the scheduler checks membership on every dispatch); the file format, the
    types and the complaints are those of the other kinds.
    """
    values: dict[str, object] = dict(_values(_USERSET_KIND, pairs, source))
    if "name" not in values:
        raise _fail('required attribute "name" is missing', source)
    for key in ("fshare", "oticket"):
        if key in values:
            values[key] = int(str(values[key]))
    if "entries" in values:
        values["entries"] = words(str(values["entries"]))
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
_HOST_CONF_KIND = _Kind(dict, "conf", None, fields.CONF)


def host_conf_from_pairs(pairs: Iterable[tuple[str, str]], *, source: str) -> dict[str, str]:
    """A host-local configuration (`qconf -Aconf`/`-Mconf` of a file named after the host):
    the parameters it overrides, in the order written, which is the order they are shown.
    """
    values = _values(_HOST_CONF_KIND, pairs, source)
    if not values:
        raise InvalidObject("the file sets no parameter", source,
                            ge_message=_READING.format(source=source))
    return values

"""Cluster queue attribute values with per-host and per-host-group overrides.

Every attribute of a cluster queue but `qname` and `hostlist` may differ between its
queue instances: `slots 1,[vm=3],[@linux=2]` gives host vm three slots, the other hosts
of @linux two, and every other host one. Which override wins for a given host is the
model's business; this module only reads and writes the notation.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from gridd.formats.parsing import (
    FormatError,
    error_position,
    expected_names,
    expected_terminals,
    load_parser,
    offending_word,
)

if TYPE_CHECKING:
    from lark import Token

_DESCRIBED = {
    "DEFAULT": "a default value",
    "HOST": "a host or @hostgroup name",
    "VALUE": "a value",
    "_COMMA": '","',
}


@dataclass(frozen=True)
class Overridable:
    """A default and its overrides keyed by host name or `@hostgroup`, in written order.

    The order is kept because Grid Engine prints overrides in the order they were given.
    """

    default: str
    overrides: dict[str, str] = field(default_factory=dict)


def _transformer() -> Any:
    from lark import Transformer

    class _Value(Transformer[Any, Any]):
        def override(self, tokens: list[Token]) -> tuple[Token, str]:
            return tokens[0], str(tokens[1])

        def start(self, children: list[Any]) -> tuple[str, list[tuple[Token, str]]]:
            return str(children[0]), children[1:]

    return _Value()


def parse_overridable(text: str, *, source: str = "<stdin>") -> Overridable:
    """`1,[vm=3],[@linux=2]` → Overridable("1", {"vm": "3", "@linux": "2"})."""
    from lark.exceptions import UnexpectedInput

    stripped = text.strip()
    indent = len(text) - len(text.lstrip())
    parser = load_parser("queue_value", _transformer)
    try:
        default, pairs = parser.parse(stripped)
    except UnexpectedInput as error:
        line, column = error_position(error, stripped)
        expected = expected_names(parser, expected_terminals(error), _DESCRIBED)
        word = offending_word(error, stripped)
        what = f'unexpected "{word}"' if word else "unexpected end of value"
        raise FormatError(what, source, line, column + indent, expected) from None
    overrides: dict[str, str] = {}
    for host, value in pairs:
        if str(host) in overrides:
            raise FormatError(
                f'"{host}" has more than one override', source, 1, host.column + indent
            )
        overrides[str(host)] = value
    return Overridable(default, overrides)


def print_overridable(value: Overridable) -> str:
    """The notation as `qconf -sq` shows it: no blanks around the commas."""
    return value.default + "".join(f",[{host}={v}]" for host, v in value.overrides.items())

"""The notation of cluster queue attribute values with per-host and per-host-group
overrides: `1,[vm=3],[@linux=2]`.

Which override a queue instance gets is the model's rule (gridd.model.overrides); this
module reads and writes the notation, and reads a queue's attribute for one instance.
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Any

from gridd.formats.parsing import (
    FormatError,
    error_position,
    expected_names,
    expected_terminals,
    load_parser,
    offending_word,
)
from gridd.model.objects import NOT_OVERRIDABLE, ClusterQueue
from gridd.model.overrides import Overridable

if TYPE_CHECKING:
    from lark import Token

_DESCRIBED = {
    "DEFAULT": "a default value",
    "HOST": "a host or @hostgroup name",
    "VALUE": "a value",
    "_COMMA": '","',
}


def _transformer() -> Any:
    from lark import Transformer

    class _Value(Transformer[Any, Any]):
        def override(self, tokens: list[Token]) -> tuple[Token, str]:
            return tokens[0], str(tokens[1])

        def start(self, children: list[Any]) -> tuple[str, list[tuple[Token, str]]]:
            return str(children[0]), children[1:]

    return _Value()


def parse_overridable(text: str, *, source: str = "<stdin>") -> Overridable:
    """`1,[vm=3],[@linux=2]` → Overridable("1", {"vm": "3", "@linux": "2"}).

    A value without brackets, as most are, is its default whole, as the grammar would
    read it (parse_with_grammar, which the tests compare): so a master whose queues
    have no overrides loads no Lark."""
    stripped = text.strip()
    if stripped and "[" not in stripped and "]" not in stripped:
        return Overridable(stripped)
    return parse_with_grammar(text, source=source)


def parse_with_grammar(text: str, *, source: str = "<stdin>") -> Overridable:
    """parse_overridable by the grammar alone."""
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


@functools.lru_cache(maxsize=1024)
def overridable(text: str) -> Overridable:
    """Parsed once per distinct text (the master asks for the same attributes per host and
    per reference check): shared, so read it and never change it."""
    return parse_overridable(text)


def queue_value(queue: ClusterQueue, attr: str, host: str, hostgroups_of_host: list[str]
                ) -> str:
    """The value queue instance `attr@host` gets (Overridable.value_for says which)."""
    if attr in NOT_OVERRIDABLE:
        raise ValueError(f'"{attr}" has no per-host value')
    return overridable(getattr(queue, attr)).value_for(host, hostgroups_of_host)

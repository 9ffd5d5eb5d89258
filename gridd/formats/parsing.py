"""Shared machinery of the Lark-based formats: lazy parsers and readable parse errors.

`import lark` costs about 60 ms and building a grammar more, while most q* commands parse
no configuration file at all; so lark (and pathlib, for the grammar files) is imported,
and each parser built, only when a format is first parsed, and then kept for the life of
the process. Printing never needs either.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from lark import Lark
    from lark.exceptions import UnexpectedInput

_WORD = re.compile(r"\S+")


class FormatError(ValueError):
    """A text that does not follow its format, located precisely for the person editing it.

    `ge_message` is what Grid Engine prints for the same mistake (it names no column, and
    sometimes no line); commands that must match Grid Engine's stderr print it, while
    str() is for everything else: logs, tests, people.
    """

    def __init__(
        self,
        message: str,
        source: str,
        line: int,
        column: int,
        expected: Iterable[str] = (),
        *,
        ge_message: str | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.source = source
        self.line = line
        self.column = column
        self.expected = tuple(expected)
        self.ge_message = message if ge_message is None else ge_message

    def __str__(self) -> str:
        where = f"{self.source}:{self.line}:{self.column}: {self.message}"
        if not self.expected:
            return where
        return f"{where}; expected {_alternatives(self.expected)}"


def _alternatives(items: tuple[str, ...]) -> str:
    if len(items) == 1:
        return items[0]
    return ", ".join(items[:-1]) + " or " + items[-1]


@functools.cache
def load_parser(name: str, make_transformer: Callable[[], Any] | None = None,
                start: tuple[str, ...] = ("start",)) -> Lark:
    """The LALR parser of `grammar/<name>.lark`, built on first use.

    LALR with the contextual lexer: Earley is tens of times slower, and the contextual
    lexer lets one column accept a keyword where another accepts any word. The transformer
    runs while parsing, which saves building a tree that is thrown away; it is given as a
    factory because its class derives from lark's, which is not imported until now. A
    grammar with several start symbols names them in `start`, and each parse names one.
    """
    from lark import Lark

    from gridd.resources import data_dir

    transformer = make_transformer() if make_transformer is not None else None
    path = data_dir("grammar") / f"{name}.lark"
    return Lark(
        path.read_text(encoding="utf-8"),
        parser="lalr",
        lexer="contextual",
        transformer=transformer,
        maybe_placeholders=False,
        start=list(start),
    )


def expected_names(
    parser: Lark, terminals: Iterable[str], described: Mapping[str, str]
) -> tuple[str, ...]:
    """Terminal names as a reader knows them: `described` text, or the literal itself.

    Lark names literal terminals itself (`__ANON_0`, `COMMA`); those names mean nothing
    to someone editing a queue file, the quoted literal does.
    """
    patterns = {terminal.name: terminal.pattern for terminal in parser.terminals}
    names: set[str] = set()
    for terminal in terminals:
        if terminal in described:
            names.add(described[terminal])
        elif terminal == "$END":
            names.add("end of input")
        elif terminal in patterns and patterns[terminal].type == "str":
            names.add(f'"{patterns[terminal].value}"')
        else:
            names.add(terminal.lower().strip("_"))
    return tuple(sorted(names))


def expected_terminals(error: UnexpectedInput) -> frozenset[str]:
    """The terminals the parser would have accepted where `error` happened."""
    allowed = getattr(error, "allowed", None) or getattr(error, "expected", None) or ()
    return frozenset(allowed)


def at_end(error: UnexpectedInput) -> bool:
    token = getattr(error, "token", None)
    return token is not None and token.type == "$END"


def offending_word(error: UnexpectedInput, text: str) -> str:
    """The word where parsing stopped: a blank if it stopped at one, "" at a line end."""
    position = getattr(error, "pos_in_stream", None)
    if position is None or at_end(error):
        return ""
    word = _WORD.match(text, position)
    if word and word.group():
        return word.group()
    return text[position : position + 1].strip("\r\n")


def error_position(error: UnexpectedInput, text: str) -> tuple[int, int]:
    """(line, column), 1-based; an error at the end of input is placed after its last
    character (Lark reports it at the last token instead).
    """
    line = getattr(error, "line", -1)
    column = getattr(error, "column", -1)
    if line is None or line < 1 or at_end(error):
        lines = text.split("\n")
        return len(lines), len(lines[-1]) + 1
    return line, column

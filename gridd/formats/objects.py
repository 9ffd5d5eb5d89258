"""The `name value` format of qconf objects and of their classic spool files.

Queues, exec hosts, configurations, the scheduler configuration, PEs, access lists,
projects and host groups are all written as one `name value` line per attribute. What
differs between them is only the width of the name column, so one parser and one printer
serve all of them, and the attribute meanings stay with the model.

Grid Engine wraps long values when it shows them (so that `qconf -m*` opens an editor on
80-column lines) but never in spool files, which are read back by a program.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
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

# Name column width of what `qconf -s*` prints; the value starts one column further
# right, or one blank after a longer name. A width of 0 means "name, blank, value".
KEY_WIDTHS = {
    "queue": 21,
    "exechost": 21,
    "conf": 28,
    "sched": 33,
    "pe": 18,
    "hostgroup": 0,
    "userset": 7,
    "project": 0,
    "user": 0,
}

# Classic spool files use the same widths, except these (the scheduler configuration is
# spooled unaligned), plus objects that qconf does not show in this format.
SPOOL_KEY_WIDTHS = KEY_WIDTHS | {
    "sched": 0,
    "qinstance": 21,
    "adminhost": 21,
    "submithost": 21,
    "centry": 11,
    "ar": 20,
}

SPOOL_HEADER = "# Version: 8.1.9\n# \n# DO NOT MODIFY THIS FILE MANUALLY!\n# \n"

# Grid Engine keeps every shown line, the ` \` included, within 80 columns when it can.
LINE_WIDTH = 80
CONTINUATION = " \\"


def _transformer() -> Any:
    from lark import Transformer

    class _Pairs(Transformer[Any, list[tuple[str, str]]]):
        def pair(self, tokens: list[Token]) -> tuple[str, str]:
            value = join_continued(str(tokens[1])) if len(tokens) > 1 else ""
            return str(tokens[0]), value

        def start(self, pairs: list[tuple[str, str]]) -> list[tuple[str, str]]:
            return pairs

    return _Pairs()


def join_continued(raw: str) -> str:
    """One value from its physical lines, undoing the printer's wrapping.

    Grid Engine turns each backslash-newline into a blank; we also drop the indentation
    of the continuation, and the blank after a comma, so that a wrapped list comes back
    exactly as it was before printing (`a,b, \\` + `c` is `a,b,c`). Grid Engine's lists
    accept either form, so nothing it would read differently is lost.
    """
    *continued, last = raw.replace("\r", "").split("\n")
    value = ""
    for piece in [line[:-1] for line in continued] + [last]:
        piece = piece.strip()
        if not piece:
            continue
        value += piece if not value or value.endswith(",") else " " + piece
    return value


def parse_object(text: str, *, source: str = "<stdin>") -> list[tuple[str, str]]:
    """(name, value) pairs in file order; repeated names are kept for the caller to judge."""
    from lark.exceptions import UnexpectedInput

    parser = load_parser("object", _transformer)
    try:
        return parser.parse(text)
    except UnexpectedInput as error:
        line, column = error_position(error, text)
        expected = expected_names(parser, expected_terminals(error), {"_NL": "end of line"})
        word = offending_word(error, text)
        raise FormatError(f'unexpected "{word}"', source, line, column, expected) from None


def break_line(line: str, cuts: Iterator[tuple[int, int]]) -> tuple[str, str] | None:
    """Split at the last cut (where the head ends, where the tail starts; ascending) that
    leaves room for the ` \\` within 80 columns; failing that at the first, so that a
    single long word overflows instead of being cut.

    `cuts` is read only up to the first one past the limit and only the chosen one is
    sliced, so a long line wraps in linear time per line (slicing at every candidate made
    `qconf -shgrp` of a 5000-host group take minutes).
    """
    chosen: tuple[int, int] | None = None
    for cut in cuts:
        if cut[0] + len(CONTINUATION) > LINE_WIDTH:
            chosen = chosen or cut
            break
        chosen = cut
    if chosen is None:
        return None
    return line[:chosen[0]], line[chosen[1]:].lstrip(" ")


def _cuts(line: str, indent: int) -> Iterator[tuple[int, int]]:
    """A qconf object line's break points: a blank (when something follows it), or the
    end of a comma."""
    end = len(line.rstrip())
    for index in range(indent + 1, len(line)):
        if line[index] == " " and line[index - 1] != " " and index + 1 < end:
            yield index, index + 1
        elif line[index - 1] == "," and line[index] != " ":
            yield index, index


def _wrap(line: str, indent: int) -> str:
    lines = []
    while len(line) > LINE_WIDTH:
        cut = break_line(line, _cuts(line, indent))
        if cut is None:
            break
        head, tail = cut
        lines.append(head + CONTINUATION)
        line = " " * indent + tail
    lines.append(line)
    return "\n".join(lines)


def print_object(pairs: Iterable[tuple[str, str]], *, width: int, spool: bool = False) -> str:
    """The object as `qconf -s*` shows it, or as its classic spool file if `spool`.

    `width` is the name column of the object kind (see KEY_WIDTHS / SPOOL_KEY_WIDTHS).
    """
    lines = []
    for key, value in pairs:
        line = f"{key.ljust(width)} {value}"
        lines.append(line if spool else _wrap(line, max(width, len(key)) + 1))
    body = "".join(f"{line}\n" for line in lines)
    return SPOOL_HEADER + body if spool else body


def print_configuration(name: str, pairs: Iterable[tuple[str, str]], *, spool: bool = False) -> str:
    """A global or host configuration (`qconf -sconf [host]`, or its spool file).

    Both forms end with an empty line; the shown form starts with `#<name>:`, the spool
    form has the caller's `conf_name`/`conf_version` pairs instead.
    """
    body = print_object(pairs, width=KEY_WIDTHS["conf"], spool=spool)
    return f"{body}\n" if spool else f"#{name}:\n{body}\n"

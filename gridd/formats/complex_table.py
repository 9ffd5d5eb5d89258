"""The complex table: what `qconf -sc` prints and what `qconf -Mc`/`-mc` reads back.

Only the syntax lives here; whether a row makes sense (a STRING consumable, a duplicate
shortcut) is decided where complexes are validated, so rows keep every column as written.
Grid Engine itself splits the work the same way, and that split shows in its messages:
a wrong type, relational operator, requestable or consumable keyword, or an extra column,
is a file error ("... is not correct"); a missing column only surfaces later as
"Complex urgency definition is missing".
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any, NamedTuple

from gridd.formats.parsing import (
    FormatError,
    error_position,
    expected_names,
    expected_terminals,
    load_parser,
    offending_word,
)
from gridd.model.complexes import CONSUMABLE, TYPES

if TYPE_CHECKING:
    from lark import Lark
    from lark.exceptions import UnexpectedInput


class ComplexRow(NamedTuple):
    """One complex attribute, every column as the administrator wrote it."""

    name: str
    shortcut: str
    type: str
    relop: str
    requestable: str
    consumable: str
    default: str
    urgency: str


_COLUMNS = ComplexRow._fields
# Widths of all columns but the last in `qconf -sc`; a longer value pushes the rest right.
_WIDTHS = (19, 10, 9, 5, 11, 10, 8)
_HEADER = ("#name",) + _COLUMNS[1:]
_RULE = "#" + "-" * 86
_TRAILER = "# >#< starts a comment but comments are not saved across edits --------"

_DESCRIBED = {
    "TYPE": f"a type ({', '.join(TYPES)})",
    "RELOP": "a relational operator (==, !=, >=, >, <=, <, EXCL)",
    "REQUESTABLE": "YES, NO or FORCED",
    "CONSUMABLE": "YES, NO, JOB or HOST",
    "FIELD": "a value",
    "_NL": "end of line",
}


# Open Cluster Scheduler reads the consumable column in any case and as one letter; the
# table keeps the word, as both print it.
_CONSUMABLE_WORDS = {word[0]: word for word in CONSUMABLE}


def _consumable_word(column: str) -> str:
    word = column.upper()
    return _CONSUMABLE_WORDS.get(word, word)


def _transformer() -> Any:
    from lark import Transformer

    class _Rows(Transformer[Any, list[ComplexRow]]):
        def row(self, tokens: list[Any]) -> ComplexRow:
            columns = [str(token) for token in tokens]
            columns[5] = _consumable_word(columns[5])
            return ComplexRow(*columns)

        def start(self, rows: list[ComplexRow]) -> list[ComplexRow]:
            return rows

    return _Rows()


def parse_complex_table(text: str, *, source: str = "<stdin>") -> list[ComplexRow]:
    """Rows of a complex table, in file order; comments and blank lines are dropped."""
    from lark.exceptions import UnexpectedInput

    parser = load_parser("complex", _transformer)
    try:
        return parser.parse(text)
    except UnexpectedInput as error:
        raise _format_error(parser, error, text, source) from None


def _format_error(parser: Lark, error: UnexpectedInput, text: str, source: str) -> FormatError:
    line, column = error_position(error, text)
    allowed = expected_terminals(error)
    expected = expected_names(parser, allowed, _DESCRIBED)
    line_text = text.split("\n")[line - 1] if line >= 1 else ""
    # The columns before the error; an error at the end of a line is placed after its
    # comment, whose words are no columns. The index of the column at fault follows.
    index = len(line_text[: column - 1].split("#", 1)[0].split())
    not_correct = f'Complex attribute file "{source}" is not correct'
    token = getattr(error, "token", None)
    if token is not None and token.type in ("_NL", "$END"):
        return FormatError(
            f"missing {_COLUMNS[min(index, len(_COLUMNS) - 1)]} column",
            source,
            line,
            column,
            expected,
            ge_message="Complex urgency definition is missing",
        )
    word = offending_word(error, text)
    if "TYPE" in allowed:
        return FormatError(
            f'unknown complex attribute type "{word}"',
            source,
            line,
            column,
            expected,
            ge_message=f'error: unknown complex attribute type "{word}"\n{not_correct}',
        )
    where = f"in the {_COLUMNS[index]} column" if index < len(_COLUMNS) else "after the urgency"
    return FormatError(
        f'unexpected "{word}" {where}',
        source,
        line,
        column,
        expected,
        ge_message=(
            f"error: each value in the attribute value list in line {line} "
            f'should end with "<NEWLINE>"\n{not_correct}'
        ),
    )


_WORD = re.compile(r"[^\s#]+")  # a column of the table (the grammar's FIELD)


def column_problem(row: ComplexRow) -> str | None:
    """Why the row cannot be a line of the table, which splits its columns at blanks and
    ends it at a `#`: a column that is empty or not one word would be read back as other
    columns (an editor of rows asks before printing); None when it can."""
    for column, value in zip(_COLUMNS, row, strict=True):
        if not value:
            return (f"error: complex attribute \"{row.name}\": the {column} column is empty"
                    if row.name else "error: a complex attribute needs a name")
        if not _WORD.fullmatch(value):
            return (f'error: complex attribute "{row.name}": the {column} column "{value}" '
                    'is not one word (no blanks, no "#")')
    return None


def _table_line(fields: Iterable[str]) -> str:
    *padded, last = fields
    return " ".join(value.ljust(width) for value, width in zip(padded, _WIDTHS, strict=True)) + (
        " " + last
    )


def print_complex_table(rows: Iterable[ComplexRow]) -> str:
    """The table exactly as `qconf -sc` prints it, rows in the order given.

    Grid Engine lists attributes sorted by name; sorting is the caller's business so that
    printing a parsed table gives back the same rows.
    """
    lines = [_table_line(_HEADER) + " ", _RULE]
    lines.extend(_table_line(row) for row in rows)
    lines.append(_TRAILER)
    return "\n".join(lines) + "\n"

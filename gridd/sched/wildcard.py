"""Wildcard expressions: how a request for a string attribute (STRING, CSTRING, RESTRING,
HOST) is matched against the value a level offers.

An expression is patterns joined by `&` (and) and `|` (or), `&` binding tighter, each
operand perhaps negated with `!` or grouped in parentheses: `(lx*|sol*)&*64*`,
`!lx-x86&!sol-amd64`. A pattern is a shell pattern: `*` any run, `?` one character,
`[...]` a set or range (`^` first negates it), `\\` makes the next character literal, and
everything else, `.` too, stands for itself. The operators are read wherever they stand,
even inside brackets or after a backslash, so `[linux|solaris]` means `[linux` or
`solaris]` (an unclosed bracket is literal). An expression that does not parse matches
nothing. 8.1.9 reads requests so, whatever the spec says of plain strings: `-l arch=lx-*`
finds an lx-amd64 host there.

The expression becomes one regular expression of look-aheads at the start of the value,
so that a check stays a single `match` call.
"""

from __future__ import annotations

import re
from functools import lru_cache

OPERATORS = frozenset("!&|()")
SPECIAL = OPERATORS | frozenset("*?[\\")  # a request without these is a plain value
_NOTHING = re.compile(r"(?!)")
_DEEPEST = 32  # nesting (parentheses, negations) beyond this is taken as malformed


class _Malformed(Exception):
    pass


def is_expression(text: str) -> bool:
    """Whether a request needs reading as an expression (else it is compared as a value)."""
    return any(c in SPECIAL for c in text)


@lru_cache(maxsize=4096)
def compile_expression(text: str, caseless: bool = False) -> re.Pattern[str]:
    """The expression as a pattern whose `match` (not fullmatch) tells whether a value
    satisfies it; one that matches nothing when the expression is malformed."""
    tokens = re.split(r"([!&|()])", text)
    parser = _Parser([t for t in tokens if t != ""])
    try:
        body = parser.either()
        if parser.more():
            raise _Malformed
        return re.compile(body, re.DOTALL | (re.IGNORECASE if caseless else 0))
    except (_Malformed, re.error, RecursionError, OverflowError):
        return _NOTHING


class _Parser:
    """Recursive descent over the tokens, each rule giving a zero-width regular
    expression anchored where the value starts."""

    def __init__(self, tokens: list[str]) -> None:
        self.tokens = tokens
        self.at = 0
        self.depth = 0

    def more(self) -> bool:
        return self.at < len(self.tokens)

    def _next(self) -> str:
        if not self.more():
            raise _Malformed
        token = self.tokens[self.at]
        self.at += 1
        return token

    def _peek(self) -> str | None:
        return self.tokens[self.at] if self.more() else None

    def either(self) -> str:
        parts = [self.both()]
        while self._peek() == "|":
            self.at += 1
            parts.append(self.both())
        return parts[0] if len(parts) == 1 else "(?:" + "|".join(parts) + ")"

    def both(self) -> str:
        parts = [self.operand()]
        while self._peek() == "&":
            self.at += 1
            parts.append(self.operand())
        return "".join(parts)

    def operand(self) -> str:
        token = self._next()
        if token in "!(":
            self.depth += 1
            if self.depth > _DEEPEST:
                raise _Malformed
            if token == "!":
                inner = f"(?!{self.operand()})"
            else:
                inner = f"(?:{self.either()})"
                if self._next() != ")":
                    raise _Malformed
            self.depth -= 1
            return inner
        if token in OPERATORS:
            raise _Malformed
        return f"(?={_glob(token)}\\Z)"


def _glob(text: str) -> str:
    out = []
    i = 0
    while i < len(text):
        char = text[i]
        if char == "\\" and i + 1 < len(text):
            out.append(re.escape(text[i + 1]))
            i += 2
            continue
        end = text.find("]", i + 2) if char == "[" else -1
        if end != -1:
            out.append(_char_class(text[i + 1 : end]))
            i = end + 1
            continue
        out.append(".*" if char == "*" else "." if char == "?" else re.escape(char))
        i += 1
    return "".join(out)


def _char_class(body: str) -> str:
    negate = len(body) > 1 and body[0] == "^"
    chars = body[1:] if negate else body
    parts = []
    for i, char in enumerate(chars):
        inner_dash = char == "-" and 0 < i < len(chars) - 1
        parts.append("-" if inner_dash else re.escape(char))
    body = "".join(parts)
    try:
        re.compile(f"[{body}]")
    except re.error:  # a range running backwards ([6-4]) offers no character
        return "(?!)"
    return "[" + ("^" if negate else "") + body + "]"

"""Mutations: valid inputs changed a little at a time, by hypothesis or by a fast loop.

Purely random bytes or text rarely get past a parser's first check, so most of a fuzz
budget goes to real inputs (valid messages, files as Grid Engine prints them, command
lines of real options) with a few edits: a token of the format inserted, a span dropped,
doubled or replaced, the end cut off, or the head of one input joined to the tail of
another.

Every mutation takes its random choices from a `Chooser`. In the suite the chooser draws
from hypothesis, so a failing input shrinks towards the seed it came from; bench/fuzz.py
uses one over `random.Random`, which is some fifty times faster than hypothesis's engine
and is what makes 100,000 inputs per target affordable. One implementation serves both.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import Any, Protocol, TypeVar

from hypothesis import strategies as st

T = TypeVar("T")

# Bytes that change how msgpack reads what follows: nil, false/true, the fixed-size
# headers of bin/ext/float/ints/str/array/map (whose length fields then read garbage),
# fixext, and the boundaries of the fix* ranges.
INTERESTING_BYTES = (
    0x00, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xC1, 0xC2, 0xC3, 0xC4, 0xC5,
    0xC6, 0xC7, 0xC8, 0xC9, 0xCA, 0xCB, 0xCC, 0xCD, 0xCE, 0xCF, 0xD0, 0xD3, 0xD4, 0xD8,
    0xD9, 0xDA, 0xDB, 0xDC, 0xDD, 0xDE, 0xDF, 0xE0, 0xFF,
)

# Characters that parsers treat specially somewhere: line breaks that str.splitlines()
# knows and the grammars do not, digits that str.isdigit() accepts and int() refuses,
# case mappings that change length, NUL, the BOM, and a lone surrogate (what
# surrogateescape makes of a byte that is not UTF-8 in a file qconf or qsub read).
AWKWARD_CHARS = (
    "\x00", "\t", "\n", "\r", "\r\n", "\x0b", "\x0c", "\x1c", "\x1d", "\x1e", "\x85",
    "\u2028", "\u2029", "\xa0", "\u3000", "\ufeff", "²", "³", "¹", "①", "٣", "߃", "𝟘",
    "İ", "ß", "ﬀ", "\udcff", "é", "∞", "½", "-", "+", ".", "e", "inf", "nan", "0x1",
    "9" * 25, "1e999", "-0",
)


class Chooser(Protocol):
    """Where a mutation gets its random choices."""

    def integer(self, low: int, high: int) -> int: ...

    def choice(self, items: Sequence[T]) -> T: ...

    def text(self, max_size: int) -> str: ...

    def binary(self, max_size: int) -> bytes: ...


class DrawChooser:
    """Choices drawn from hypothesis (inside a composite strategy): shrinkable."""

    def __init__(self, draw: st.DrawFn) -> None:
        self._draw = draw

    def integer(self, low: int, high: int) -> int:
        return self._draw(st.integers(low, high))

    def choice(self, items: Sequence[T]) -> T:
        return self._draw(st.sampled_from(items))

    def text(self, max_size: int) -> str:
        return self._draw(st.text(max_size=max_size))

    def binary(self, max_size: int) -> bytes:
        return self._draw(st.binary(max_size=max_size))


class RandomChooser:
    """Choices from random.Random: no shrinking, but fast."""

    # Mostly ASCII, some Latin-1 and some of the whole of Unicode, as hypothesis draws.
    _ALPHABET = [chr(c) for c in range(32, 127)] * 4 + [chr(c) for c in range(0, 256)]

    def __init__(self, seed: int) -> None:
        self.random = random.Random(seed)

    def integer(self, low: int, high: int) -> int:
        return self.random.randint(low, high)

    def choice(self, items: Sequence[T]) -> T:
        return items[self.random.randrange(len(items))]

    def text(self, max_size: int) -> str:
        size = self.random.randint(0, max_size)
        pick = self.random.choice
        return "".join(
            pick(self._ALPHABET) if self.random.random() < 0.9
            else chr(self.random.randrange(0x110000)) for _ in range(size))

    def binary(self, max_size: int) -> bytes:
        return self.random.randbytes(self.random.randint(0, max_size))


def mutate_bytes(data: bytes, seeds: Sequence[bytes], c: Chooser, max_size: int = 4096) -> bytes:
    """One to eight edits of `data`, at positions within it."""
    out = bytearray(data)
    for _ in range(c.integer(1, 8)):
        pos = c.integer(0, len(out))
        op = c.integer(0, 7)
        if op == 0 and out:  # flip bits of one byte
            at = min(pos, len(out) - 1)
            out[at] ^= c.integer(1, 255)
        elif op == 1 and out:  # a byte msgpack reads as a header
            out[min(pos, len(out) - 1)] = c.choice(INTERESTING_BYTES)
        elif op == 2:  # insert random bytes
            out[pos:pos] = c.binary(9)
        elif op == 3:  # drop a span
            out[pos : pos + c.integer(1, 16)] = b""
        elif op == 4:  # double a span
            out[pos:pos] = out[pos : pos + c.integer(1, 32)]
        elif op == 5:  # cut off the end
            del out[pos:]
        elif op == 6:  # an extreme value for a length or an int: 0, max or near it
            width = c.choice((1, 2, 4, 8))
            value = c.choice((0, 1, 2 ** (8 * width) - 1, 2 ** (8 * width - 1)))
            out[pos : pos + width] = value.to_bytes(width, "big")
        else:  # the head of this input, the tail of another
            other = c.choice(seeds)
            out[pos:] = other[c.integer(0, len(other)) :]
    return bytes(out[:max_size])


def mutate_text(text: str, seeds: Sequence[str], tokens: Sequence[str], c: Chooser,
                max_size: int = 4096) -> str:
    """One to eight edits of `text`, tokens of its format among the insertions."""
    for _ in range(c.integer(1, 8)):
        pos = c.integer(0, len(text))
        op = c.integer(0, 6)
        if op == 0:  # a token of the format, or an awkward character
            piece = c.choice(tokens) if tokens and c.integer(0, 2) else c.choice(AWKWARD_CHARS)
            text = text[:pos] + piece + text[pos:]
        elif op == 1:  # drop a span
            text = text[:pos] + text[pos + c.integer(1, 12) :]
        elif op == 2:  # replace a span with arbitrary text
            text = text[:pos] + c.text(4) + text[pos + c.integer(0, 6) :]
        elif op == 3:  # double a span
            text = text[:pos] + text[pos : pos + c.integer(1, 40)] + text[pos:]
        elif op == 4:  # cut off the end
            text = text[:pos]
        elif op == 5:  # change case around here, which keywords care about
            size = c.integer(1, 12)
            text = text[:pos] + text[pos : pos + size].swapcase() + text[pos + size :]
        else:  # the head of this text, the tail of another
            other = c.choice(seeds)
            text = text[:pos] + other[c.integer(0, len(other)) :]
    return text[:max_size]


def mutate_words(words: Sequence[str], pool: Sequence[str], c: Chooser,
                 max_words: int = 40) -> list[str]:
    """One to four edits of a word list (a command line): words from `pool` (the
    command's options and typical values) inserted or swapped in, words dropped, moved,
    doubled, or edited as text."""
    out = list(words)
    for _ in range(c.integer(1, 4)):
        pos = c.integer(0, len(out))
        op = c.integer(0, 5)
        if op == 0:
            out.insert(pos, c.choice(pool))
        elif op == 1 and out:
            out[min(pos, len(out) - 1)] = c.choice(pool)
        elif op == 2:
            del out[pos : pos + c.integer(1, 3)]
        elif op == 3 and out:
            at = min(pos, len(out) - 1)
            out[at] = mutate_text(out[at], pool, (), c, max_size=200)
        elif op == 4:
            out[pos:pos] = out[pos : pos + c.integer(1, 4)]
        else:
            out.insert(pos, c.text(12))
    return out[:max_words]


def token_soup(tokens: Sequence[str], c: Chooser, max_tokens: int = 60) -> str:
    """Tokens of a format and blanks in any order: grammatical-looking nonsense."""
    pieces = (*tokens, " ", " ", "\n", "\n", "\t")
    out = []
    for _ in range(c.integer(0, max_tokens)):
        kind = c.integer(0, 9)
        out.append(c.choice(AWKWARD_CHARS) if kind == 0 else c.text(3) if kind == 1
                   else c.choice(pieces))
    return "".join(out)


def drawn(make: Callable[[Chooser], T]) -> st.SearchStrategy[T]:
    """A hypothesis strategy of what `make` builds from a hypothesis-backed Chooser."""

    @st.composite
    def strategy(draw: st.DrawFn) -> Any:
        return make(DrawChooser(draw))

    return strategy()

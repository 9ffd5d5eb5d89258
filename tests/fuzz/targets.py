"""What a fuzz target is, and the list of them all.

A target couples a parser with the inputs to throw at it and with what it may do in
answer: return, or raise the error its callers catch (FormatError, ValueError,
ProtocolError, a command's usage error, ...). Anything else escaping `check` is a
finding. The suite (tests/fuzz/test_fuzz.py) runs each target's hypothesis strategy
briefly; bench/fuzz.py runs `seeds`, `mutate` and `fresh` fast for 100,000 inputs.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass, field
from typing import Any

from hypothesis import strategies as st

from tests.fuzz.mutate import Chooser, drawn, mutate_text, token_soup


class Unexpected(AssertionError):
    """A parser answered in a way its callers do not expect (not an exception it raised)."""


@dataclass(frozen=True)
class Target:
    """One parser under fuzzing.

    `check(value)` feeds it one input and raises only for a finding. `seeds` are typical
    valid inputs, `mutate` derives a nearby input from one, `fresh` makes one from
    nothing (noise, token soup). `extra` adds inputs only hypothesis can build (whole
    protocol messages), and `sandbox` is entered around a run of many inputs (a temporary
    GRIDD_ROOT, say) and gives nothing to `check`.
    """

    name: str
    check: Callable[[Any], None]
    seeds: Sequence[Any]
    mutate: Callable[[Any, Chooser], Any]
    fresh: Callable[[Chooser], Any]
    extra: st.SearchStrategy[Any] | None = None
    sandbox: Callable[[], AbstractContextManager[Any]] = nullcontext
    examples: int = 200  # how many the suite runs
    # Inputs of a given size (characters, or words) that the bench's --scaling times on
    # top of its generic patterns: the long values this parser is meant to take.
    scale: Mapping[str, Callable[[int], Any]] = field(default_factory=dict)

    def strategy(self) -> st.SearchStrategy[Any]:
        """Mutated seeds twice as often as fresh inputs, plus `extra` when there is one."""

        def mutated(c: Chooser) -> Any:
            return self.mutate(c.choice(self.seeds), c)

        parts = [drawn(mutated), drawn(mutated), drawn(self.fresh)]
        if self.extra is not None:
            parts.append(self.extra)
        return st.one_of(parts)


def text_target(
    name: str,
    parse: Callable[[str], object],
    allowed: tuple[type[BaseException], ...],
    seeds: Sequence[str],
    tokens: Sequence[str],
    *,
    max_size: int = 4096,
    examples: int = 200,
    scale: Mapping[str, Callable[[int], str]] | None = None,
) -> Target:
    """A parser of text that returns or raises one of `allowed`."""

    def check(text: str) -> None:
        try:
            parse(text)
        except allowed:
            pass

    def fresh(c: Chooser) -> str:
        return token_soup(tokens, c) if c.integer(0, 1) else c.text(200)

    return Target(
        name,
        check,
        tuple(seeds),
        lambda text, c: mutate_text(text, seeds, tokens, c, max_size),
        fresh,
        examples=examples,
        scale=scale or {},
    )


def all_targets() -> list[Target]:
    """Every target, protocol first, then the text formats, then the command lines."""
    from tests.fuzz import argv, texts, wire

    return [wire.DECODER, *texts.TARGETS, *argv.TARGETS]

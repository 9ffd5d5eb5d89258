"""RSMAP values: a consumable whose capacity is a count of named instances.

A host offers `gpu=4(0 1 2 3)` (ids are any words, `0-7` a range of numbers, an id written
twice is one instance two jobs may share); a job asks an amount (`-l gpu=2`) and is
granted that many ids, which no other running job holds at the same time. The syntax and
the words of the errors are Open Cluster Scheduler's, so its host configurations load.

Pure: parsing, printing and choosing ids; the scheduler keeps who holds which.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Iterable, Sequence

# What a task or an advance reservation holds of RSMAPs: (complex, host, ids) for each
# RSMAP and host it holds ids of, host "global" for the global host's; an id held twice
# appears twice. Kept in the task (spooled), so the ids outlive restarts.
ResourceMap = list[tuple[str, str, list[str]]]
GLOBAL = "global"

# More ids than any host has devices or ports: a bound so that a typo such as
# `port=1(0-999999999)` is refused instead of expanded.
MAX_IDS = 100_000

_VALUE = re.compile(r"\s*([^\s(]+)\s*(?:\((.*)\))?\s*", re.DOTALL)
_RANGE = re.compile(r"(\d+)-(\d+)")
_ID = re.compile(r"[^\s()=,]+")


def has_ids(text: str) -> bool:
    """Whether a value lists ids (`2(0 1)`) rather than only an amount (`2`)."""
    return "(" in text


def amount_text(text: str) -> str:
    """The amount of an RSMAP value, as written: `2` of `2(0 1)`."""
    return text.split("(", 1)[0].strip()


def parse(name: str, text: str) -> tuple[str, ...]:
    """The ids a value offers, ranges expanded and repeated ids kept (one per use).

    Raises ValueError in Open Cluster Scheduler's words when the ids are malformed or
    their number is not the amount.
    """
    match = _VALUE.fullmatch(text)
    if match is None or match.group(2) is None:
        raise ValueError(f'the RSMAP value "{text}" needs to define IDs')
    ids: list[str] = []
    for word in match.group(2).split():
        ids.extend(_expand(name, text, word))
        if len(ids) > MAX_IDS:
            raise ValueError(f'RSMAP "{name}" value "{text}" has more than {MAX_IDS} elements')
    try:
        amount = int(match.group(1))
    except ValueError:
        raise ValueError(f'RSMAP "{name}" value "{text}" has no whole amount') from None
    if amount != len(ids):
        raise ValueError(
            f'RSMAP "{name}" value "{text}" has amount {amount} but {len(ids)} elements')
    return tuple(ids)


def _expand(name: str, text: str, word: str) -> list[str]:
    bounds = _RANGE.fullmatch(word)
    if bounds:
        low, high = sorted((int(bounds.group(1)), int(bounds.group(2))))
        if high - low >= MAX_IDS:
            raise ValueError(
                f'RSMAP "{name}" value "{text}" has more than {MAX_IDS} elements')
        return [str(n) for n in range(low, high + 1)]
    if not _ID.fullmatch(word):
        raise ValueError(f'RSMAP "{name}" value "{text}" has an invalid id "{word}"')
    return [word]


def show(ids: Sequence[str]) -> str:
    """A value as `qconf -se` prints it: the amount, then the ids with runs of three or
    more consecutive numbers written as a range (`8(0-7)`)."""
    words: list[str] = []
    run: list[int] = []

    def flush() -> None:
        if len(run) >= 3:
            words.append(f"{run[0]}-{run[-1]}")
        else:
            words.extend(str(n) for n in run)
        run.clear()

    for item in ids:
        number = int(item) if item.isdigit() and str(int(item)) == item else None
        if number is not None and run and number == run[-1] + 1:
            run.append(number)
            continue
        flush()
        if number is None:
            words.append(item)
        else:
            run.append(number)
    flush()
    return f"{len(ids)}({' '.join(words)})"


def free_ids(ids: Sequence[str], held: Iterable[str]) -> list[str]:
    """The ids not held, in the order the host lists them (an id listed twice and held
    once is free once)."""
    taken = Counter(held)
    free = []
    for item in ids:
        if taken[item]:
            taken[item] -= 1
        else:
            free.append(item)
    return free


def overbooks(grant: ResourceMap, held: Iterable[ResourceMap],
              offered: Callable[[str, str], Sequence[str]]) -> bool:
    """Whether granting `grant` would hold one of its ids more often than the host offers
    it (`offered(complex, host)`), given what is `held` already: the master's check of a
    scheduler's order against what runs now, as it checks slots."""
    for name, host, ids in grant:
        taken = Counter(ids)
        for resource_map in held:
            taken.update(i for n, h, got in resource_map if n == name and h == host
                         for i in got if i in taken)
        limit = Counter(offered(name, host))
        if any(count > limit[i] for i, count in taken.items()):
            return True
    return False


def pick(ids: Sequence[str], held: Iterable[str], amount: int) -> tuple[str, ...] | None:
    """The first `amount` free ids in the host's order, or None when fewer are free.

    Always the first: a job's ids are predictable from what runs, which makes a grant
    reproducible in tests and `gridd sim`.
    """
    free = free_ids(ids, held)
    return tuple(free[:amount]) if len(free) >= amount else None

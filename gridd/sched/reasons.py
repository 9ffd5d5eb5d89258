"""Why jobs wait, as a cycle keeps it: per job a prefix of its category's reasons and of
its asker's quota refusals, not a list of its own. Thousands of jobs wait for the same
reasons, often hundreds each; lists are made when read, once for all jobs that read
alike, and the scheduler tells the master only what changed (gridd.sched.info) without
making them at all."""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from types import MappingProxyType
from typing import NamedTuple

NO_REASONS: Mapping[str, None] = MappingProxyType({})  # an asker no quota refused


class Why(NamedTuple):
    """The first `n` reasons of `reasons` and the first `m` of `quota`: ordered sets
    (dicts) that only grow during a cycle, so what they held when the job was looked at
    stays their prefix."""

    reasons: Mapping[str, None]
    n: int
    quota: Mapping[str, None]
    m: int

    @classmethod
    def of(cls, lines: list[str]) -> Why:
        """Reasons given as a list of distinct lines (a fixed text, say)."""
        held = dict.fromkeys(lines)
        return cls(held, len(held), NO_REASONS, 0)

    def key(self) -> tuple[int, int, int, int]:
        """Alike for jobs that read alike from the same sets (while both sets live)."""
        return id(self.reasons), self.n, id(self.quota), self.m

    def lines(self) -> list[str]:
        return [*itertools.islice(self.reasons, self.n), *itertools.islice(self.quota, self.m)]


class Lines:
    """Records made into lists, once per distinct record (Why.key) while the records
    live: jobs that read alike from the same sets share one list."""

    def __init__(self) -> None:
        self._made: dict[tuple[int, int, int, int], list[str]] = {}

    def __call__(self, why: Why) -> list[str]:
        key = why.key()
        found = self._made.get(key)
        if found is None:
            found = self._made[key] = why.lines()
        return found


def as_lists(whys: Mapping[int, Why]) -> dict[int, list[str]]:
    """The reasons of each job as a list; jobs that read alike share one."""
    lines = Lines()
    return {job: lines(why) for job, why in whys.items()}


class Prefixes:
    """How long two ordered sets agree from their start, worked out once per pair (the
    sets of one cycle against those of the last, for the scheduler's Told)."""

    def __init__(self) -> None:
        self._found: dict[tuple[int, int], int] = {}

    def same(self, old: Why, new: Why) -> bool:
        """Whether the two read alike."""
        return (old.n == new.n and old.m == new.m
                and self._agree(old.reasons, new.reasons) >= new.n
                and self._agree(old.quota, new.quota) >= new.m)

    def _agree(self, a: Mapping[str, None], b: Mapping[str, None]) -> int:
        if a is b:
            return len(a)
        key = (id(a), id(b))
        found = self._found.get(key)
        if found is None:
            found = 0
            for x, y in zip(a, b, strict=False):  # (sets of any sizes)
                if x != y:
                    break
                found += 1
            self._found[key] = found
        return found

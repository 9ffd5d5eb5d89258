"""Skip pointers (gridd.sched.categories): a list from no_skips passes over nothing, is
the list a fresh range makes, and is the caller's own (the kept one never changes)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from gridd.sched.categories import jump, no_skips


@given(st.integers(0, 300), st.lists(st.integers(0, 300), max_size=20))
def test_no_skips_is_a_fresh_range(n: int, dead: list[int]) -> None:
    skip = no_skips(n)
    assert skip == list(range(n + 1))
    for i in dead:
        if i < n:
            skip[i] = i + 1
    alive = [i for i in range(n) if jump(skip, i) == i]
    assert alive == [i for i in range(n) if i not in dead]
    assert no_skips(n) == list(range(n + 1))  # what the caller changed is not kept

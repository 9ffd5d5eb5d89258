"""gridd.sched.order: lists kept in a cycle's planning order follow the moves made since
they were in it, whatever was moved or dropped in between, by either way of following
(move by move, or sorted afresh by the places in the order)."""

from __future__ import annotations

from unittest import mock

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gridd.model.cluster import Instance
from gridd.sched import order as order_module
from gridd.sched.order import InstanceOrder

# A step: ("move", instance, new key value), ("drop", instance), or ("keep", the
# instances of a list made in order now, to be followed at the end).
steps = st.lists(st.one_of(
    st.tuples(st.just("move"), st.integers(0, 11), st.integers(0, 20)),
    st.tuples(st.just("drop"), st.integers(0, 11)),
    st.tuples(st.just("keep"), st.sets(st.integers(0, 11)))), max_size=30)


def instances(n: int) -> list[Instance]:
    return [Instance(name=f"q@h{i}", queue="q", host=f"h{i}", slots=1) for i in range(n)]


@pytest.mark.parametrize("per_pass", [0, 10**9])  # always move by move; always afresh
@settings(max_examples=300, deadline=None)
@given(loads=st.lists(st.integers(0, 5), min_size=12, max_size=12),
       closed=st.sets(st.integers(0, 11), max_size=3), plan=steps)
def test_a_list_follows_every_move_since_it_was_in_order(
        per_pass: int, loads: list[int], closed: set[int],
        plan: list[tuple]) -> None:  # type: ignore[type-arg]
    every = instances(12)
    key = {i: (float(loads[i]), 0.0, i) for i in range(12)}  # unique: the index last
    order = InstanceOrder((qi, key[i]) for i, qi in enumerate(every))
    order.hold(order.sort([qi for i, qi in enumerate(every) if i not in closed]))
    gone = set(closed)  # instances not open to jobs are in no list
    kept: list[tuple[list[Instance], int]] = []
    with mock.patch.object(order_module, "_MOVES_PER_PASS", per_pass):
        for step in plan:
            if step[0] == "move":
                _, i, value = step
                order.move(every[i], (float(value), 0.0, i))
                if i not in gone:
                    key[i] = (float(value), 0.0, i)
            elif step[0] == "drop":
                order.move(every[step[1]], None)
                gone.add(step[1])
            else:
                members = sorted((i for i in step[1] if i not in gone), key=key.__getitem__)
                kept.append(([every[i] for i in members], order.mark))
        for listed, since in kept:
            followed = order.follow(listed, since)
            expected = sorted((every.index(qi) for qi in listed
                               if every.index(qi) not in gone), key=key.__getitem__)
            assert [every.index(qi) for qi in followed] == expected
            if followed == listed:
                assert followed is listed  # unchanged: the same list

"""Every fuzz target, briefly: a hundred or so hypothesis inputs each.

This is the suite's share of the fuzzing, kept to well under a minute in all; the long
runs (100,000 inputs per target) are bench/fuzz.py's. Hypothesis shrinks a failing input
towards the seed it was mutated from, and its example database replays it next time.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings

from gridd import protocol as p
from gridd.formats.complex_table import parse_complex_table
from gridd.formats.objects import parse_object
from gridd.formats.overrides import parse_overridable
from gridd.formats.rqs import parse_rule_sets
from tests.fuzz import texts, wire
from tests.fuzz.targets import Target, all_targets

TARGETS = all_targets()


@pytest.mark.parametrize("target", TARGETS, ids=[t.name for t in TARGETS])
def test_target_raises_only_its_documented_errors(target: Target) -> None:
    @settings(max_examples=target.examples, deadline=None,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                     HealthCheck.filter_too_much])
    @given(target.strategy())
    def one_input(value: object) -> None:
        target.check(value)

    with target.sandbox():
        one_input()


def test_every_seed_runs_clean() -> None:
    for target in TARGETS:
        with target.sandbox():
            for seed in target.seeds:
                target.check(seed)
    assert len({t.name for t in TARGETS}) == len(TARGETS)


def test_the_grammar_seeds_are_valid() -> None:
    """Mutations start from valid files, so that they reach past the first line of each
    parser: a format change that breaks a seed should be noticed here, not by a fuzz run
    that quietly explores the error path only."""
    for text in texts.OBJECT_SEEDS:
        parse_object(text)
    for text in texts.COMPLEX_SEEDS:
        parse_complex_table(text)
    for text in texts.RQS_SEEDS:
        assert parse_rule_sets(text, complexes=texts.COMPLEXES)
    for text in texts.OVERRIDE_SEEDS:
        parse_overridable(text)
    for frame in wire.SEEDS:
        p.decode(frame)

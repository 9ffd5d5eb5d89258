"""Resource quota sets: named, ordered lists of rules limiting what matching jobs may use.

A rule filters jobs by user, project and PE and their placement by queue and host; a
filter is a scope (names, `@userset`/`@hostgroup` references, `*`) with exclusions
(`!name`), and `{...}` expands it so that each member gets a limit of its own instead of
all members sharing one. Limits are `resource=value` pairs; a value is a number, a
dynamic formula such as `$num_proc*5` (host-expanded rules only), or for a fixed
attribute a value jobs must match.
"""

import math
from collections.abc import Callable, Iterable

import msgspec


class Filter(msgspec.Struct, array_like=True):
    """One filter of a rule: `users @staff,!roland` is Filter(False, ["@staff"], ["roland"])."""

    expand: bool = False  # written in braces: each matching member has its own limit
    scope: list[str] = msgspec.field(default_factory=list)  # "*" for any
    xscope: list[str] = msgspec.field(default_factory=list)  # excluded ("!" dropped); "*" too


class Term(msgspec.Struct, array_like=True):
    """One summand of a dynamic limit: `factor` times a host's value of the complex
    `name` (its full name), or `factor` alone when there is no name. `-$p*2` is
    Term(-2.0, "num_proc"), `3*0.5` is Term(1.5)."""

    factor: float
    name: str = ""


class Limit(msgspec.Struct, array_like=True, omit_defaults=True):
    """`slots=20`, `slots=$num_proc*5`, `arch=lx-amd64`: the attribute's full name and
    the value as written (as `qconf -srqs` shows it). A dynamic limit is also kept parsed,
    as the sum of its terms, so that the scheduler works it out per host without reading
    the text again; None for any other limit."""

    name: str
    value: str
    formula: list[Term] | None = None


def formula_value(formula: Iterable[Term], value_of: Callable[[str], float | None]
                  ) -> float | None:
    """A dynamic limit's value given the complexes' values where it applies; None when
    one of them is unknown there, or when the sum is no finite number."""
    total = 0.0
    for term in formula:
        if term.name:
            value = value_of(term.name)
            if value is None:
                return None
            total += term.factor * value
        else:
            total += term.factor
    return total if math.isfinite(total) else None


class Rule(msgspec.Struct, kw_only=True):
    """A `limit` line; an absent filter (None) matches everything."""

    name: str = ""
    users: Filter | None = None
    projects: Filter | None = None
    pes: Filter | None = None
    queues: Filter | None = None
    hosts: Filter | None = None
    limits: list[Limit] = msgspec.field(default_factory=list)


class RuleSet(msgspec.Struct, kw_only=True):
    """A resource quota set as `qconf -srqs` shows it. The description is kept as written
    (quotes included, `NONE` when there is none), since that is how it prints."""

    name: str
    description: str = "NONE"
    enabled: bool = True
    rules: list[Rule] = msgspec.field(default_factory=list)


FILTERS = ("users", "projects", "pes", "queues", "hosts")  # the order rules print in


def rule_id(rule_set: RuleSet, index: int) -> str:
    """How qquota and the scheduler name a rule: `set/name`, or `set/N` (from 1)."""
    rule = rule_set.rules[index]
    return f"{rule_set.name}/{rule.name or index + 1}"


class QuotaRow(msgspec.Struct, kw_only=True):
    """One line of qquota: a rule's use of one resource within one scope.

    `filters` are the rule's filters as qquota prints them, an expanded one narrowed to
    the member the line is about: (filter name, names, excluded names).
    """

    rule: str  # "set/N" or "set/name"
    resource: str
    type: str  # of the resource, for printing the amount
    used: float
    limit: str  # as the rule says it, a dynamic limit computed for the scope's host
    filters: list[tuple[str, list[str], list[str]]] = msgspec.field(default_factory=list)

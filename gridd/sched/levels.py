"""The cluster's resources at one moment: the matcher's levels with what running tasks hold,
and the states of queue instances that planning and qstat derive from loads.

Built afresh for each dispatch cycle (and for `qstat -F`, `qhost -F`, `qsub -w v`): the
configured values come from a `PlanConf`, load values from the execds' last reports, and
every running task is debited where it runs. Pure: the caller passes loads and hosts.
"""

from __future__ import annotations

import math
import operator
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from gridd.model import host_lifecycle
from gridd.model.cluster import Instance, PlanConf, Running
from gridd.model.complexes import ComplexTable, parse_value
from gridd.sched.match import (
    GLOBAL,
    HOST,
    OPERATORS,
    QUEUE,
    JobRequest,
    Level,
    Matcher,
    granted_firsts,
)
from gridd.sched.rsmap_ids import hold

# Queue instance state letters in the order qstat prints them (real 8.1.9 prints "aAds"
# and "dus"); the letters set by qmod are kept by the master, the others derived here.
STATE_ORDER = "aACDcdEouSs"
ALARM, SUSPEND_ALARM = "a", "A"
UNKNOWN = host_lifecycle.INSTANCE_LETTERS[host_lifecycle.UNKNOWN]  # its host is not up

# Why a queue instance in a state takes no jobs, as the scheduler's global messages say.
_DROPPED = {
    "a": "it is overloaded",
    "A": "it is overloaded",
    "d": "it is disabled",
    "E": "it is in error state",
    "u": "it is temporarily not available",
    "s": "it is suspended",
    "S": "it is suspended",
    "c": "its configuration is ambiguous",
    "o": "it is orphaned",
}


@dataclass
class Levels:
    """The global level, one level per execution host and one per queue instance."""

    matcher: Matcher
    global_level: Level
    hosts: dict[str, Level] = field(default_factory=dict)
    queues: dict[str, Level] = field(default_factory=dict)

    def of(self, instance: Instance) -> tuple[Level, Level, Level]:
        return self.global_level, self.hosts[instance.host], self.queues[instance.name]

    def copy(self) -> Levels:
        """Levels to debit apart from these: parsing the values is what building costs,
        and a level's offers, capacities, load caps, forced attributes and RSMAP ids never
        change once built (they are shared); only what is free and which ids are held is
        its own."""
        return Levels(self.matcher, _copy(self.global_level),
                      {name: _copy(level) for name, level in self.hosts.items()},
                      {name: _copy(level) for name, level in self.queues.items()})


def _copy(level: Level) -> Level:
    # (A level without RSMAP ids shares its empty `held`: ids are held only of an RSMAP
    # the level has.)
    held = {name: ids.copy() for name, ids in level.held.items()} if level.held else level.held
    return Level(level.kind, level.name, level.offers, level.capacity, dict(level.free),
                 level.load_caps, level.forced, level.ids, held)


def matcher_for(conf: PlanConf) -> Matcher:
    return Matcher(ComplexTable(conf.complexes))


def build_levels(
    conf: PlanConf,
    loads: Mapping[str, Mapping[str, str]],
    running: Iterable[Running],
    matcher: Matcher | None = None,
) -> Levels:
    """Levels offering the configured and reported values, with running tasks debited.

    A host without a load report offers only its configured values. A running task whose
    queue instance no longer exists (the queue was deleted) still holds global and host
    resources; an amount over what is left after a configuration change leaves the level
    below zero rather than pretending the resource is free.
    """
    matcher = matcher or matcher_for(conf)
    levels = Levels(matcher, matcher.level(GLOBAL, "global", conf.global_values))
    hosts = {qi.host for qi in conf.instances} | set(conf.host_values) | set(loads)
    hosts.discard("global")
    for host in sorted(hosts):
        levels.hosts[host] = matcher.level(HOST, host, conf.host_values.get(host), loads.get(host))
    for qi in conf.instances:
        levels.queues[qi.name] = matcher.level(QUEUE, qi.name, qi.values)
    for task in running:
        debit(levels, task)
    return levels


def debit(levels: Levels, task: Running, sign: int = 1, *, ar: bool = False,
          req: JobRequest | None = None) -> None:
    """Book what one started task holds on every level it uses (sign -1: it ended): the
    amounts its requests take, and the RSMAP ids it was granted; or what an advance
    reservation whose window is open holds (`ar`, its booking as a task). `req`: its
    compiled requests, where the caller has them already."""
    if task.resource_map:
        hold(levels, task.resource_map, sign)
    if req is None:
        req = levels.matcher.request(task.hard)
    taken: set[int] = set()
    for index, ((name, slots), first) in enumerate(
            zip(task.granted, granted_firsts(task.granted), strict=True)):
        levels.matcher.debit(req, slots, levels.global_level,
                             levels.hosts.get(name.partition("@")[2]),
                             levels.queues.get(name), master=index == 0, first_on_host=first,
                             sign=sign, taken=taken, ar=ar)


def whole(levels: Levels) -> bool:
    """Whether every amount the levels offer is a whole number (or unlimited): debits of
    whole amounts then add up exactly, in any order, and can be given back exactly."""
    for level in (levels.global_level, *levels.hosts.values(), *levels.queues.values()):
        for amount in level.free.values():
            if not (amount.is_integer() or math.isinf(amount)):
                return False
    return True


# ---- queue instance states --------------------------------------------------------------------


def instance_states(
    conf: PlanConf,
    loads: Mapping[str, Mapping[str, str]],
    hosts_up: Iterable[str],
    flags: Mapping[str, str],
    table: ComplexTable | None = None,
    alarm_loads: Mapping[str, Mapping[str, str]] | None = None,
) -> dict[str, str]:
    """Each queue instance's state letters as qstat shows them ("" when it is fine).

    `flags` are the letters the master keeps (d and s from qmod, E); alarm (a, A) comes
    from the thresholds against the host's load, unknown (u) from the host being silent.
    `alarm_loads`, if given, are what load thresholds are judged against instead: the
    scheduler's, with load adjustments (gridd.sched.adjust).
    """
    table = table or ComplexTable(conf.complexes)
    up = set(hosts_up)
    states = {}
    for qi in conf.instances:
        letters = set(flags.get(qi.name, ""))
        load = loads.get(qi.host, {})
        if qi.host not in up:
            letters.add(UNKNOWN)
            if qi.load_thresholds:  # no load known counts as over the thresholds
                letters.add(ALARM)
        elif exceeded(qi.load_thresholds, load if alarm_loads is None
                      else alarm_loads.get(qi.host, {}), table):
            letters.add(ALARM)
        if qi.host in up and exceeded(qi.suspend_thresholds, load, table):
            letters.add(SUSPEND_ALARM)
        states[qi.name] = "".join(c for c in STATE_ORDER if c in letters)
    return states


def exceeded(
    thresholds: Mapping[str, str], load: Mapping[str, str], table: ComplexTable
) -> list[tuple[str, str, str]]:
    """The thresholds a host's load reaches: (attribute, load value, threshold).

    A threshold is reached when the load value compares to it with the attribute's own
    operator (np_load_avg >= 1.75, mem_free <= 1G); values that do not parse are ignored.
    """
    reached = []
    for name, limit in thresholds.items():
        attr = table.resolve(name)
        text = load.get(attr.name if attr else name)
        if attr is None or text is None:
            continue
        try:
            value, bound = parse_value(attr.type, text), parse_value(attr.type, limit)
        except ValueError:
            continue
        # EXCL (an exclusive BOOL) has no order: any other value reaches the threshold.
        if OPERATORS.get(attr.relop, operator.ne)(value, bound):
            reached.append((attr.name, text, limit))
    return reached


def dropped_reason(state: str) -> str | None:
    """Why an instance in `state` takes no job now, or None when it may."""
    for letter in state:
        if letter in _DROPPED:
            return _DROPPED[letter]
    return None


# ---- load formula -----------------------------------------------------------------------------

_TERM = re.compile(r"\s*([+-]?)\s*([A-Za-z_][\w.]*|[0-9.]+)(?:\s*\*\s*([0-9.]+))?\s*")
_DEFAULT_FORMULA = ((1.0, "np_load_avg"),)


def formula_terms(formula: str) -> tuple[tuple[float, str], ...]:
    """The load_formula as (weight, attribute or number) terms: a weighted sum such as
    `np_load_avg` or `load_avg*2-mem_free*0.1`; anything else counts as np_load_avg."""
    return parse_formula(formula) or _DEFAULT_FORMULA


def parse_formula(formula: str) -> tuple[tuple[float, str], ...] | None:
    """The load_formula's terms, None if it is no weighted sum (qconf refuses it then)."""
    terms, pos = [], 0
    while pos < len(formula):
        match = _TERM.match(formula, pos)
        if match is None or match.end() == pos:
            return None
        sign, term, weight = match.groups()
        try:
            terms.append(((-1.0 if sign == "-" else 1.0) * float(weight or 1), term))
        except ValueError:
            return None
        pos = match.end()
    return tuple(terms) or None


def formula_value(
    terms: tuple[tuple[float, str], ...], load: Mapping[str, str], table: ComplexTable
) -> float:
    """A host's value of the load formula; missing or unparsable load values count 0."""
    total = 0.0
    for weight, term in terms:
        if term[0].isdigit() or term[0] == ".":
            text, type_ = term, "DOUBLE"
        else:
            attr = table.resolve(term)
            text = load.get(attr.name if attr else term)
            type_ = attr.type if attr and attr.type in NUMERIC else "DOUBLE"
        if text is None:
            continue
        try:
            total += weight * float(parse_value(type_, text))
        except ValueError:
            continue
    return total


NUMERIC = frozenset({"INT", "DOUBLE", "MEMORY", "TIME"})  # the types load values add up in

"""Matching job resource requests against what the cluster offers, Grid Engine style.

A request is checked level by level, global host → execution host → queue instance, and
the first level that has the attribute but does not satisfy it rejects the job there
("strict hierarchical" matching): a lower level can only add restrictions, never lift one.
On one level a configured (fixed) value and a load value may both exist: for `==`/`!=` the
configured value replaces the load value, for ordering operators the more restrictive wins.

Consumables (`consumable YES`) are debited per slot, `consumable JOB` once per job on the
level that holds the master task, `consumable HOST` once per host a placement uses (on its
first part there; a global value, as Open Cluster Scheduler books it, once per job with
the master task), an exclusive attribute (relop EXCL) once per level a placement uses;
everything else is compared per slot, undivided.

Everything a check needs is parsed once: requests when a job category is first seen
(`Matcher.request`), offered values when a level is built (`Matcher.level`), wildcard
expressions compiled once per expression, and the winner between a level's configured and
load value is settled when the level is built. The per-check path is one dictionary look-up and
one comparison per level, because a dispatch cycle makes millions of them.
"""

from __future__ import annotations

import math
import operator
import re
from collections import Counter
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from gridd.model import rsmap
from gridd.model.complexes import EXCL, ComplexAttr, ComplexTable, has_default, parse_value
from gridd.sched.wildcard import compile_expression, is_expression

GLOBAL = "global"
HOST = "host"
QUEUE = "queue"
_LETTER = {GLOBAL: "g", HOST: "h", QUEUE: "q"}
_NUMBERS_SHOWN_AS_FLOAT = frozenset({"INT", "DOUBLE", "BOOL", "MEMORY"})
_EXPRESSION_TYPES = frozenset({"STRING", "CSTRING", "RESTRING", "HOST"})
# Exclusive scheduling (a BOOL consumable with relop EXCL) as consumable arithmetic: a
# level offering the attribute TRUE has WHOLE of it; an exclusive job takes WHOLE, any
# other job 1, once per placement whatever its slots. So an exclusive job fits only where
# nothing runs, and any other job only where no exclusive one does.
EXCLUSIVE = "EXCL"  # Need.consumable of such an attribute
WHOLE = float(2**31)
# Compiled requests are kept across cycles; a long-lived scheduler sees categories come and go.
_MAX_REQUESTS = 20_000
# Per level, bounds the memo of plans and worded refusals (levels usually live one cycle).
_MAX_MEMO = 20_000
# Which part of a placement is checked or debited: the master task's (first on its host),
# another task's first part on its host, or a further part on a host. JOB consumables are
# taken by the first, HOST consumables by the first two (a global one by the first only).
MASTER_PART, HOST_PART, OTHER_PART = 0, 1, 2
# What a placement took of the levels' consumables (Matcher.debit): per amount taken,
# the `free` it was taken from, the attribute and the amount; giving each back is exact
# where the amounts are whole (Cycle.reopen).
Held = list[tuple[dict[str, float], str, float]]

OPERATORS: dict[str, Callable[[Any, Any], bool]] = {
    "==": operator.eq,
    "!=": operator.ne,
    "<=": operator.le,
    "<": operator.lt,
    ">=": operator.ge,
    ">": operator.gt,
}


@dataclass(slots=True, frozen=True)
class Offer:
    """A value a level offers: the text to show, the key to compare, and its source
    ("f" configured/fixed, "l" load) for messages such as `hl:arch=lx-amd64`."""

    text: str
    key: float | str
    source: str


@dataclass(slots=True, eq=False)
class Level:
    """What the global host, one execution host or one queue instance offers.

    `offers` holds, per non-consumable attribute, the one value that counts on this level.
    `free` starts equal to `capacity` and only shrinks by debits; it is kept instead of a
    running sum of usage so that a debit that fit can never round a level below zero.
    `load_caps` are load values of consumables (a reported virtual_free below what the
    configuration says is free caps it). Of an RSMAP, `ids` are the instances configured
    (in the host's order, shared by copies) and `held` those running tasks and the
    cycle's orders hold (gridd.sched.rsmap_ids): the count in `free` decides whether a
    job fits, the ids which it gets.
    """

    kind: str  # GLOBAL, HOST or QUEUE
    name: str  # "global", the host name, or the queue instance ("all.q@node1")
    offers: dict[str, Offer] = field(default_factory=dict)
    capacity: dict[str, float] = field(default_factory=dict)
    free: dict[str, float] = field(default_factory=dict)
    load_caps: dict[str, float] = field(default_factory=dict)
    forced: frozenset[str] = frozenset()  # FORCED attributes offered here
    ids: dict[str, tuple[str, ...]] = field(default_factory=dict)  # RSMAP -> configured ids
    held: dict[str, Counter[str]] = field(default_factory=dict)  # RSMAP -> ids held
    # What matching learned about this level, for `Matcher.fits`: per (request, levels) the
    # outcome of everything but the consumables' amounts, and the refusals already worded.
    # Sound because offers, forced and which consumables exist are settled when a level is
    # built; only `free` changes, and it is part of every refusal's key.
    _plans: dict[tuple[Any, ...], _Plan] = field(default_factory=dict, init=False, repr=False)
    _refusals: dict[tuple[Any, ...], MatchResult] = field(
        default_factory=dict, init=False, repr=False
    )


@dataclass(slots=True, frozen=True)
class Need:
    """One requested attribute, parsed for its type; `key` is per slot for consumables."""

    name: str  # full attribute name
    type: str
    relop: str
    consumable: str  # "NO", "YES", "JOB", "HOST" or EXCLUSIVE
    text: str
    key: Any
    test: Callable[[Any, Any], bool]  # test(request key, offered key)
    explicit: bool  # False for a consumable's default the job did not ask for


@dataclass(slots=True, frozen=True, eq=False)
class JobRequest:
    """The compiled requests of one job category."""

    key: tuple[tuple[tuple[str, str], ...], tuple[tuple[str, str], ...]]
    label: str  # "h_rt=30,license=5" as in "(-l h_rt=30,license=5) cannot run ..."
    hard: tuple[Need, ...]
    soft: tuple[Need, ...]
    requested: frozenset[str]  # full names asked for explicitly (hard or soft)
    per_job: bool  # a hard request is of a per-job consumable: the master task needs more
    per_host: bool  # a hard request is of a per-host consumable: a host's first part needs more
    whole: bool  # every amount of a consumable it asks is a whole number
    rsmap: tuple[Need, ...]  # its hard requests of RSMAPs: a placement is granted their ids
    # its hard requests of amounts, slots apart, by name with their kind (YES, JOB or
    # HOST): what an advance reservation holds for its jobs level by level
    amounts: dict[str, str]
    # what bounds the slots a level can take (Matcher.slot_room, Backfilling.parallel_at):
    # its hard requests of per-slot consumables it asks some of, and those taken once
    # however many slots it gets (exclusive, HOST), which a level has enough of or none
    per_slot: tuple[Need, ...]
    once: tuple[Need, ...]


@dataclass(slots=True, frozen=True)
class MatchResult:
    """Whether a job fits, and if not, the scheduling-info line and the level to blame."""

    ok: bool
    reason: str = ""
    kind: str = ""
    where: str = ""


FIT = MatchResult(True)


def category_key(
    hard: Mapping[str, str], soft: Mapping[str, str] | None = None
) -> tuple[tuple[tuple[str, str], ...], tuple[tuple[str, str], ...]]:
    """Jobs with equal keys have equal requests and therefore equal matching results.

    Order is kept: it is how `qstat -j` and the scheduling messages show the requests.
    """
    return tuple(hard.items()), tuple((soft or {}).items())


def available(level: Level, name: str) -> float | None:
    """What is left of a consumable on a level; None when the level does not offer it."""
    return level.free.get(name)


class Matcher:
    """Builds levels and requests for one complex table and checks one against the other.

    Create a new Matcher when the complex table changes: compiled requests depend on it.
    """

    def __init__(self, table: ComplexTable) -> None:
        self.table = table
        # Every job asks for the defaults of consumables, and for every exclusive
        # attribute (not to be exclusive, unless it asks to be).
        self._defaults = tuple(a for a in table if a.consumable != "NO"
                               and (has_default(a) or a.relop == EXCL))
        self.exclusive = frozenset(a.name for a in table if a.relop == EXCL)
        self._requests: dict[tuple[Any, Any], JobRequest] = {}
        # The defaults a job is given, by the names it asks for hard: the same for most
        # jobs, and parsed once.
        self._implicit: dict[frozenset[str], tuple[Need, ...]] = {}

    # ---- building -----------------------------------------------------------------------

    def level(
        self,
        kind: str,
        name: str,
        values: Mapping[str, str] | None = None,
        load: Mapping[str, str] | None = None,
    ) -> Level:
        """A level from configured values (complex_values, queue limits, qname/hostname)
        and reported load values.

        Configured values must name complex attributes (the master checked them); load
        values that are not attributes or do not parse are ignored, as load sensors may
        report anything.
        """
        level = Level(kind, name)
        forced = set()
        for raw, text in (values or {}).items():
            attr = self._attr(raw)
            if attr.consumable != "NO":
                amount = float(parse_value(attr.type, text))
                if attr.relop == EXCL:
                    amount = WHOLE if amount else 0.0
                level.capacity[attr.name] = level.free[attr.name] = amount
                if attr.type == "RSMAP":
                    self._ids(level, attr.name, text)
            else:
                level.offers[attr.name] = Offer(text, parse_value(attr.type, text), "f")
            if attr.requestable == "FORCED":
                forced.add(attr.name)
        level.forced = frozenset(forced)
        for attr, offer in self._loads(load or {}):
            if attr.relop == EXCL:
                continue  # only what runs decides
            if attr.consumable != "NO":
                level.load_caps[attr.name] = float(offer.key)
            else:
                # A configured value replaces the load value for `==`/`!=`; for ordering
                # operators the more restrictive one counts (mem_free 1G configured, 0.9G
                # reported: 0.9G).
                fixed = level.offers.get(attr.name)
                if fixed is None or more_restrictive(attr.relop, offer.key, fixed.key):
                    level.offers[attr.name] = offer
        return level

    @staticmethod
    def _ids(level: Level, name: str, text: str) -> None:
        """An RSMAP's ids on a level. The master refuses a value whose ids do not parse
        or disagree with its amount; should one come all the same, the level offers the
        amount alone (no ids are granted of it) rather than fail every cycle."""
        try:
            level.ids[name] = rsmap.parse(name, text)
        except ValueError:
            return
        level.held[name] = Counter()

    def _loads(self, load: Mapping[str, str]) -> list[tuple[ComplexAttr, Offer]]:
        """Reported values that are attributes and parse; load sensors may report anything."""
        parsed = []
        for raw, text in load.items():
            attr = self.table.resolve(raw)
            if attr is None:
                continue
            try:
                parsed.append((attr, Offer(text, parse_value(attr.type, text), "l")))
            except ValueError:
                continue
        return parsed

    def _attr(self, name: str) -> ComplexAttr:
        attr = self.table.resolve(name)
        if attr is None:
            raise ValueError(f'attribute "{name}" is not a complex attribute')
        return attr

    def request(self, hard: Mapping[str, str], soft: Mapping[str, str] | None = None) -> JobRequest:
        """The compiled requests of a job category (memoised by `category_key`).

        Raises ValueError for a value its attribute's type cannot hold; the master should
        refuse such a job at submission (calling this is a way to check).
        """
        key = category_key(hard, soft)
        compiled = self._requests.get(key)
        if compiled is None:
            if len(self._requests) >= _MAX_REQUESTS:
                self._requests.clear()
            compiled = self._requests[key] = self._compile(key, hard, soft or {})
        return compiled

    def _compile(self, key: Any, hard: Mapping[str, str], soft: Mapping[str, str]) -> JobRequest:
        explicit = [self._need(name, text, True) for name, text in hard.items()]
        soft_needs = tuple(self._need(name, text, True) for name, text in soft.items())
        # A default is a hard request unless the job asks for the attribute hard: a soft
        # request (-soft -l slots=1) is a preference and must not lift the default, or the
        # planner would book less than the running task later holds.
        asked_hard = frozenset(n.name for n in explicit)
        requested = asked_hard | {n.name for n in soft_needs} if soft_needs else asked_hard
        implicit = self._implicit.get(asked_hard)
        if implicit is None:
            if len(self._implicit) >= _MAX_REQUESTS:
                self._implicit.clear()
            implicit = self._implicit[asked_hard] = tuple(
                self._need(a.name, a.default, False) for a in self._defaults
                if a.name not in asked_hard)
        label = ",".join(f"{name}={text}" for name, text in hard.items())
        if not label:  # (an implicit exclusive request is not shown: see _shortage)
            label = ",".join(f"{n.name}={n.text}" for n in implicit
                             if n.consumable != EXCLUSIVE)
        hard_needs = (*explicit, *implicit)
        return JobRequest(key, label, hard_needs, soft_needs, requested,
                          any(n.consumable == "JOB" for n in hard_needs),
                          any(n.consumable == "HOST" for n in hard_needs),
                          all(float(n.key).is_integer() for n in hard_needs
                              if n.consumable != "NO"),
                          tuple(n for n in hard_needs if n.type == "RSMAP"),
                          {n.name: n.consumable for n in hard_needs
                           if n.consumable in ("YES", "JOB", "HOST") and n.key
                           and n.name != "slots"},
                          tuple(n for n in hard_needs if n.consumable == "YES" and n.key),
                          tuple(n for n in hard_needs if n.consumable in (EXCLUSIVE, "HOST")))

    def _need(self, name: str, text: str, explicit: bool) -> Need:
        attr = self.table.resolve(name)
        if attr is None:
            # No level offers an unknown name, so it fails as "unknown resource" everywhere.
            return Need(name, "", "==", "NO", text, text, operator.eq, explicit)
        if attr.relop == EXCL:
            exclusive = bool(parse_value("BOOL", text))
            return Need(attr.name, attr.type, EXCL, EXCLUSIVE, text,
                        WHOLE if exclusive else 1.0, operator.le, explicit)
        # A string may be asked for by a wildcard expression (`-l arch="lx*|sol*"`,
        # `-l h="node1|node2"`): see gridd.sched.wildcard.
        if attr.type in _EXPRESSION_TYPES and attr.relop in ("==", "!=") and \
                is_expression(text):
            pattern = compile_expression(text, caseless=attr.type in ("CSTRING", "HOST"))
            test = _pattern_matches if attr.relop == "==" else _pattern_differs
            return Need(attr.name, attr.type, attr.relop, "NO", text, pattern, test, explicit)
        return Need(
            attr.name,
            attr.type,
            attr.relop,
            attr.consumable,
            text,
            parse_value(attr.type, text),
            OPERATORS[attr.relop],
            explicit,
        )

    # ---- checking -----------------------------------------------------------------------

    def fits(
        self,
        req: JobRequest,
        slots: int,
        global_level: Level | None,
        host_level: Level | None = None,
        queue_level: Level | None = None,
        *,
        master: bool = True,
        first_on_host: bool | None = None,
    ) -> MatchResult:
        """Whether `slots` slots of a job may run on these levels (at least one given).

        `master` says whether the master task would run here: only then are JOB
        consumables checked (and debited), since they are taken once per job.
        `first_on_host` (default: `master`) says whether this is the placement's first
        part on its host: only then are HOST consumables checked.
        """
        return self.part_fits(req, slots, part_of(master, first_on_host), global_level,
                              host_level, queue_level)

    def part_fits(
        self,
        req: JobRequest,
        slots: int,
        part: int,
        global_level: Level | None,
        host_level: Level | None = None,
        queue_level: Level | None = None,
    ) -> MatchResult:
        """`fits` for a part of a placement (MASTER_PART, HOST_PART or OTHER_PART) its
        caller has worked out (CategoryCache keys its tables by it)."""
        levels = _present(global_level, host_level, queue_level)
        memo = levels[-1]._plans
        # Keyed by the levels above the one that keeps it, and planned by position: a
        # memo that held its own level would make every level cyclic garbage.
        key = (req, *levels[:-1])
        plan = memo.get(key)
        if plan is None:  # a plan pays off from the second check of a combination on
            if len(memo) >= _MAX_MEMO:
                memo.clear()
            memo[key] = _SEEN
            return _check(req, levels, slots, part)
        if plan is _SEEN:
            plan = memo[key] = _plan(req, levels)
        for need, holders in plan.checks[part]:
            amount = need.key * slots if need.consumable == "YES" else need.key
            name = need.name
            for at in holders:
                level = levels[at]
                free = level.free.get(name)
                cap = level.load_caps.get(name) if level.load_caps else None
                if cap is not None and (free is None or cap < free):
                    if not amount <= cap:
                        return _refusal(req, level, need, cap, "l")
                elif not amount <= free:  # type: ignore[operator]  # holders offer it
                    return _refusal(req, level, need, free, "c")  # type: ignore[arg-type]
        return plan.results[part]

    def slot_room(self, req: JobRequest, level: Level) -> float:
        """How many slots of the job the per-slot consumables of one level still allow
        (infinite when none of them limits it).

        Consumables debit linearly per slot, so the room is the smallest quotient of what
        is left by the amount per slot; parallel placement uses it to size each host's
        share before checking the whole placement with `fits`.
        """
        for need in req.once:  # all slots or none: taken once
            free = level.free.get(need.name)
            if free is not None and free < need.key:
                return 0
        room = math.inf
        for need in req.per_slot:
            free = level.free.get(need.name)
            cap = level.load_caps.get(need.name) if level.load_caps else None
            if cap is not None and (free is None or cap < free):
                free = cap
            if free is not None:
                room = min(room, math.floor(free / need.key + 1e-9))
        return max(room, 0)

    def soft_violations(
        self,
        req: JobRequest,
        global_level: Level | None,
        host_level: Level | None = None,
        queue_level: Level | None = None,
        slots: int = 1,
    ) -> int:
        """How many soft requests these levels do not satisfy (unknown ones included)."""
        levels = _present(global_level, host_level, queue_level)
        return sum(1 for need in req.soft if _first_failure(req, need, levels, slots) is not None)

    def debit(
        self,
        req: JobRequest,
        slots: int,
        global_level: Level | None,
        host_level: Level | None = None,
        queue_level: Level | None = None,
        *,
        master: bool = True,
        first_on_host: bool | None = None,
        sign: int = 1,
        taken: set[int] | None = None,
        ar: bool = False,
        held: Held | None = None,
    ) -> None:
        """Take a placement's hard consumable requests from every level that offers them
        (sign -1 gives them back). An exclusive attribute is taken once per level for the
        whole placement: `taken` holds the levels (ids) its earlier instances took it
        from (one set per placement). `master` and `first_on_host` as for `fits`; an
        advance reservation's placement (`ar`) takes a HOST consumable's global value once
        per host, as reserve.uses books it. `held` gets what was taken from where, for
        giving it back as exactly (Cycle.reopen)."""
        part = part_of(master, first_on_host)
        levels = _present(global_level, host_level, queue_level)
        for need in req.hard:
            if need.consumable == "NO" or skipped(need.consumable, part):
                continue
            amount = sign * amount_of(need, slots)
            for level in levels:
                if need.name in level.free and (
                        ar or not global_skipped(need, level.kind, part)):
                    if need.consumable == EXCLUSIVE and taken is not None:
                        if id(level) in taken:
                            continue
                        taken.add(id(level))
                    level.free[need.name] -= amount
                    if held is not None:
                        held.append((level.free, need.name, amount))


class CategoryCache:
    """What one planning cycle learned per job category, shared by all its jobs.

    A failure is stored under the level that caused it, so a category refused globally is
    refused everywhere at once, and one refused by a host skips all of its queues. This is
    sound only while `free` values shrink (debits) and loads stay put: use one cache per
    cycle, and a fresh one after giving resources back.
    """

    __slots__ = ("_failed", "_soft", "_by_request", "hits", "misses")

    def __init__(self) -> None:
        # (category key, slots, part) -> failures by level name; a level whose name another
        # kind of level already holds there is kept under (kind, name) instead.
        self._failed: dict[tuple[Any, ...], dict[Any, MatchResult]] = {}
        # The same tables reached by the compiled request itself (hashed by identity, which
        # is cheaper than hashing its key on every check): request -> per part, by slots.
        self._by_request: dict[JobRequest, tuple[dict[int, Any], ...]] = {}
        self._soft: dict[tuple[Any, ...], int] = {}
        self.hits = 0
        self.misses = 0

    def forget(self) -> None:
        """Learn afresh, as a new cache would (after resources were given back), without
        making one: its bound checks stay the ones to call."""
        self._failed.clear()
        self._by_request.clear()
        self._soft.clear()
        self.hits = self.misses = 0

    def fits(
        self,
        matcher: Matcher,
        req: JobRequest,
        slots: int,
        global_level: Level | None,
        host_level: Level | None = None,
        queue_level: Level | None = None,
        *,
        master: bool = True,
        first_on_host: bool | None = None,
    ) -> MatchResult:
        """`matcher.fits`, answered from earlier failures of the category where possible."""
        part = part_of(master, first_on_host)
        tables = self._by_request.get(req)
        if tables is None:
            tables = self._by_request[req] = ({}, {}, {})
        by_slots = tables[part]
        failed = by_slots.get(slots)
        if failed is None:
            failed = self._failed.setdefault((req.key, slots, part), {})
            by_slots[slots] = failed
        if failed:  # the hot path of a cycle: most checks end here
            if global_level is not None and (known := _known(failed, global_level)):
                self.hits += 1
                return known
            if host_level is not None and (known := _known(failed, host_level)):
                self.hits += 1
                return known
            if queue_level is not None and (known := _known(failed, queue_level)):
                self.hits += 1
                return known
        self.misses += 1
        result = matcher.part_fits(req, slots, part, global_level, host_level, queue_level)
        if not result.ok:
            failed[result.where if result.where not in failed else (result.kind, result.where)] = (
                result
            )
        return result

    def soft_violations(
        self,
        matcher: Matcher,
        req: JobRequest,
        global_level: Level | None,
        host_level: Level | None = None,
        queue_level: Level | None = None,
        slots: int = 1,
    ) -> int:
        """`matcher.soft_violations`, computed once per category, slots and queue instance.

        Not for soft requests of consumables: what is left of them shrinks with every
        booking in the cycle, so a count learned earlier may be stale; those are counted
        afresh (they are rare, and the count is cheap).
        """
        if any(need.consumable != "NO" for need in req.soft):
            self.misses += 1
            return matcher.soft_violations(req, global_level, host_level, queue_level, slots)
        levels = _present(global_level, host_level, queue_level)
        key = (req.key, slots, tuple((level.kind, level.name) for level in levels))
        count = self._soft.get(key)
        if count is None:
            self.misses += 1
            count = self._soft[key] = matcher.soft_violations(
                req, global_level, host_level, queue_level, slots
            )
        else:
            self.hits += 1
        return count


# ---- the per-check path ---------------------------------------------------------------------


def part_of(master: bool, first_on_host: bool | None = None) -> int:
    """The part of a placement (MASTER_PART, HOST_PART, OTHER_PART) a check is of."""
    if master:
        return MASTER_PART
    return HOST_PART if first_on_host else OTHER_PART


def skipped(consumable: str, part: int) -> bool:
    """Whether a consumable is not taken by this part of a placement: a JOB one by all
    but the master task's, a HOST one by all but a host's first."""
    if consumable == "JOB":
        return part != MASTER_PART
    return consumable == "HOST" and part == OTHER_PART


def global_skipped(need: Need, kind: str, part: int) -> bool:
    """Whether a level of this kind gives nothing to this part though it takes the need:
    the global level gives a HOST consumable once per job, with the master task (as Open
    Cluster Scheduler books it), not once per host."""
    return kind == GLOBAL and part == HOST_PART and need.consumable == "HOST"


def first_parts(hosts: Sequence[Hashable]) -> list[bool]:
    """Per part of a placement (given by its host), whether it is the first on its host:
    the part that takes the job's HOST consumables there."""
    if len(hosts) == 1:  # most placements: no set to make
        return [True]
    seen: set[Hashable] = set()
    firsts = []
    for host in hosts:
        firsts.append(host not in seen)
        seen.add(host)
    return firsts


def granted_firsts(granted: Sequence[tuple[str, int]]) -> list[bool]:
    """`first_parts` of a placement given as its queue instances (`q@host`) and slots."""
    if len(granted) == 1:  # most placements: no list of hosts to make
        return [True]
    return first_parts([name.partition("@")[2] for name, _ in granted])


def _present(g: Level | None, h: Level | None, q: Level | None) -> tuple[Level, ...]:
    if g is not None and h is not None and q is not None:
        return g, h, q  # the common case, without building a generator
    present = tuple(level for level in (g, h, q) if level is not None)
    if not present:
        raise ValueError("matching needs at least one level")
    return present


@dataclass(slots=True, frozen=True)
class _Plan:
    """How to check one request on one combination of levels, worked out once: per part
    of a placement (MASTER_PART, HOST_PART, OTHER_PART), the result unless a consumable
    is short (FIT or a refusal by a FORCED attribute or a non-consumable), and the
    consumables to check before it, each with the levels that hold it (their positions
    among the levels checked), in request order."""

    results: tuple[MatchResult, ...]
    checks: tuple[tuple[tuple[Need, tuple[int, ...]], ...], ...]


_SEEN = _Plan((FIT,) * 3, ((),) * 3)  # marks a combination checked once, without a plan yet


def _check(req: JobRequest, levels: tuple[Level, ...], slots: int, part: int) -> MatchResult:
    """A check without a plan, need by need and level by level."""
    refused = _forced_refusal(req, levels)
    if refused is not None:
        return refused
    for need in req.hard:
        if skipped(need.consumable, part):
            continue
        taking = levels
        if need.consumable == "HOST" and part == HOST_PART:
            below = tuple(level for level in levels if level.kind != GLOBAL)
            if any(_holds(level, need.name) for level in below):
                taking = below
            elif any(_holds(level, need.name) for level in levels):
                continue  # given by the global level alone: the master task's part took it
        failed = _first_failure(req, need, taking, slots)
        if failed is not None:
            return _failure(req, *failed)
    return FIT


def _plan(req: JobRequest, levels: tuple[Level, ...]) -> _Plan:
    refused = _forced_refusal(req, levels)
    if refused is not None:
        return _Plan((refused,) * 3, ((),) * 3)
    other = _plan_needs(req, levels, OTHER_PART)
    # without a per-host consumable a host's first part checks what any other part does
    host = _plan_needs(req, levels, HOST_PART) if req.per_host else other
    planned = (_plan_needs(req, levels, MASTER_PART), host, other)
    return _Plan(tuple(result for result, _ in planned), tuple(checks for _, checks in planned))


def _forced_refusal(req: JobRequest, levels: tuple[Level, ...]) -> MatchResult | None:
    """A level's FORCED attributes must all be requested for a job to run there."""
    for level in levels:
        if level.forced and not level.forced <= req.requested:
            missing = ",".join(sorted(level.forced - req.requested))
            return _failure(req, level, f"job does not request forced resource ({missing})")
    return None


def _plan_needs(
    req: JobRequest, levels: tuple[Level, ...], part: int
) -> tuple[MatchResult, tuple[tuple[Need, tuple[int, ...]], ...]]:
    checks = []
    for need in req.hard:
        if need.consumable == "NO":
            failed = _first_failure(req, need, levels, 1)
            if failed is not None:
                return _failure(req, *failed), tuple(checks)
            continue
        if skipped(need.consumable, part):
            continue
        name = need.name
        holders = tuple(at for at, level in enumerate(levels) if _holds(level, name))
        if holders:
            taking = tuple(at for at in holders
                           if not global_skipped(need, levels[at].kind, part))
            if taking:
                checks.append((need, taking))
        elif need.explicit:
            why = f"job requests unknown resource ({name})"
            return _failure(req, levels[-1], why), tuple(checks)
    return FIT, tuple(checks)


def _holds(level: Level, name: str) -> bool:
    """Whether a level has a consumable (an amount or a load value of it)."""
    return name in level.free or name in level.load_caps


def _refusal(req: JobRequest, level: Level, need: Need, free: float, source: str) -> MatchResult:
    """A consumable's refusal, worded once per request, level and amount left."""
    memo = level._refusals
    key = (req, need.name, free, source)
    refused = memo.get(key)
    if refused is None:
        if len(memo) >= _MAX_MEMO:
            memo.clear()
        refused = memo[key] = _failure(req, level, *_shortage(req, level, need, free, source))
    return refused


def _shortage(req: JobRequest, level: Level, need: Need, free: float, source: str
              ) -> tuple[str, bool, str | None]:
    """Why what is left of a consumable refuses a need (8.1.9's words), whether it is said
    as of a value the level offers (`cannot run at host`), as for exclusivity, and the
    requests to name (None: the job's label); a job refused by the exclusive request it
    did not make is shown by its own requests, or `NONE`."""
    if need.consumable == EXCLUSIVE:
        if need.explicit:
            return f"exclusive resource ({need.name}) is already in use", True, None
        asked = ",".join(f"{name}={text}" for name, text in req.key[0]) or "NONE"
        return (f"for default request exclusive resource ({need.name}) is already in use",
                True, asked)
    shown = _show_number(need.type, free)
    return f"it offers only {_LETTER[level.kind]}{source}:{need.name}={shown}", False, None


def reservation_refusal(req: JobRequest, level: Level, name: str, left: float) -> MatchResult:
    """A consumable a reservation keeps: what is left of it while the job would run."""
    attr_type = next((n.type for n in req.hard if n.name == name), "DOUBLE")
    shown = _show_number(attr_type, max(left, 0.0))
    return _failure(req, level, f"it offers only {_LETTER[level.kind]}c:{name}={shown} due to "
                                "a reservation")


def _known(failed: dict[Any, MatchResult], level: Level) -> MatchResult | None:
    known = failed.get(level.name)
    if known is None or known.kind == level.kind:
        return known
    return failed.get((level.kind, level.name))


def amount_of(need: Need, slots: int) -> float:
    """What `slots` slots of a part take of a consumable it checks: YES per slot."""
    return need.key * slots if need.consumable == "YES" else need.key


def _first_failure(req: JobRequest, need: Need, levels: tuple[Level, ...], slots: int
                   ) -> tuple[Level, str, bool, str | None] | None:
    """The level rejecting `need`, why, whether by a value it offers (not by what is
    left of a consumable), and the requests to name (see _shortage); None when none
    does. Levels without the attribute are skipped."""
    name = need.name
    found = False
    if need.consumable == "NO":
        test, key = need.test, need.key
        for level in levels:
            offer = level.offers.get(name)
            if offer is None:
                continue
            if not test(key, offer.key):
                shown = _show_offer(need.type, offer)
                return (level, f"it offers only {_LETTER[level.kind]}{offer.source}:{name}={shown}",
                        True, None)
            found = True
    else:
        amount = amount_of(need, slots)
        for level in levels:
            free = level.free.get(name)
            cap = level.load_caps.get(name) if level.load_caps else None
            if free is None and cap is None:
                continue
            if cap is not None and (free is None or cap < free):
                free, source = cap, "l"
            else:
                source = "c"
            if not amount <= free:
                return (level, *_shortage(req, level, need, free, source))
            found = True
    if found or not need.explicit:
        return None
    return levels[-1], f"job requests unknown resource ({need.name})", False, None


def more_restrictive(relop: str, value: Any, than: Any) -> bool:
    """Whether `value` binds a request more than `than` does: lower for `<=`/`<`, higher
    for `>=`/`>`; values of `==`/`!=` attributes have no such order."""
    if relop in ("<=", "<"):
        return bool(value < than)
    if relop in (">=", ">"):
        return bool(value > than)
    return False


def _failure(req: JobRequest, level: Level, why: str, by_value: bool = False,
             label: str | None = None) -> MatchResult:
    """8.1.9 words a host's refusal by a value it offers `cannot run at host "vm"`, and
    one by what is left of a consumable `cannot run in queue "vm"`, as for a queue."""
    if level.kind == GLOBAL:
        where = "cannot run globally"
    elif level.kind == HOST and by_value:
        where = f'cannot run at host "{level.name}"'
    else:
        where = f'cannot run in queue "{level.name}"'
    shown = req.label if label is None else label
    return MatchResult(False, f"(-l {shown}) {where} because {why}", level.kind, level.name)


def _show_offer(type_: str, offer: Offer) -> str:
    if type_ in _NUMBERS_SHOWN_AS_FLOAT:
        return _show_number(type_, float(offer.key))
    return offer.text


def _show_number(type_: str, value: float) -> str:
    """`5.000000` like Grid Engine's scheduler messages; memory as `23.541G` like qhost -F."""
    if type_ != "MEMORY":
        return f"{value:f}"
    for suffix, factor in (("G", 1024.0**3), ("M", 1024.0**2), ("K", 1024.0)):
        if abs(value) >= factor:
            return f"{value / factor:.3f}{suffix}"
    return f"{value:.3f}"


# ---- string expressions ------------------------------------------------------------------


def _pattern_matches(pattern: re.Pattern[str], offered: str) -> bool:
    return pattern.match(offered) is not None


def _pattern_differs(pattern: re.Pattern[str], offered: str) -> bool:
    return pattern.match(offered) is None

"""Resource quota sets in planning: the layer above global, host and queue instance.

For a job (who: user, group, project, PE) on a queue instance, every enabled rule set
contributes its first rule whose filters match both; that rule's limits apply to the
usage booked under the rule and its expanded scope (each member of a `{...}` filter has
its own usage, a plain list shares one). Consumable limits cap the amounts jobs take;
limits on fixed attributes are requirements on what a job asks for.

Matching is the costly part, so it is split by what it depends on: a rule's user,
project and PE filters depend only on the job (a bit mask per set and job), its queue
and host filters only on the instance (a bit mask per set and instance; instances with
equal masks share a signature). The first rule a set applies is the lowest bit of the
two masks and-ed, worked out once per job and signature.

Usage is booked per scope and resource (a mark), through groups of checks. Marks that
every group booking them holds, by the same amounts, always have the same usage (rule
sets alike give each user many such scopes): they form a class whose usage is kept once,
and the innermost walks go per class, each at its lowest limit. A new group splits the
classes it holds part of (QuotaRules.group); a refusal is named by the first check in
order that refuses, as without classes.
"""

from __future__ import annotations

import fnmatch
import math
import re
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import NamedTuple

from gridd.model.cluster import Instance, PlanConf, Running
from gridd.model.complexes import ComplexTable, parse_value
from gridd.model.planning import SchedJob
from gridd.model.rqs import FILTERS, Filter, QuotaRow, Rule, RuleSet, Term, formula_value, rule_id
from gridd.sched.match import JobRequest, Matcher, Need, first_parts, granted_firsts

_EPSILON = 1e-9
_INF, _floor = math.inf, math.floor  # read in the innermost loops: no attribute lookups
_WILD = re.compile(r"[*?\[]")
# A dynamic limit not known on a host (a value it references is not known there) allows
# nothing there until it is.
_UNKNOWN = 0.0
# Compiled rules are kept across cycles, and their tables grow with the askers and
# requests a long-lived scheduler sees: past this many entries they are compiled afresh.
_MAX_ENTRIES = 200_000


class Who(NamedTuple):
    """The job's side of matching; pe is the PE a placement is tried in ("" for none).
    A named tuple: it keys many dictionaries, and tuples hash fast."""

    user: str
    group: str = ""
    project: str = ""
    pe: str = ""


def who_of(job: SchedJob) -> Who:
    """Who asks for the job's placements (no PE yet)."""
    return Who(job.owner, job.group, job.project)


Key = tuple[int, int, str, str, str, str, str]  # set, rule, user, project, pe, queue, host


@dataclass(frozen=True, slots=True)
class _Names:
    """A filter's names compiled for matching: `*`, literal names, wildcard patterns and
    `@group` references (access lists or host groups)."""

    star: bool = False
    names: frozenset[str] = frozenset()
    patterns: tuple[str, ...] = ()
    groups: tuple[str, ...] = ()

    def has(self, value: str, in_group: Callable[[str, str], bool]) -> bool:
        return (self.star or value in self.names
                or any(fnmatch.fnmatchcase(value, p) for p in self.patterns)
                or any(in_group(group, value) for group in self.groups))


def _names(items: list[str]) -> _Names:
    return _Names(
        "*" in items,
        frozenset(i for i in items if not i.startswith("@") and not _WILD.search(i)),
        tuple(i for i in items if i != "*" and not i.startswith("@") and _WILD.search(i)),
        tuple(i for i in items if i.startswith("@")))


@dataclass(frozen=True, slots=True)
class _Filter:
    scope: _Names
    xscope: _Names
    any_scope: bool  # no names at all: everything is in scope


def _filter(flt: Filter | None) -> _Filter | None:
    if flt is None:
        return None
    return _Filter(_names(flt.scope), _names(flt.xscope), not flt.scope)


@dataclass(frozen=True, slots=True, eq=False)
class _Formula:
    """A dynamic limit's terms; compared by identity, for it keys a per-host memo."""

    terms: tuple[Term, ...]
    whole: bool  # of an INT resource: worked out as a whole number, as 8.1.9 shows it


@dataclass(frozen=True, slots=True)
class _Limit:
    name: str  # the attribute's full name
    type: str
    consumable: str
    text: str  # as written
    fixed: float | None  # the value when it is a number, None for a formula or a requirement
    formula: _Formula | None  # a dynamic limit's


@dataclass(frozen=True, slots=True)
class _Rule:
    """A rule compiled for checking: its filters, which of them expand into the usage key
    (whether that key depends on the queue instance), and its limits."""

    set_index: int
    rule_index: int
    name: str  # "set/N" or "set/name"
    filters: tuple[_Filter | None, ...]  # users, projects, pes, queues, hosts
    expand: tuple[bool, ...]
    local: bool  # queues or hosts expand: the key depends on the instance
    limits: tuple[_Limit, ...]


@dataclass(frozen=True, slots=True)
class _Check:
    """One limit of one applied rule for one job on one instance; usage is looked up by
    key when checked, so checks outlive the cycle that made them."""

    key: Key  # the rule's scope
    resource: str
    per_slot: float  # amount per slot (consumable YES)
    per_job: float  # amount once per job, on the master instance (consumable JOB)
    per_host: float  # amount once per host, on the job's first instance there (HOST)
    limit: float | None  # None: a dynamic limit, worked out per cycle and host
    formula: _Formula | None
    rule: _Rule
    mark: int  # where its usage is booked: (key, resource) interned, QuotaRules.marks
    why: str  # the refusal it gives

    def amount(self, slots: int, master: bool, first_on_host: bool) -> float:
        """What `slots` slots of one part of a placement count against the limit."""
        return (self.per_slot * slots + (self.per_job if master else 0.0)
                + (self.per_host if first_on_host else 0.0))


class _Checks:
    """Checks, with what the scheduler's innermost loops walk laid out for them.

    Per check, in order: `all`, and `exact` for those with a fixed limit (mark, the usage
    above which one slot of the master task is refused, why, what the slot books). Marks
    that every booking so far has counted alike share their usage (a class, kept under
    one of its marks: QuotaRules.rep), so the walks go per class:
    - `fixed`: where kept, the usage above which the class's lowest limit refuses one
      slot, what the slot books (the refusal itself is then looked up in `exact`);
    - `dynamic`: where kept, what one slot books, check (of a class of dynamic limits,
      whose marks share their formula and host and so their value; it is kept under the
      mark of that check);
    - `per_slot`: where kept, amount, limit or None when dynamic, check: how many slots fit;
    - `book`: where kept, the check of the class's lowest limit: what a placement books
      (its amounts are the class's), and whether several parts together exceed a limit.
    A class's entry comes where the check that gives it does, so that a walk meets the
    lowest room first where the checks in order would. Also the first check whose fixed
    limit is negative (a requirement not met), and the marks of all."""

    __slots__ = ("all", "exact", "exact_dynamic", "exact_slots", "fixed", "dynamic",
                 "per_slot", "book", "banned", "marks")

    def __init__(self, checks: list[tuple[_Check, _Entries]]) -> None:
        self.all = tuple(c for c, _ in checks)
        self.exact = tuple(e.fixed for _, e in checks if e.fixed is not None)
        # (and per check, what the class walks are laid out from)
        self.exact_dynamic = tuple(e.dynamic for _, e in checks if e.dynamic is not None)
        self.exact_slots = tuple(e.per_slot for _, e in checks if e.per_slot is not None)
        self.banned = next((c for c, _ in checks if c.limit is not None and c.limit < 0), None)
        self.marks = frozenset(c.mark for c, _ in checks)
        self.fixed: tuple[tuple[int, float, float], ...] = ()
        self.dynamic: tuple[tuple[int, float, _Check], ...] = ()
        self.per_slot: tuple[tuple[int, float, float | None, _Check], ...] = ()
        self.book: tuple[tuple[int, _Check], ...] = ()


class _Entries(NamedTuple):
    """A check's entries in the tuples of _Checks (None where it has none), per mark."""

    fixed: tuple[int, float, str, float] | None
    dynamic: tuple[int, float, _Check] | None
    per_slot: tuple[int, float, float | None, _Check] | None


def _entries(c: _Check, same: Callable[[float], float]) -> _Entries:
    one = same(c.per_slot + c.per_job + c.per_host)
    return _Entries(
        (c.mark, same(c.limit - one + _EPSILON), c.why, one) if c.limit is not None else None,
        (c.mark, one, c) if c.limit is None else None,
        (c.mark, c.per_slot, c.limit, c) if c.per_slot else None)


class _Place(NamedTuple):
    """An instance as an asker sees it: its signature, the checks it shares with the
    other instances of the signature, and its own (scopes with queues or hosts expanded)."""

    sig: int
    shared: _Checks
    local: _Checks


class RoomMemo(NamedTuple):
    """What one placement attempt learns of an asker's rooms (nothing is booked
    meanwhile): the room per signature where the asker has only shared checks (all its
    instances then have one room: a scan looks an instance's up here, by Quotas.sig_of,
    and asks Asker.room only where it finds none), and the room of each group of shared
    checks by id (signatures with the same shared checks share the group)."""

    by_sig: dict[int, tuple[float, str | None]]
    by_checks: dict[int, tuple[float, str | None]]


@dataclass(slots=True)
class _AskerTables:
    """What the checks of one who with one request's amounts are, by signature and by
    instance name: compiled once, kept by QuotaRules across cycles."""

    by_sig: list[_Checks | None] = field(default_factory=list)
    at: dict[str, _Place] = field(default_factory=dict)
    # Per mark that refused: the signatures in by_sig whose checks hold it (forgotten
    # when another signature's checks become known).
    holding: dict[int, list[int]] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Usage:
    """One line of qquota: a rule, its expanded scope, a resource used against its limit."""

    set_name: str
    rule: str
    key: Key
    resource: str
    used: float
    limit: str  # as the rule says, or the computed value of a dynamic limit
    cap: float  # the limit in force: infinite for a value that is no number, 0 for a
    # dynamic one its host does not know


class QuotaRules:
    """The enabled rule sets compiled for matching, kept as long as the configuration
    they come from (the planner keeps one across cycles, as it keeps compiled requests).

    Per instance a signature (which rules of each set its queue and host let apply), per
    job (who) the rules its user, project and PE let apply, and per who and signature the
    rule each set applies, with the scopes of those rules whose key does not depend on
    the instance. Signatures a who cannot tell apart share one view.
    """

    def __init__(self, conf: PlanConf, table: ComplexTable) -> None:
        self.conf = conf
        self.sets: list[RuleSet] = list(conf.rqs)
        self.table = table
        self.rules = [[_compile(n, rs, i, table) for i in range(len(rs.rules))]
                      for n, rs in enumerate(self.sets)]
        self.limited = sorted({limit.name for rules in self.rules for rule in rules
                               for limit in rule.limits})
        self._usersets = {name: frozenset(entries) for name, entries in conf.usersets.items()}
        self._hostgroups = {name: frozenset(hosts) for name, hosts in conf.hostgroups.items()}
        self.instance_sig: dict[str, int] = {}
        self._sig_ids: dict[tuple[int, ...], int] = {}
        self._sig_list: list[tuple[int, ...]] = []
        self._who_masks: dict[Who, tuple[int, ...]] = {}
        self._seen: dict[tuple[Who, int], int] = {}
        self._view_ids: dict[tuple[Who, tuple[int, ...]], int] = {}
        self.views: list[tuple[tuple[tuple[_Rule, Key], ...], tuple[_Rule, ...]]] = []
        # Checks per view and request amounts, and per who and amounts by signature and
        # instance: they depend on the configuration only.
        self.shared: dict[tuple[int, int], _Checks] = {}
        self.tables: dict[tuple[Who, int], _AskerTables] = {}
        self.common: dict[tuple[Who, int, frozenset[int]], _Checks] = {}
        self.needs: dict[JobRequest, tuple[dict[str, Need], int]] = {}
        self.amount_ids: dict[tuple[object, ...], int] = {}  # see Quotas.needs_of
        # Usage is booked under (scope, resource) pairs interned as small integers: they
        # are looked up in the innermost loops, and an integer hashes far faster.
        self.marks: list[tuple[Key, str]] = []
        self._mark_ids: dict[tuple[Key, str], int] = {}
        # Marks that every group of checks booking them books alike (the same groups,
        # the same amounts in each) always have the same usage: one is kept per class,
        # under the mark `rep` names, and a group walks its classes instead of its marks.
        # A new group splits the classes it holds only part of (`splits`: the new class's
        # mark and the one it was kept under, in order, for Quotas to copy the usage).
        self.rep: list[int] = []  # by mark
        # By mark: whether it speaks for its class in the walks (of its members, the one
        # with the lowest limit, the first interned among equal ones: the first of them in
        # every group's order), and its limit (a dynamic one's 0: its class's all have one).
        self._chosen: list[bool] = []
        self._limit: list[float] = []
        self._members: dict[int, list[int]] = {}  # by class (its kept mark)
        self._holders: list[list[_Checks]] = []  # by mark: the groups that hold it
        self.splits: list[tuple[int, int]] = []
        # Checks by mark and amounts: one object (and one set of entries) for every list
        # that holds the same limit of the same scope for the same amounts.
        self._checks: dict[tuple[int, float, float, float], tuple[_Check, _Entries]] = {}
        # Groups by whether they book and the identities of their checks in order: every
        # view, instance and asker with the same checks shares one, which keeps the
        # groups a cycle walks few (and the classes' holders short).
        self._groups: dict[tuple[object, ...], _Checks] = {}
        self._numbers: dict[float, float] = {}  # see same()

    def reusable_for(self, conf: PlanConf) -> bool:
        """Whether a cycle planning `conf` may use these: compiled from what it says (the
        same objects), and their tables still within bounds."""
        c = self.conf
        entries = (len(self._seen) + len(self._view_ids) + len(self._who_masks)
                   + len(self.shared) + len(self.tables) + len(self.common)
                   + len(self.needs) + len(self.marks) + len(self._checks)
                   + len(self._groups) + len(self._numbers))
        return (c.rqs is conf.rqs and c.usersets is conf.usersets
                and c.hostgroups is conf.hostgroups and c.complexes is conf.complexes
                and entries <= _MAX_ENTRIES)

    def check(self, rule: _Rule, key: Key, limit: _Limit, amounts: tuple[float, float, float],
              value: float | None) -> tuple[_Check, _Entries]:
        """The check of a limit for a job taking `amounts` (per slot, per job, per host)."""
        mark = self.mark(key, limit.name)
        found = self._checks.get((mark, *amounts))
        if found is None:
            same = self.same
            check = _Check(key, limit.name, same(amounts[0]), same(amounts[1]),
                           same(amounts[2]), None if value is None else same(value),
                           limit.formula, rule, mark, _refusal(rule, key))
            found = self._checks[(mark, *amounts)] = (check, _entries(check, same))
        return found

    def same(self, value: float) -> float:
        """One object for each number the checks hold: the walks over thousands of checks
        then read a few numbers, always at hand, instead of one of each check's own
        scattered through memory."""
        if value != value:  # NaN equals nothing: kept as it is
            return value
        return self._numbers.setdefault(value, value)

    def entries(self, check: _Check) -> _Entries:
        """The entries made for the check (by `check`), which every group holding it shares."""
        return self._checks[(check.mark, check.per_slot, check.per_job, check.per_host)][1]

    def mark(self, key: Key, resource: str) -> int:
        found = self._mark_ids.get((key, resource))
        if found is None:
            found = self._mark_ids[(key, resource)] = len(self.marks)
            self.marks.append((key, resource))
            self.rep.append(found)
            self._chosen.append(True)
            self._limit.append(0.0)
            self._members[found] = [found]
            self._holders.append([])
        return found

    def group(self, checks: list[tuple[_Check, _Entries]], books: bool = True) -> _Checks:
        """The checks as one group, laid out by class. A group that books (a view's
        shared checks, an instance's own) first splits the classes it holds part of; one
        that only reads (Asker.common_room) holds marks of such groups alone."""
        key = (books, *(id(check) for check, _ in checks))  # checks live as long as self
        found = self._groups.get(key)
        if found is not None:  # the same checks in the same order: one group
            return found
        group = self._groups[key] = _Checks(checks)
        if books:
            self._split(group)
        for check in group.all:
            self._holders[check.mark].append(group)
        self._lay_out(group)
        return group

    def _split(self, group: _Checks) -> None:
        """Refine the classes by the group: marks no group held yet form classes by the
        amounts the group books them and their limit's formula and host if dynamic (their
        usage is none alike); a class the group holds only part of, or by different
        amounts, splits, and the groups holding the marks that move are laid out again.
        A negative limit's mark (a requirement not met) stays a class of its own."""
        rep, members, holders = self.rep, self._members, self._holders
        shared = [c for c in group.all if c.limit is None or c.limit >= 0]
        fresh: dict[tuple[object, ...], list[int]] = {}
        for check in shared:
            if not holders[check.mark]:
                self._limit[check.mark] = 0.0 if check.limit is None else check.limit
                fresh.setdefault(_likeness(check), []).append(check.mark)
        for marks in fresh.values():
            kept = min(marks)
            for mark in marks:
                rep[mark] = kept
                del members[mark]
            members[kept] = marks
            self._choose(marks)
        # Per class the group holds marks of: by how many amounts it books them, and
        # how many of its marks it holds.
        ways: Counter[int] = Counter()
        held: Counter[int] = Counter()
        for (kept, *_), count in Counter(
                (rep[c.mark], c.per_slot, c.per_job, c.per_host) for c in shared
                if holders[c.mark]).items():
            ways[kept] += 1
            held[kept] += count
        moved: list[int] = []
        for kept, count in held.items():
            if ways[kept] == 1 and count == len(members[kept]):
                continue  # the group books all of the class alike
            parts: dict[tuple[float, float, float], list[int]] = {}
            for c in shared:
                if rep[c.mark] == kept:
                    parts.setdefault((c.per_slot, c.per_job, c.per_host), []).append(c.mark)
            pieces = list(parts.values())
            inside = {mark for piece in pieces for mark in piece}
            rest = [mark for mark in members[kept] if mark not in inside]
            if rest:
                pieces.append(rest)
            for piece in pieces:
                self._choose(piece)
                if kept in piece:
                    members[kept] = piece
                    continue
                new = min(piece)
                for mark in piece:
                    rep[mark] = new
                members[new] = piece
                self.splits.append((new, kept))
                moved.extend(piece)
        stale = {id(g): g for mark in moved for g in holders[mark]}
        for g in stale.values():
            self._lay_out(g)

    def _choose(self, marks: list[int]) -> None:
        """Which of a class's marks speaks for it (see `_chosen`)."""
        limit, chosen = self._limit, self._chosen
        best = min(marks, key=lambda mark: (limit[mark], mark))
        for mark in marks:
            chosen[mark] = mark == best

    def _lay_out(self, group: _Checks) -> None:
        """The group's walks by class (see _Checks), each class where its chosen mark is."""
        rep, chosen = self.rep, self._chosen
        group.fixed = tuple((rep[mark], top, one) for mark, top, _, one in group.exact
                            if chosen[mark])
        group.dynamic = tuple(entry for entry in group.exact_dynamic if chosen[entry[0]])
        group.per_slot = tuple((rep[mark], amount, limit, check)
                               for mark, amount, limit, check in group.exact_slots
                               if chosen[mark])
        group.book = tuple((rep[c.mark], c) for c in group.all if chosen[c.mark])

    def first_over(self, group: _Checks, used: list[float]) -> tuple[int, str]:
        """The first check of the group, in order, whose fixed limit one more slot of the
        master task passes (one of its classes' walk found one): its mark and why."""
        rep = self.rep
        return next((mark, why) for mark, top, why, _ in group.exact if used[rep[mark]] > top)

    def signature(self, qi: Instance) -> int:
        sig = self.instance_sig.get(qi.name)
        if sig is None:
            masks = tuple(_mask(rules, lambda rule: self._place_matches(rule, qi))
                          for rules in self.rules)
            sig = self._sig_ids.get(masks)
            if sig is None:
                sig = self._sig_ids[masks] = len(self._sig_list)
                self._sig_list.append(masks)
            self.instance_sig[qi.name] = sig
        return sig

    def view(self, who: Who, sig: int) -> int:
        """The signature as the who sees it: one id for the signatures in which each set
        applies the same rule to it; `views[id]` holds (shared scopes, local rules)."""
        view = self._seen.get((who, sig))
        if view is None:
            who_masks = self._who_masks.get(who)
            if who_masks is None:
                who_masks = self._who_masks[who] = tuple(
                    _mask(rules, lambda rule: self._job_matches(rule, who))
                    for rules in self.rules)
            # per set, the bit of the rule it applies (0: none)
            picked = tuple(_lowest_bit(wm & im)
                           for wm, im in zip(who_masks, self._sig_list[sig], strict=True))
            view = self._view_ids.get((who, picked))
            if view is None:
                view = self._view_ids[(who, picked)] = len(self.views)
                self.views.append(self._scopes(who, picked))
            self._seen[(who, sig)] = view
        return view

    def _scopes(self, who: Who, picked: tuple[int, ...]
                ) -> tuple[tuple[tuple[_Rule, Key], ...], tuple[_Rule, ...]]:
        shared: list[tuple[_Rule, Key]] = []
        local: list[_Rule] = []
        for rules, bit in zip(self.rules, picked, strict=True):
            if not bit:
                continue
            rule = rules[bit.bit_length() - 1]
            if rule.local:
                local.append(rule)
            else:
                shared.append((rule, _key(rule, who, None)))
        return tuple(shared), tuple(local)

    def _job_matches(self, rule: _Rule, who: Who) -> bool:
        users, projects, pes = rule.filters[:3]
        return (_holds(users, who.user, self.in_userset(who))
                and _holds_optional(projects, who.project)
                and _holds_optional(pes, who.pe))

    def _place_matches(self, rule: _Rule, qi: Instance) -> bool:
        queues, hosts = rule.filters[3:]
        return (_holds(queues, qi.queue, _no_group)
                and _holds(hosts, qi.host, self.in_hostgroup))

    def in_userset(self, who: Who) -> Callable[[str, str], bool]:
        def in_set(group: str, user: str) -> bool:
            entries = self._usersets.get(group[1:], frozenset())
            return user in entries or (bool(who.group) and f"@{who.group}" in entries)
        return in_set

    def in_hostgroup(self, group: str, host: str) -> bool:
        members = self._hostgroups.get(group)
        if members is not None:
            return host in members
        return any(host in hosts for name, hosts in self._hostgroups.items()
                   if fnmatch.fnmatchcase(name, group))


class Quotas:
    """The usage of one cycle (or one qquota) under compiled rule sets: what running
    tasks and this cycle's placements hold per rule and scope, and the checks a job meets
    (kept per who, request amounts and view; per instance for instance-dependent scopes).
    """

    def __init__(self, rules: QuotaRules, loads: Mapping[str, Mapping[str, str]]) -> None:
        self.rules = rules
        self.sets = rules.sets
        self.table = rules.table
        self.loads = loads
        # By mark (scope and resource), where its class is kept (QuotaRules.rep): see grow().
        self.used = [0.0] * len(rules.marks)
        self._splits = len(rules.splits)  # those whose usage is copied
        # By mark too, a dynamic limit's value once worked out (None before): the innermost
        # loops read it from here without a call.
        self.caps: list[float | None] = [None] * len(rules.marks)
        self._dynamic: dict[tuple[_Formula, str], float] = {}  # by formula and host
        # Instances where a check of their own, of a scope not one user's (a host's
        # limit), refused one slot: the planner asks other askers' own checks there
        # before the levels (Asker.own_refusal).
        self.crowded: set[str] = set()
        # One asker per who and request amounts (requests alike for the limits share it),
        # which remembers the refusals it met for the rest of the cycle.
        self.askers: dict[tuple[Who, int], Asker] = {}
        # An instance's signature by name as far as known (a dict.get: no call to make
        # where a scan asks for thousands), one table for all askers.
        self.sig_of = rules.instance_sig.get

    @classmethod
    def fresh(cls, conf: PlanConf, table: ComplexTable,
              loads: Mapping[str, Mapping[str, str]]) -> Quotas:
        """For a one-off question (qsub -w, qquota): rules compiled for it alone."""
        return cls(QuotaRules(conf, table), loads)

    def signature(self, qi: Instance) -> int:
        return self.rules.signature(qi)

    def asker(self, who: Who, req: JobRequest) -> Asker:
        needs, amounts = self.needs_of(req)
        found = self.askers.get((who, amounts))
        if found is None:
            found = self.askers[(who, amounts)] = Asker(self, who, needs, amounts)
        return found

    def grow(self) -> None:
        """Make room in `used` for marks interned since (usage is a list indexed by mark,
        the fastest lookup there is for the innermost loops), and give classes split
        since the usage of the class they come from."""
        missing = len(self.rules.marks) - len(self.used)
        if missing > 0:
            self.used.extend([0.0] * missing)
            self.caps.extend([None] * missing)
        splits = self.rules.splits
        if self._splits < len(splits):
            used = self.used
            for new, kept in splits[self._splits:]:
                used[new] = used[kept]
            self._splits = len(splits)

    # ---- limits and usage -----------------------------------------------------------------

    def needs_of(self, req: JobRequest) -> tuple[dict[str, Need], int]:
        """The request's needs by name, and what of them the limits can see, as an id:
        requests with equal amounts of the limited resources share their checks."""
        rules = self.rules
        found = rules.needs.get(req)
        if found is None:
            needs = {need.name: need for need in req.hard}
            seen = tuple((n.consumable, n.text) if (n := needs.get(name)) else None
                         for name in rules.limited)
            found = rules.needs[req] = (needs, rules.amount_ids.setdefault(
                seen, len(rules.amount_ids)))
        return found

    def limit(self, check: _Check) -> float:
        """The check's limit; a dynamic one worked out once per cycle and host."""
        limit = check.limit
        if limit is None:
            limit = self.caps[check.mark]
            if limit is None:
                assert check.formula is not None
                memo = (check.formula, check.key[6])
                limit = self._dynamic.get(memo)
                if limit is None:
                    value = self._formula_value(check.formula, memo[1])
                    limit = self._dynamic[memo] = _UNKNOWN if value is None else value
                self.caps[check.mark] = limit
        return limit

    def room_of(self, checks: _Checks) -> tuple[float, str | None]:
        """How many slots the checks allow (per-slot amounts only), and the refusal that
        bounds it."""
        if checks.banned is not None:
            return 0.0, checks.banned.why
        room: float = _INF
        bound = None
        used, caps = self.used, self.caps
        for mark, per_slot, limit, check in checks.per_slot:
            if limit is None:
                limit = caps[mark]
                if limit is None:
                    limit = self.limit(check)
            left = (limit - used[mark]) / per_slot
            if left < room:
                room, bound = left, check
        if bound is None:
            return room, None
        room = _floor(room + _EPSILON)
        return (room if room > 0 else 0), bound.why

    def book_running(self, running: Iterable[Running], instances: Mapping[str, Instance],
                     matcher: Matcher) -> None:
        """Book what started tasks hold; an instance gone from the configuration still
        counts under the queue and host it had. Tasks in advance reservations are not
        counted (spec/advance-reservation.txt, "AR and Resource Quotas")."""
        for task in running:
            if task.ar:
                continue
            req = matcher.request(task.hard)
            asker = self.asker(Who(task.owner, task.group, task.project, task.pe), req)
            for index, ((name, slots), first) in enumerate(
                    zip(task.granted, granted_firsts(task.granted), strict=True)):
                asker.book(instances.get(name) or _gone(name), slots, master=index == 0,
                           first_on_host=first)

    def _formula_value(self, formula: _Formula, host: str) -> float | None:
        """A dynamic limit on a host, None while a value it references is not known there."""
        value = formula_value(formula.terms, lambda name: self._host_number(host, name))
        if value is None or not formula.whole:
            return value
        return float(math.trunc(value))

    def _host_number(self, host: str, name: str) -> float | None:
        """The host's value of a complex: its complex_values' or else its load's."""
        attr = self.table.resolve(name)
        if attr is None:
            return None
        text = self.rules.conf.host_values.get(host, {}).get(attr.name)
        if text is None:
            text = self.loads.get(host, {}).get(attr.name)
        if text is None:
            return None
        try:
            return float(parse_value(attr.type, text))
        except ValueError:
            return None

    def usage_lines(self) -> list[Usage]:
        """Every rule scope with something booked, in set and rule order (qquota)."""
        by_key: dict[Key, dict[str, float]] = {}
        used = self.used
        for mark, kept in enumerate(self.rules.rep):
            amount = used[kept]
            if not amount:
                continue
            key, resource = self.rules.marks[mark]
            by_key.setdefault(key, {})[resource] = amount
        lines = []
        for key in sorted(by_key, key=lambda k: (k[0], k[1], k[2:])):
            used = by_key[key]
            rs = self.sets[key[0]]
            for limit in self.rules.rules[key[0]][key[1]].limits:
                amount = used.get(limit.name, 0.0)
                if not amount:
                    continue
                shown, cap = limit.text, limit.fixed
                if limit.formula is not None:
                    value = self._formula_value(limit.formula, key[6])
                    if value is not None:  # else shown as written
                        shown = _number_text(value)
                    cap = _UNKNOWN if value is None else value
                lines.append(Usage(rs.name, rule_id(rs, key[1]), key, limit.name, amount,
                                   shown, math.inf if cap is None else cap))
        return lines

    def rows(self, users: list[str], hosts: list[str], queues: list[str], pes: list[str],
             projects: list[str], resources: list[str]) -> list[QuotaRow]:
        """qquota's lines for the selected consumers and places (empty lists: all). A line
        of an expanded scope belongs to its member; a shared one to whoever its rule's
        filter matches."""
        wanted = {attr.name for name in resources if (attr := self.table.resolve(name))}
        out = []
        for line in self.usage_lines():
            rule = self.sets[line.key[0]].rules[line.key[1]]
            attr = self.table.resolve(line.resource)
            name = attr.name if attr else line.resource
            if resources and name not in wanted:
                continue
            compiled = self.rules.rules[line.key[0]][line.key[1]]
            if not self._selected(compiled, line.key, users, hosts, queues, pes, projects):
                continue
            out.append(QuotaRow(rule=line.rule, resource=name,
                                type=attr.type if attr else "INT", used=line.used,
                                limit=line.limit, filters=_shown_filters(rule, line.key)))
        return out

    def _selected(self, rule: _Rule, key: Key, users: list[str], hosts: list[str],
                  queues: list[str], pes: list[str], projects: list[str]) -> bool:
        _, _, k_user, k_project, k_pe, k_queue, k_host = key
        f_users, f_projects, f_pes, f_queues, f_hosts = rule.filters

        def among(names: list[str], member: str, matches: Callable[[str], bool]) -> bool:
            if not names or "*" in names:
                return True
            if member:
                return any(fnmatch.fnmatchcase(member, n) for n in names)
            return any(matches(n) for n in names)

        return (among(users, k_user,
                      lambda u: _holds(f_users, u, self.rules.in_userset(Who(u))))
                and among(hosts, k_host, lambda h: _holds(f_hosts, h, self.rules.in_hostgroup))
                and among(queues, k_queue, lambda q: _holds(f_queues, q, _no_group))
                and among(pes, k_pe, lambda pe: _holds_optional(f_pes, pe))
                and among(projects, k_project, lambda pr: _holds_optional(f_projects, pr)))


class Asker:
    """A job's who and request as the quotas see them during one cycle. The planner asks
    about thousands of candidate instances per asker: the tables each question needs
    (by who and request amounts) are looked up once, here."""

    __slots__ = ("quotas", "who", "needs", "amounts", "blocked", "closed", "_tables",
                 "_common")

    def __init__(self, quotas: Quotas, who: Who, needs: dict[str, Need], amounts: int
                 ) -> None:
        rules = quotas.rules
        self.quotas, self.who, self.needs, self.amounts = quotas, who, needs, amounts
        # A check that refused one slot refuses for the rest of the cycle: usage only
        # grows. Remembered by signature for checks the instances of a signature share
        # and by instance for the others, with the refusal.
        self.blocked: dict[int, str] = {}
        self.closed: dict[str, str] = {}
        key = (who, amounts)
        tables = rules.tables.get(key)
        if tables is None:
            tables = rules.tables[key] = _AskerTables()
        self._tables = tables
        self._common: tuple[frozenset[int], _Checks] | None = None

    def shared(self, sig: int) -> _Checks:
        """The checks of the scopes all instances of the signature share."""
        table = self._tables.by_sig
        if sig < len(table) and (found := table[sig]) is not None:
            return found
        rules = self.quotas.rules
        view = rules.view(self.who, sig)
        found = rules.shared.get((view, self.amounts))
        if found is None:
            found = rules.shared[(view, self.amounts)] = rules.group([
                check for rule, key in rules.views[view][0]
                for check in _limit_checks(rule, key, self.needs, rules.check)])
            self.quotas.grow()
        table.extend([None] * (sig + 1 - len(table)))
        table[sig] = found
        self._tables.holding.clear()
        return found

    def at(self, qi: Instance) -> _Place:
        found = self._tables.at.get(qi.name)
        if found is None:
            rules = self.quotas.rules
            who = self.who
            sig = rules.signature(qi)
            local = rules.group([
                check for rule in rules.views[rules.view(who, sig)][1]
                for check in _limit_checks(rule, _key(rule, who, qi), self.needs, rules.check)])
            self.quotas.grow()
            found = self._tables.at[qi.name] = _Place(sig, self.shared(sig), local)
        return found

    def checks(self, qi: Instance) -> tuple[_Check, ...]:
        """The limits that bind the job on this instance."""
        place = self.at(qi)
        return place.shared.all + place.local.all

    def refusal(self, qi: Instance, slots: int = 1, master: bool = True) -> str | None:
        """Why the quotas refuse `slots` slots of the job here (a part that is its host's
        first when it is the master's), or None."""
        if slots == 1 and master:
            return self._refusal_one(qi, self.at(qi))
        quotas = self.quotas
        used, rep = quotas.used, quotas.rules.rep
        for check in self.checks(qi):
            amount = check.amount(slots, master, master)
            if used[rep[check.mark]] + amount > quotas.limit(check) + _EPSILON:
                return check.why
        return None

    def _refusal_one(self, qi: Instance, place: _Place) -> str | None:
        """The common question (one slot, the master task), and the one remembered."""
        why = self.blocked.get(place.sig) or self.closed.get(qi.name)
        if why is not None:
            return why
        quotas = self.quotas
        used = quotas.used
        _, shared, local = place
        for mark, top, _ in shared.fixed:
            if used[mark] > top:
                mark, why = quotas.rules.first_over(shared, used)
                self._block(mark, why)
                return why
        for mark, amount, check in shared.dynamic:  # none once checked (hosts expand)
            if used[mark] + amount > quotas.limit(check) + _EPSILON:
                self._block(mark, check.why)
                return check.why
        return self._own_refusal(qi, local)

    def own_refusal(self, qi: Instance) -> str | None:
        """Why the instance's own checks (scopes with its queue or host expanded) refuse
        one slot of the job's master task, or None: asked first where such a check of a
        scope many askers share refused one before (Quotas.crowded)."""
        why = self.closed.get(qi.name)
        return why if why is not None else self._own_refusal(qi, self.at(qi).local)

    def _own_refusal(self, qi: Instance, local: _Checks) -> str | None:
        quotas = self.quotas
        used = quotas.used
        for mark, top, _ in local.fixed:
            if used[mark] > top:
                return self._close(qi, *quotas.rules.first_over(local, used))
        caps = quotas.caps
        for mark, amount, check in local.dynamic:
            cap = caps[mark]
            if cap is None:
                cap = quotas.limit(check)
            if used[mark] + amount > cap + _EPSILON:
                return self._close(qi, mark, check.why)
        return None

    def _close(self, qi: Instance, mark: int, why: str) -> str:
        """Close the instance to the asker for the rest of the cycle; one whose scope is
        not a user's own (a host's, say) likely refuses other askers too."""
        self.closed[qi.name] = why
        if not self.quotas.rules.marks[mark][0][2]:
            self.quotas.crowded.add(qi.name)
        return why

    def _block(self, mark: int, why: str) -> None:
        """Block every signature whose shared checks (known so far) include a scope that
        refused one slot: for this asker each refuses the same amount there."""
        tables = self._tables
        holding = tables.holding.get(mark)
        if holding is None:
            holding = tables.holding[mark] = [
                sig for sig, checks in enumerate(tables.by_sig)
                if checks is not None and mark in checks.marks]
        setdefault = self.blocked.setdefault
        for sig in holding:
            setdefault(sig, why)

    def claim(self, qi: Instance) -> str | None:
        """Book one slot of the job (its master task) here if the quotas allow it;
        otherwise why not. One pass for the planner's commonest question."""
        place = self.at(qi)
        why = self._refusal_one(qi, place)
        if why is None:
            used = self.quotas.used
            _, shared, local = place
            # What the checks just walked book (a requirement's entry books nothing).
            for checks in (shared, local):
                for mark, _, amount in checks.fixed:
                    used[mark] += amount
                for mark, amount, _ in checks.dynamic:
                    used[mark] += amount
        return why

    def room(self, qi: Instance, memo: RoomMemo) -> tuple[float, str | None]:
        """How many slots of the job the quotas allow here (not counting per-job amounts),
        and the refusal that bounds it, as far as one placement attempt goes (`memo`):
        asked where the memo holds no room for the instance's signature."""
        sig, checks, local = self._tables.at.get(qi.name) or self.at(qi)  # at() without the call
        key = id(checks)
        shared = memo.by_checks.get(key)
        if shared is None:
            shared = memo.by_checks[key] = self.quotas.room_of(checks)
        if not local.all:  # none on any instance of the signature (rules are by signature)
            memo.by_sig[sig] = shared
            return shared
        here = self.quotas.room_of(local)
        return here if here[0] < shared[0] else shared

    def common_room(self, sigs: frozenset[int]) -> tuple[float, str | None]:
        """How many slots the job may have at most wherever it goes among instances of
        these signatures: the room of the limits whose scope all of them share (a user's
        total, say), and the refusal that bounds it."""
        if self._common is None or self._common[0] is not sigs:
            rules = self.quotas.rules
            key = (self.who, self.amounts, sigs)
            common = rules.common.get(key)
            if common is None:
                marks: set[int] | None = None
                every: dict[int, _Check] = {}
                for sig in sigs:
                    here = {check.mark: check for check in self.shared(sig).all}
                    every.update(here)
                    marks = set(here) if marks is None else marks & here.keys()
                common = rules.common[key] = rules.group(
                    [(every[m], rules.entries(every[m])) for m in sorted(marks or ())],
                    books=False)
            self._common = (sigs, common)
        return self.quotas.room_of(self._common[1])

    def refused_everywhere(self, sigs: frozenset[int]) -> bool:
        """Whether a limit all instances of these signatures share leaves the job no slot
        on any of them: then each signature is blocked with its refusal, for the rest of
        the cycle (usage only grows)."""
        most, why = self.common_room(sigs)
        if most >= 1 or why is None:
            return False
        for sig in sigs:
            self.blocked.setdefault(sig, why)
        return True

    def placement_excess(self, granted: list[tuple[Instance, int]]
                         ) -> tuple[str, int, list[str]] | None:
        """A limit a placement over several instances exceeds together (a user's slots
        over several hosts, say): why, by how many slots at least, and the instances
        (of the placement, in its order) that count against it; None when none."""
        # Per class, at the check of its lowest limit: whether any limit is exceeded;
        # which one is then found per check (_excess).
        firsts = first_parts([qi.host for qi, _ in granted])
        quotas = self.quotas
        used = quotas.used
        for kept, (total, check) in self._booked(granted, firsts, by_class=True).items():
            if total - (quotas.limit(check) - used[kept]) > _EPSILON:
                return self._excess(granted, firsts)
        return None

    def _excess(self, granted: list[tuple[Instance, int]], firsts: list[bool]
                ) -> tuple[str, int, list[str]] | None:
        """placement_excess per check: the first, in the order met, that is exceeded."""
        quotas = self.quotas
        used, rep = quotas.used, quotas.rules.rep
        for mark, (total, check) in self._booked(granted, firsts, by_class=False).items():
            over = total - (quotas.limit(check) - used[rep[mark]])
            if over > _EPSILON:
                holders = [qi.name for qi, _ in granted
                           if any(c.mark == mark for c in self.checks(qi))]
                if not check.per_slot:  # a per-job amount: fewer slots do not help
                    return check.why, 1 << 31, holders
                return (check.why, max(math.ceil(over / check.per_slot - _EPSILON), 1),
                        holders)
        return None

    def _booked(self, granted: list[tuple[Instance, int]], firsts: list[bool],
                by_class: bool) -> dict[int, tuple[float, _Check]]:
        """What the parts of a placement book together, in the order first met: per
        class with the check of its lowest limit, or per mark with its check."""
        booked: dict[int, tuple[float, _Check]] = {}
        for index, ((qi, slots), first) in enumerate(zip(granted, firsts, strict=True)):
            _, shared, local = self.at(qi)
            pairs = shared.book + local.book if by_class else \
                tuple((c.mark, c) for c in shared.all + local.all)
            for key, check in pairs:
                amount = check.amount(slots, index == 0, first)
                found = booked.get(key)
                booked[key] = (amount, check) if found is None else (found[0] + amount, found[1])
        return booked

    def book(self, qi: Instance, slots: int, master: bool, first_on_host: bool) -> None:
        _, shared, local = self.at(qi)
        used = self.quotas.used  # (after at(): a group it makes may split classes)
        for group in (shared, local):
            for kept, check in group.book:
                used[kept] += check.amount(slots, master, first_on_host)

def _shown_filters(rule: Rule, key: Key) -> list[tuple[str, list[str], list[str]]]:
    """The rule's filters as a qquota line shows them: an expanded one by its member."""
    members = dict(zip(FILTERS, key[2:], strict=True))
    shown = []
    for name in FILTERS:
        flt = getattr(rule, name)
        if flt is None:
            continue
        if flt.expand:
            shown.append((name, [members[name]], []))
        else:
            shown.append((name, list(flt.scope), list(flt.xscope)))
    return shown


def _compile(set_index: int, rule_set: RuleSet, index: int, table: ComplexTable) -> _Rule:
    rule = rule_set.rules[index]
    filters = tuple(getattr(rule, name) for name in FILTERS)
    expand = tuple(_expands(flt) for flt in filters)
    limits = []
    for limit in rule.limits:
        attr = table.resolve(limit.name)
        if attr is None:
            continue
        fixed = formula = None
        if limit.formula is not None:
            formula = _Formula(tuple(limit.formula), attr.type == "INT")
        elif attr.consumable != "NO":
            try:
                fixed = float(parse_value(attr.type, limit.value))
            except ValueError:
                fixed = math.inf
        limits.append(_Limit(attr.name, attr.type, attr.consumable, limit.value, fixed,
                             formula))
    return _Rule(set_index, index, rule_id(rule_set, index),
                 tuple(_filter(flt) for flt in filters), expand, expand[3] or expand[4],
                 tuple(limits))


def _limit_checks(
    rule: _Rule, key: Key, needs: Mapping[str, Need],
    check: Callable[[_Rule, Key, _Limit, tuple[float, float, float], float | None],
                    tuple[_Check, _Entries]],
) -> list[tuple[_Check, _Entries]]:
    """The rule's limits a job with these needs meets in one scope, made by `check`."""
    out = []
    for limit in rule.limits:
        need = needs.get(limit.name)
        if need is None:
            continue
        if limit.consumable == "NO":
            if not _requirement_holds(need, limit.type, limit.text):
                out.append(check(rule, key, limit, (0.0, 0.0, 0.0), -1.0))
            continue
        amount = float(need.key)  # per slot, per job or per host, as its consumable says
        amounts = (amount if need.consumable == "YES" else 0.0,
                   amount if need.consumable == "JOB" else 0.0,
                   amount if need.consumable == "HOST" else 0.0)
        if any(amounts):
            out.append(check(rule, key, limit, amounts, limit.fixed))
    return out


def _likeness(check: _Check) -> tuple[object, ...]:
    """What marks met first in one group share to be a class: the amounts booked, and of
    a dynamic limit its formula's terms and the host (so that its value is the same)."""
    amounts = (check.per_slot, check.per_job, check.per_host)
    if check.formula is None:
        return amounts
    return (*amounts, check.formula.whole, check.key[6],
            *((term.factor, term.name) for term in check.formula.terms))


def _refusal(rule: _Rule, key: Key) -> str:
    return f'cannot run because it exceeds limit "{key_text(key)}" in rule "{rule.name}"'


def _key(rule: _Rule, who: Who, qi: Instance | None) -> Key:
    ex = rule.expand
    return (rule.set_index, rule.rule_index, who.user if ex[0] else "",
            who.project if ex[1] else "", who.pe if ex[2] else "",
            qi.queue if qi is not None and ex[3] else "",
            qi.host if qi is not None and ex[4] else "")


def _holds(flt: _Filter | None, value: str, in_group: Callable[[str, str], bool]) -> bool:
    """A user, queue or host filter: absent or `*` matches all; exclusions always win."""
    if flt is None:
        return True
    if flt.xscope.has(value, in_group):
        return False
    return flt.any_scope or flt.scope.has(value, in_group)


def _holds_optional(flt: _Filter | None, value: str) -> bool:
    """A project or PE filter: `*` means jobs that have one, `!*` jobs that have none."""
    if flt is None:
        return True
    if value and flt.xscope.has(value, _no_group):
        return False
    if flt.any_scope:
        return True
    return bool(value) and flt.scope.has(value, _no_group)


def _lowest_bit(bits: int) -> int:
    return bits & -bits


def _no_group(group: str, value: str) -> bool:
    return False


def key_text(key: Key) -> str:
    """The scope as the scheduler names it: expanded members by filter, "/" after each."""
    return "".join(f"{part}/" for part in key[2:])


def _mask(rules: list[_Rule], matches: Callable[[_Rule], bool]) -> int:
    mask = 0
    for index, rule in enumerate(rules):
        if matches(rule):
            mask |= 1 << index
    return mask


def _expands(flt: Filter | None) -> bool:
    return flt is not None and flt.expand


def _requirement_holds(need: Need, type_: str, text: str) -> bool:
    try:
        offered = parse_value(type_, text)
    except ValueError:
        return True
    return bool(need.test(need.key, offered))


def _gone(name: str) -> Instance:
    queue, _, host = name.partition("@")
    return Instance(name=name, queue=queue, host=host, slots=0)


def _number_text(value: float) -> str:
    return str(int(value)) if value == int(value) else f"{value:f}"

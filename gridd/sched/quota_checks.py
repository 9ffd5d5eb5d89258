"""How a cycle asks the resource quotas (gridd.sched.quota) while it places: one asker per
category and who asks, refusals kept per asker, instances the quotas close to an asker
passed over for the rest of the cycle (by quota signature), and what a placement books
in the quota diagrams ("R") for reservations."""

from __future__ import annotations

import bisect
import itertools
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import NamedTuple

from gridd.model.cluster import Instance
from gridd.sched.categories import Category, no_skips
from gridd.sched.match import JobRequest, granted_firsts
from gridd.sched.quota import Asker, Who
from gridd.sched.reserve import Use


class Sigs(NamedTuple):
    """The quota signatures of a candidate list: each candidate's, all of them, and the
    candidates (indexes) of each."""

    of: list[int]
    every: frozenset[int]
    members: dict[int, list[int]]


NO_SIGS = Sigs([], frozenset(), {})


@dataclass(slots=True, eq=False)
class Closed:
    """The candidates of one list the quotas closed to one asker for the rest of the
    cycle: skip pointers as in Category, and how many of the asker's blocked signatures
    (Quotas.blocked, in the order they were blocked) have been closed en bloc."""

    skip: list[int]
    applied: int = 0


class QuotaChecks:
    """The resource quotas as the cycle asks them: a step of Cycle (gridd.sched.cycle),
    which holds the state the steps share."""

    def _quota_refuses(self, cat: Category, who: Who, qi: Instance, slots: int = 1,
                       master: bool = True) -> bool:
        """Whether a quota refuses the job here; the reason is kept for its asker."""
        if self.quotas is None:
            return False
        why = self._asker(cat, who).refusal(qi, slots, master)
        if why is None:
            return False
        self._note_quota(cat, who, why)
        return True

    def _asker(self, cat: Category, who: Who) -> Asker:
        if cat.askers is None:
            cat.askers = {}
        asker = cat.askers.get(who)
        if asker is None:
            assert self.quotas is not None
            asker = cat.askers[who] = self.quotas.asker(who, cat.req)
        return asker

    def _note_quota(self, cat: Category, who: Who, why: str) -> None:
        """Keep a quota's refusal for the asker (`who` without a PE)."""
        cat.noted(who)[why] = None
        self.quota_hit = True

    def _quota_uses(self, req: JobRequest, who: Who, granted: Iterable[tuple[str, int]],
                    pe: str) -> tuple[Use, ...]:
        """What a placement books under the resource quotas, as utilizations of level "R"
        (one diagram per rule scope and resource, its capacity the limit): reservations
        honour quotas as they honour the levels' capacities."""
        if self.quotas is None:
            return ()
        asker = self.quotas.asker(Who(who.user, who.group, who.project, pe), req)
        totals: dict[int, float] = {}
        placed = list(granted)
        for index, ((name, slots), first) in enumerate(
                zip(placed, granted_firsts(placed), strict=True)):
            qi = self.instances.get(name)
            if qi is None:
                continue
            for check in asker.checks(qi):
                amount = check.amount(slots, index == 0, first)
                if amount:
                    totals[check.mark] = totals.get(check.mark, 0.0) + amount
                    self._quota_limits[check.mark] = self.quotas.limit(check)
        marks = self.quotas.rules.marks
        return tuple(Use("R", str(mark), marks[mark][1], amount)
                     for mark, amount in totals.items())

    def _quota_held(self, cat: Category, who: Who, qi: Instance) -> str | None:
        """Why one slot of the job may not start on the instance now: the quota it would
        take is what a reservation of the cycle needs (None when it may)."""
        if not self._quota_reserved:
            return None
        result = self._clear_of_reservations(
            cat, [], "", self._quota_uses(cat.req, who, [(qi.name, 1)], ""))
        return None if result.ok else result.reason

    def _shut_blocked(self, key: tuple[Who, int, int], blocked: Mapping[int, str],
                      sigs: Sigs, noted: dict[str, None], start: int) -> Closed | None:
        """The candidates closed to the asker (keyed by who, request amounts and list),
        with every instance from `start` on of a signature the quotas blocked since the
        last call closed at once: scans then pass over them without a look. (A scan of
        another category that shares the list and starts earlier finds those before
        `start` blocked when it reaches them.)"""
        shut = self._quota_dead.get(key)
        applied = 0 if shut is None else shut.applied
        if applied == len(blocked):
            return shut
        for sig, why in itertools.islice(blocked.items(), applied, None):
            members = sigs.members.get(sig)
            if not members:
                continue
            if shut is None:
                shut = self._closed(key, len(sigs.of))
            noted[why] = None
            skip = shut.skip
            for j in itertools.islice(members, bisect.bisect_left(members, start), None):
                if skip[j] == j:
                    skip[j] = j + 1
        if shut is not None:
            shut.applied = len(blocked)
        return shut

    def _closed(self, key: tuple[Who, int, int], n: int) -> Closed:
        """A fresh record of the candidates (n of them) closed to the asker."""
        shut = self._quota_dead[key] = Closed(no_skips(n))
        return shut

    def _signatures(self, cat: Category) -> Sigs:
        """The quota signature of each candidate, once per list."""
        found = self._sigs.get(id(cat.candidates))
        if found is None:
            assert self.quotas is not None
            of = [self.quotas.signature(qi) for qi in cat.candidates]
            members: dict[int, list[int]] = {}
            for i, sig in enumerate(of):
                members.setdefault(sig, []).append(i)
            found = self._sigs[id(cat.candidates)] = Sigs(of, frozenset(of), members)
        return found

"""Which RSMAP ids a placement is granted, and keeping who holds which.

The amounts of an RSMAP are counted like any consumable's (Level.free); its ids follow
them: a placement takes, on every level its count is debited from (the global host, an
execution host), as many ids as that debit, the first free ones in the host's order, and
holds them where the count is held. The same walk as Matcher.debit (the same parts and
skips), so counts and ids cannot disagree. Pure: where the ids come from is a `Pool`.
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING

from gridd.model import rsmap
from gridd.model.rsmap import ResourceMap
from gridd.sched.match import (
    GLOBAL,
    Level,
    Need,
    amount_of,
    first_parts,
    global_skipped,
    part_of,
    skipped,
)

if TYPE_CHECKING:
    from gridd.sched.levels import Levels

# Why a placement the counts let fit is not given: fewer ids are free than it takes
# (cannot happen while every running task holds the ids its amounts say).
NO_IDS = "cannot run because fewer RSMAP ids are free than its request takes"

# The ids one RSMAP offers on one host ("global" for the global host) and those held
# there, or None where it offers none.
Pool = Callable[[str, str], tuple[Sequence[str], Counter[str]] | None]


def level_pool(global_level: Level, hosts: Mapping[str, Level]) -> Pool:
    """The ids the levels offer and hold."""

    def pool(name: str, host: str) -> tuple[Sequence[str], Counter[str]] | None:
        level = global_level if host == GLOBAL else hosts.get(host)
        if level is None or name not in level.ids:
            return None
        return level.ids[name], level.held[name]

    return pool


def held_too(pool: Pool, grants: Iterable[ResourceMap]) -> Pool:
    """A pool whose ids these grants hold as well (for picking; holding goes to `pool`)."""
    extra: dict[tuple[str, str], Counter[str]] = {}
    for granted in grants:
        for name, host, ids in granted:
            extra.setdefault((name, host), Counter()).update(ids)

    def both(name: str, host: str) -> tuple[Sequence[str], Counter[str]] | None:
        found = pool(name, host)
        more = extra.get((name, host))
        if found is None or more is None:
            return found
        return found[0], found[1] + more

    return both


def parts(granted: Iterable[tuple[str, int]]) -> list[tuple[str, int, int]]:
    """A placement's parts as (host, slots, part), the part as Matcher.fits takes it."""
    placed = list(granted)
    hosts = [name.partition("@")[2] for name, _ in placed]
    return [(host, slots, part_of(index == 0, first))
            for index, ((_, slots), host, first) in enumerate(
                zip(placed, hosts, first_parts(hosts), strict=True))]


def pick(needs: Sequence[Need], placed: Iterable[tuple[str, int, int]], pool: Pool
         ) -> ResourceMap | None:
    """The ids a placement is granted, one entry per RSMAP and host; None when a pool
    has fewer free ids than the placement takes (the counts said it fits: ids and
    counts disagree, and the placement must not be given). Nothing is held yet."""
    taken: dict[tuple[str, str], list[str]] = {}
    for host, slots, part in placed:
        for need in needs:
            if skipped(need.consumable, part):
                continue
            amount = amount_of(need, slots)
            if not amount:
                continue
            if not float(amount).is_integer():
                return None
            for where in (GLOBAL, host):
                if where == GLOBAL and global_skipped(need, GLOBAL, part):
                    continue
                found = pool(need.name, where)
                if found is None:
                    continue
                ids, held = found
                mine = taken.setdefault((need.name, where), [])
                got = rsmap.pick(ids, itertools.chain(held.elements(), mine), int(amount))
                if got is None:
                    return None
                mine.extend(got)
    return [(name, host, ids) for (name, host), ids in taken.items() if ids]


def hold_in(pool: Pool, granted: ResourceMap, sign: int = 1) -> None:
    """Hold a grant's ids where they are (sign -1: give them back). Ids of an RSMAP or
    host no longer configured are not held: nothing offers them."""
    for name, host, ids in granted:
        found = pool(name, host)
        if found is None:
            continue
        held = found[1]
        if sign > 0:
            held.update(ids)
        else:
            held -= Counter(ids)  # (in place; what is not held any more goes)


def hold(levels: Levels, granted: ResourceMap, sign: int = 1) -> None:
    """Hold a grant's ids on the levels (sign -1: give them back)."""
    hold_in(level_pool(levels.global_level, levels.hosts), granted, sign)


def free_with(empty: Levels, grants: Iterable[ResourceMap]) -> Pool:
    """The configured ids of levels with nothing running, these grants holding theirs:
    what a reservation or an advance reservation may book for a window, given what is
    expected to hold ids in it."""
    configured = level_pool(empty.global_level, empty.hosts)
    held: dict[tuple[str, str], Counter[str]] = {}

    def pool(name: str, host: str) -> tuple[Sequence[str], Counter[str]] | None:
        found = configured(name, host)
        if found is None:
            return None
        return found[0], held.setdefault((name, host), Counter())

    for granted in grants:
        hold_in(pool, granted)
    return pool

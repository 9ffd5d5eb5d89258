"""PE allocation rules: how a parallel job's slots spread over the hosts that have room
($pe_slots, $fill_up, $round_robin, an integer N), with or without a master queue list
(-masterq). Pure functions of the rooms a cycle found (gridd.sched.parallel, ar_jobs,
backfill), so the rule for a placement's shape has one home."""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping
from typing import NamedTuple

from gridd.model.cluster import Instance
from gridd.model.pe import FILL_UP, PE_SLOTS, ROUND_ROBIN
from gridd.model.planning import Granted
from gridd.model.values import is_unsigned


class Lead(NamedTuple):
    """Where a parallel job with -masterq may have its master task (names of the
    instances its list names) and its other slots (those its -q names; None: wherever it
    may run otherwise). 8.1.9 takes an instance of the master list even when -q leaves
    it out, but for the master task alone."""

    masters: frozenset[str]
    slaves: frozenset[str] | None


class Enough:
    """Whether the hosts seen so far can take `cap` slots under an allocation rule:
    one host for $pe_slots, their sum for $fill_up, as many hosts as slots for
    $round_robin, enough hosts with N free for an integer rule N."""

    def __init__(self, rule: str, cap: int) -> None:
        self.rule, self.cap = rule, cap
        self.per_host = int(rule) if is_unsigned(rule) and int(rule) > 0 else 1
        self.total = 0  # $fill_up: the sum of host rooms
        self.hosts = 0  # $round_robin and integer rules: hosts that can take their share

    def add(self, host: str, before: int, after: int) -> bool:
        if self.rule == PE_SLOTS:
            return after >= self.cap
        if self.rule == FILL_UP:
            self.total += after - before
            return self.total >= self.cap
        if before < self.per_host <= after:
            self.hosts += 1
        return self.hosts * self.per_host >= self.cap


def allocate(
    rule: str,
    rooms: Mapping[str, list[tuple[Instance, int]]],
    host_room: Mapping[str, int],
    cap: int,
    lowest: int,
) -> tuple[Granted | None, int]:
    """Spread the largest slot count in [lowest, cap] over hosts as `rule` says.

    `rooms` lists per host (in planning order) its instances with the slots each could
    take, `host_room` what the host as a whole can take. Returns the placement, or None
    and the number of slots the rule could have offered.
    """
    if rule == PE_SLOTS:  # (hosts without room count as none: n is at least 1 below)
        best = max(0, max(map(host_room.__getitem__, rooms), default=0))
        n = min(best, cap)
        if n < max(lowest, 1):
            return None, n
        host = next(h for h in rooms if host_room[h] >= n)
        return _take(rooms[host], n), n
    hosts = [h for h in rooms if host_room[h] > 0]
    if rule in (FILL_UP, ROUND_ROBIN):
        n = min(sum(host_room[h] for h in hosts), cap)
        if n < max(lowest, 1):
            return None, n
        share = _fill(hosts, host_room, n) if rule == FILL_UP else _deal(hosts, host_room, n)
        return [part for h in hosts if share.get(h) for part in _take(rooms[h], share[h])], n
    per_host = int(rule) if is_unsigned(rule) and int(rule) > 0 else 1
    eligible = [h for h in hosts if host_room[h] >= per_host]
    n = min(len(eligible) * per_host, cap)
    n -= n % per_host
    if n < max(lowest, 1):
        return None, n
    return [part for h in eligible[: n // per_host] for part in _take(rooms[h], per_host)], n


def allocate_led(
    rule: str,
    rooms: Mapping[str, list[tuple[Instance, int]]],
    host_room: Mapping[str, int],
    host_cap: Mapping[str, float],
    lead: Lead,
    cap: int,
    lowest: int,
    accept: Callable[[Granted], bool] | None = None,
) -> tuple[Granted | None, int]:
    """`allocate` for a job with -masterq, the master instance first in the placement.
    As 8.1.9 places such a job, the master task takes one slot of an instance the master
    list names, and the other slots go where the rule puts them in planning order, that
    instance's room left among them ($pe_slots: on its host; an integer rule N: N-1 of
    them on its host). Each possible master instance is tried in planning order: the
    largest slot count wins, the first among equals, of the placements `accept` takes.
    `host_cap` bounds what a host can take in all. Returns the placement, or None and
    the most slots one could have had."""
    best: Granted | None = None
    most = 0
    per_host = int(rule) if is_unsigned(rule) and int(rule) > 0 else 0
    for host, items in rooms.items():
        for master, room in items:
            if room < 1 or master.name not in lead.masters:
                continue
            rest: dict[str, list[tuple[Instance, int]]] = {}
            rest_room: dict[str, int] = {}
            for other, its in rooms.items():
                if rule == PE_SLOTS and other != host:
                    continue
                kept = [(qi, r - (qi is master)) for qi, r in its
                        if lead.slaves is None or qi.name in lead.slaves]
                kept = [(qi, r) for qi, r in kept if r > 0]
                rest_room[other] = whole_slots(min(host_cap[other] - (other == host),
                                                   sum(r for _, r in kept)))
                if kept:
                    rest[other] = kept
            if per_host:  # N-1 on the master's host, N on each other
                if rest_room[host] < per_host - 1 or cap < per_host:
                    continue
                first = _take(rest.get(host, []), per_host - 1)
                need = max(lowest - per_host, 0)
                placed, n = allocate(rule, {h: its for h, its in rest.items() if h != host},
                                     rest_room, cap - per_host, need)
            else:
                first, need = [], max(lowest - 1, 0)
                placed, n = allocate(rule, rest, rest_room, cap - 1, need)
            if placed is None and n < need:  # too few for the range
                most = max(most, 1 + sum(k for _, k in first) + n)
                continue
            slaves = first + (placed or [])
            total = 1 + sum(k for _, k in slaves)
            own = sum(k for name, k in slaves if name == master.name)
            granted = [(master.name, 1 + own), *((name, k) for name, k in slaves
                                                 if name != master.name)]
            if accept is not None and not accept(granted):
                continue
            if best is None or total > slots_of(best):
                best = granted
                if total >= cap:
                    return best, total
    return (best, slots_of(best)) if best is not None else (None, most)


def _fill(hosts: list[str], host_room: Mapping[str, int], n: int) -> dict[str, int]:
    share = {}
    for host in hosts:
        if n == 0:
            break
        share[host] = min(host_room[host], n)
        n -= share[host]
    return share


def _deal(hosts: list[str], host_room: Mapping[str, int], n: int) -> dict[str, int]:
    """One slot per host in turn; whole rounds at once while every host has room."""
    share = dict.fromkeys(hosts, 0)
    while n:
        open_hosts = [h for h in hosts if share[h] < host_room[h]]
        rounds = min(n // len(open_hosts), min(host_room[h] - share[h] for h in open_hosts))
        if rounds:
            for host in open_hosts:
                share[host] += rounds
            n -= rounds * len(open_hosts)
            continue
        for host in open_hosts[:n]:
            share[host] += 1
        n = 0
    return share


def _take(items: list[tuple[Instance, int]], n: int) -> Granted:
    granted = []
    for qi, room in items:
        if n == 0:
            break
        k = min(room, n)
        if k > 0:
            granted.append((qi.name, k))
            n -= k
    return granted


def shrink(rooms: dict[str, list[tuple[Instance, int]]], host_room: dict[str, int],
           host_cap: Mapping[str, float], qi: Instance, most: int) -> None:
    """Let an instance take at most `most` slots, and its host accordingly."""
    items = rooms[qi.host]
    rooms[qi.host] = [(it, min(room, most) if it is qi else room) for it, room in items]
    host_room[qi.host] = whole_slots(min(host_cap[qi.host], sum(r for _, r in rooms[qi.host])))


def led_by(granted: Granted, index: int) -> Granted:
    """The placement with its `index`th instance first: the one holding the master task."""
    return [granted[index], *granted[:index], *granted[index + 1:]]


def slots_of(granted: Iterable[tuple[str, int]]) -> int:
    """The slots a placement holds in all. (A loop: summing a generator costs several
    times as much, and cycles ask it of every running task.)"""
    total = 0
    for _, n in granted:
        total += n
    return total


def whole_slots(value: float) -> int:
    return 0 if value <= 0 else int(min(value, 2**31)) if math.isfinite(value) else 2**31

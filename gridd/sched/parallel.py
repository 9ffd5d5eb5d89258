"""Placing a parallel job now: the room for its slots on each candidate (its resources,
the asker's quotas), gathered until the hosts seen suffice for the allocation rule
(gridd.sched.allocation), the master task's per-job consumables and -masterq honoured,
quota limits shared by several instances kept."""

from __future__ import annotations

import math
from collections.abc import Mapping
from functools import partial

from gridd.model.cluster import Instance
from gridd.model.pe import PE_SLOTS, ParallelEnv
from gridd.model.planning import Granted, SchedJob
from gridd.sched.allocation import (
    Enough,
    allocate,
    allocate_led,
    led_by,
    shrink,
    slots_of,
    whole_slots,
)
from gridd.sched.categories import Category
from gridd.sched.match import MatchResult
from gridd.sched.quota import RoomMemo, Who


class ParallelPlacement:
    """A parallel job's placement now: a step of Cycle (gridd.sched.cycle), which holds
    the state the steps share."""

    def _place_parallel(self, job: SchedJob, cat: Category, pe: ParallelEnv,
                        who: Who) -> Granted | None:
        global_room = self.matcher.slot_room(cat.req, self.levels.global_level)
        cap = whole_slots(min(global_room, pe.slots - self.pe_used.get(pe.name, 0), job.pe_max))
        candidates = cat.pe_candidates.get(pe.name)
        if candidates is None:
            candidates = cat.static.listing(pe.name).copy()
            if self.use_categories:
                cat.pe_candidates[pe.name] = candidates
        if len(candidates) == 1 and self._alone(cat, pe):
            return self._place_alone(job, cat, pe, candidates, global_room, cap)
        return self._place_gathered(job, cat, pe, who, candidates, global_room, cap)

    def _place_gathered(self, job: SchedJob, cat: Category, pe: ParallelEnv, who: Who,
                        candidates: list[Instance], global_room: float, cap: int
                        ) -> Granted | None:
        """`_place_parallel` over the hosts' rooms: apart, as its closure's cells cost
        every call that makes them, and `_place_alone` needs none."""
        matcher, req, levels = self.matcher, cat.req, self.levels
        quota_memo = RoomMemo({}, {})
        # With $pe_slots a host whose instances together have less room than the job
        # needs never will this cycle (room only shrinks): once each of its instances has
        # been seen, the host is passed over by the category's later scans. The room that
        # counts is the resources' (quotas, which depend on who asks, only lower it).
        need = max(job.pe_min, 1)
        per_host: dict[str, int] | None = None
        host_resources: dict[str, int] = {}  # per host, its room before quotas
        unknown: set[str] = set()  # hosts with an instance the quotas closed: not judged
        if pe.allocation_rule == PE_SLOTS and self.use_categories:
            if cat.pe_hosts is None:
                cat.pe_hosts = {}
            per_host = cat.pe_hosts.get(pe.name)
            if per_host is None:
                per_host = cat.pe_hosts[pe.name] = {}
                for qi in candidates:
                    per_host[qi.host] = per_host.get(qi.host, 0) + 1
        seen: dict[str, int] = {}
        of, fits, slot_room = levels.of, self.fits, matcher.slot_room
        pe_max = job.pe_max
        vetted = cat.static.vetted(pe.name)
        asker = None if self.quotas is None else self._asker(
            cat, Who(who.user, who.group, who.project, pe.name))
        kept_room, sig_of = quota_memo.by_sig.get, None if asker is None else asker.quotas.sig_of
        if asker is not None:
            # Limits all the instances share bound the job wherever it goes: fewer slots
            # to look for, so the scan can stop early, or none to have at all.
            most, why = asker.common_room(self._signatures(cat).every)
            if most < cap:
                self._note_quota(cat, who, why or "")
                cap = whole_slots(most)
                if cap < max(job.pe_min, 1):
                    return None
        # Once the hosts seen can take `cap` slots under the rule, later instances cannot
        # give more; with a per-job consumable or -masterq the master task may need a host
        # further on.
        per_job = req.per_job or req.per_host  # a global HOST value: the master task's
        lead = cat.static.lead
        stops = cap >= max(job.pe_min, 1) and not per_job and lead is None
        rooms: dict[str, list[tuple[Instance, int]]] = {}
        host_room: dict[str, int] = {}
        host_cap: dict[str, float] = {}
        scanned = 0

        def scan() -> None:
            """Gather rooms from where the last scan stopped until the hosts seen suffice."""
            nonlocal scanned
            enough = Enough(pe.allocation_rule, cap) if stops else None
            if enough is not None and host_room and any(enough.add(h, 0, r)
                                                         for h, r in host_room.items()):
                return
            refused: set[int] = set()
            small: set[str] = set()
            while scanned < len(candidates):
                qi = candidates[scanned]
                scanned += 1
                if per_host is not None:
                    seen[qi.host] = seen.get(qi.host, 0) + 1
                    if seen[qi.host] == per_host[qi.host]:
                        small.add(qi.host)  # unless its room suffices (below)
                quota_room, why = math.inf, None
                if asker is not None:
                    found = kept_room(sig_of(qi.name, -1))
                    quota_room, why = found if found is not None else \
                        asker.room(qi, quota_memo)
                    if quota_room < 1:  # closed to the asker: the matcher need not look
                        self._note_quota(cat, who, why or "")
                        small.discard(qi.host)
                        unknown.add(qi.host)  # its resources' room was not looked at
                        continue
                g, h, q = of(qi)
                host = qi.host
                most = host_cap.get(host)
                if most is None:
                    most = host_cap[host] = slot_room(req, h)
                here = slot_room(req, q)
                # An instance that met the category's other requests once does again:
                # one slot fits where each level has room for one.
                if not (global_room >= 1 and here >= 1 and most >= 1 and id(qi) in vetted):
                    result = fits(req, 1, g, h, q, master=False, first_on_host=True)
                    if not result.ok:
                        cat.reasons[result.reason] = None
                        refused.add(id(qi))
                        continue
                    vetted.add(id(qi))
                room = min(here, most, pe_max)  # finite: pe_max is
                room = int(room) if room > 0 else 0
                if per_host is not None:
                    total = min(most, host_resources.get(host, 0) + room)
                    host_resources[host] = int(total) if total > 0 else 0
                if quota_room < room:  # the asker's quotas, not the instance, bound it
                    self._note_quota(cat, who, why or "")
                    room = whole_slots(quota_room)
                rooms.setdefault(host, []).append((qi, room))
                before = host_room.get(host, 0)
                after = min(most, before + room)
                after = host_room[host] = int(after) if after > 0 else 0
                if enough is not None and enough.add(host, before, after):
                    break
            if small:
                small = {h for h in (small - unknown if unknown else small)
                         if host_resources.get(h, 0) < need}
            if (refused or small) and self.use_categories:  # holds all cycle long
                kept = [qi for qi in candidates[:scanned]
                        if id(qi) not in refused and qi.host not in small]
                if per_host is not None:
                    for qi in candidates[:scanned]:
                        if id(qi) in refused or qi.host in small:
                            per_host[qi.host] -= 1
                            seen[qi.host] -= 1
                candidates[:scanned] = kept
                scanned = len(kept)

        scan()
        quota_why = None
        while True:
            if lead is None:
                granted, offered = allocate(pe.allocation_rule, rooms, host_room, cap,
                                            job.pe_min)
            else:
                granted, offered = allocate_led(
                    pe.allocation_rule, rooms, host_room, host_cap, lead, cap, job.pe_min,
                    partial(self._may_lead, cat) if per_job else None)
            if granted is None:
                if quota_why is not None:
                    self._note_quota(cat, who, quota_why)
                else:
                    cat.reasons[f'cannot run in PE "{pe.name}" because it only offers '
                                f"{offered} slots"] = None
                return None
            # Without per-job consumables the master task needs what a slave task needs,
            # which the rooms allowed for: no instance need be asked again.
            placed, refusal = self._with_master(cat, granted) if per_job and lead is None \
                else (granted, None)
            if placed is None:
                placed = self._around_master(cat, pe, rooms, host_room, cap, job.pe_min,
                                             slots_of(granted))
            if placed is None:
                if refusal is not None:
                    cat.reasons[refusal.reason] = None
                return None
            if asker is None or (len(placed) == 1 and not (req.per_job or req.per_host)):
                return placed  # one instance's room already kept every per-slot limit
            # Each instance kept within its own quotas; together they must also keep the
            # limits they share. Take the excess from the instances that hold it, the last
            # placed first, and allocate again: elsewhere, or fewer slots if the range allows.
            excess = asker.placement_excess([(self.instances[name], n) for name, n in placed])
            if excess is None:
                return placed
            quota_why, over, holders = excess
            taken = dict(placed)
            for name in reversed(holders):
                if over <= 0:
                    break
                cut = min(over, taken[name])
                over -= cut
                shrink(rooms, host_room, host_cap, self.instances[name], taken[name] - cut)
            if over > 0:
                self._note_quota(cat, who, quota_why)
                return None
            scan()  # what was cut may be found further on

    def _alone(self, cat: Category, pe: ParallelEnv) -> bool:
        """Whether a job of the category with one candidate for the PE may be placed by
        `_place_alone`."""
        return (pe.allocation_rule == PE_SLOTS and self.use_categories and self.quotas is None
                and cat.static.lead is None and not (cat.req.per_job or cat.req.per_host))

    def _place_alone(self, job: SchedJob, cat: Category, pe: ParallelEnv,
                     candidates: list[Instance], global_room: float, cap: int
                     ) -> Granted | None:
        """`_place_parallel` where one instance alone may take the job's slots under
        $pe_slots, with no quotas, -masterq or per-job consumables (a pool such as
        `gridd sim`'s): the same room, refusals, reasons and pruning, without the
        gathering over hosts."""
        matcher, req = self.matcher, cat.req
        qi = candidates[0]
        g, h, q = self.levels.of(qi)
        most, here = matcher.slot_room(req, h), matcher.slot_room(req, q)
        vetted = cat.static.vetted(pe.name)
        room = min(here, most, job.pe_max)
        room = int(room) if room > 0 else 0
        if not (global_room >= 1 and here >= 1 and most >= 1 and id(qi) in vetted):
            result = self.fits(req, 1, g, h, q, master=False, first_on_host=True)
            if result.ok:
                vetted.add(id(qi))
            else:
                cat.reasons[result.reason] = None
                room = 0  # refused: no room
        if room < max(job.pe_min, 1):  # refused, or too small: so all cycle long
            del candidates[:]
            per_host = None if cat.pe_hosts is None else cat.pe_hosts.get(pe.name)
            if per_host is not None:
                per_host[qi.host] -= 1
        n = min(room, cap)
        if n < max(job.pe_min, 1):
            cat.reasons[f'cannot run in PE "{pe.name}" because it only offers '
                        f"{n} slots"] = None
            return None
        return [(qi.name, n)]

    def _may_lead(self, cat: Category, granted: Granted) -> bool:
        """Whether the placement's first instance can hold the master task's per-job
        consumables."""
        name, slots = granted[0]
        g, h, q = self.levels.of(self.instances[name])
        return self.matcher.fits(cat.req, slots, g, h, q, master=True).ok

    def _with_master(self, cat: Category, granted: Granted) -> tuple[Granted | None,
                                                                      MatchResult | None]:
        """The placement with a master instance that also holds the job's per-job
        consumables (the first that can), or None and the first refusal."""
        refusal = None
        for index, (name, slots) in enumerate(granted):
            g, h, q = self.levels.of(self.instances[name])
            result = self.matcher.fits(cat.req, slots, g, h, q, master=True)
            if result.ok:
                return led_by(granted, index), None
            refusal = refusal or result
        return None, refusal

    def _around_master(
        self,
        cat: Category,
        pe: ParallelEnv,
        rooms: Mapping[str, list[tuple[Instance, int]]],
        host_room: Mapping[str, int],
        cap: int,
        lowest: int,
        most: int,
    ) -> Granted | None:
        """A placement led by an instance that can hold the master task's per-job (JOB)
        consumables, for when the rule's first choice has no such instance: the job may
        still run elsewhere (a host with the license but fewer free slots). Each such
        instance in turn leads its host and its host the others; the largest count wins,
        the first in planning order among equals. `most` is the first choice's count,
        which none can exceed."""
        best: tuple[int, Granted] | None = None
        for host, items in rooms.items():
            for qi, room in items:
                if room < 1:
                    continue
                g, h, q = self.levels.of(qi)
                if not self.matcher.fits(cat.req, 1, g, h, q, master=True).ok:
                    continue
                led = {host: [(qi, room), *(item for item in items if item[0] is not qi)]}
                if pe.allocation_rule != PE_SLOTS:
                    led |= {other: its for other, its in rooms.items() if other != host}
                granted, _ = allocate(pe.allocation_rule, led, host_room, cap, lowest)
                if granted is None or granted[0][0] != qi.name:
                    continue
                placed, _ = self._with_master(cat, granted)
                total = slots_of(granted)
                if placed is not None and (best is None or total > best[0]):
                    best = (total, placed)
                    if total >= most:
                        return placed
        return None if best is None else best[1]

"""Where a job's next task starts now: `place` chooses by the job's kind (parallel jobs in
gridd.sched.parallel), `book` debits what was placed. A sequential job takes the first
candidate its hard requests fit, or with soft requests the fitting one with the fewest
soft violations; refusals of one slot hold for the rest of the cycle."""

from __future__ import annotations

from gridd.model.cluster import Instance
from gridd.model.pe import ParallelEnv
from gridd.model.planning import Granted, SchedJob
from gridd.model.queue_ref import queue_matches
from gridd.model.rsmap import ResourceMap
from gridd.sched.allocation import slots_of
from gridd.sched.categories import Category, jump
from gridd.sched.match import Held, first_parts
from gridd.sched.quota import Asker, Who
from gridd.sched.quota_checks import NO_SIGS, Closed, Sigs
from gridd.sched.rsmap_ids import held_too, hold, level_pool, parts, pick

_NOWHERE: frozenset[str] = frozenset()  # no crowded instances: a cycle without quotas


class Placement:
    """Placing a job's next task now and booking it: a step of Cycle (gridd.sched.cycle),
    which holds the state the steps share."""

    def place(self, job: SchedJob, cat: Category,
              who: Who) -> tuple[Granted, str, bool] | None:
        """Where the job's next task goes and the PE it uses ("" for a sequential job).

        The PE is the one the placement was made for: with a wildcard (-pe "*") another
        PE listed by the same instances may have refused the job, for instance at its
        slot limit, and must neither be named in the order nor be debited. The flag says
        whether its quotas are booked already (a one-slot placement claims them).
        """
        if job.pe:
            for pe in cat.pes:
                if self._pe_held(job, cat, pe):
                    continue
                granted = self._place_parallel(job, cat, pe, who)
                if granted is not None and self.schedule is not None:
                    result = self._clear_of_reservations(
                        cat, granted, pe.name, self._quota_uses(cat.req, who, granted, pe.name)
                        if self._quota_reserved else ())
                    if not result.ok:
                        cat.reasons[result.reason] = None
                        continue
                if granted is not None:
                    return granted, pe.name, False
            return None
        if cat.req.soft or cat.soft_queues:
            granted = self._place_softly(cat, who)
            return None if granted is None else (granted, "", False)
        granted = self._place_first(cat, who)
        return None if granted is None else (granted, "", True)

    def _pe_held(self, job: SchedJob, cat: Category, pe: ParallelEnv) -> bool:
        """Whether the cycle's reservations leave the PE too few slots for the job to
        start now, when no reason need be kept: placing it would be wasted."""
        if self.schedule is None or self.conf.job_info:
            return False
        diagram = self.schedule.diagrams.get(("P", pe.name, "slots"))
        return diagram is not None and diagram.reserved and not diagram.fits(
            self.now, cat.duration, float(max(job.pe_min, 1)))

    def granted_ids(self, cat: Category, granted: Granted) -> ResourceMap | None:
        """The RSMAP ids a placement is granted out of what the levels leave and the
        advance reservations it would run into hold (None: fewer free than the counts
        said, and the placement must not be given). An AR holds its ids on the levels
        from its start (gridd.sched.plan); before, a job ending by then may use them, as
        the diagrams let it use the AR's amounts."""
        pool = level_pool(self.levels.global_level, self.levels.hosts)
        ahead = [ar.resource_map for ar in self.ars.values()
                 if self.now < ar.start < self.now + cat.duration and ar.resource_map]
        if ahead:
            pool = held_too(pool, ahead)
        return pick(cat.req.rsmap, parts(granted), pool)

    def book(self, cat: Category, granted: Granted, pe: str, who: Who,
             claimed: bool = False, ids: ResourceMap | None = None) -> Held:
        """Debit a placement on every level it uses, with the RSMAP ids it is granted, on
        its PE and (unless claimed already) its quotas. What the levels gave, from where,
        is returned: it is given back as exactly when the task ends (Cycle.reopen)."""
        if ids:
            hold(self.levels, ids)
        in_pe = None if self.quotas is None or claimed else Who(who.user, who.group,
                                                                   who.project, pe)
        taken: set[int] = set()
        if len(granted) == 1:  # most placements: no lists to make
            instances, firsts = [self.instances[granted[0][0]]], [True]
        else:
            instances = [self.instances[name] for name, _ in granted]
            firsts = first_parts([qi.host for qi in instances])
        of, debit, req = self.levels.of, self.matcher.debit, cat.req
        if not req.whole:  # the levels may no longer be whole (Cycle._whole)
            self._whole = False
        held: Held = []
        for index, ((_, slots), qi, first) in enumerate(zip(granted, instances, firsts,
                                                               strict=True)):
            g, h, q = of(qi)
            debit(req, slots, g, h, q, master=index == 0, first_on_host=first, taken=taken,
                  held=held)
            if in_pe is not None:
                self._asker(cat, in_pe).book(qi, slots, master=index == 0,
                                             first_on_host=first)
        total = slots_of(granted)
        self.free_slots -= total
        if pe:
            self.pe_used[pe] = self.pe_used.get(pe, 0) + total
        return held

    def _refused_now(self, cat: Category, i: int, qi: Instance) -> bool:
        """Whether one slot of the category is refused on candidate i now, by what its
        levels have left or by a reservation it would run into; the reason is kept, and
        the refusal holds for the rest of the cycle (both only grow)."""
        result = self.fits(cat.req, 1, *self.levels.of(qi))
        if result.ok and self.schedule is not None:
            result = self._clear_of_reservations(cat, [(qi.name, 1)])
        if result.ok:
            return False
        cat.reasons[result.reason] = None
        if self.use_categories:
            cat.dead(i)
        return True

    def _place_first(self, cat: Category, who: Who) -> Granted | None:
        """The first instance that fits. An instance the category's requests do not fit is
        passed over by all its later scans, one a quota refuses by the asker's only."""
        candidates = cat.candidates
        # Instances whose signature the quotas refuse the asker for good: skipped without
        # asking the matcher.
        blocked: dict[int, str] = {}
        closed: dict[str, str] = {}
        crowded: set[str] | frozenset[str] = _NOWHERE
        sigs = NO_SIGS
        shut: Closed | None = None
        noted: dict[str, None] = {}
        asker: Asker | None = None
        key: tuple[Who, int, int] = (who, 0, 0)
        if self.quotas is not None:
            asker = self._asker(cat, who)
            blocked, closed = asker.blocked, asker.closed
            crowded = self.quotas.crowded
            sigs = self._signatures(cat)
            noted = cat.noted(who)
            if blocked and len(blocked) >= len(sigs.every) and sigs.every <= blocked.keys():
                return self._blocked_everywhere(cat, who, blocked, sigs, noted)
            key = (who, asker.amounts, id(candidates))
            if self.use_categories:
                shut = self._shut_blocked(key, blocked, sigs, noted,
                                          cat.resume_who.get(who, 0))
        end = len(candidates)
        dead = None if shut is None else shut.skip
        i = self._next(cat, dead, cat.resume_who.get(who, 0) if self.use_categories else 0)
        while i < end:
            qi = candidates[i]
            why = (blocked.get(sigs.of[i]) or closed.get(qi.name)) if blocked or closed else None
            if why is None and crowded and asker is not None and qi.name in crowded:
                why = asker.own_refusal(qi)  # likely refused: asked before the levels
            if why is None:
                if self._refused_now(cat, i, qi):
                    i = self._next(cat, dead, i + 1)
                    continue
                held = self._quota_held(cat, who, qi)
                if held is not None:  # depends on the job's duration: not for good
                    noted[held] = None
                    self.quota_hit = True
                    i = self._next(cat, dead, i + 1)
                    continue
                blocks = len(blocked)
                why = None if asker is None else asker.claim(qi)
                if why is None:
                    cat.resume_who[who] = i
                    return [(qi.name, 1)]
                # A refusal that blocked signatures: maybe by a limit all of them share.
                if (asker is not None and len(blocked) > blocks
                        and asker.refused_everywhere(sigs.every)):
                    noted[why] = None
                    return self._blocked_everywhere(cat, who, blocked, sigs, noted)
            noted[why] = None
            self.quota_hit = True
            if self.use_categories:  # a refusal of one slot holds for the rest of the cycle
                if shut is None or shut.applied != len(blocked):  # else nothing new to shut
                    shut = self._shut_blocked(key, blocked, sigs, noted, i + 1) or \
                        self._closed(key, end)
                if shut.skip[i] == i:
                    shut.skip[i] = i + 1
                dead = shut.skip
            i = self._next(cat, dead, i + 1)
        if dead is not None:  # instances closed to this asker alone were passed over
            self.quota_hit = True
        cat.resume_who[who] = len(candidates)
        return None

    def _blocked_everywhere(self, cat: Category, who: Who, blocked: dict[int, str],
                            sigs: Sigs, noted: dict[str, None]) -> None:
        """Quotas refuse the asker every kind of instance the category has: no walk."""
        noted.update(dict.fromkeys(blocked[sig] for sig in sigs.every))
        self.quota_hit = True
        cat.resume_who[who] = len(cat.candidates)
        return None

    def _next(self, cat: Category, dead: list[int] | None, i: int) -> int:
        """The next candidate from i neither the category's requests nor the asker's
        quotas have ruled out for the rest of the cycle."""
        while True:
            i = cat.alive(i)
            if dead is None:
                return i
            j = jump(dead, i)
            if j == i:
                return i
            i = j

    def _place_softly(self, cat: Category, who: Who) -> Granted | None:
        best: tuple[int, Instance] | None = None
        groups = self.conf.hostgroups
        for i, qi in cat.walk():
            if self._refused_now(cat, i, qi):
                continue
            if self._quota_refuses(cat, who, qi):
                continue
            why = self._quota_held(cat, who, qi)
            if why is not None:
                self._note_quota(cat, who, why)
                continue
            misses = self.soft_violations(cat.req, *self.levels.of(qi))
            if cat.soft_queues and not any(queue_matches(ref, qi, groups)
                                           for ref in cat.soft_queues):
                misses += 1
            if best is None or misses < best[0]:
                best = (misses, qi)
                if misses == 0:
                    break
        return None if best is None else [(best[1].name, 1)]

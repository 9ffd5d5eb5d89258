"""Jobs with equal requests form a category (the spec's caching section): what a category
is whatever a cycle books (Static: its compiled request, its candidate instances in
planning order, its PEs, why the other instances never take its jobs) and what it learns
within a cycle (Category: its refusals, reasons, instances passed over for good). The
rule for which instances may ever take a job (access, -q, PE lists, batch, advance
reservations) is Categories._excluded."""

from __future__ import annotations

import fnmatch
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from gridd.model.cluster import Instance
from gridd.model.pe import ParallelEnv
from gridd.model.planning import SchedJob
from gridd.model.queue_ref import names_queue, queue_matches
from gridd.sched.access import host_refusal, pe_refusal, queue_refusal
from gridd.sched.allocation import Lead
from gridd.sched.carried import MAX_KEPT
from gridd.sched.match import JobRequest
from gridd.sched.quota import Asker, Who, who_of
from gridd.sched.reasons import NO_REASONS, Why
from gridd.sched.reserve import Use

if TYPE_CHECKING:
    from gridd.sched.backfill import PeOpen


_NO_WHO: frozenset[Who] = frozenset()  # a Category's rejected_who before any


@dataclass(slots=True, eq=False)
class Static:
    """What a category is whatever a cycle books (see Carried)."""

    req: JobRequest
    candidates: list[Instance]  # instances that may take its jobs, in planning order
    pes: list[ParallelEnv]  # PEs its wildcard names, in name order
    soft_queues: list[str]
    duration: float  # what planning assumes it runs: h_rt or s_rt, DURATION_OFFSET added
    excluded: dict[str, None]  # why the other instances never take its jobs
    lead: Lead | None  # where its master task and other slots may go (-masterq)
    # The instances that may take its reservations (the candidates and the full ones);
    # of those the ones that could ever take one slot, with where that slot takes what,
    # made when first needed.
    open: list[Instance]
    reservable: list[tuple[Instance, tuple[Use, ...]]] | None = None
    pe_open: dict[str, PeOpen] = field(default_factory=dict)  # by PE, see Cycle.pe_open
    # Per PE, the instances (ids) one slot of the category fitted in, as far as what
    # they offer goes: that holds while the offers do, as long as this does (the
    # configuration, the loads and the instances open: Carried.follow_cell, follow).
    pe_vetted: dict[str, set[int]] = field(default_factory=dict)
    pe_listed: dict[str, list[Instance]] = field(default_factory=dict)  # see listing

    def vetted(self, pe: str) -> set[int]:
        """pe_vetted's set for the PE, made when first asked (no set made per call)."""
        found = self.pe_vetted.get(pe)
        if found is None:
            found = self.pe_vetted[pe] = set()
        return found

    def listing(self, pe: str) -> list[Instance]:
        """The candidates whose PE list names the PE, in planning order: a cycle's
        Category copies it as its pe_candidates, which refusals shorten."""
        found = self.pe_listed.get(pe)
        if found is None:
            found = self.pe_listed[pe] = [qi for qi in self.candidates if pe in qi.pe_list]
        return found


@dataclass(slots=True, eq=False, init=False)
class Category:
    """A category within one cycle: its Static's lists (followed as the planning order
    moves) and what the cycle learns of it. Made for nearly every job a cycle looks at,
    so its __init__ is written out: the generated one, with a default per field, costs
    half as much again. (Three assignments to a line at most: four build a tuple.)"""

    static: Static
    req: JobRequest
    candidates: list[Instance]
    pes: list[ParallelEnv]
    soft_queues: list[str]
    duration: float
    open: list[Instance]
    reasons: dict[str, None]  # an ordered set
    rejected: bool
    # Per PE, the candidates listing it that have not refused one slot of the category yet.
    pe_candidates: dict[str, list[Instance]]
    # Resource quotas depend on who asks: their refusals, and the askers they refused
    # everywhere, are kept per user, group and project, apart from what resources say.
    # (Those only quotas or reasons need are made when first needed, as most categories
    # of a cycle never ask: see noted, refuse_who, asker.)
    quota_reasons: dict[Who, dict[str, None]] | None
    rejected_who: frozenset[Who]  # _NO_WHO until one is refused
    resume_who: dict[Who, int]  # past resource or quota refusals
    askers: dict[Who, Asker] | None  # by who with the PE tried
    # skip[i] leads to the next candidate from i that has not refused the category one
    # slot (such a refusal holds all cycle long); [n] ends it. Made when first needed.
    skip: list[int] | None
    pe_hosts: dict[str, dict[str, int]] | None  # per PE: instances of each host among
    # pe_candidates ($pe_slots)
    _why: dict[Who, Why] | None  # the last record of why per asker (see why)

    def __init__(self, static: Static) -> None:
        self.static, self.req, self.candidates = static, static.req, static.candidates
        self.pes, self.soft_queues, self.duration = static.pes, static.soft_queues, static.duration
        self.open, self.reasons, self.rejected = static.open, static.excluded.copy(), False
        self.pe_candidates, self.quota_reasons, self.rejected_who = {}, None, _NO_WHO
        self.resume_who, self.askers, self.skip = {}, None, None
        self.pe_hosts, self._why = None, None

    def alive(self, i: int) -> int:
        """The first candidate from index i that has not refused the category."""
        return i if self.skip is None else jump(self.skip, i)

    def walk(self) -> Iterator[tuple[int, Instance]]:
        """The candidates that have not refused the category, with their indexes."""
        i = self.alive(0)
        while i < len(self.candidates):
            yield i, self.candidates[i]
            i = self.alive(i + 1)

    def dead(self, i: int) -> None:
        if self.skip is None:
            self.skip = no_skips(len(self.candidates))
        self.skip[i] = i + 1

    def noted(self, who: Who) -> dict[str, None]:
        """The quotas' refusals of the asker (an ordered set), made when first asked."""
        if self.quota_reasons is None:
            self.quota_reasons = {}
        found = self.quota_reasons.get(who)
        if found is None:
            found = self.quota_reasons[who] = {}
        return found

    def refuse_who(self, who: Who) -> None:
        """The asker's quotas refused the category everywhere, for the rest of the cycle."""
        self.rejected_who = self.rejected_who | {who}  # (seldom: once per asker at most)

    def why(self, who: Who) -> Why:
        """Why a job of the category and asker waits, as far as the cycle has got (one
        record for the asker's jobs while neither set grew: most jobs of a long queue)."""
        quota = NO_REASONS if self.quota_reasons is None else \
            self.quota_reasons.get(who, NO_REASONS)
        if self._why is None:
            self._why = {}
        made = self._why.get(who)
        if made is None or made.n != len(self.reasons) or made.m != len(quota):
            made = self._why[who] = Why(self.reasons, len(self.reasons), quota, len(quota))
        return made


_NO_SKIPS: dict[int, list[int]] = {}


def no_skips(n: int) -> list[int]:
    """Skip pointers over n candidates that pass over none: a copy of a list kept per n,
    for a copy only takes references where a fresh range would make each number anew
    (a cycle makes thousands, per category and per asker)."""
    kept = _NO_SKIPS.get(n)
    if kept is None:
        if len(_NO_SKIPS) >= 64:  # lists of many lengths (cells change): start over
            _NO_SKIPS.clear()
        kept = _NO_SKIPS[n] = list(range(n + 1))
    return kept.copy()


def jump(skip: list[int], i: int) -> int:
    """Follow skip pointers from i to a position that points to itself, halving the path
    on the way so that later walks are short."""
    while skip[i] != i:
        skip[i] = skip[skip[i]]
        i = skip[i]
    return i


def unlimited(hard: Mapping[str, str], qi: Instance) -> bool:
    """Whether a job with these requests may run for ever in the instance: neither it
    (h_rt, s_rt) nor the queue (h_rt) limits its run time."""
    return "h_rt" not in hard and "s_rt" not in hard and \
        qi.values.get("h_rt", "INFINITY").upper() in ("INFINITY", "")


class Categories:
    """A job's category for the cycle, made once and kept by what jobs alike share: a
    step of Cycle (gridd.sched.cycle), which holds the state the steps share."""

    def category(self, job: SchedJob) -> Category:
        return self.category_and_who(job)[0]

    def category_and_who(self, job: SchedJob) -> tuple[Category, Who]:
        """The job's category and who asks for it. What the category's key takes of the
        job is kept from cycle to cycle while the job is the same object (the
        scheduler's view replaces a job that changes): most jobs of a long queue only
        look up their category, cycle after cycle. (Requests most jobs leave empty are
        taken as (): a tuple() call costs as much as the rest of the key.)"""
        found = self.carried.jobs.get(job.job_id)
        if found is None or found[0] is not job:
            found = self.carried.jobs[job.job_id] = (job, (
                tuple(job.hard.items()), tuple(job.soft.items()) if job.soft else (),
                tuple(job.queues) if job.queues else (),
                tuple(job.soft_queues) if job.soft_queues else (), job.pe, job.pe_min,
                job.pe_max, job.ar, tuple(job.master_queues) if job.master_queues else ()),
                who_of(job))
        _, key, who = found
        if not self.use_categories:
            return self._new_category(job), who
        if self.access is not None:  # jobs of owners allowed alike share a category
            key += self.access.of(job.owner, job.group, job.project)
        cat = self.categories.get(key)
        if cat is None:
            cat = self.categories[key] = self._new_category(job, key)
        return cat, who

    def _new_category(self, job: SchedJob, key: tuple[object, ...] | None = None
                      ) -> Category:
        """A category for the cycle, from what earlier cycles knew of it if they can."""
        static = None if key is None else self.carried.statics.get(key)
        if static is None:
            static = self._static(job)
            if key is not None:
                self.carried.statics[key] = static
        cat = Category(static)
        if self._following is not None:
            order = self._following.order
            self._following.categories[id(cat)] = (order.changes, order.mark)
        return cat

    def _static(self, job: SchedJob) -> Static:
        if self._following is not None:
            self._in_order()
        req = self.matcher.request(job.hard, job.soft)
        pes = self.carried.pes.get(job.pe)
        if pes is None:
            if len(self.carried.pes) >= MAX_KEPT:
                self.carried.pes.clear()
            pes = self.carried.pes[job.pe] = [
                pe for name, pe in sorted(self.conf.pes.items())
                if job.pe and fnmatch.fnmatchcase(name, job.pe)]
        excluded: dict[str, None] = {}
        if self.access is not None and pes:  # the PEs its owner may not use are out
            refused = {pe.name: pe_refusal(pe, job.owner, job.group, self.conf.usersets)
                       for pe in pes}
            for reasons in refused.values():
                excluded.update(dict.fromkeys(reasons))
            pes = [pe for pe in pes if not refused[pe.name]]
        candidates = []
        groups = self.conf.hostgroups
        for qi in self.usable:
            reasons = self._excluded(job, pes, qi, groups)
            if reasons:
                excluded.update(dict.fromkeys(reasons))
            else:
                candidates.append(qi)
        # Categories that can use the same instances share one list, and with it the
        # quota signatures and what the quotas close to an asker.
        candidates = self.carried.lists.setdefault(tuple(map(id, candidates)), candidates)
        open_ = candidates if len(self.open) == len(self.usable) else [
            qi for qi in self.open if not self._excluded(job, pes, qi, groups)]
        return Static(req, candidates, pes, job.soft_queues, self._duration(req), excluded,
                      self._lead(job, pes), open_)

    def _lead(self, job: SchedJob, pes: list[ParallelEnv]) -> Lead | None:
        if not (job.master_queues and pes):
            return None
        groups = self.conf.hostgroups

        def named(refs: list[str]) -> frozenset[str]:
            return frozenset(qi.name for qi in self.conf.instances
                             if any(queue_matches(ref, qi, groups) for ref in refs))

        return Lead(named(job.master_queues), named(job.queues) if job.queues else None)

    def _excluded(self, job: SchedJob, pes: list[ParallelEnv], qi: Instance,
                  groups: Mapping[str, list[str]]) -> list[str]:
        """Why the job may never run in the instance, whatever it has free (none: it may).
        Its owner's access (and its project's) is judged first: the cluster queue's, then
        the global host's and the host's, as Grid Engine judges the cluster queue before
        its instances. A job that may run for ever never goes where an advance reservation
        holds slots: it could still run when the AR starts."""
        if self.access is not None:
            refused = queue_refusal(qi, job.owner, job.group, job.project, self.conf.usersets)
            for host in ("global", qi.host):
                access = self.conf.host_access.get(host)
                if refused is None and access is not None:
                    refused = host_refusal(host, access, job.owner, job.group, job.project,
                                           self.conf.usersets)
            if refused:
                return [refused]
        if not qi.batch:
            return [f'cannot run in queue instance "{qi.name}" because it is not of type batch']
        if job.queues and not any(queue_matches(ref, qi, groups) for ref in job.queues) \
                and not (pes and any(queue_matches(ref, qi, groups)
                                     for ref in job.master_queues)):
            # 8.1.9 names the cluster queue when no reference names it, else the instance.
            where = f'queue instance "{qi.name}"' if any(
                names_queue(ref, qi.queue) for ref in job.queues) else f'queue "{qi.queue}"'
            return [f"cannot run in {where} because it is not contained in its hard queue "
                    "list (-q)"]
        if pes and not any(pe.name in qi.pe_list for pe in pes):
            return [f'cannot run in queue "{qi.queue}" because PE "{pe.name}" is not in PE list'
                    for pe in pes]
        if not job.ar and qi.name in self.ar_instances and unlimited(job.hard, qi):
            return [f'cannot run in queue instance "{qi.name}" because it carries an advance '
                    "reservation and the job has no run-time limit"]
        return []

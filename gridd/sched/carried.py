"""What a planner carries from cycle to cycle while the configuration and loads stay:
the empty and busy levels, where running tasks hold what, the running tasks' diagrams,
and the categories' statics. (Going on with the last cycle itself is gridd.sched.resume.)"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from gridd.model.cluster import Instance, PlanConf, Running
from gridd.model.complexes import ComplexTable
from gridd.model.pe import ParallelEnv
from gridd.model.planning import SchedJob
from gridd.sched.access import AccessKey, access_key
from gridd.sched.levels import Levels, build_levels, debit, instance_states, whole
from gridd.sched.match import JobRequest, Matcher
from gridd.sched.reserve import Standing, Use

if TYPE_CHECKING:
    from gridd.sched.categories import Static
    from gridd.sched.quota import Who


# Entries of a memo carried from cycle to cycle (categories' statics, placements' uses):
# as many as gridd.sched.match keeps compiled requests.
MAX_KEPT = 20_000


@dataclass(slots=True, eq=False)
class Carried:
    """What a cycle leaves the next while the configuration stays the same object: the
    levels with nothing running (for the loads they were built with), per running task
    where it holds what, and the diagrams of the running tasks (a cycle under resource
    quotas makes its own), and what categories are whatever was booked (while the loads
    and the instances open to jobs and to reservations stay too: a cell replayed by
    `gridd sim` plans the same jobs run after run, though not every job every run)."""

    conf: PlanConf | None = None
    loads: dict[str, dict[str, str]] = field(default_factory=dict)
    empty: Levels | None = None
    # The empty levels with the running tasks debited, and those tasks (by id): None
    # when an amount is not whole (see running_levels).
    busy: Levels | None = None
    busy_with: dict[int, Running] = field(default_factory=dict)
    empty_whole: bool = False  # every amount the empty levels offer is whole
    uses: dict[tuple[object, ...], tuple[Use, ...]] = field(default_factory=dict)  # Cycle._uses
    # Per running task (job, task, start): where it holds what, what planning assumes it
    # runs, and its request.
    held: dict[tuple[int, int, float], tuple[tuple[Use, ...], float, JobRequest]] = field(
        default_factory=dict)
    # ids of the instances usable and open, and the instances advance reservations hold
    # (None: in no order a cycle begins with, see forget_order)
    where: tuple[tuple[int, ...], tuple[int, ...], frozenset[str]] | None = ((), (), frozenset())
    standing: Standing = field(default_factory=Standing)  # the running tasks' diagrams
    statics: dict[tuple[object, ...], Static] = field(default_factory=dict)  # by key
    lists: dict[tuple[int, ...], list[Instance]] = field(default_factory=dict)
    order: list[Instance] | None = None  # the instances in planning order (Cycle._ordered)
    access: AccessKey | None = None  # what access depends on (None: nothing limits it)
    pes: dict[str, list[ParallelEnv]] = field(default_factory=dict)  # by what -pe names
    # per pending job: the job, what its category's key takes of it, who asks
    # (Categories.category_and_who)
    jobs: dict[int, tuple[SchedJob, tuple[object, ...], Who]] = field(default_factory=dict)
    # The instances' states, with the hosts up and the master's flags they were found for
    # (None: not found for these configuration and loads yet).
    states: tuple[dict[str, str], set[str], dict[str, str]] | None = None

    def follow(self, usable: list[Instance], open_: list[Instance],
               held: frozenset[str]) -> None:
        where = (tuple(map(id, usable)), tuple(map(id, open_)), held)
        # (Those of categories whose jobs are gone are dropped en bloc, now and then.)
        if where != self.where or len(self.statics) >= MAX_KEPT:
            self.where, self.statics = where, {}
        if not self.statics:
            self.lists = {}

    def forget_order(self) -> None:
        """The planning order changed within a cycle (load adjustments): what categories
        were made for the old one goes, and what is made for the new one is not kept for
        the next cycle, whatever its instances (none at all are instances too)."""
        self.where, self.statics, self.lists = None, {}, {}

    def keep_jobs(self, pending: Mapping[int, SchedJob]) -> None:
        """Forget the jobs gone, now and then (when they outnumber those still here)."""
        if len(self.jobs) > 2 * len(pending) + 1_000:
            self.jobs = {job_id: kept for job_id, kept in self.jobs.items()
                         if job_id in pending}

    def follow_cell(self, conf: PlanConf, loads: Mapping[str, Mapping[str, str]]) -> None:
        """Forget what the configuration or the loads no longer bear out: once a cycle,
        before anything else is asked (comparing the loads of many hosts is not free)."""
        if conf is not self.conf:
            self.conf, self.empty, self.held, self.order = conf, None, {}, None
            self.states = None
            self.statics, self.standing, self.pes = {}, Standing(), {}
            self.access = access_key(conf)
        if loads != self.loads:  # (what consumables hold is configured: no diagram changes)
            self.empty, self.order = None, None
            self.loads = {host: dict(values) for host, values in loads.items()}
            self.statics, self.states = {}, None

    def instance_states(self, hosts_up: Iterable[str], flags: Mapping[str, str],
                        table: ComplexTable) -> dict[str, str]:
        """The instances' states (levels.instance_states) for the configuration and loads
        followed, without load adjustments: found again only when the hosts up or the
        master's flags changed too (comparing those is cheaper than judging every
        instance's thresholds)."""
        assert self.conf is not None
        kept = self.states
        if kept is None or kept[1] != hosts_up or kept[2] != flags:
            kept = self.states = (instance_states(self.conf, self.loads, hosts_up, flags,
                                                  table), set(hosts_up), dict(flags))
        return kept[0]

    def ordered(self, loads: Mapping[str, Mapping[str, str]],
                order: Callable[[Mapping[str, Mapping[str, str]]], list[Instance]]
                ) -> list[Instance]:
        """The instances in planning order, as `order` puts them for these loads."""
        if self.order is None:
            self.order = order(loads)
        return self.order

    def empty_levels(self, conf: PlanConf, loads: Mapping[str, Mapping[str, str]],
                     matcher: Matcher) -> Levels:
        """The levels with nothing running: what could ever fit where."""
        if self.empty is None:
            self.empty = build_levels(conf, loads, [], matcher)
            self.busy, self.empty_whole = None, whole(self.empty)
            self.uses = {}
        return self.empty

    def running_levels(self, conf: PlanConf, loads: Mapping[str, Mapping[str, str]],
                       matcher: Matcher, running: Iterable[Running]) -> Levels:
        """Levels of their own with the running tasks debited. The tasks started since
        the last cycle are debited and those gone given back, on levels kept from cycle
        to cycle, instead of debiting every running task again: exact, and the same as
        debiting them all in any order, while every amount is whole. Otherwise they are
        debited afresh, in the order given."""
        empty = self.empty_levels(conf, loads, matcher)
        now = {id(task): task for task in running}
        busy, before = self.busy, self.busy_with
        if busy is not None and now.keys() != before.keys():
            started = [t for key, t in now.items() if key not in before]
            if all(matcher.request(t.hard).whole for t in started):
                for key, task in before.items():
                    if key not in now:
                        debit(busy, task, sign=-1)
                for task in started:
                    debit(busy, task)
                self.busy_with = now
            else:
                busy = self.busy = None
        if busy is None:
            busy = empty.copy()
            for task in now.values():
                debit(busy, task)
            if not (self.empty_whole and all(matcher.request(t.hard).whole
                                             for t in now.values())):
                return busy
            self.busy, self.busy_with = busy, now
        return busy.copy()

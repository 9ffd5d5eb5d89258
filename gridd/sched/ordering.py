"""A cycle's planning order: the instances that take jobs now in queue_sort_method order
(by the load formula, then seqno), those dropped and why, and, with load adjustments
(gridd.sched.adjust), following the loads each placement raises: instances move in the
order (gridd.sched.order) or drop in alarm, and categories follow."""

from __future__ import annotations

import itertools
import operator
from collections.abc import Mapping
from dataclasses import dataclass, field

from gridd.model.cluster import Instance
from gridd.model.planning import Granted
from gridd.sched.adjust import Adjustments, overload
from gridd.sched.categories import Category, Static
from gridd.sched.levels import ALARM, dropped_reason, formula_terms, formula_value
from gridd.sched.order import InstanceOrder, Key

ALL_DROPPED = "All queues dropped because of overload or full"  # said after the instances


_OVERLOADED = dropped_reason(ALARM)  # why an instance in alarm takes no jobs


@dataclass(slots=True, eq=False)
class Following:
    """What a cycle with load adjustments keeps to follow the loads its placements raise
    (Cycle._follow_load): the planning order, the load formula, each host's instances with
    their configured positions, the usable ones not dropped in alarm since, and where in
    the order the cycle's usable and open instances and each category's candidates were
    last put in it (the changes of the order and its mark then)."""

    adjust: Adjustments
    order: InstanceOrder
    terms: tuple[tuple[float, str], ...]
    on_host: dict[str, list[tuple[int, Instance]]]
    watched: set[int]
    listed: tuple[int, int] = (0, 0)
    # Per category (by id; each new one writes its own): the changes and mark its
    # candidates followed.
    categories: dict[int, tuple[int, int]] = field(default_factory=dict)


class Ordering:
    """The cycle's planning order and how it follows the loads: a step of Cycle
    (gridd.sched.cycle), which holds the state the steps share."""

    def _order(self, loads: Mapping[str, Mapping[str, str]]) -> InstanceOrder:
        """The planning order for these loads."""
        terms = formula_terms(self.conf.load_formula)
        table = self.matcher.table
        load = {h: formula_value(terms, loads.get(h, {}), table)
                for h in {qi.host for qi in self.conf.instances}}
        return InstanceOrder((qi, self._sort_key(qi, i, load[qi.host]))
                     for i, qi in enumerate(self.conf.instances))

    def _ordered(self, loads: Mapping[str, Mapping[str, str]]) -> list[Instance]:
        """The instances in queue_sort_method order for these loads."""
        return self._order(loads).sort(self.conf.instances)

    def _sort_key(self, qi: Instance, index: int, load: float) -> Key:
        """Where an instance goes in the planning order: by the load formula's value on
        its host (`load`), then its sequence number (seqno: the other way round), then as
        configured (`index`)."""
        if self.conf.queue_sort_method == "seqno":
            return (qi.seq_no, load, index)
        return (load, qi.seq_no, index)

    def _usable(self, ordered: list[Instance], states: Mapping[str, str]
                ) -> tuple[list[Instance], list[Instance]]:
        """The instances jobs may start in now, and those that may take reservations: the
        same and the full ones."""
        usable, open_ = [], []
        for qi in ordered:
            why = dropped_reason(states.get(qi.name, ""))
            if why is None:
                open_.append(qi)
                if self.levels.queues[qi.name].free.get("slots", 1) <= 0:
                    why = "it is full"
            elif why == _OVERLOADED:
                why = self._overloaded(qi) or why
            if why is None:
                usable.append(qi)
            else:
                self.global_info.append(f'queue instance "{qi.name}" dropped because {why}')
        if ordered and not usable:
            self.global_info.append(ALL_DROPPED)
        return usable, open_

    def _overloaded(self, qi: Instance) -> str | None:
        """Why an instance in alarm is dropped, with the threshold its host reaches."""
        why = overload(qi, self.loads.get(qi.host, {}), self.matcher.table, self.adjust)
        return None if why is None else f"{_OVERLOADED}: {why}"

    def _follow_load(self, granted: Granted) -> bool:
        """After a placement, its hosts' adjusted loads have risen: their instances that
        reach a load threshold now take no more jobs this cycle (as 8.1.9 says, after the
        instances dropped when it began), and the others move in the planning order; each
        category follows the order before it is next placed (_follow_order). Whether the
        order changed."""
        following = self._following
        assert following is not None
        order, watched = following.order, following.watched
        changes = order.changes
        for host in following.adjust.book(granted):
            load = formula_value(following.terms, following.adjust.loads.get(host, {}),
                                 self.matcher.table)
            for index, qi in following.on_host.get(host, ()):
                why = self._overloaded(qi) if qi.load_thresholds and id(qi) in watched \
                    else None
                if why is not None:
                    watched.discard(id(qi))
                    self.global_info.append(f'queue instance "{qi.name}" dropped because {why}')
                order.move(qi, None if why else self._sort_key(qi, index, load))
        if order.changes == changes:
            return False
        self.carried.forget_order()
        # Lists let go may leave their ids to new ones: what is kept by a list's id goes
        # (a category lets its list go only in _follow_order, after such a change).
        self._sigs.clear()
        self._quota_dead.clear()
        return True

    def _in_order(self) -> None:
        """The usable and open instances in the planning order as it is now, for what asks
        them after placements (new categories, jobs in ARs)."""
        following = self._following
        assert following is not None
        if following.listed[0] != following.order.changes:
            order, since = following.order, following.listed[1]
            self.usable, self.open = order.follow(self.usable, since), order.follow(self.open,
                                                                                    since)
            following.listed = (order.changes, order.mark)

    def _follow_order(self, cat: Category) -> None:
        """The category's candidates in the cycle's planning order as it is now, if that
        changed since they were last in it. What it learned holds (resources only shrink,
        and instances in alarm only drop out): its refusals, the instances that refused it,
        its parallel jobs' candidates; only where its scans stopped is forgotten. (The
        order changed, so Carried.forget_order keeps none of it for the next cycle.)"""
        following = self._following
        assert following is not None
        order = following.order
        changes, mark = following.categories[id(cat)]
        if changes == order.changes:
            return
        old, one_list = cat.static, cat.open is cat.candidates
        candidates = order.follow(cat.candidates, mark)
        open_ = candidates if one_list else order.follow(cat.open, mark)
        if candidates is not cat.candidates or open_ is not cat.open:
            if self.quotas is not None:  # shared as _static shares them
                candidates = self.carried.lists.setdefault(tuple(map(id, candidates)),
                                                           candidates)
                open_ = candidates if one_list else open_
            static = Static(old.req, candidates, old.pes, old.soft_queues, old.duration,
                            old.excluded, old.lead, open_)
            if cat.skip is not None:  # the same refusals, where the instances are now
                refused = set(map(id, itertools.compress(
                    cat.candidates, map(operator.ne, cat.skip, range(len(cat.candidates))))))
                cat.skip = list(map(operator.add, range(len(candidates)),
                                    map(refused.__contains__, map(id, candidates))))
                cat.skip.append(len(candidates))
            cat.static, cat.candidates, cat.open = static, candidates, open_
        # Where its askers' scans stopped goes too, though the list stays: they passed
        # over the instances the quotas closed to them, a record _follow_load let go.
        cat.resume_who = {}
        followed = {pe: order.follow(instances, mark)
                    for pe, instances in cat.pe_candidates.items()}
        if any(followed[pe] is not instances for pe, instances in cat.pe_candidates.items()):
            cat.pe_candidates, cat.pe_hosts = followed, None
        following.categories[id(cat)] = (order.changes, order.mark)

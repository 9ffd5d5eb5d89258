"""Scheduling information as the scheduler sends it: only what changed since the last
Dispatch, each distinct list of reasons once."""

from __future__ import annotations

from gridd.model.planning import Dispatch
from gridd.sched.plan import Plan
from gridd.sched.reasons import Lines, Prefixes, Why


class Told:
    """What the master was last told about why jobs wait, so a Dispatch carries only
    changes: most cycles leave most reasons as they were. A job's reasons are compared
    with what it was told as prefixes of its category's and asker's sets (once per
    pair of sets), and made into lists only where they changed."""

    def __init__(self) -> None:
        self.why: dict[int, Why] = {}
        self.global_info: list[str] = []
        self.reserved: dict[int, tuple[float, list[tuple[str, int]]]] = {}

    def dispatch(self, plan: Plan) -> Dispatch:
        numbers: dict[tuple[str, ...], int] = {}
        reasons: dict[int, list[str]] = {}
        info: dict[int, int] = {}
        told, prefixes, lines = self.why, Prefixes(), Lines()
        by_list: dict[int, int] = {}  # the number of each list Lines made (it keeps them)
        for job, why in plan.why.items():
            before = told.get(job)
            if before is not None and (prefixes.same(before, why)
                                       or lines(before) == lines(why)):
                continue
            content = lines(why)
            number = by_list.get(id(content))
            if number is None:
                number = by_list[id(content)] = numbers.setdefault(tuple(content),
                                                                   len(numbers) + 1)
                reasons.setdefault(number, content)
            info[job] = number
        info |= {job: 0 for job in told if job not in plan.why}
        self.why = plan.why
        global_info = None
        if plan.global_info != self.global_info:
            global_info = self.global_info = plan.global_info
        reserved = None
        if plan.reserved != self.reserved:
            reserved = self.reserved = plan.reserved
        return Dispatch(orders=plan.orders, unschedulable=plan.unschedulable,
                        reasons=reasons, info=info, global_info=global_info,
                        reserved=reserved)

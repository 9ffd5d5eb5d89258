"""Scheduling information as the scheduler sends it: only what changed since the last
Dispatch, each distinct list of reasons once."""

from __future__ import annotations

from gridd.model.planning import Dispatch
from gridd.sched.plan import Plan


class Told:
    """What the master was last told about why jobs wait, so a Dispatch carries only
    changes: most cycles leave most reasons as they were."""

    def __init__(self) -> None:
        self.info: dict[int, list[str]] = {}
        self.global_info: list[str] = []
        self.reserved: dict[int, tuple[float, list[tuple[str, int]]]] = {}

    def dispatch(self, plan: Plan) -> Dispatch:
        numbers: dict[tuple[str, ...], int] = {}
        reasons: dict[int, list[str]] = {}
        info: dict[int, int] = {}
        for job, why in plan.info.items():
            if self.info.get(job) != why:
                key = tuple(why)
                number = numbers.get(key)
                if number is None:
                    number = numbers[key] = len(numbers) + 1
                    reasons[number] = why
                info[job] = number
        info |= {job: 0 for job in self.info if job not in plan.info}
        self.info = plan.info
        global_info = None
        if plan.global_info != self.global_info:
            global_info = self.global_info = plan.global_info
        reserved = None
        if plan.reserved != self.reserved:
            reserved = self.reserved = plan.reserved
        return Dispatch(orders=plan.orders, unschedulable=plan.unschedulable,
                        reasons=reasons, info=info, global_info=global_info,
                        reserved=reserved)

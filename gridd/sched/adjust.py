"""Load adjustments (sched_conf job_load_adjustments and load_adjustment_decay_time): what
a job started lately is taken to add to its host's load values before the host's reports
can show it, so that a host that has just taken jobs does not look idle, and equally
loaded hosts take turns.

Each slot of a job adds an attribute's configured amount to its host's value (to an np_*
value, divided by the host's num_proc), less and less until nothing is left at the decay
time after the job started; a slot placed in the cycle adds the whole amount at once. As
in 8.1.9 a host keeps the sum of its slots, each weighed by the share of the decay time
left, in hundredths, and a decay time of 0 turns adjustments off. The scheduler sorts
hosts by the adjusted values and judges load thresholds against them; qstat and qhost
show the values reported (8.1.9 does the same).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping

from gridd.model.cluster import Instance, PlanConf, Running
from gridd.model.complexes import ComplexTable, parse_value
from gridd.sched.levels import NUMERIC, exceeded, formula_terms


class Adjustments:
    """The hosts' load values with the adjustments of the jobs started on them lately,
    kept up to date as a cycle places more."""

    __slots__ = ("_amounts", "_raw", "_factors", "loads")

    def __init__(self, amounts: dict[str, tuple[float, str, str]],
                 raw: Mapping[str, Mapping[str, str]], factors: dict[str, int]) -> None:
        self._amounts = amounts  # per attribute: per slot, as configured, and its type
        self._raw = raw  # the values reported, per host
        self._factors = factors  # per host: its slots weighed by the decay left, in 1/100
        # Per host, its values as the scheduler sees them: those adjusted, else reported.
        self.loads: dict[str, Mapping[str, str]] = dict(raw)
        for host in factors:
            self._adjust(host)

    @classmethod
    def of(cls, conf: PlanConf, loads: Mapping[str, Mapping[str, str]],
           running: Iterable[Running], now: float, table: ComplexTable) -> Adjustments | None:
        """The adjustments a cycle at `now` works with; None when they could change
        nothing: none configured, a decay time of 0, or no host reporting an adjusted
        value that the load formula or a load threshold reads (gridd sim has no loads)."""
        decay = conf.load_adjustment_decay
        if not loads or not conf.load_adjustments or not decay > 0:
            return None
        read = {name for _, name in formula_terms(conf.load_formula)}
        for qi in conf.instances:
            read.update(qi.load_thresholds)
        read = {attr.name for name in read if (attr := table.resolve(name)) is not None}
        amounts: dict[str, tuple[float, str, str]] = {}
        for name, text in conf.load_adjustments.items():
            attr = table.resolve(name)
            if attr is None or attr.name not in read or attr.type not in NUMERIC:
                continue
            try:
                amounts[attr.name] = (float(parse_value(attr.type, text)), text, attr.type)
            except ValueError:
                continue
        if not any(name in values for values in loads.values() for name in amounts):
            return None
        factors: dict[str, int] = {}
        for task in running:
            elapsed = max(now - task.start, 0.0)
            if elapsed >= decay:
                continue
            left = 1.0 if math.isinf(decay) else (decay - elapsed) / decay
            for name, slots in task.granted:
                host = name.partition("@")[2]
                factors[host] = factors.get(host, 0) + int(100 * slots * left)
        return cls(amounts, loads, factors)

    def book(self, granted: Iterable[tuple[str, int]]) -> set[str]:
        """Take in slots placed now (the whole amount each); the hosts whose values rose."""
        hosts = set()
        for name, slots in granted:
            host = name.partition("@")[2]
            self._factors[host] = self._factors.get(host, 0) + 100 * slots
            hosts.add(host)
        for host in hosts:
            self._adjust(host)
        return hosts

    def how(self, host: str, name: str) -> str | None:
        """How an adjusted value came about, as 8.1.9 says it: `= 1.837158 + 0.50 *
        1.730000 with nproc=2` (None when the attribute is not adjusted on the host)."""
        adjusted = self._amounts.get(name)
        factor = self._factors.get(host, 0)
        raw = self._raw.get(host, {}).get(name)
        if adjusted is None or not factor or raw is None:
            return None
        how = f"= {raw} + {adjusted[1]} * {factor / 100:f}"
        if name.startswith("np_"):
            how += f" with nproc={_processors(self._raw.get(host, {}))}"
        return how

    def _adjust(self, host: str) -> None:
        raw = self._raw.get(host)
        if not raw:
            return
        factor = self._factors.get(host, 0) / 100
        values = dict(raw)
        for name, (amount, _, type_) in self._amounts.items():
            text = raw.get(name)
            if text is None:
                continue
            try:
                value = float(parse_value(type_, text))
            except ValueError:
                continue
            added = amount * factor
            if name.startswith("np_"):
                added /= _processors(raw)
            values[name] = f"{value + added:f}"
        self.loads[host] = values


def overload(qi: Instance, raw: Mapping[str, str], table: ComplexTable,
             adjustments: Adjustments | None) -> str | None:
    """The first load threshold the instance's host reaches, as 8.1.9's scheduler says
    it: `np_load_avg=2.269658 (= 1.837158 + 0.50 * 1.730000 with nproc=2) >= 2.2`, or
    `load_avg=3.747070 (no load adjustment) >= 0.1`; None when none is reached."""
    load = raw if adjustments is None else adjustments.loads.get(qi.host, raw)
    for name, value, limit in exceeded(qi.load_thresholds, load, table):
        attr = table.resolve(name)
        relop = attr.relop if attr else ">="
        how = None if adjustments is None else adjustments.how(qi.host, name)
        return f"{name}={value} ({how or 'no load adjustment'}) {relop} {limit}"
    return None


def _processors(load: Mapping[str, str]) -> int:
    """The host's num_proc (1 when it does not say)."""
    try:
        return max(int(float(load.get("num_proc", "1"))), 1)
    except ValueError:
        return 1

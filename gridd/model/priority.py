"""Job priority as Grid Engine orders jobs (sge_priority): three normalised parts, each
between 0 and 1, weighted and added.

- npprior, the POSIX priority (-p, -1023..1024) as (p + 1024) / 2048;
- nurg, the urgency normalised over the jobs in view (the lowest 0, the highest 1): the
  resource requests' contribution (each requested attribute's complex `urgency`, for a
  number times the amount asked for, per slot for a per-slot consumable), plus the time
  since submission in seconds times weight_waiting_time (running jobs go on counting, as
  8.1.9's qstat -urg shows), plus for a job with a deadline weight_deadline over the
  seconds left;
- ntckts, the tickets normalised alike: no share policy hands out tickets, so they are
  all zero and normalise to 0.5.

Where all values of a part are equal they normalise to 0.5, as Grid Engine shows.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

import msgspec

from gridd.model.complexes import NUMERIC_TYPES, ComplexAttr, parse_value


class Weights(msgspec.Struct, frozen=True):
    priority: float = 0.0
    urgency: float = 0.5
    ticket: float = 0.5
    waiting_time: float = 0.278
    deadline: float = 3_600_000.0


class Urgency(msgspec.Struct, frozen=True):
    """A job's urgency and its three contributions."""

    resources: float  # rrcontr
    waiting: float  # wtcontr
    deadline: float  # dlcontr

    @property
    def total(self) -> float:
        return self.resources + self.waiting + self.deadline


class Priority(msgspec.Struct, frozen=True):
    prior: float
    nurg: float
    npprior: float
    ntckts: float
    urgency: Urgency
    posix: int


class ResourceUrgency:
    """The resource contribution per request, worked out once per distinct request."""

    def __init__(self, complexes: Iterable[ComplexAttr]) -> None:
        attrs = list(complexes)
        self._attrs: dict[str, ComplexAttr] = {}
        for attr in attrs:
            self._attrs[attr.name] = attr
        for attr in attrs:
            if attr.shortcut:
                self._attrs.setdefault(attr.shortcut, attr)
        self._defaults = [attr for attr in attrs
                          if attr.consumable != "NO" and _number(attr.urgency)
                          and _amount(attr, attr.default)]
        self._memo: dict[tuple[tuple[tuple[str, str], ...], int], float] = {}

    def of(self, hard: Mapping[str, str], slots: int) -> float:
        key = (tuple(hard.items()), slots)
        found = self._memo.get(key)
        if found is None:
            found = self._memo[key] = self._compute(hard, slots)
        return found

    def each(self, hard: Mapping[str, str], slots: int) -> dict[str, float]:
        """What each request contributes (qstat -r), by the name it was asked by; the
        requests of attributes not in the complex table contribute nothing."""
        return {name: _contribution(attr, text, slots) for name, text in hard.items()
                if (attr := self._attrs.get(name)) is not None}

    def _compute(self, hard: Mapping[str, str], slots: int) -> float:
        asked = {self._attrs[name].name for name in hard if name in self._attrs}
        total = sum(self.each(hard, slots).values())
        for attr in self._defaults:  # consumables' defaults count as requests
            if attr.name not in asked:
                total += _contribution(attr, attr.default, slots)
        return total


def _contribution(attr: ComplexAttr, text: str, slots: int) -> float:
    urgency = _number(attr.urgency)
    if not urgency:
        return 0.0
    if attr.type not in NUMERIC_TYPES:
        return urgency
    amount = _amount(attr, text)
    # A HOST consumable counts once, as a job's host count is known only when it is placed.
    return urgency * amount * (1 if attr.consumable in ("JOB", "HOST") else slots)


def _number(text: str) -> float:
    try:
        return float(text)
    except ValueError:
        return 0.0


def _amount(attr: ComplexAttr, text: str) -> float:
    try:
        value = parse_value(attr.type, text)
    except ValueError:
        return 0.0
    return float(value) if isinstance(value, int | float) else 0.0


def urgency(resources: float, waited: float, deadline: float | None, now: float,
            weights: Weights) -> Urgency:
    """`waited`: seconds since submission."""
    return Urgency(resources, _waiting(waited, weights.waiting_time),
                   0.0 if deadline is None else _deadline(deadline, now, weights.deadline))


def urgency_totals(jobs: Iterable[tuple[float, float, float]], now: float,
                   weights: Weights) -> list[float]:
    """`urgency(...).total` of many jobs, each as (its resources' contribution, seconds
    since submission, its deadline or 0 for none), without a struct each: the planner
    asks it of every pending job every cycle."""
    wt, wd = weights.waiting_time, weights.deadline
    return [resources + _waiting(waited, wt) + (_deadline(deadline, now, wd) if deadline
                                                 else 0.0)
            for resources, waited, deadline in jobs]


def _waiting(waited: float, weight: float) -> float:
    return (waited if waited > 0.0 else 0.0) * weight


def _deadline(deadline: float, now: float, weight: float) -> float:
    return weight / max(deadline - now, 1.0)


def normalise(values: Sequence[float]) -> list[float]:
    if not values:
        return []
    low, high = min(values), max(values)
    if high == low:
        return [0.5] * len(values)
    return [(v - low) / (high - low) for v in values]


NTCKTS = 0.5  # every ticket count is zero


def prior(posix: int, nurg: float, weights: Weights) -> float:
    """The priority qstat prints and jobs are planned by."""
    return (weights.priority * (posix + 1024) / 2048 + weights.urgency * nurg
            + weights.ticket * NTCKTS)


def unconsidered(posix: int) -> Priority:
    """What qstat shows of a job the scheduler leaves out (held by -h or a dependency,
    or before its -a time): no part worked out, only its POSIX priority as given."""
    return Priority(0.0, 0.0, 0.0, 0.0, Urgency(0.0, 0.0, 0.0), posix)


def priorities(jobs: Sequence[tuple[int, Urgency]], weights: Weights) -> list[Priority]:
    """Each job's priority from its POSIX priority and urgency, normalised over `jobs`."""
    nurgs = normalise([u.total for _, u in jobs])
    return [Priority(prior(posix, nurg, weights), nurg, (posix + 1024) / 2048, NTCKTS, urg,
                     posix)
            for (posix, urg), nurg in zip(jobs, nurgs, strict=True)]

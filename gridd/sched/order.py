"""The planning order of a cycle's queue instances, as load adjustments move them.

Instances go by a key (the cycle says what: its host's load formula value first, or its
sequence number first). With load adjustments (gridd.sched.adjust) each placement raises
the loads of its hosts, whose instances then move later, and instances reaching a load
threshold drop out. The order keeps the instances open to jobs sorted, moving each one
whose key changed (a look of log n), and counts the changes of their order. The other
lists a cycle keeps in the order (its usable instances, each category's candidates) are
subsets of those and follow it when next asked: each instance moved since is taken out
where its key then put it and put back where its key puts it now, or, where many moved,
the list is sorted afresh by the places in the order, at the speed of C.
"""

from __future__ import annotations

import bisect
import itertools
import operator
from collections.abc import Iterable, Sequence

from gridd.model.cluster import Instance

Key = tuple[float, float, int]
_FIRST, _SECOND = operator.itemgetter(0), operator.itemgetter(1)
_NOWHERE = 1 << 62  # the place of an instance the order no longer holds
_GONE: Key = (float("inf"), float("inf"), -1)  # the key of an instance that left it
# A list follows move by move while fewer than one in this many of its instances moved:
# two looks of log n (in Python) each, against a few passes over it (in C).
_MOVES_PER_PASS = 40


class InstanceOrder:
    """Each instance's key (by id), the instances open to jobs sorted by it, the moves
    made (a mark is a point in them), and how many times the order has changed."""

    __slots__ = ("_keys", "_open", "_places", "_moves", "changes")

    def __init__(self, keyed: Iterable[tuple[Instance, Key]]) -> None:
        self._keys = {id(qi): key for qi, key in keyed}
        self._open: list[Instance] = []
        self._places: dict[int, int] | None = None  # by id: where in _open (made when asked)
        self._moves: list[tuple[int, Key]] = []  # per move of an open instance: its key before
        self.changes = 0

    def sort(self, instances: Sequence[Instance]) -> list[Instance]:
        """The instances sorted by their keys."""
        keys = self._keys
        pairs = sorted(zip(map(keys.__getitem__, map(id, instances)), instances, strict=True),
                       key=_FIRST)
        return list(map(_SECOND, pairs))

    def hold(self, open_: list[Instance]) -> None:
        """The instances open to jobs, sorted: those the order moves."""
        self._open, self._places = list(open_), None

    def key(self, qi: Instance) -> Key:
        return self._keys[id(qi)]

    @property
    def mark(self) -> int:
        return len(self._moves)

    def move(self, qi: Instance, key: Key | None) -> None:
        """The instance's place is now by `key` (None: it leaves the order, for good)."""
        ident = id(qi)
        if self._keys[ident] is _GONE:
            return
        i = bisect.bisect_left(self._open, self._keys[ident], key=self.key)
        if i == len(self._open) or self._open[i] is not qi:  # not open: in no list
            if key is not None:
                self._keys[ident] = key
            return
        self._moves.append((ident, self._keys[ident]))
        del self._open[i]
        self._keys[ident] = _GONE if key is None else key
        if key is not None:
            bisect.insort(self._open, qi, key=self.key)
            if self._open[i] is qi:
                return  # its place among the others is the same
        self.changes += 1
        self._places = None

    def follow(self, instances: list[Instance], since: int) -> list[Instance]:
        """A subset of the open instances that was in order at mark `since`, in order now
        (without those that left it): the same list if that is it."""
        before: dict[int, Key] = {}  # the keys then of those moved since
        for ident, key in itertools.islice(self._moves, since, None):
            before.setdefault(ident, key)
        if not before:
            return instances
        if len(before) * _MOVES_PER_PASS > len(instances):
            ordered = self._by_places(instances)
        else:
            ordered = self._moved(instances, before)
        return instances if ordered == instances else ordered

    def _moved(self, instances: list[Instance], before: dict[int, Key]) -> list[Instance]:
        keys = self._keys

        def then(qi: Instance) -> Key:
            return before.get(id(qi)) or keys[id(qi)]

        out = list(instances)
        taken = []
        for ident, key in before.items():
            i = bisect.bisect_left(out, key, key=then)
            if i < len(out) and id(out[i]) == ident:
                taken.append(out.pop(i))
        for qi in taken:
            if keys[id(qi)] is not _GONE:
                bisect.insort(out, qi, key=self.key)
        return out

    def _by_places(self, instances: list[Instance]) -> list[Instance]:
        if self._places is None:
            self._places = dict(zip(map(id, self._open), itertools.count()))
        places = list(map(self._places.get, map(id, instances), itertools.repeat(_NOWHERE)))
        ranked = sorted(range(len(places)), key=places.__getitem__)
        kept = len(ranked) - places.count(_NOWHERE)
        return list(map(instances.__getitem__, ranked[:kept]))

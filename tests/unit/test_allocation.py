"""allocate's $pe_slots rule: the largest count up to the cap on one host, the first host
in planning order that has room for it; hosts without room never chosen."""

from __future__ import annotations

from gridd.model.cluster import Instance
from gridd.model.pe import PE_SLOTS
from gridd.sched.allocation import allocate


def _rooms(*per_host: int) -> tuple[dict[str, list[tuple[Instance, int]]], dict[str, int]]:
    rooms = {f"h{i}": [(Instance(name=f"q@h{i}", queue="q", host=f"h{i}", slots=8), room)]
             for i, room in enumerate(per_host)}
    return rooms, {f"h{i}": room for i, room in enumerate(per_host)}


def test_pe_slots_takes_the_first_host_with_room_for_the_count() -> None:
    rooms, host_room = _rooms(0, 3, 8, 5)
    assert allocate(PE_SLOTS, rooms, host_room, 8, 1) == ([("q@h2", 8)], 8)
    assert allocate(PE_SLOTS, rooms, host_room, 4, 1) == ([("q@h2", 4)], 4)  # cap: not h1
    assert allocate(PE_SLOTS, rooms, host_room, 2, 2) == ([("q@h1", 2)], 2)  # h0: no room


def test_pe_slots_without_room_offers_none() -> None:
    rooms, host_room = _rooms(0, 0)
    assert allocate(PE_SLOTS, rooms, host_room, 4, 1) == (None, 0)
    assert allocate(PE_SLOTS, {}, {}, 4, 1) == (None, 0)
    rooms, host_room = _rooms(0, 3)
    assert allocate(PE_SLOTS, rooms, host_room, 8, 4) == (None, 3)

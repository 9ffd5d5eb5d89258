"""The resource values `qstat -F` and `qhost -F` show: for a queue instance (or a host)
every attribute its levels offer, once, with the value that counts for it.

An attribute is listed where it first appears walking global → host → queue instance
(on the host, reported load values in report order before configured values), and the
value shown is the most restrictive level's: the smallest amount left of a consumable,
the lower or higher bound for ordering operators; on a tie the higher level keeps it, so
a host's `hc:slots=4` wins over its queue's equal `qc:slots=4`, as Grid Engine shows.
"""

from __future__ import annotations

from collections.abc import Mapping

from gridd.model.cluster import Instance, PlanConf, Resource
from gridd.model.complexes import EXCL, ComplexTable
from gridd.sched.levels import Levels
from gridd.sched.match import GLOBAL, HOST, QUEUE, Level, more_restrictive

_LETTER = {GLOBAL: "g", HOST: "h", QUEUE: "q"}


def instance_resources(
    conf: PlanConf, levels: Levels, loads: Mapping[str, Mapping[str, str]], qi: Instance
) -> list[Resource]:
    return _dominant([
        _entries(levels.global_level, conf.global_values, {}, levels.matcher.table),
        _entries(levels.hosts[qi.host], conf.host_values.get(qi.host, {}),
                 loads.get(qi.host, {}), levels.matcher.table),
        _entries(levels.queues[qi.name], qi.values, {}, levels.matcher.table),
    ], levels.matcher.table)


def host_resources(
    conf: PlanConf, levels: Levels, loads: Mapping[str, Mapping[str, str]], host: str
) -> list[Resource]:
    """A host's values with the global ones; `host="global"` gives the global level's."""
    table = levels.matcher.table
    found = [_entries(levels.global_level, conf.global_values, {}, table)]
    if host != "global" and host in levels.hosts:
        found.append(_entries(levels.hosts[host], conf.host_values.get(host, {}),
                              loads.get(host, {}), table))
    return _dominant(found, table)


_Entry = tuple[str, str, str, float | str]  # (name, prefix, text, comparable value)


def _entries(
    level: Level, configured: Mapping[str, str], load: Mapping[str, str], table: ComplexTable
) -> list[_Entry]:
    """What one level offers, in display order: load values as reported, then
    configured values as written."""
    letter = _LETTER[level.kind]
    out: list[_Entry] = []
    seen = set()
    for raw in [*load, *configured]:
        attr = table.resolve(raw)
        if attr is None or attr.name in seen:
            continue
        name = attr.name
        if name in level.free or name in level.load_caps:
            free = level.free.get(name)
            if free is not None and attr.relop == EXCL:
                free = 1.0 if free > 0 else 0.0  # not held exclusively (1), or held (0)
            cap = level.load_caps.get(name)
            if cap is not None and (free is None or cap < free):
                out.append((name, letter + "l", repr(cap), cap))
            elif free is not None:
                out.append((name, letter + "c", repr(free), free))
            else:
                continue
        elif name in level.offers:
            offer = level.offers[name]
            out.append((name, letter + offer.source, offer.text, offer.key))
        else:
            continue
        seen.add(name)
    return out


def _dominant(per_level: list[list[_Entry]], table: ComplexTable) -> list[Resource]:
    shown: dict[str, _Entry] = {}
    for entries in per_level:
        for entry in entries:
            name = entry[0]
            if name not in shown or _more_restrictive(table, entry, shown[name]):
                shown[name] = entry
    out = []
    for name, prefix, text, _ in shown.values():
        attr = table.resolve(name)
        out.append(Resource(prefix, name, attr.type if attr else "STRING", text))
    return out


def _more_restrictive(table: ComplexTable, new: _Entry, old: _Entry) -> bool:
    attr = table.resolve(new[0])
    if attr is None or isinstance(new[3], str) or isinstance(old[3], str):
        return False
    if attr.consumable != "NO":
        return new[3] < old[3]
    return more_restrictive(attr.relop, new[3], old[3])


def selected(resources: list[Resource], names: list[str] | None,
             table: ComplexTable) -> list[Resource]:
    """Only the attributes named (by name or shortcut); all when no names are given."""
    if not names:
        return resources
    wanted = {attr.name for n in names if (attr := table.resolve(n))}
    return [r for r in resources if r.name in wanted]

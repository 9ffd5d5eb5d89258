"""Queue instances chosen by what they are rather than by what they have left: qselect,
and qstat's -q, -l, -pe, -qs and -U. Pure.

A request (-l) is matched against what an instance offers with nothing running and only
the load values a host cannot change while it is up (its architecture, processor counts
and memory sizes): a consumable counts with its whole capacity, and a changing load value
is not offered at all. 8.1.9 behaves so (`qselect -l slots=4` names a 4-slot instance
whose slots are all taken; `-l mem_free=1G` names none).

qstat then shows the waiting jobs that might run in one of the instances chosen: those
whose hard queue list admits one of them and whose hard requests it offers. 8.1.9 asks
nothing more of them: neither their PE nor their owner's access.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from gridd.model.cluster import Instance, PlanConf
from gridd.model.complexes import holds
from gridd.model.planning import SchedJob
from gridd.model.queue_ref import queue_matches
from gridd.model.selection import QueueSelect
from gridd.sched.access import admits, host_admits
from gridd.sched.levels import Levels, build_levels

# The load values a host reports that do not change while it runs.
STATIC_LOADS = frozenset({"arch", "num_proc", "mem_total", "swap_total", "virtual_total",
                          "m_topology", "m_socket", "m_core", "m_thread"})


class Unselectable(Exception):
    """The selection cannot be made (its text may be empty: 8.1.9 says nothing for an
    unknown resource, a value its type cannot hold or a queue that does not exist)."""

    def __init__(self, text: str = "") -> None:
        super().__init__(text)
        self.text = text


class NoneLeft(Unselectable):
    """The selection is well made but leaves no instance, which 8.1.9 reports (for -pe)."""


@dataclass(slots=True)
class Chosen:
    """The instances chosen, in planning (qstat -f) order, and the levels they were
    judged on (for the waiting jobs)."""

    instances: list[Instance]
    levels: Levels

    def names(self) -> list[str]:
        return [qi.name for qi in self.instances]


def static_loads(loads: Mapping[str, Mapping[str, str]]) -> dict[str, dict[str, str]]:
    return {host: {k: v for k, v in values.items() if k in STATIC_LOADS}
            for host, values in loads.items()}


def choose(conf: PlanConf, loads: Mapping[str, Mapping[str, str]], how: QueueSelect,
           states: Mapping[str, str]) -> Chosen:
    """The instances `how` chooses, `states` being their state letters; raises
    Unselectable (NoneLeft when -pe left none)."""
    levels = build_levels(conf, static_loads(loads), [])
    instances = sorted(conf.instances, key=lambda qi: (qi.seq_no, qi.queue, qi.name))
    if how.queues:
        instances = [qi for qi in instances
                     if any(queue_matches(ref, qi, conf.hostgroups) for ref in how.queues)]
        if not instances:
            raise Unselectable()
    if how.pes:
        if not any(name in conf.pes for name in how.pes):
            raise Unselectable("error: no such parallel environment")
        instances = [qi for qi in instances if any(name in qi.pe_list for name in how.pes)]
        if not instances:
            raise NoneLeft("error: no queues remaining after -pe queue selection")
    if how.resources:
        matcher = levels.matcher
        req = matcher.request(_known(levels, how.resources))
        instances = [qi for qi in instances if matcher.fits(req, 1, *levels.of(qi)).ok]
    if how.users:
        instances = [qi for qi in instances if all(
            admits(qi, user, conf.usersets, how.groups.get(user, ""))
            and host_admits(conf, qi.host, user, how.groups.get(user, ""))
            for user in how.users)]
    if how.states:
        instances = [qi for qi in instances
                     if any(c in how.states for c in states.get(qi.name, ""))]
    return Chosen(instances, levels)


def by_more_than_states(how: QueueSelect) -> bool:
    """Whether the selection asks more than states: only then does qstat show just the
    waiting jobs that might run in the instances chosen (as 8.1.9 does)."""
    return bool(how.queues or how.resources or how.pes or how.users)


def might_run(chosen: Chosen, jobs: Iterable[SchedJob], hostgroups: Mapping[str, list[str]]
              ) -> list[int]:
    """The jobs (numbers) whose hard queue list admits one of the chosen instances that
    offers what they request."""
    matcher, levels = chosen.levels.matcher, chosen.levels
    out = []
    for job in jobs:
        req = matcher.request(job.hard)  # by full names since submission
        if any((not job.queues or any(queue_matches(ref, qi, hostgroups) for ref in job.queues))
               and matcher.fits(req, 1, *levels.of(qi)).ok for qi in chosen.instances):
            out.append(job.job_id)
    return out


def _known(levels: Levels, request: Mapping[str, str]) -> dict[str, str]:
    """The request by full names; Unselectable for an unknown name or a value its type
    cannot hold."""
    table = levels.matcher.table
    for name, value in request.items():
        attr = table.resolve(name)
        if attr is None or not holds(attr.type, value):
            raise Unselectable()
    return table.full_names(request)

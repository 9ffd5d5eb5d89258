"""Granting an advance reservation (qrsub): where it holds its slots from its start to its
end. It asks a cycle made for granting (no quotas, no access of the cycle's own: the AR's
users are judged here) for the pieces a reservation uses: the category of its request,
the diagrams of what runs and of earlier ARs, and for a PE the instances that could take
a slot and the allocation the diagrams allow at its start."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from gridd.model.ar import ArBooking, ArPlace
from gridd.model.cluster import Instance, PlanConf, Running
from gridd.model.planning import Granted, SchedJob
from gridd.model.queue_ref import queue_matches
from gridd.model.rsmap import ResourceMap
from gridd.sched.access import admits, host_admits
from gridd.sched.ar_jobs import apart
from gridd.sched.categories import unlimited
from gridd.sched.cycle import Cycle
from gridd.sched.plan import Planner
from gridd.sched.reserve import uses
from gridd.sched.rsmap_ids import free_with, parts, pick


def grant_ar(
    planner: Planner,
    conf: PlanConf,
    loads: Mapping[str, Mapping[str, str]],
    running: Iterable[Running],
    ars: Mapping[int, ArBooking],
    states: Mapping[str, str],
    request: SchedJob,
    place: ArPlace,
    start: float,
    end: float,
    now: float,
) -> tuple[Granted, str, ResourceMap] | None:
    """Where an advance reservation for `request` holds its slots from start to end,
    its PE ("" for none) and the RSMAP ids it holds, or None when nowhere.

    Earlier ARs and what runs until its expected end are booked in the diagrams, as
    for a reservation; quotas are not honoured (only capacities count). Disabled,
    suspended and unknown instances are suited, orphaned ones are not, nor instances
    where a task without a run-time limit runs (it might still run when the AR
    starts) or that `place` rules out. What `planner` carries from cycle to cycle (the
    empty levels, where each running task holds what) serves here too, and its compiled
    requests.
    """
    own, _ = apart(running, ars)
    instances = {qi.name: qi for qi in conf.instances}
    forever = {name for t in own for name, _ in t.granted
               if name not in instances or unlimited(t.hard, instances[name])}
    suited = {name: "".join(c for c in letters if c not in "dusSaA")
              for name, letters in states.items()}
    # The diagrams decide; the levels only name where things are.
    carried = planner.carried
    carried.follow_cell(conf, loads)
    empty = carried.empty_levels(conf, loads, planner.matcher(conf))
    cycle = Cycle(conf, empty, loads, own, suited, now=now, ars=ars, carried=carried,
                  granting=True)
    cat = cycle.category(request)
    schedule = cycle.the_schedule()
    duration = end - start

    def allowed(qi: Instance) -> bool:
        return qi.name not in forever and all(
            admits(qi, user, conf.usersets) and host_admits(conf, qi.host, user)
            for user in place.users) and (
            qi.interactive or not place.interactive) and (
            not place.checkpoint or place.checkpoint in qi.ckpt_list)

    def may_lead(qi: Instance) -> bool:
        return not place.master_queues or any(
            queue_matches(ref, qi, conf.hostgroups) for ref in place.master_queues)

    pool = None
    if cat.req.rsmap:
        held = [t.resource_map for t in own if t.resource_map and (
            any(name in forever for name, _ in t.granted) or cycle.expected_end(t) > start)]
        held += [ar.resource_map for ar in ars.values() if ar.start < end and start < ar.end]
        pool = free_with(empty, held)

    def with_ids(granted: Granted, pe: str) -> tuple[Granted, str, ResourceMap] | None:
        if pool is None:
            return granted, pe, []
        ids = pick(cat.req.rsmap, parts(granted), pool)
        return None if ids is None else (granted, pe, ids)

    if not request.pe:
        for qi in cat.open:
            if allowed(qi) and may_lead(qi) and \
                    cycle.matcher.fits(cat.req, 1, *empty.of(qi)).ok and \
                    schedule.fits(uses(cat.req, [(empty.of(qi), 1)]), start, duration) and \
                    (found := with_ids([(qi.name, 1)], "")) is not None:
                return found
        return None

    def held(granted: Granted) -> bool:
        """Whether what the AR holds is free, beyond what a job placed so takes: a
        HOST consumable's global value once per host (reserve.uses)."""
        return not cat.req.per_host or schedule.fits(
            cycle._uses(cat.req, granted, "", ar=True), start, duration)

    for pe in cat.pes:
        candidates = [qi for qi in cycle.pe_open(cat, pe).instances if allowed(qi)]
        granted = cycle.parallel_at(request, cat, pe, candidates, start, duration,
                                    may_lead if place.master_queues else None)
        if granted is not None and held(granted) and \
                (found := with_ids(granted, pe.name)) is not None:
            return found
    return None


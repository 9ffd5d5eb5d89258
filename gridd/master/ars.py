"""Advance reservations in the master: qrsub, qrdel, qrstat, jobs submitted into an AR, and
what moves an AR through its lifecycle (gridd.model.ar_lifecycle): time (w -> r -> x),
qrdel (d), its queue instances failing and mending (W, E).

Pure like the rest of the master: every function takes `now` and records in Effects what
must be spooled, told to the scheduler and written to the reporting file.
"""

from __future__ import annotations

import fnmatch
import math
from typing import TYPE_CHECKING

import msgspec

from gridd import protocol as p
from gridd.master import ids, permissions, reporting
from gridd.master.views import to_int
from gridd.model.ar import (
    MAX_AR_ID,
    AdvanceReservation,
    ArBooking,
    ArPlace,
    ArRecord,
    ArSpec,
)
from gridd.model.ar_lifecycle import (
    DELETE,
    DELETED,
    END,
    LIVE,
    LOGGED,
    OVER,
    RUNNING,
    START,
    WAITING,
    allows,
    jobs_may_run,
    resources_event,
)
from gridd.model.cluster import PlanConf, split_instance
from gridd.model.job import JobSpec, object_name_refusal
from gridd.model.values import is_unsigned
from gridd.sched.access import admits
from gridd.sched.grant import grant_ar

if TYPE_CHECKING:
    from gridd.master.core import Master
    from gridd.master.state import Effects

NO_SUITABLE = "advance_reservation: no suitable queues"
EXIT_LIMIT = 25  # qrsub's exit status when max_advance_reservations is reached


def submit(m: Master, req: p.ArSubmit, now: float, fx: Effects) -> p.Msg:
    """qrsub: check (who asks first, then from where, as Grid Engine does), grant over the
    window, and only then create."""
    spec = req.spec
    config = m.s.config
    refused = permissions.reservation_refusal(config, spec.owner, req.host)
    if refused:
        return p.Error(text=refused)
    limit = to_int(config.conf.max_advance_reservations)
    if limit > 0 and len(m.s.ars) >= limit:
        return p.Error(text=f"rejected: only {limit} advance reservations are allowed per "
                            "cluster", code=EXIT_LIMIT)
    window = _window(spec, now)
    if isinstance(window, str):
        return p.Error(text=window)
    start, end = window
    request = m.ar_request(spec)
    problem = object_name_refusal(spec.name) or m.validate_request(request, "advance_reservation")
    if problem:
        return p.Error(text=problem)
    place = ArPlace(users=spec.users or [spec.owner], interactive=spec.immediate,
                    checkpoint=spec.checkpoint, master_queues=spec.master_queues)
    granted = grant_ar(m.ar_planner, m.plan, m.loads(), m.running.values(), bookings(m),
                       m.instance_states(), request, place, start, end, now)
    if granted is None:
        return p.Error(text="verification: no suitable queues" if spec.verify == "v"
                       else NO_SUITABLE)
    if spec.verify == "v":
        return p.Ok(lines=["verification: found suitable queue(s)"])
    ar_id = m.s.next_ar_id
    m.s.next_ar_id = ids.after(ar_id, m.s.ars, MAX_AR_ID)
    fx.counters_changed = True
    spec.resources = request.hard
    ar = AdvanceReservation(ar_id=ar_id, spec=spec, submission_time=now, start=start, end=end,
                            granted=granted[0], granted_pe=granted[1],
                            resource_map=granted[2])
    m.s.ars[ar_id] = ar
    _changed(ar, fx)
    report(m, ArRecord(kind="new_ar", time=now, ar=ar), fx)
    report(m, ArRecord(kind="ar_attr", time=now, ar=ar), fx)
    if start <= now:
        _go(m, ar, START, "start time of AR reached", now, fx)
    return p.Ok(lines=[f"Your advance reservation {ar_id} has been granted"])


def _window(spec: ArSpec, now: float) -> tuple[float, float] | str:
    """Start and end from any two of -a, -e and -d (start now by default), or why not."""
    if any(t is not None and not math.isfinite(t) for t in (spec.start, spec.end,
                                                             spec.duration)):
        return "denied: invalid start time, end time or duration"
    start = now if spec.start is None else spec.start
    if spec.end is not None and spec.duration is not None and spec.start is not None \
            and abs(spec.end - spec.start - spec.duration) > 0.5:
        return "difference between end and start time does not correspond to duration"
    if spec.end is not None:
        end = spec.end
    elif spec.duration:
        end = start + spec.duration
    else:  # (a duration of 0 is none, as 8.1.9 has it)
        return 'missing value for "end time or duration" in advance reservation request'
    if spec.start is not None and start < now - 1:
        return "start time is in the past"
    if end < start:
        return "start time is later than end time"
    if end == start:  # 8.1.9 grants an AR that ends as it starts: gridd does not
        return "denied: the end time is not after the start time"
    return start, end


def delete(m: Master, req: p.ArDelete, now: float, fx: Effects) -> p.Msg:
    """qrdel: an AR without jobs goes at once; one with jobs once they are gone. Only a
    manager or a user in arusers may ask, from a submit host; for each AR, only its
    owner, an operator or a manager."""
    config = m.s.config
    refused = permissions.reservation_refusal(config, req.user, req.host)
    if refused:
        return p.Error(text=refused)
    lines: list[str] = []
    code = 0
    chosen: list[AdvanceReservation | str] = []  # in the order named; a name not found
    for target in req.targets:
        chosen += _named(m, target) or [target]
    if req.users:
        owners = set(req.users)
        chosen += [ar for ar in sorted(m.s.ars.values(), key=lambda a: a.ar_id)
                   if "*" in owners or ar.spec.owner in owners]
    seen: set[int] = set()
    for ar in chosen:
        if isinstance(ar, str):
            lines.append(f'denied: advance_reservation "{ar}" does not exist')
            code = 1
            continue
        if ar.ar_id in seen or ar.ar_id not in m.s.ars:
            continue
        seen.add(ar.ar_id)
        if not permissions.may_handle(config, req.user, ar.spec.owner):
            lines.append(f"{req.user} - you do not have the necessary privileges to delete "
                         f'the advance_reservation "{ar.ar_id}"')
            code = 1
            continue
        for job in jobs_of(m, ar.ar_id):
            m.delete_job(job, p.Delete(targets=[], user=req.user, force=req.force), now, fx)
        if ar.move(DELETE):  # (not logged until it leaves)
            _changed(ar, fx)
        if _settle(m, ar, now, fx):
            lines.append(f"{req.user} has deleted advance_reservation {ar.ar_id}")
        else:
            lines.append(f"{req.user} has registered the advance_reservation {ar.ar_id} for "
                         "deletion")
    return p.Ok(lines=lines, code=code)


def _named(m: Master, target: str) -> list[AdvanceReservation]:
    if is_unsigned(target):
        ar = m.s.ars.get(int(target))
        return [ar] if ar else []
    return [ar for ar in sorted(m.s.ars.values(), key=lambda a: a.ar_id)
            if ar.spec.name and fnmatch.fnmatchcase(ar.spec.name, target)]


def query(m: Master, req: p.QueryArs, now: float) -> p.ArsReply:
    """qrstat: the ARs named (all when none), of the owners asked for ("*": anyone), and
    the names that named none of those."""
    owners = set(req.users)

    def shown(ar: AdvanceReservation) -> bool:
        return not owners or "*" in owners or ar.spec.owner in owners

    missing: list[str] = []
    if req.ids:
        chosen: dict[int, AdvanceReservation] = {}
        for target in req.ids:
            found = [ar for ar in _named(m, target) if shown(ar)]
            chosen.update((ar.ar_id, ar) for ar in found)
            if not found:
                missing.append(target)
        ars = list(chosen.values())
    else:
        ars = [ar for ar in m.s.ars.values() if shown(ar)]
    return p.ArsReply(ars=sorted(ars, key=lambda a: a.ar_id), now=now, missing=missing)


# Queue instance states in which an AR's resources count as failed (spec 5.2.2.2.1):
# the host unknown (execd lost), the queue disabled, suspended or in error.
_FAILED = {"u": "is unknown", "d": "is disabled", "s": "is suspended", "S": "is suspended",
           "E": "is in error state"}


def tick(m: Master, now: float, fx: Effects) -> None:
    """Time-driven transitions: start and end times reached, resources failed or back,
    deleted ARs whose jobs are gone."""
    states = m.instance_states() if m.s.ars else {}
    for ar in list(m.s.ars.values()):
        _check_resources(m, ar, states, now, fx)
        if ar.start <= now and allows(ar.state, START):
            _go(m, ar, START, "start time of AR reached", now, fx)
        if ar.end <= now and allows(ar.state, END):
            _go(m, ar, END, "end time of AR reached", now, fx)
            _account(m, ar, now, fx)
            for job in jobs_of(m, ar.ar_id):
                m.delete_job(job, p.Delete(targets=[], user="root"), now, fx)
        if ar.state in OVER:
            _settle(m, ar, now, fx)


def _check_resources(m: Master, ar: AdvanceReservation, states: dict[str, str],
                     now: float, fx: Effects) -> None:
    """W or E while a reserved queue instance has failed; back to w or r once none has."""
    if ar.state not in LIVE:
        return
    failed = next((f'queue instance "{name}" {_FAILED[c]}' for name, _ in ar.granted
                   for c in states.get(name, "") if c in _FAILED), "")
    event = resources_event(bool(failed), started=ar.start <= now)
    if not allows(ar.state, event):
        return
    ar.message = failed
    if failed:
        _go(m, ar, event, failed, now, fx)
        _mail(m, ar, "a", f"AR {ar.ar_id} has gone into error state: {failed}", fx)
    else:
        _go(m, ar, event, "AR resources satisfied again", now, fx)
        _mail(m, ar, "a", f"AR {ar.ar_id} is valid again", fx)


def _mail(m: Master, ar: AdvanceReservation, event: str, text: str, fx: Effects) -> None:
    """Mail the owner (or -M addresses) about an event the AR asked mail for (-m b|e|a)."""
    if event in ar.spec.mail_options and "n" not in ar.spec.mail_options:
        fx.mails.append((ar.spec.mail_list or [ar.spec.owner], text))


def breaks(m: Master, plan: PlanConf) -> str | None:
    """Why a configuration change would break a granted AR (None when it would not): a
    reserved instance dropped from a queue that stays (a deleted queue only orphans its
    instances), or a user of its access list shut out of one."""
    instances = {qi.name: qi for qi in plan.instances}
    queues = {qi.queue for qi in plan.instances}
    for ar in sorted(m.s.ars.values(), key=lambda a: a.ar_id):
        if ar.state not in LIVE:
            continue
        for name, _ in ar.granted:
            qi = instances.get(name)
            if qi is None:
                if split_instance(name)[0] in queues:
                    return (f'denied: queue instance "{name}" is reserved by advance '
                            f"reservation {ar.ar_id}")
                continue
            for user in ar.acl():
                if not admits(qi, user, plan.usersets):
                    return (f'denied: user "{user}" would lose access to queue instance '
                            f'"{name}" reserved by advance reservation {ar.ar_id}')
    return None


def _settle(m: Master, ar: AdvanceReservation, now: float, fx: Effects) -> bool:
    """Remove an ended or deleted AR once no job of it is left; True when removed."""
    if jobs_of(m, ar.ar_id):
        return False
    if ar.state == DELETED:
        report(m, ArRecord(kind="ar_log", time=now, ar=ar, state=DELETED,
                           event=LOGGED[DELETE], message="AR deleted"), fx)
        _account(m, ar, now, fx)
    del m.s.ars[ar.ar_id]
    fx.gone_ars.add(ar.ar_id)
    if any(name in m.orphaned for name, _ in ar.granted):
        m.refresh_views()  # its orphaned instances go with it
    return True


def _account(m: Master, ar: AdvanceReservation, now: float, fx: Effects) -> None:
    """ar_acct: what the AR held, per queue instance."""
    for instance, slots in ar.granted:
        queue, host = split_instance(instance)
        report(m, ArRecord(kind="ar_acct", time=now, ar=ar, queue=queue, host=host,
                           slots=slots), fx)


def _go(m: Master, ar: AdvanceReservation, event: str, message: str, now: float,
        fx: Effects) -> None:
    """Move the AR by `event`, which its state allows, and log it (mailing its start and
    end when asked to: -m b, e)."""
    ar.move(event)
    if ar.state == RUNNING and event == START:
        _mail(m, ar, "b", f"AR {ar.ar_id} ({ar.spec.name or 'no name'}) has started", fx)
    elif event == END:
        _mail(m, ar, "e", f"AR {ar.ar_id} ({ar.spec.name or 'no name'}) has ended", fx)
    _changed(ar, fx)
    report(m, ArRecord(kind="ar_log", time=now, ar=ar, state=ar.state, event=LOGGED[event],
                       message=message), fx)


def _changed(ar: AdvanceReservation, fx: Effects) -> None:
    fx.dirty_ars.add(ar.ar_id)


def report(m: Master, record: ArRecord, fx: Effects) -> None:
    """Report an AR event (when reporting is on), with the AR as it is now."""
    if reporting.of(m).reporting:
        record.ar = msgspec.structs.replace(record.ar)  # whatever comes later
        reporting.report(m, record, fx)


def jobs_of(m: Master, ar_id: int) -> list:
    return [job for job in m.s.jobs.values()
            if job.spec.ar == ar_id and not m.all_done(job)]


def booking(ar: AdvanceReservation) -> ArBooking:
    """What the scheduler needs of an AR: its jobs may run while it runs (or is in error
    with soft error handling)."""
    return ArBooking(ar.ar_id, ar.start, ar.end, ar.granted, ar.spec.resources,
                     ar.granted_pe, jobs_may_run(ar.state, ar.spec.hard_error),
                     ar.resource_map)


def bookings(m: Master) -> dict[int, ArBooking]:
    """What the scheduler and the checks against ARs see of the ARs that hold resources."""
    return {ar.ar_id: booking(ar) for ar in m.s.ars.values() if ar.state in LIVE}


def reserved_slots(m: Master, now: float) -> dict[str, int]:
    """Slots per queue instance held by ARs whose window is open (qstat -f resv)."""
    out: dict[str, int] = {}
    for ar in m.s.ars.values():
        if ar.start <= now < ar.end and ar.state != WAITING:
            for instance, slots in ar.granted:
                out[instance] = out.get(instance, 0) + slots
    return out


def check_job(m: Master, spec: JobSpec, now: float) -> str | None:
    """Why a job may not be submitted into its AR (qsub -ar), or None."""
    ar = m.s.ars.get(spec.ar)
    if ar is None or ar.state not in LIVE:
        return f"Unable to run job: the advance reservation id {spec.ar} is invalid"
    if not _may_use(m, ar, spec.owner, spec.group):
        return (f'Unable to run job: the user "{spec.owner}" has no access to the advance '
                f"reservation id {spec.ar}")
    h_rt = m.runtime_limit(spec)
    if h_rt is not None and (h_rt > ar.duration or h_rt > ar.end - now):
        return ("Unable to run job: the job duration is longer than duration of the advance "
                f"reservation id {spec.ar}")
    return None


def _may_use(m: Master, ar: AdvanceReservation, user: str, group: str) -> bool:
    """Its access list's users and the users of its @access lists (as configured now),
    and managers and operators."""
    config = m.s.config
    if permissions.is_operator(config, user):
        return True
    return any(entry == user or (entry.startswith("@")
                                 and permissions.in_userset(config, entry[1:], user, group))
               for entry in ar.acl())

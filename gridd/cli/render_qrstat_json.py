"""qrstat -json: an entry per AR, with -ar the details -xml adds (schemas/qrstat.json),
under Open Cluster Scheduler 9.2's keys (ars; exec_queue_list, granted_parallel_environment
as a list); times in ISO 8601, the duration in seconds, slot counts as numbers.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from gridd.cli.render_json import iso, mail_address
from gridd.cli.render_qrstat import by_id, duration, granted_pe, message_shown
from gridd.model.ar import AdvanceReservation


def qrstat_json(ars: Iterable[AdvanceReservation], details: bool = False,
                explain: bool = False) -> dict[str, Any]:
    """Every AR asked for, by id; an empty list when there is none."""
    out = []
    for ar in by_id(ars):
        entry: dict[str, Any] = {
            "id": ar.ar_id, "name": ar.spec.name, "owner": ar.spec.owner, "state": ar.state,
            "start_time": iso(ar.start), "end_time": iso(ar.end), "duration": duration(ar)}
        if message_shown(ar, explain, details):
            entry["message"] = ar.message
        if details:
            entry |= _details(ar)
        out.append(entry)
    return {"ars": out}


def _details(ar: AdvanceReservation) -> dict[str, Any]:
    spec = ar.spec
    out: dict[str, Any] = {"submission_time": iso(ar.submission_time), "group": spec.group,
                           "account": spec.account}
    if spec.resources:
        out["resource_list"] = [{"name": name, "value": value}
                                for name, value in spec.resources.items()]
    if ar.granted:
        out["exec_queue_list"] = [{"name": qi, "slots": n} for qi, n in ar.granted]
    pe = granted_pe(ar)
    if pe is not None:
        out["granted_parallel_environment"] = [{"name": pe[0], "range": pe[1]}]
    if spec.checkpoint:
        out["checkpoint_name"] = spec.checkpoint
    if spec.mail_options:
        out["mail_options"] = spec.mail_options
    if spec.mail_list:
        out["mail_list"] = [mail_address(address) for address in spec.mail_list]
    if spec.users:
        out["acl_list"] = list(spec.users)
    return out



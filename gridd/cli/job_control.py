"""The requests that control jobs, as qdel, qmod -sj/-usj, qhold and qrls send them: one
home for the commands and for the web interface's job actions (gridd.web.pages.jobs)."""

from __future__ import annotations

from collections.abc import Callable

from gridd import protocol as p
from gridd.client import Client


def qmod_request(action: str, targets: list[str], user: str, host: str,
                 force: bool = False) -> p.Qmod:
    """One of qmod's actions (its option without the dash) on its targets."""
    return p.Qmod(action=action, targets=targets, user=user, host=host, force=force)


def hold_request(targets: list[str], user: str, host: str, *, release: bool = False,
                 kinds: str = "u") -> p.Hold:
    """qhold (`release`: qrls) of the holds `kinds` of the jobs and tasks named."""
    return p.Hold(targets=targets, user=user, host=host, hold=not release, kinds=kinds)


# The web interface's job actions, each asked of the master as the command it stands
# for asks it: (client, targets, user, host) -> the master's answer.
Action = Callable[[Client, list[str], str, str], p.Ok]
JOB_ACTIONS: dict[str, Action] = {
    "delete": lambda client, targets, user, host: client.delete(targets, user),
    "suspend": lambda client, targets, user, host: client.request(
        qmod_request("sj", targets, user, host)),
    "resume": lambda client, targets, user, host: client.request(
        qmod_request("usj", targets, user, host)),
    "hold": lambda client, targets, user, host: client.hold(
        hold_request(targets, user, host)),
    "release": lambda client, targets, user, host: client.hold(
        hold_request(targets, user, host, release=True)),
}

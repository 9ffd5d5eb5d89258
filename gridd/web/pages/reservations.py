"""`/reservations`: the granted advance reservations with qrstat's columns (live), the
"Submit Advance Reservation" form, whose fields become qrsub's options for qrsub's own
parser (gridd.cli.qrsub_args) as the login's user, and qrdel's delete. The master's
answers and refusals are shown as the commands print them."""

from __future__ import annotations

import re
import socket
import time
from urllib.parse import urlencode

from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import Route

from gridd.cli.qrsub_args import QrsubError, parse_qrsub
from gridd.cli.render_qrstat import by_id, columns
from gridd.client import GriddError
from gridd.model.ar import ArSpec
from gridd.web.accounts import account_of, reader
from gridd.web.context import call, login_of, render, state_of, wants_fragment

FIELDS = ("name", "start", "end", "duration", "pe", "resources", "queues", "acl")
# Each field's qrsub option (pe takes its name and its slots as two words).
_OPTIONS = {"name": "-N", "start": "-a", "end": "-e", "duration": "-d", "pe": "-pe",
            "resources": "-l", "queues": "-q", "acl": "-u"}
_LOCAL = re.compile(r"^(\d{4})-(\d\d)-(\d\d)T(\d\d):(\d\d)(?::(\d\d))?$")


def qrsub_time(text: str) -> str:
    """An HTML datetime-local value (2026-11-28T10:30[:15]) in qrsub's
    CCYYMMDDhhmm[.SS]; any other text as it is, for qrsub's parser to judge."""
    found = _LOCAL.match(text.strip())
    if not found:
        return text.strip()
    *minutes, seconds = found.groups()
    return "".join(minutes) + (f".{seconds}" if seconds else "")


def qrsub_argv(form: dict[str, str]) -> list[str]:
    """qrsub's arguments for the form's fields."""
    argv: list[str] = []
    for field, option in _OPTIONS.items():
        value = form.get(field, "").strip()
        if field in ("start", "end"):
            value = qrsub_time(value)
        if value:
            argv += [option, *(value.split() if field == "pe" else [value])]
    return argv


def parse(form: dict[str, str], user: str, root: str, now: float) -> ArSpec:
    """The AR qrsub makes of the form's fields, run by `user`."""
    account = account_of(user)
    return parse_qrsub(qrsub_argv(form), now=now, root=root, home=account.home,
                       read_file=reader(account.uid, f"{root}/common/sge_ar_request"),
                       owner=user, group=account.group).spec


async def _page(request: Request, values: dict[str, str], status: int = 200,
                error: str = "") -> Response:
    reply = await call(request, lambda client: client.query_ars(users=["*"]))
    rows = [columns(ar) for ar in by_id(reply.ars)]
    if wants_fragment(request):
        return render(request, "reservations_live.html", rows=rows)
    return render(request, "reservations.html", status, rows=rows, values=values, error=error)


async def reservations(request: Request) -> Response:
    return await _page(request, {})


def _done(lines: list[str]) -> Response:
    return RedirectResponse(f"/reservations?{urlencode({'done': chr(10).join(lines)})}",
                            status_code=303)


async def submit(request: Request) -> Response:
    form = await request.form()
    values = {field: str(form.get(field, "")) for field in FIELDS}
    try:
        spec = parse(values, login_of(request).user, str(state_of(request).base), time.time())
    except QrsubError as exc:
        return await _page(request, values, 400, f"qrsub: {exc.message}")
    try:
        reply = await call(request, lambda client: client.ar_submit(spec, socket.gethostname()))
    except GriddError as exc:
        return await _page(request, values, 400, exc.text)
    if reply.code:  # a refusal the answer carries, as qrsub prints it
        return await _page(request, values, 400, "\n".join(reply.lines))
    return _done(reply.lines)


async def delete(request: Request) -> Response:
    form = await request.form()
    target = str(form.get("id", "")).strip()
    if not target:
        return await _page(request, {}, 400, "error: which advance reservation? (no id)")
    user = login_of(request).user
    try:
        reply = await call(request, lambda client: client.ar_delete([target], user))
    except GriddError as exc:
        return await _page(request, {}, 400, exc.text)
    if reply.code:  # qrdel's refusals in the answer: an AR not found, or not the user's
        return await _page(request, {}, 400, "\n".join(reply.lines))
    return _done(reply.lines)


ROUTES = [
    Route("/reservations", reservations, methods=["GET"]),
    Route("/reservations", submit, methods=["POST"]),
    Route("/reservations/delete", delete, methods=["POST"]),
]

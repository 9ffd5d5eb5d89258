"""`/reservations`: the granted advance reservations with qrstat's columns, the "Submit
Advance Reservation" form and delete. The form's fields become qrsub's options, which
qrsub's own parser (gridd.cli.qrsub_args) turns into the ArSpec it would send, as the
login's user from their home; delete is qrdel's request. The master decides."""

from __future__ import annotations

import grp
import pwd
import re
import socket
import time
from typing import Any
from urllib.parse import urlencode

from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import Route

from gridd.cli import render_qrstat
from gridd.cli.qrsub_args import QrsubError, QrsubRequest, parse_qrsub
from gridd.client import GriddError
from gridd.web.context import call, login_of, render, state_of, wants_fragment
from gridd.web.pages.submit import user_reader

FIELDS = ("name", "start", "end", "duration", "pe", "resources", "queues", "acl")
# Each field's qrsub option (pe takes its name and its slots as two words).
_OPTIONS = {"name": "-N", "start": "-a", "end": "-e", "duration": "-d", "pe": "-pe",
            "resources": "-l", "queues": "-q", "acl": "-u"}
# An HTML datetime-local value: 2026-11-28T10:30, seconds optional.
_DATETIME_LOCAL = re.compile(r"(\d{4})-(\d\d)-(\d\d)T(\d\d):(\d\d)(?::(\d\d)(?:\.\d+)?)?")


def qrsub_time(value: str) -> str:
    """qrsub's [[CC]YY]MMDDhhmm[.SS] of a browser's datetime-local value; any other
    value as it is, for qrsub's parser to take or refuse."""
    found = _DATETIME_LOCAL.fullmatch(value)
    if not found:
        return value
    year, month, day, hour, minute, second = found.groups()
    return f"{year}{month}{day}{hour}{minute}" + (f".{second}" if second else "")


def qrsub_argv(form: dict[str, str]) -> list[str]:
    """qrsub's arguments for the form's fields (the empty ones left out)."""
    argv: list[str] = []
    for field, option in _OPTIONS.items():
        value = form.get(field, "").strip()
        if field in ("start", "end"):
            value = qrsub_time(value)
        if value:
            argv += [option, *(value.split() if field == "pe" else [value])]
    return argv


def parse(form: dict[str, str], user: str, root: str, now: float) -> QrsubRequest:
    """The request qrsub makes of the form's fields, run by `user` in their home."""
    try:
        entry = pwd.getpwnam(user)
        uid, gid, home = entry.pw_uid, entry.pw_gid, entry.pw_dir
    except KeyError:  # the master stamps who the user is where it knows them
        uid, gid, home = 65534, 65534, "/"
    try:
        group = grp.getgrgid(gid).gr_name
    except KeyError:
        group = str(gid)
    return parse_qrsub(qrsub_argv(form), now=now, root=root, home=home,
                       read_file=user_reader(uid, f"{root}/common/sge_ar_request"),
                       owner=user, group=group)


async def _listing(request: Request) -> dict[str, Any]:
    """qrstat's rows (every user's ARs, as plain qrstat lists them), or the error."""
    try:
        reply = await call(request, lambda client: client.query_ars([], ["*"]))
    except GriddError as exc:
        return {"rows": [], "error": exc.text}
    ars = sorted(reply.ars, key=lambda ar: ar.ar_id)
    return {"rows": [render_qrstat.columns(ar) for ar in ars], "error": ""}


async def _page(request: Request, status: int = 200, values: dict[str, str] | None = None,
                error: str = "") -> Response:
    listing = await _listing(request)
    if wants_fragment(request):
        return render(request, "reservations_live.html", **listing)
    return render(request, "reservations.html", status, values=values or {}, message=error,
                  done=request.query_params.get("done", ""), **listing)


async def reservations(request: Request) -> Response:
    return await _page(request)


async def submit(request: Request) -> Response:
    form = await request.form()
    values = {k: str(form.get(k, "")) for k in FIELDS}
    try:
        req = parse(values, login_of(request).user, str(state_of(request).base), time.time())
    except QrsubError as exc:
        return await _page(request, 400, values, f"qrsub: {exc.message}")
    if req.help or not qrsub_argv(values):
        return await _page(request, 400, values, "error: no option argument")
    host = socket.gethostname()
    try:
        reply = await call(request, lambda client: client.ar_submit(req.spec, host))
    except GriddError as exc:
        return await _page(request, 400, values, exc.text)
    text = "\n".join(reply.lines)
    if reply.code:
        return await _page(request, 400, values, text)
    return RedirectResponse(f"/reservations?{urlencode({'done': text})}", status_code=303)


async def delete(request: Request) -> Response:
    """qrdel ID as the login's user: the master's answer shown."""
    form = await request.form()
    target = str(form.get("id", "")).strip()
    if not target:
        return await _page(request, 400, error="error: no advance reservation named")
    user = login_of(request).user
    try:
        reply = await call(request, lambda client: client.ar_delete([target], user))
    except GriddError as exc:
        return await _page(request, 400, error=exc.text)
    text = "\n".join(reply.lines)
    if reply.code:
        return await _page(request, 400, error=text)
    return RedirectResponse(f"/reservations?{urlencode({'done': text})}", status_code=303)


ROUTES = [
    Route("/reservations", reservations, methods=["GET"]),
    Route("/reservations", submit, methods=["POST"]),
    Route("/reservations/delete", delete, methods=["POST"]),
]

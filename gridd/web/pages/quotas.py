"""`/quotas`: the resource quota sets as `qconf -srqs` prints them, `qquota`'s usage
beside them, and an editor with qconf's semantics: a new set is `qconf -Arqs`, a changed
one `qconf -Mrqs FILE NAME`, a deleted one `qconf -drqs NAME`, each the request qconf
sends, judged by the master. `/quotas/check` parses the editor's text with the RQS
grammar as the user types, so a syntax error shows at its line before anything is sent."""

from __future__ import annotations

import socket
from typing import Any
from urllib.parse import urlencode

from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse, Response
from starlette.routing import Route

from gridd import protocol as p
from gridd.cli import qquota
from gridd.client import GriddError
from gridd.formats.parsing import FormatError
from gridd.formats.rqs import parse_rule_sets, print_rule_set, template
from gridd.web.context import call, login_of, render, wants_fragment

# The name the editor's text travels under, as qconf names the file it sends.
FILE = "web-rqs"


def rule_sets(lines: list[str]) -> list[tuple[str, str]]:
    """(name, text) of each set in qconf -srqs's lines, each printed as qconf prints it."""
    return [(rule_set.name, print_rule_set(rule_set))
            for rule_set in parse_rule_sets("".join(line + "\n" for line in lines))]


def check(text: str) -> dict[str, Any]:
    """The grammar's verdict on an editor's text: ok, or the first error's place."""
    try:
        parse_rule_sets(text.replace("\r\n", "\n"), source="rqs")
    except FormatError as exc:
        message = exc.message + (f"; expected {', '.join(exc.expected)}" if exc.expected
                                 else "")
        return {"ok": False, "line": exc.line, "column": exc.column, "message": message}
    return {"ok": True}


async def _qconf(request: Request, argv: list[str], files: dict[str, str] | None = None
                 ) -> p.QconfReply:
    """qconf's request of these arguments, as the login's user."""
    user = login_of(request).user
    return await call(request, lambda client: client.request(
        p.Qconf(argv=argv, files=files or {}, user=user, host=socket.gethostname())))


async def _listing(request: Request) -> dict[str, Any]:
    """Every set as qconf -srqs prints it and the login's qquota rows."""
    user = login_of(request).user
    try:
        shown = await _qconf(request, ["-srqs"])
        usage = await call(request, lambda client: client.request(
            p.QueryQuota(users=[user])))
    except GriddError as exc:
        return {"sets": [], "usage": [], "error": exc.text}
    rows = [(row.rule, f"{row.resource}={qquota.amount(row)}/{row.limit}",
             qquota.filter_text(row)) for row in usage.rows]
    return {"sets": rule_sets(shown.out) if not shown.code else [], "usage": rows,
            "error": ""}


async def _page(request: Request, status: int = 200, text: str | None = None,
                name: str = "", message: str = "") -> Response:
    listing = await _listing(request)
    if wants_fragment(request):
        return render(request, "quotas_live.html", **listing)
    if text is None:  # a set's text to change, or qconf -arqs's template of a new one
        name = request.query_params.get("name", "")
        text = dict(listing["sets"]).get(name) or template(["template"])
        name = name if name in dict(listing["sets"]) else ""
    return render(request, "quotas.html", status, text=text, name=name, message=message,
                  done=request.query_params.get("done", ""), **listing)


async def quotas(request: Request) -> Response:
    return await _page(request)


def _answer(reply: p.QconfReply) -> str:
    return "\n".join([*reply.out, *reply.err])


async def save(request: Request) -> Response:
    """A new set (-Arqs) or a change of the set `name` (-Mrqs FILE NAME)."""
    form = await request.form()
    text = str(form.get("text", "")).replace("\r\n", "\n")
    name = str(form.get("name", "")).strip()
    argv = ["-Mrqs", FILE, name] if name else ["-Arqs", FILE]
    try:
        reply = await _qconf(request, argv, {FILE: text})
    except GriddError as exc:
        return await _page(request, 400, text, name, exc.text)
    if reply.code:
        return await _page(request, 400, text, name, _answer(reply))
    return RedirectResponse(f"/quotas?{urlencode({'done': _answer(reply)})}",
                            status_code=303)


async def delete(request: Request) -> Response:
    """qconf -drqs NAME."""
    form = await request.form()
    name = str(form.get("name", "")).strip()
    if not name:
        return await _page(request, 400, message="error: no resource quota set named")
    try:
        reply = await _qconf(request, ["-drqs", name])
    except GriddError as exc:
        return await _page(request, 400, message=exc.text)
    if reply.code:
        return await _page(request, 400, message=_answer(reply))
    return RedirectResponse(f"/quotas?{urlencode({'done': _answer(reply)})}",
                            status_code=303)


async def check_text(request: Request) -> Response:
    form = await request.form()
    return JSONResponse(check(str(form.get("text", ""))))


ROUTES = [
    Route("/quotas", quotas, methods=["GET"]),
    Route("/quotas", save, methods=["POST"]),
    Route("/quotas/check", check_text, methods=["POST"]),
    Route("/quotas/delete", delete, methods=["POST"]),
]

"""`/quotas`: the resource quota sets as `qconf -srqs` prints them, qquota's usage beside
them, and an editor of one set in qconf's own syntax. As the user types, the page asks
`/quotas/check`, which parses the text with the same grammar qconf's files go through
(gridd.formats.rqs) and answers where it fails, so the error is shown at its line before
anything is sent; saving sends qconf's -Arqs (a new set) or -Mrqs (a set changed), and
the master judges the rest (complexes, rights) as it does for qconf."""

from __future__ import annotations

from urllib.parse import urlencode

from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse, Response
from starlette.routing import Route

from gridd import protocol as p
from gridd.cli.qquota import amount, filter_text
from gridd.client import GriddError
from gridd.formats.parsing import FormatError
from gridd.formats.rqs import parse_rule_sets, print_rule_set, template
from gridd.model.rqs import RuleSet
from gridd.web.context import call, qconf, render, wants_fragment

RQS_FILE = "resource_quota_set"  # the name the editor's text travels under, as a file
SOURCE = "the editor"


def problem(text: str) -> FormatError | None:
    """Where and why the text is no resource quota set; None when the grammar takes it."""
    try:
        parse_rule_sets(text, source=SOURCE)
    except FormatError as exc:
        return exc
    return None


async def _sets(request: Request) -> list[RuleSet]:
    reply = await qconf(request, ["-srqs"])
    return parse_rule_sets("\n".join(reply.out) + "\n") if reply.code == 0 else []


async def _usage(request: Request) -> list[tuple[str, str, str]]:
    reply = await call(request, lambda client: client.request(p.QueryQuota(users=["*"])))
    return [(row.rule, f"{row.resource}={amount(row)}/{row.limit}", filter_text(row))
            for row in reply.rows]


async def _page(request: Request, text: str, original: str, status: int = 200,
                error: str = "", sets: list[RuleSet] | None = None) -> Response:
    """The page (`sets`: as already read, else read here), or its live part alone."""
    usage = await _usage(request)
    if wants_fragment(request):
        return render(request, "quotas_live.html", usage=usage)
    if sets is None:
        sets = await _sets(request)
    return render(request, "quotas.html", status, usage=usage, text=text, original=original,
                  error=error, sets=[(s.name, print_rule_set(s)) for s in sets])


async def quotas(request: Request) -> Response:
    if wants_fragment(request):  # the usage alone: the sets are not read
        return await _page(request, "", "")
    editing = request.query_params.get("edit", "")
    sets = await _sets(request)
    found = next((rule_set for rule_set in sets if rule_set.name == editing), None)
    if found is not None:
        return await _page(request, print_rule_set(found), editing, sets=sets)
    return await _page(request, template(["new_set"]), "", sets=sets)


async def check(request: Request) -> Response:
    """POST /quotas/check: the grammar's verdict on the text, as JSON."""
    form = await request.form()
    found = problem(str(form.get("text", "")))
    if found is None:
        return JSONResponse({"ok": True})
    return JSONResponse({"ok": False, "line": found.line, "column": found.column,
                         "message": found.message})


def _done(lines: list[str]) -> Response:
    return RedirectResponse(f"/quotas?{urlencode({'done': chr(10).join(lines)})}",
                            status_code=303)


async def save(request: Request) -> Response:
    """POST /quotas: the editor's text as a new set (-Arqs), or as the new version of the
    set `original` (-Mrqs FILE original)."""
    form = await request.form()
    text = str(form.get("text", "")).replace("\r\n", "\n")
    original = str(form.get("original", ""))
    found = problem(text)
    if found is not None:
        return await _page(request, text, original, 400, f"line {found.line}: {found.message}")
    argv = ["-Mrqs", RQS_FILE, original] if original else ["-Arqs", RQS_FILE]
    try:
        reply = await qconf(request, argv, {RQS_FILE: text})
    except GriddError as exc:
        return await _page(request, text, original, 400, exc.text)
    if reply.code:
        return await _page(request, text, original, 400, "\n".join([*reply.err, *reply.out]))
    return _done([*reply.err, *reply.out])


async def delete(request: Request) -> Response:
    """POST /quotas/delete: qconf -drqs NAME."""
    form = await request.form()
    name = str(form.get("name", "")).strip()
    reply = await qconf(request, ["-drqs", name]) if name else None
    if reply is None or reply.code:
        text = "\n".join([*reply.err, *reply.out]) if reply else "error: which set? (no name)"
        return await _page(request, template(["new_set"]), "", 400, text)
    return _done([*reply.err, *reply.out])


ROUTES = [
    Route("/quotas", quotas, methods=["GET"]),
    Route("/quotas", save, methods=["POST"]),
    Route("/quotas/check", check, methods=["POST"]),
    Route("/quotas/delete", delete, methods=["POST"]),
]

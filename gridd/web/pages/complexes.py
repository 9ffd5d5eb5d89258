"""`/complexes`: the complex table as `qconf -sc` shows it, and an editor of one row that
offers only what the core accepts (gridd.model.complexes.editor_choices: the operators
of each type, consumables only of the types that can be one, a default only for a
consumable). Saving sends the whole table with the row changed, as `qconf -Mc` does, and
the master judges it: its refusal is shown with the row as it was filled in."""

from __future__ import annotations

import json
from urllib.parse import urlencode

from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import Route

from gridd.formats.complex_table import (
    ComplexRow,
    column_problem,
    parse_complex_table,
    print_complex_table,
)
from gridd.model.complexes import CONSUMABLE, REQUESTABLE, TYPES, editor_choices, no_default
from gridd.web.context import qconf, render

CHOICES = editor_choices()
TABLE_FILE = "complex_table"  # the name the table travels under, as qconf -Mc's file


async def _table(request: Request) -> list[ComplexRow]:
    reply = await qconf(request, ["-sc"])
    return parse_complex_table("\n".join(reply.out) + "\n")


def row_of(form: dict[str, str]) -> ComplexRow:
    """The row the editor's fields say; a row that is no consumable has no default."""
    values = {field: form.get(field, "").strip() for field in ComplexRow._fields}
    if values["consumable"] == "NO":
        values["default"] = no_default(values["type"])
    return ComplexRow(**values)


def changed(rows: list[ComplexRow], name: str, row: ComplexRow | None) -> list[ComplexRow]:
    """The table with the row called `name` replaced by `row` (added when there is none;
    removed when `row` is None)."""
    kept = [old for old in rows if old.name != name]
    if row is None:
        return kept
    where = next((i for i, old in enumerate(rows) if old.name == name), len(kept))
    return [*kept[:where], row, *kept[where:]]


def _page(request: Request, rows: list[ComplexRow], values: dict[str, str], status: int = 200,
          error: str = "") -> Response:
    return render(request, "complexes.html", status, rows=rows, values=values, error=error,
                  types=TYPES, requestable=REQUESTABLE, consumable=CONSUMABLE,
                  choices=CHOICES, choices_json=json.dumps(CHOICES))


async def complexes(request: Request) -> Response:
    rows = await _table(request)
    editing = request.query_params.get("edit", "")
    row = next((r for r in rows if r.name == editing), None)
    values = row._asdict() if row else {"type": "INT", "relop": "<=", "requestable": "YES",
                                        "consumable": "NO", "default": "0", "urgency": "0"}
    return _page(request, rows, {**values, "original": editing if row else ""})


async def _send(request: Request, rows: list[ComplexRow], new: list[ComplexRow],
                values: dict[str, str]) -> Response:
    reply = await qconf(request, ["-Mc", TABLE_FILE], {TABLE_FILE: print_complex_table(new)})
    if reply.code:
        return _page(request, rows, values, 400, "\n".join(reply.err or reply.out))
    done = "\n".join(reply.out) or "the complex table is unchanged"
    return RedirectResponse(f"/complexes?{urlencode({'done': done})}", status_code=303)


async def save(request: Request) -> Response:
    """POST /complexes: a row added, or the row `original` changed (renamed too)."""
    form = await request.form()
    values = {key: str(value) for key, value in form.items() if key != "csrf"}
    rows = await _table(request)
    row = row_of(values)
    problem = column_problem(row)
    if problem is not None:  # the table's text could not say it: nothing is sent
        return _page(request, rows, values, 400, problem)
    return await _send(request, rows, changed(rows, values.get("original") or row.name, row),
                       values)


async def delete(request: Request) -> Response:
    """POST /complexes/delete: the row `name` removed."""
    form = await request.form()
    name = str(form.get("name", ""))
    rows = await _table(request)
    if not any(row.name == name for row in rows):
        return _page(request, rows, {}, 404, f'error: no complex attribute "{name}"')
    return await _send(request, rows, changed(rows, name, None), {})


ROUTES = [
    Route("/complexes", complexes, methods=["GET"]),
    Route("/complexes", save, methods=["POST"]),
    Route("/complexes/delete", delete, methods=["POST"]),
]

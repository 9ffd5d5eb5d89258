"""`/reports`: the named SQL reports (reports/*.sql) with their charts, the page `gridd
report --html` writes, made afresh for each visit with the login's own queries of the
reporting database (DbQuery, as the login's user). The page is its own document, shown
in a frame of /reports; the URL's query string gives the reports' parameters, as
`--param K=V` does."""

from __future__ import annotations

from datetime import UTC, datetime
from urllib.parse import urlencode

from starlette.requests import Request
from starlette.responses import HTMLResponse, Response
from starlette.routing import Route

from gridd import paths
from gridd import protocol as p
from gridd.client import Client, GriddError
from gridd.web.context import call, render, state_of


def _given(request: Request) -> dict[str, str]:
    """The reports' parameters the URL gives; a field left empty gives none."""
    return {name: value for name, value in request.query_params.items() if value}


async def reports(request: Request) -> Response:
    """The frame of the reports' page, under a form of every parameter a report takes."""
    from gridd.accounting import report_catalog

    fields: dict[str, report_catalog.Param] = {}
    for report in report_catalog.load().values():
        for param in report.params:
            fields.setdefault(param.name, param)
    given = _given(request)
    query = urlencode(given)
    return render(request, "reports.html", fields=fields.values(), given=given,
                  frame=f"/reports/page{'?' + query if query else ''}")


async def page(request: Request) -> Response:
    """The reports' page itself: every report that has the values it needs, run."""
    from gridd.accounting import report_catalog, report_html
    from gridd.accounting.query import QueryError, Result, result_of

    params = _given(request)
    catalog = report_catalog.load()
    unknown = report_html.unknown_params(catalog, params)
    if unknown:
        return render(request, "refused.html", 400,
                      text=f"error: no report takes the parameter {', '.join(unknown)}")

    def sections(client: Client) -> list[report_html.Section]:
        def run(report: report_catalog.Report, own: dict[str, str]) -> Result:
            query = p.DbQuery(sql=report.sql, params=report.bind(own))
            try:
                return result_of(client.request(query, timeout=None))
            except QueryError as exc:  # the database's; the master's refusal goes as is
                raise QueryError(f"{report.name}: {exc}") from None

        return report_html.sections(catalog, params, run)

    try:
        done = await call(request, sections)
    except QueryError as exc:
        return render(request, "refused.html", 400, text=str(exc))
    except GriddError as exc:
        return render(request, "refused.html", 400, text=exc.text)
    text = report_html.render(done, source=str(paths.reporting_db(state_of(request).base)),
                              generated=datetime.now(UTC))
    return HTMLResponse(text)


ROUTES = [
    Route("/reports", reports, methods=["GET"]),
    Route("/reports/page", page, methods=["GET"]),
]

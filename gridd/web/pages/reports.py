"""`/reports`: the named SQL reports (reports/*.sql) with their charts, the page `gridd
report --html` writes, made afresh for each visit with the login's own queries of the
reporting database (DbQuery, as the login's user). The page is its own document, shown
in a frame of /reports; the URL's query string gives the reports' parameters, as
`--param K=V` does."""

from __future__ import annotations

from datetime import UTC, datetime

from starlette.requests import Request
from starlette.responses import HTMLResponse, Response
from starlette.routing import Route

from gridd import paths
from gridd import protocol as p
from gridd.client import GriddError
from gridd.web.context import call, render, state_of


async def reports(request: Request) -> Response:
    query = request.url.query
    return render(request, "reports.html", frame=f"/reports/page{'?' + query if query else ''}")


async def page(request: Request) -> Response:
    """The reports' page itself: every report that has the values it needs, run."""
    from gridd.accounting import report_catalog, report_html
    from gridd.accounting.query import QueryError, result_of

    params = dict(request.query_params)
    catalog = report_catalog.load()
    declared = {param.name for report in catalog.values() for param in report.params}
    unknown = sorted(set(params) - declared)
    if unknown:
        return render(request, "refused.html", 400,
                      text=f"error: no report takes the parameter {', '.join(unknown)}")
    sections = []
    for report in catalog.values():
        own = {k: v for k, v in params.items() if k in {param.name for param in report.params}}
        missing = report.needs(own)
        result = None
        if not missing:
            query = p.DbQuery(sql=report.sql, params=report.bind(own))
            try:
                result = result_of(await call(
                    request, lambda client, q=query: client.request(q, timeout=None)))
            except (QueryError, GriddError) as exc:
                return render(request, "refused.html", 400, text=f"{report.name}: {exc}")
        sections.append(report_html.Section(report, result, missing))
    text = report_html.render(sections, source=str(paths.reporting_db(state_of(request).base)),
                              generated=datetime.now(UTC))
    return HTMLResponse(text)


ROUTES = [
    Route("/reports", reports, methods=["GET"]),
    Route("/reports/page", page, methods=["GET"]),
]

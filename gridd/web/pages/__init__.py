"""The pages, a module each with its ROUTES; templates/ has a template of the same name."""

from __future__ import annotations

from gridd.web.pages import (
    complexes,
    hosts,
    jobs,
    overview,
    quotas,
    reports,
    reservations,
    submit,
)

PAGES = [overview, complexes, hosts, jobs, quotas, reports, reservations, submit]

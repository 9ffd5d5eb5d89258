"""Every named report of reports/, run on a database of real Grid Engine 8.1.9 records
plus synthetic ones (tests/report_db.py), returns the rows it should.

The synthetic half (spring 2025) is checked against figures worked out by hand; the real
half (November 2026) against the same figures computed in Python from the accounting
file itself, an oracle that shares nothing with the SQL.
"""

from __future__ import annotations

import math
from collections import defaultdict
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from gridd.accounting import report_catalog
from gridd.accounting.record import AccountingRecord
from tests import report_db
from tests.report_db import T0, A, B, C

REAL = report_db.real_records()
REAL_MONTH = date(2026, 11, 1)
REAL_DAY = date(2026, 11, 22)


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("cell")
    report_db.build(root)
    return root


def run(base: Path, name: str, **params: str) -> list[tuple[Any, ...]]:
    return report_catalog.run(report_catalog.find(name), params, base).rows


def ts(epoch: int) -> datetime:
    """The database's form of a time: naive UTC."""
    return datetime.fromtimestamp(epoch, UTC).replace(tzinfo=None)


def approx_rows(rows: list[tuple[Any, ...]]) -> list[tuple[Any, ...]]:
    return [tuple(pytest.approx(v) if isinstance(v, float) else v for v in row)
            for row in rows]


def sums(records: list[AccountingRecord]) -> tuple[int, int, float, float, float]:
    """jobs, wallclock, cpu, mem, io as the accounting reports add them up."""
    return (sum(r.pe_taskid == "NONE" for r in records), sum(r.ru_wallclock for r in records),
            sum(r.cpu for r in records), sum(r.mem for r in records),
            sum(r.io for r in records))


def real_by(key: str) -> list[tuple[Any, ...]]:
    groups: dict[str, list[AccountingRecord]] = defaultdict(list)
    for rec in REAL:
        groups[getattr(rec, key)].append(rec)
    return [(REAL_MONTH, name, *sums(recs)) for name, recs in sorted(groups.items())]


def test_the_catalogue_holds_the_reports_the_issue_asks_for() -> None:
    names = set(report_catalog.load())
    assert names == {
        "ar_accounting", "ar_attributes", "ar_log", "ar_time_usage", "ar_by_user",
        "ar_jobs_completed", "accounting_per_user", "accounting_per_project",
        "accounting_per_department", "accounting_per_queue", "host_usage",
        "wait_time_percentiles", "wait_time_distribution", "job_counts", "slots_in_use",
        "config_history"}


def test_accounting_per_user(base: Path) -> None:
    assert run(base, "accounting_per_user") == approx_rows([
        (date(2025, 3, 1), "alice", 2, 6040, 12050.0, 43.0, 3.75),
        (date(2025, 3, 1), "bob", 1, 100, 10.0, 0.5, 0.0),
        (date(2025, 4, 1), "carol", 2, 2400, 2290.0, 13.0, 1.5),
        (date(2025, 4, 1), "dave", 1, 900, 800.0, 4.0, 0.2),
        *real_by("owner")])


def test_accounting_per_user_by_day_since(base: Path) -> None:
    rows = run(base, "accounting_per_user", period="day", since="2025-04-01")
    assert [row[:3] for row in rows] == [
        (date(2025, 4, 20), "carol", 2), (date(2025, 4, 21), "dave", 1),
        *[(REAL_DAY, name, jobs) for _, name, jobs, *_ in real_by("owner")]]


def test_accounting_per_project(base: Path) -> None:
    assert run(base, "accounting_per_project") == approx_rows([
        (date(2025, 3, 1), "projA", 2, 6040, 12050.0, 43.0, 3.75),
        (date(2025, 3, 1), "projB", 1, 100, 10.0, 0.5, 0.0),
        (date(2025, 4, 1), "projA", 2, 2400, 2290.0, 13.0, 1.5),
        (date(2025, 4, 1), "projB", 1, 900, 800.0, 4.0, 0.2),
        *real_by("project")])


def test_accounting_per_department_by_year(base: Path) -> None:
    assert run(base, "accounting_per_department", period="year") == approx_rows([
        (date(2025, 1, 1), "dept1", 4, 8440, 14340.0, 56.0, 5.25),
        (date(2025, 1, 1), "dept2", 2, 1000, 810.0, 4.5, 0.2),
        *[(date(2026, 1, 1), *row[1:]) for row in real_by("department")]])


def test_accounting_per_queue(base: Path) -> None:
    assert run(base, "accounting_per_queue") == approx_rows([
        (date(2025, 3, 1), "long.q", 1, 5980, 12000.0, 41.0, 3.25),
        (date(2025, 3, 1), "short.q", 2, 160, 60.0, 2.5, 0.5),
        (date(2025, 4, 1), "long.q", 2, 2400, 2290.0, 13.0, 1.5),
        (date(2025, 4, 1), "short.q", 1, 900, 800.0, 4.0, 0.2),
        *real_by("qname")])


def test_host_usage(base: Path) -> None:
    _, jobs, wallclock, cpu, _, _ = real_by("hostname")[0][1:]
    assert run(base, "host_usage") == approx_rows([
        ("h1", 5, 3460, 3150.0, 3150 / 3460),
        ("h2", 1, 5980, 12000.0, 12000 / 5980),
        ("vm", jobs, wallclock, cpu, cpu / wallclock)])


def test_job_counts(base: Path) -> None:
    ok = sum(r.failed == 0 and r.exit_status == 0 for r in REAL)
    failed = sum(r.failed != 0 for r in REAL)
    assert run(base, "job_counts") == [
        (date(2025, 3, 1), 4, 2, 1, 1),  # bob's never-started job counts as failed
        (date(2025, 4, 1), 3, 3, 0, 0),
        (REAL_MONTH, len(REAL), ok, failed, len(REAL) - ok - failed)]


def _real_waits() -> list[int]:
    return [r.start_time - r.submission_time for r in REAL]


def _bins(waits: list[int]) -> list[int]:
    edges = [10, 60, 600, 3600, 21600, 86400]
    counts = [0] * 7
    for wait in waits:
        counts[sum(wait >= edge for edge in edges)] += 1
    return counts


LABELS = ["< 10 s", "10 s - 1 min", "1 - 10 min", "10 min - 1 h", "1 - 6 h", "6 - 24 h",
          ">= 1 day"]
SYNTHETIC_WAITS = {"projA": [5, 600, 30, 1830], "projB": [7200, 10]}


def test_wait_time_distribution(base: Path) -> None:
    synthetic = [1, 2, 0, 2, 1, 0, 0]  # 5 s | 10 s, 30 s | 600 s, 1830 s | 7200 s
    real = _bins(_real_waits())
    assert run(base, "wait_time_distribution") == [
        (label, s + r) for label, s, r in zip(LABELS, synthetic, real, strict=True)]
    assert run(base, "wait_time_distribution", since="2026-01-01") == list(
        zip(LABELS, real, strict=True))


def _percentiles(name: str, waits: list[int]) -> tuple[Any, ...]:
    """Nearest rank: the smallest wait at or above the fraction q of the jobs."""
    ordered = sorted(waits)

    def rank(q: float) -> int:
        return ordered[math.ceil(q * len(ordered)) - 1]

    return (name, len(ordered), pytest.approx(sum(ordered) / len(ordered)), rank(0.5),
            rank(0.9), rank(0.99), ordered[-1])


def test_wait_time_percentiles(base: Path) -> None:
    real = _real_waits()
    every = real + SYNTHETIC_WAITS["projA"] + SYNTHETIC_WAITS["projB"]
    assert run(base, "wait_time_percentiles") == [
        _percentiles("NONE", real),
        ("projA", 4, pytest.approx(616.25), 30, 1830, 1830, 1830),
        ("projB", 2, pytest.approx(3605.0), 10, 7200, 7200, 7200),
        _percentiles("(all)", every)]


def _real_steps() -> list[tuple[datetime, str, int]]:
    deltas: dict[int, int] = defaultdict(int)
    for rec in REAL:
        deltas[rec.start_time] += rec.slots
        deltas[rec.end_time] -= rec.slots
    level, steps = 0, []
    for time in sorted(deltas):
        level += deltas[time]
        steps.append((ts(time), "all.q", level))
    return steps


def test_slots_in_use(base: Path) -> None:
    assert run(base, "slots_in_use") == [
        (ts(T0 + 5), "short.q", 1), (ts(T0 + 65), "short.q", 0),
        (ts(T0 + 700), "long.q", 4),  # the slave task's record holds no slots of its own
        (ts(T0 + 3700), "long.q", 0),
        (ts(T0 + 7400), "short.q", 2), (ts(T0 + 7500), "short.q", 0),
        (ts(A), "long.q", 1), (ts(A + 1800), "long.q", 1),  # task 2 starts as task 1 ends
        (ts(A + 2400), "long.q", 0),
        (ts(B), "short.q", 1), (ts(B + 900), "short.q", 0),
        *_real_steps()]


def _real_ar(ar: int) -> AccountingRecord:
    (rec,) = [r for r in REAL if r.arid == ar]
    return rec


def test_ar_accounting(base: Path) -> None:
    real = [(REAL_MONTH, ar, _real_ar(ar).cpu, _real_ar(ar).mem, _real_ar(ar).io)
            for ar in (1, 2, 12)]
    assert run(base, "ar_accounting") == approx_rows([
        (date(2025, 4, 1), 101, 2290.0, 13.0, 1.5),
        (date(2025, 4, 1), 102, 800.0, 4.0, 0.2),
        *real])
    assert run(base, "ar_accounting", since="2026-01-01") == approx_rows(real)


def test_ar_jobs_completed(base: Path) -> None:
    assert run(base, "ar_jobs_completed") == [
        (date(2025, 4, 20), 101, 2), (date(2025, 4, 21), 102, 1),
        (REAL_DAY, 1, 1), (REAL_DAY, 2, 1), (REAL_DAY, 12, 1)]


def test_ar_attributes(base: Path) -> None:
    assert run(base, "ar_attributes", ar_number="101") == [
        (101, "carol", ts(A - 3600), "nightly", "sge", ts(A), ts(A + 7200), "NONE")]
    # the real AR of the 8.1.9 run: qrsub -N small -pe smp ... -d 40
    assert run(base, "ar_attributes", ar_number="12") == [
        (12, "root", ts(1795327215), "small", "sge", ts(1795327215), ts(1795327255), "smp")]
    assert run(base, "ar_attributes", ar_number="999") == []


def test_ar_log(base: Path) -> None:
    assert run(base, "ar_log", ar_number="102") == [
        (102, ts(B), "START TIME REACHED", "r", "start time of AR reached"),
        (102, ts(B + 1000), "DELETED", "d", "AR deleted")]
    assert [row[2] for row in run(base, "ar_log", ar_number="12")] == [
        "START TIME REACHED", "TERMINATED"]


def test_ar_time_usage_only_for_ars_that_reached_their_end(base: Path) -> None:
    s = timedelta(seconds=1)
    assert run(base, "ar_time_usage") == [
        (12, 5 * s, 40 * s, 35 * s),  # job 40 ran 5 s of the 40 s AR
        (101, 2400 * s, 7200 * s, 4800 * s),  # both array tasks count
        (103, None, 1800 * s, 1800 * s)]  # no job: all of it unused; 102 was deleted


def test_ar_by_user(base: Path) -> None:
    assert run(base, "ar_by_user", ar_owner="carol") == [(101, ts(A - 3600)),
                                                         (102, ts(B - 7200))]
    assert run(base, "ar_by_user", ar_owner="dave") == [(103, ts(C - 100))]
    assert run(base, "ar_by_user", ar_owner="root") == [(12, ts(1795327215))]

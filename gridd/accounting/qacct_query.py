"""What a qacct command line asks for, as SQL over the `accounting` relation.

The relation has the accounting(5) columns in file order (times as UTC TIMESTAMP, NULL
where the file has 0). The reporting database offers it, and `qacct -f` builds the same
relation over a file (qacct_file.py), so one set of queries answers both: DuckDB does the
selecting and summing, Python only renders the few rows that come back, or the job
records that were asked for.
"""

from __future__ import annotations

import re
from itertools import pairwise
from typing import Any

import msgspec

from gridd.model.values import is_unsigned


class Key(msgspec.Struct, frozen=True):
    """A column of a summary table (render.render_summary). `asked` is the value the
    command line named for it: GE counts it in the column's width, and a column counts
    as chosen by value (which narrows the number columns SLOTS and AR) only when it has
    one."""

    title: str
    kind: str  # "text", or "slots" / "ar" for those number columns
    asked: str | None


class Grouping(msgspec.Struct, frozen=True):
    """A column the summary can be broken down by, with the option that asks for it."""

    option: str
    title: str
    column: str
    kind: str = "text"  # "slots" and "ar" are numbers, printed as GE prints them


# In the order GE prints them when several are asked for.
GROUPINGS = (
    Grouping("h", "HOST", "hostname"),
    Grouping("q", "CLUSTER QUEUE", "qname"),
    Grouping("g", "GROUP", '"group"'),
    Grouping("o", "OWNER", "owner"),
    Grouping("P", "PROJECT", "project"),
    Grouping("D", "DEPARTMENT", "department"),
    Grouping("pe", "PE", "granted_pe"),
    Grouping("slots", "SLOTS", "slots", "slots"),
    Grouping("ar", "AR", "arid", "ar"),
    Grouping("A", "ACCOUNT", "account"),
)
_BY_OPTION = {g.option: g for g in GROUPINGS}


class TaskRange(msgspec.Struct, frozen=True):
    """`-t first[-last[:step]]`: the array tasks asked for."""

    first: int
    last: int
    step: int = 1

    def __str__(self) -> str:
        return f"{self.first}-{self.last}:{self.step}"


class Request(msgspec.Struct):
    """A qacct command line, parsed: which records, and how to show them."""

    # grouping option -> the value asked for, or None to show every value
    groups: dict[str, str | None] = msgspec.field(default_factory=dict)
    job: str | None = None  # -j: None when not given, "" for every job
    tasks: tuple[TaskRange, ...] = ()
    begin: int | None = None  # epoch seconds, both ends included
    end: int | None = None
    by_end: bool = False  # -E: the time window applies to end_time, not start_time
    master_only: bool = False  # -m
    resources: tuple[str, ...] = ()  # -l items as a category writes them: "name=value" or "name"


class QacctError(Exception):
    """A question that cannot be answered: `stderr` says why, after `stdout` (GE's qacct
    prints "no jobs running since startup" on stdout when it finds no accounting file)."""

    def __init__(self, stderr: str, stdout: str = "") -> None:
        super().__init__(stderr)
        self.stderr = stderr
        self.stdout = stdout


class Query(msgspec.Struct, frozen=True):
    sql: str
    params: list[Any]


def job_is_id(job: str) -> bool:
    """`-j 47` names job 47; anything else is a job name pattern."""
    return is_unsigned(job)


def _filters(req: Request) -> Query:
    """The WHERE clause selecting the records `req` is about."""
    terms: list[str] = []
    params: list[Any] = []
    for option, value in req.groups.items():
        if value is None:
            continue
        grouping = _BY_OPTION[option]
        if option == "h":
            terms.append("lower(hostname) = lower(?)")
        elif option == "q":  # a cluster queue, or with '@' a queue instance; patterns allowed
            terms.append("qname || '@' || hostname GLOB ?" if "@" in value else "qname GLOB ?")
        else:
            terms.append(f"{grouping.column} = ?")
        params.append(int(value) if grouping.kind != "text" else value)
    if req.job:
        terms.append("job_number = ?" if job_is_id(req.job) else "job_name GLOB ?")
        params.append(int(req.job) if job_is_id(req.job) else req.job)
    if req.tasks:
        terms.append(
            "(" + " OR ".join(
                "(task_number BETWEEN ? AND ? AND (task_number - ?) % ? = 0)" for _ in req.tasks
            ) + ")"
        )
        for r in req.tasks:
            params += [r.first, r.last, r.first, r.step]
    column = "end_time" if req.by_end else "start_time"
    if req.begin is not None:  # a job that never started (NULL) did not start after anything
        terms.append(f"{column} >= make_timestamp(?)")
        params.append(req.begin * 1_000_000)
    if req.end is not None:
        terms.append(f"({column} IS NULL OR {column} <= make_timestamp(?))")
        params.append(req.end * 1_000_000)
    if req.master_only:
        terms.append("pe_taskid = 'NONE'")
    for item in req.resources:
        terms.append("regexp_matches(category, ?)")
        params.append(_resource_pattern(item))
    return Query(" AND ".join(terms) or "true", params)


def _resource_pattern(item: str) -> str:
    """A regular expression finding `item` in the category's `-l` list; a bare name
    matches that resource requested with any value."""
    name, has_value, _ = item.partition("=")
    wanted = re.escape(item) if has_value else re.escape(name) + "(?:=[^, ]*)?"
    return rf"(?:^| )-l (?:[^ ]*,)?{wanted}(?:,| |$)"


def _shown(req: Request) -> list[Grouping]:
    """The summary's columns: those asked for, and the host beside a queue asked for."""
    shown = set(req.groups)
    if req.groups.get("q") is not None:
        shown.add("h")
    return [g for g in GROUPINGS if g.option in shown]


def summary_keys(req: Request) -> list[Key]:
    # a queue asked for is a pattern, and GE shows the queues found, not the pattern
    return [
        Key(g.title, g.kind, None if g.option == "q" else req.groups.get(g.option))
        for g in _shown(req)
    ]


# Sums of the six decimals the file holds, exact: in whatever order DuckDB adds them up,
# the figures come out the same (GE adds doubles in file order; on a million records its
# last digit drifts from the exact one). Records are counted by a column a line that is
# not a record leaves NULL.
_USAGE = ", ".join([
    "count(qname)::BIGINT",
    "sum(ru_wallclock)::BIGINT",
    *(f"sum({column}::DECIMAL(38, 6))::DOUBLE"
      for column in ("ru_utime", "ru_stime", "cpu", "mem", "io", "iow")),
])


def _where(req: Request, unreadable: bool) -> Query:
    """The filters; lines that are not records pass when the relation names them."""
    where = _filters(req)
    return Query(f"unreadable IS NOT NULL OR ({where.sql})", where.params) if unreadable else where


def summary_query(req: Request, unreadable: bool = False) -> Query:
    """Rows of (*keys, records, wallclock, utime, stime, cpu, mem, io, iow), sorted by
    the keys; without keys one row of totals. A row may count no record (drop it), and
    with `unreadable` each row ends with the list of lines that were not records."""
    selected, grouped = [], []
    for position, g in enumerate(_shown(req), 1):
        if g.option == "h" and req.groups.get("h") is not None:
            # the host asked for, spelt as stored: matched without regard to case
            selected.append("min(hostname)")
        else:
            selected.append(g.column)
            grouped.append(str(position))
    columns = [*selected, _USAGE]
    if unreadable:
        columns.append("list(unreadable) FILTER (WHERE unreadable IS NOT NULL)")
    where = _where(req, unreadable)
    sql = f"SELECT {', '.join(columns)} FROM accounting WHERE {where.sql}"
    if grouped:
        sql += f" GROUP BY {', '.join(grouped)}"
    if selected:
        sql += f" ORDER BY {', '.join(str(n) for n in range(1, len(selected) + 1))}"
    return Query(sql, where.params)


# A database keeps no order of lines: the nearest to the order records were accounted in
# is the order jobs ended in (records of one second by job, task and host).
DATABASE_ORDER = "ORDER BY end_time, job_number, task_number, pe_taskid, hostname"


class Ended(msgspec.Struct, frozen=True):
    """Records by their end time in epoch seconds: from `start` (included) to `stop`
    (excluded; None: no bound); with `start` None, the records that have no end time."""

    start: int | None
    stop: int | None = None


def listing_query(
    req: Request, fields: tuple[str, ...], *, order: str = "", unreadable: bool = False,
    ended: Ended | None = None,
) -> Query:
    """The records asked for with -j, `fields` in the order of an AccountingRecord, times
    as epoch seconds, those that `ended` says only; `order` is the source's ORDER BY for
    the order records were accounted in (empty when the relation is in that order
    already). With `unreadable`, rows end with the line when it was not a record (and
    then only that counts)."""
    from gridd.accounting.record import TIME_FIELDS  # a listing loads it anyway; not -help

    columns = [
        f"coalesce(epoch({name})::BIGINT, 0)" if name in TIME_FIELDS else f'"{name}"'
        for name in fields
    ]
    if unreadable:
        columns.append("unreadable")
    where = _where(req, unreadable)
    if ended is not None:
        within = _within(ended)
        where = Query(f"({where.sql}) AND {within.sql}", [*where.params, *within.params])
    return Query(f"SELECT {', '.join(columns)} FROM accounting WHERE {where.sql} {order}",
                 where.params)


def _within(ended: Ended) -> Query:
    if ended.start is None:
        return Query("end_time IS NULL", [])
    if ended.stop is None:
        return Query("end_time >= make_timestamp(?)", [ended.start * 1_000_000])
    return Query("end_time >= make_timestamp(?) AND end_time < make_timestamp(?)",
                 [ended.start * 1_000_000, ended.stop * 1_000_000])


def cuts_query(req: Request, size: int) -> Query:
    """End times (epoch seconds, ascending) that cut the records asked for with -j into
    stretches of about `size` records, in the database's order; NULL last when some have
    no end time. Each stretch is then one query that sorts only its own records, where
    LIMIT and OFFSET would sort all of them again for every page."""
    where = _filters(req)
    return Query(
        "SELECT DISTINCT epoch(end_time)::BIGINT AS cut FROM ("
        "SELECT end_time, row_number() OVER (PARTITION BY end_time IS NULL ORDER BY end_time)"
        f" AS n FROM accounting WHERE {where.sql}) WHERE (n - 1) % ? = 0 ORDER BY cut NULLS LAST",
        [*where.params, size])


def stretches(cuts: list[int | None]) -> list[Ended]:
    """The stretches of end times that `cuts_query`'s cuts make, in order."""
    starts = [cut for cut in cuts if cut is not None]
    found = [Ended(start, stop) for start, stop in pairwise([*starts, None])]
    return found + [Ended(None)] if None in cuts else found

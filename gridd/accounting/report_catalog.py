"""Named reports: the SQL files of reports/ that start with a small header.

A report is one SELECT over ARCo's tables and views, kept in a file so that analysts can
read, copy and change it without touching Python. Its header says what it is and which
values are bound late, when someone runs it:

    -- title: Accounting per AR
    -- about: CPU, memory and I/O of the jobs that ran in an AR, by month.
    -- param: since = 1970-01-01 -- only jobs that started at or after this time (UTC)
    -- param: ar_number -- the AR to show (no default: it must be given)
    SELECT ... WHERE start_time >= $since::TIMESTAMP ...

The first line (`-- title:`) is what makes a file a report, so other SQL in the folder
(schema files) is left alone. A parameter reaches the SQL as the text the user typed,
bound as `$name`; the SQL casts it, so a value of the wrong kind is refused by DuckDB
with a message that names it. The report's name is its file name without `.sql`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from gridd.resources import data_dir

if TYPE_CHECKING:
    from gridd.accounting.query import Result

_KEY = re.compile(r"--\s*(title|about|param):\s*(.*)$")
_PARAM = re.compile(r"([A-Za-z_]\w*)\s*(?:=\s*(.*?))?\s*(?:--\s*(.*))?$")
_PLACEHOLDER = re.compile(r"\$([A-Za-z_]\w*)")


class ReportError(Exception):
    """A report that does not exist, cannot be read, or lacks a parameter; text for users."""


@dataclass(frozen=True)
class Param:
    name: str
    default: str | None  # None: the user must give a value
    help: str


@dataclass(frozen=True)
class Report:
    name: str
    title: str
    about: str
    params: tuple[Param, ...]
    sql: str

    def bind(self, given: dict[str, str]) -> dict[str, str]:
        """The values for the SQL's `$name`s: the given ones over the defaults."""
        declared = {p.name for p in self.params}
        unknown = sorted(set(given) - declared)
        if unknown:
            known = ", ".join(sorted(declared)) or "none"
            raise ReportError(f"error: report {self.name} has no parameter "
                              f"{', '.join(unknown)} (its parameters: {known})")
        values: dict[str, str] = {}
        for p in self.params:
            value = given.get(p.name, p.default)
            if value is None:
                raise ReportError(f"error: report {self.name} needs --param {p.name}=VALUE "
                                  f"({p.help or 'no default'})")
            values[p.name] = value
        return values

    def needs(self, given: dict[str, str]) -> list[str]:
        """The parameters without a default that `given` does not supply."""
        return [p.name for p in self.params if p.default is None and p.name not in given]


def parse(name: str, text: str, where: str = "") -> Report | None:
    """The report a file holds, or None when its first line is no `-- title:`."""
    where = where or name
    lines = text.splitlines()
    first = _KEY.match(lines[0].strip()) if lines else None
    if first is None or first.group(1) != "title":
        return None
    title = first.group(2).strip()
    about: list[str] = []
    params: list[Param] = []
    body = len(lines)
    for number, line in enumerate(lines[1:], 2):
        stripped = line.strip()
        if not stripped.startswith("--"):
            body = number - 1
            break
        match = _KEY.match(stripped)
        if match is None:
            raise ReportError(f"error: {where}:{number}: a report header line is "
                              "'-- about: TEXT' or '-- param: NAME [= DEFAULT] [-- HELP]'")
        key, value = match.groups()
        if key == "about":
            about.append(value.strip())
        elif key == "param":
            params.append(_param(value, f"{where}:{number}"))
        else:
            raise ReportError(f"error: {where}:{number}: a second title")
    sql = "\n".join(lines[body:]).strip()
    if not sql:
        raise ReportError(f"error: {where}: the report has no SQL after its header")
    _check_placeholders(sql, params, where)
    return Report(name, title, " ".join(about), tuple(params), sql)


def _param(text: str, where: str) -> Param:
    match = _PARAM.fullmatch(text.strip())
    if match is None:
        raise ReportError(f"error: {where}: a parameter is 'NAME [= DEFAULT] [-- HELP]'")
    name, default, help_text = match.groups()
    return Param(name, default, (help_text or "").strip())


def _check_placeholders(sql: str, params: list[Param], where: str) -> None:
    """Every declared parameter used and every `$name` declared: DuckDB refuses both."""
    used = set(_PLACEHOLDER.findall(sql))
    declared = {p.name for p in params}
    if used - declared:
        raise ReportError(f"error: {where}: the SQL uses undeclared "
                          f"${', $'.join(sorted(used - declared))}")
    if declared - used:
        raise ReportError(f"error: {where}: the SQL does not use "
                          f"${', $'.join(sorted(declared - used))}")


def load(directory: Path | None = None) -> dict[str, Report]:
    """Every report of the folder (reports/ by default), by name in name order."""
    folder = directory or data_dir("reports")
    reports: dict[str, Report] = {}
    for path in sorted(folder.glob("*.sql")):
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise ReportError(f"error: cannot read {path}: {exc}") from None
        report = parse(path.stem, text, str(path))
        if report is not None:
            reports[report.name] = report
    return reports


def find(name: str, directory: Path | None = None) -> Report:
    """One report by name; the error lists what there is."""
    reports = load(directory)
    if name not in reports:
        raise ReportError(f"error: no report named {name} (gridd report lists them: "
                          f"{', '.join(reports) or 'none'})")
    return reports[name]


def run(report: Report, given: dict[str, str], base: Path | None = None) -> Result:
    """Run a report with its late-bound values over the cell's database."""
    from gridd.accounting.query import run_query

    return run_query(report.sql, report.bind(given), base=base)

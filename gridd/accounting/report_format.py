"""Query results as text: an aligned table for people, CSV and JSON for programs.

Every format writes a value the same way (`cell`), so a timestamp or an interval reads the
same in a table as in a CSV file; only the table rounds floats, to the three decimals
qacct shows. Parquet, which keeps DuckDB's types, is in report_export.
"""

from __future__ import annotations

import csv
import io
from datetime import date, datetime, time, timedelta
from decimal import Decimal
from typing import Any

from gridd.accounting.query import Result

NULL = "NULL"


def cell(value: Any) -> str:
    """One value as text; None is the empty string (the table shows NULL)."""
    if value is None:
        return ""
    if isinstance(value, datetime):
        return value.isoformat(sep=" ")
    if isinstance(value, date | time):
        return value.isoformat()
    if isinstance(value, timedelta):
        return interval(value)
    return str(value)


def interval(value: timedelta) -> str:
    """[-][N days ]HH:MM:SS[.ffffff], the way DuckDB prints an INTERVAL of seconds."""
    sign = "-" if value < timedelta(0) else ""
    value = abs(value)
    hours, rest = divmod(value.seconds, 3600)
    minutes, seconds = divmod(rest, 60)
    days = f"{value.days} day{'s' if value.days != 1 else ''} " if value.days else ""
    fraction = f".{value.microseconds:06d}" if value.microseconds else ""
    return f"{sign}{days}{hours:02d}:{minutes:02d}:{seconds:02d}{fraction}"


def _numeric(value: Any) -> bool:
    return isinstance(value, int | float | Decimal) and not isinstance(value, bool)


def table(result: Result) -> str:
    """Columns padded to their widest value, numbers right-aligned, and a row count."""
    shown = [[NULL if v is None else f"{v:.3f}" if isinstance(v, float) else cell(v)
              for v in row] for row in result.rows]
    widths = [len(name) for name in result.columns]
    right = [False] * len(result.columns)
    for row_values, row in zip(shown, result.rows, strict=True):
        for i, (text, value) in enumerate(zip(row_values, row, strict=True)):
            widths[i] = max(widths[i], len(text))
            right[i] = right[i] or _numeric(value)

    def line(texts: list[str]) -> str:
        return "  ".join(t.rjust(w) if r else t.ljust(w)
                         for t, w, r in zip(texts, widths, right, strict=True)).rstrip()

    out = [line(list(result.columns)), line(["-" * w for w in widths])]
    out += [line(texts) for texts in shown]
    count = len(result.rows)
    out.append(f"({count} row{'s' if count != 1 else ''})")
    return "\n".join(out) + "\n"


def to_csv(result: Result) -> str:
    """RFC 4180 CSV with a header line; NULL is an empty field."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(result.columns)
    writer.writerows([cell(v) for v in row] for row in result.rows)
    return buffer.getvalue()


def _json_value(value: Any) -> Any:
    """JSON's own types as they are (lists and structs too); other values as `cell` writes them."""
    if value is None or isinstance(value, bool | int | float | str):
        return value
    if isinstance(value, Decimal):
        return float(value)
    if isinstance(value, list | tuple):
        return [_json_value(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _json_value(v) for k, v in value.items()}
    return cell(value)


def to_json(result: Result) -> str:
    """A JSON array with one object per row, keyed by column name."""
    import msgspec

    rows = [{name: _json_value(v) for name, v in zip(result.columns, row, strict=True)}
            for row in result.rows]
    return msgspec.json.format(msgspec.json.encode(rows), indent=1).decode() + "\n"

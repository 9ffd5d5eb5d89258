"""The accounting record as one JSON object a line, as Open Cluster Scheduler writes
`accounting.jsonl` (reporting_params accounting_format=json, or its old_accounting=false).

Keys and their order are OCS's (ocs_reference.md 3b): times in microseconds since the
epoch, keys without a value left out (project and granted_pe NONE, no advance
reservation), the resource usage under usage.rusage and usage.eusage. Every field of the
colon line has its key, so a record goes from one form to the other and back unchanged:
times are whole seconds and numbers have six decimals in both (what the colon line
holds). OCS's keys gridd has nothing for (submit_cmd_line, deleted_by, ioops, maxrss)
are left out; eusage.wallclock repeats ru_wallclock for OCS's readers.

Readers take a line apart into the colon line's field texts (`field_texts` here, and
`fields_sql` for DuckDB, the same rule), so that from there on both forms are read alike.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from typing import Any, BinaryIO

from gridd.accounting.record import FIELDS, TIME_FIELDS, AccountingRecord, from_texts, parse_line

MICROS = 1_000_000


@dataclass(frozen=True)
class Key:
    """A record field's place in the object: its path, and the value a line without
    the key has (None: a line without it is no record); `omitted`: that value is
    written as no key, as OCS leaves out keys without a value."""

    field: str
    path: tuple[str, ...]
    absent: str | None = None
    omitted: bool = False
    whole: bool = False  # a number the colon line has as a float, OCS as an integer

    @property
    def json_path(self) -> str:
        return "$." + ".".join(self.path)


def _usage(kind: str, name: str, *, whole: bool = False) -> Key:
    return Key(name, ("usage", kind, name), "0", whole=whole)


# In the order OCS writes them.
KEYS: tuple[Key, ...] = (
    Key("job_number", ("job_number",)),
    Key("task_number", ("task_number",)),
    Key("start_time", ("start_time",)),
    Key("end_time", ("end_time",)),
    Key("owner", ("owner",)),
    Key("group", ("group",)),
    Key("account", ("account",)),
    Key("qname", ("qname",)),
    Key("hostname", ("hostname",)),
    Key("project", ("project",), "NONE", omitted=True),
    Key("department", ("department",)),
    Key("granted_pe", ("granted_pe",), "NONE", omitted=True),
    Key("slots", ("slots",)),
    Key("arid", ("arid",), "0", omitted=True),
    Key("job_name", ("job_name",)),
    Key("priority", ("priority",)),
    Key("submission_time", ("submission_time",)),
    Key("ar_submission_time", ("ar_submission_time",), "0", omitted=True),
    Key("pe_taskid", ("pe_taskid",), "NONE"),
    Key("category", ("category",), "NONE"),
    Key("failed", ("failed",)),
    Key("exit_status", ("exit_status",)),
    _usage("rusage", "ru_wallclock"),
    _usage("rusage", "ru_utime"),
    _usage("rusage", "ru_stime"),
    _usage("rusage", "ru_maxrss", whole=True),
    *(_usage("rusage", name) for name in ("ru_ixrss", "ru_ismrss", "ru_idrss", "ru_isrss",
                                          "ru_minflt", "ru_majflt", "ru_nswap")),
    _usage("rusage", "ru_inblock", whole=True),
    *(_usage("rusage", name) for name in ("ru_oublock", "ru_msgsnd", "ru_msgrcv",
                                          "ru_nsignals", "ru_nvcsw", "ru_nivcsw")),
    *(_usage("eusage", name) for name in ("cpu", "mem", "io", "iow", "maxvmem")),
)
_BY_FIELD = {key.field: key for key in KEYS}
# OCS 9.0 named eusage `usage` (usage.usage.cpu): read there when eusage is missing.
_OLD_PATHS = {key.field: ("usage", "usage", key.path[-1])
              for key in KEYS if key.path[:2] == ("usage", "eusage")}


def first_record(f: BinaryIO) -> bytes | None:
    """The first line of the file open as `f` that is neither blank nor a comment (a
    colon file's header is one), None when there is none: it tells the file's kind."""
    f.seek(0)
    for raw in f:
        if raw.strip() and not raw.startswith(b"#"):
            return raw
    return None


def holds_json_lines(f: BinaryIO) -> bool:
    """Whether the file open as `f` holds JSON lines."""
    return json_line(first_record(f))


def json_line(record: bytes | None) -> bool:
    return record is not None and record.startswith(b"{")


# --- writing --------------------------------------------------------------------------

def _value(key: Key, value: str | int | float) -> str | int | float | None:
    if key.field in TIME_FIELDS:
        return int(value) * MICROS
    if isinstance(value, float):
        if not math.isfinite(value):  # JSON has no NaN: null, which reads as 0
            return None
        value = round(value, 6)  # the colon line's six decimals
        return int(value) if key.whole and value.is_integer() else value
    return value


def to_json(rec: AccountingRecord) -> str:
    """The record's line (without its newline): compact, keys in OCS's order."""
    top: dict[str, Any] = {}
    usage: dict[str, dict[str, Any]] = {"rusage": {}, "eusage": {}}
    for key in KEYS:
        value = getattr(rec, key.field)
        if key.omitted and str(value) == key.absent:
            continue
        if key.field == "cpu":
            usage["eusage"]["wallclock"] = float(rec.ru_wallclock)
        place = usage[key.path[1]] if key.path[0] == "usage" else top
        place[key.path[-1]] = _value(key, value)
    top["usage"] = usage
    return json.dumps(top, separators=(",", ":"), ensure_ascii=False)


# --- reading --------------------------------------------------------------------------

def _lookup(obj: dict[str, Any], path: tuple[str, ...]) -> Any:
    for part in path:
        if not isinstance(obj, dict):
            return None
        obj = obj.get(part)
    return obj


def _text(value: Any) -> str:
    """A JSON value as the text DuckDB's json_extract_string gives for it."""
    return value if isinstance(value, str) else json.dumps(value, separators=(",", ":"))


def _time_text(key: Key, value: Any) -> str:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"accounting key {key.path[-1]}: {_text(value)} is not an integer")
    return str(value // MICROS)


def field_texts(line: str) -> list[str]:
    """The colon line's field texts of a JSON line, in FIELDS' order (times in
    seconds); ValueError when the line is not a JSON object or lacks a key OCS always
    writes. fields_sql is the same rule in SQL."""
    try:
        obj = json.loads(line)
    except (ValueError, RecursionError):  # not JSON, or nested past what Python parses
        raise ValueError("accounting line is neither colon-separated nor a JSON object") from None
    if not isinstance(obj, dict):
        raise ValueError("accounting line is JSON but not an object")
    texts = []
    for name in FIELDS:
        key = _BY_FIELD[name]
        value = _lookup(obj, key.path)
        if value is None and name in _OLD_PATHS:
            value = _lookup(obj, _OLD_PATHS[name])
        if value is None:
            if key.absent is None:
                raise ValueError(f"accounting record lacks {key.path[-1]}")
            texts.append(key.absent)
        elif name in TIME_FIELDS:
            texts.append(_time_text(key, value))
        else:
            texts.append(_text(value))
    return texts


def parse_json(line: str) -> AccountingRecord | None:
    """Read one JSON line; a blank line gives None, a malformed one raises ValueError."""
    return from_texts(field_texts(line)) if line.strip() else None


def parse(line: str, json_lines: bool) -> AccountingRecord | None:
    """Read one line of a file of JSON lines or of colon lines (holds_json_lines tells)."""
    return parse_json(line) if json_lines else parse_line(line)


# The paths json_extract_string reads at once (one parse of the line): each field's,
# then the old eusage paths.
_PATHS = [key.json_path for key in (_BY_FIELD[name] for name in FIELDS)] + [
    "$." + ".".join(path) for path in _OLD_PATHS.values()]
PATHS_SQL = "[" + ", ".join(f"'{path}'" for path in _PATHS) + "]"


def extract_sql(line: str) -> str:
    """SQL: the list of a line's values at every path (NULL ones for a line that is not
    JSON); fields_sql turns it into the fields."""
    return f"json_extract_string(TRY_CAST({line} AS JSON), {PATHS_SQL})"


def fields_sql(values: str) -> str:
    """SQL: the field texts (a VARCHAR list, as string_split gives for a colon line)
    of `values`, extract_sql's list; an empty list when a key OCS always writes is
    missing."""
    old = {name: len(FIELDS) + i + 1 for i, name in enumerate(_OLD_PATHS)}
    items, required = [], []
    for i, name in enumerate(FIELDS, 1):
        key = _BY_FIELD[name]
        raw = f"{values}[{i}]"
        if name in old:
            raw = f"coalesce({raw}, {values}[{old[name]}])"
        value = (f"CAST(TRY_CAST({raw} AS BIGINT) // {MICROS} AS VARCHAR)"
                 if name in TIME_FIELDS else raw)
        if key.absent is None:
            required.append(f"{raw} IS NOT NULL")
        else:
            value = f"CASE WHEN {raw} IS NULL THEN '{key.absent}' ELSE {value} END"
        items.append(value)
    return f"CASE WHEN {' AND '.join(required)} THEN [{', '.join(items)}] ELSE [] END"

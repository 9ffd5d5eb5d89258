"""The SQL that reads reporting(5) records: one temporary table of typed columns per type.

Records wait in the temporary table `gridd_stage (ord, kind, body)`: `kind` is the
record type (acct, job_log, ...) and `body` the fields after "time:type:" (an accounting
file's line is an acct body as it stands; a line of accounting.jsonl is staged as
acct_json and parsed as acct). Each record type present is parsed by DuckDB
into a table of typed columns with an `ok` flag (a field that does not convert makes the
record rejected). Splitting and casting in SQL is what makes ingest fast: Python never
touches a field.

Field positions follow what Grid Engine 8.1.9 writes (tests/data/sge-8.1.9).
"""

from __future__ import annotations

from gridd.accounting import record_json
from gridd.accounting.record import CATEGORY, FIELDS, PRE_62_COUNT, TIME_FIELDS


def ts(text: str) -> str:
    """Epoch seconds as a UTC TIMESTAMP; the files' 0 ("never") becomes NULL."""
    return f"make_timestamp(NULLIF(TRY_CAST({text} AS BIGINT), 0) * 1000000)"


def _rest(index: int) -> str:
    """Fields from `index` on, joined again: the last field of a record may hold ':'."""
    return f"array_to_string(f[{index}:], ':')"


# --- acct: an accounting(5) record ----------------------------------------------------
# A category holding ':' adds fields before iow; `e` counts them. Lines written before
# GE 6.2 have 43 fields (no AR), and are taken only at exactly that length.
_CATEGORY = CATEGORY + 1  # 1-based, as DuckDB lists are
_ACCT_TYPES = {
    "job_number": "BIGINT", "priority": "INTEGER", "failed": "INTEGER",
    "exit_status": "INTEGER", "ru_wallclock": "BIGINT", "ru_utime": "DOUBLE",
    "ru_stime": "DOUBLE", "ru_maxrss": "DOUBLE", "ru_ixrss": "BIGINT", "ru_ismrss": "BIGINT",
    "ru_idrss": "BIGINT", "ru_isrss": "BIGINT", "ru_minflt": "BIGINT", "ru_majflt": "BIGINT",
    "ru_nswap": "BIGINT", "ru_inblock": "DOUBLE", "ru_oublock": "BIGINT",
    "ru_msgsnd": "BIGINT", "ru_msgrcv": "BIGINT", "ru_nsignals": "BIGINT",
    "ru_nvcsw": "BIGINT", "ru_nivcsw": "BIGINT", "slots": "INTEGER", "task_number": "BIGINT",
    "cpu": "DOUBLE", "mem": "DOUBLE", "io": "DOUBLE", "iow": "DOUBLE", "maxvmem": "DOUBLE",
    "arid": "BIGINT",
}


def acct_text(name: str, fields: str = "f", extra: str = "e") -> str:
    """SQL for the text of one accounting field in the split line `fields` (a DuckDB
    list) whose category holds `extra` ':' (the fields after it shift by as many); past
    the end of a pre-6.2 line it is NULL. Ingest and `qacct -f` both read fields so."""
    index = FIELDS.index(name) + 1
    if name == "category":
        return f"array_to_string({fields}[{_CATEGORY}:{_CATEGORY} + {extra}], ':')"
    return f"{fields}[{index} + {extra}]" if index > _CATEGORY else f"{fields}[{index}]"


def _acct_field(name: str) -> str:
    """The text of one accounting field in the split list `f`; the AR fields of a
    pre-6.2 line read as 0."""
    text = acct_text(name)
    if name in ("arid", "ar_submission_time"):
        return f"CASE WHEN n = {PRE_62_COUNT} THEN '0' ELSE {text} END"
    return text


def _acct_select() -> str:
    """Typed columns and the ok flag; each field is cast once, in the inner SELECT."""
    raw, typed, checks = [], [], [f"(n = {PRE_62_COUNT} OR n >= {len(FIELDS)})"]
    for name in FIELDS:
        text = _acct_field(name)
        column = '"group"' if name == "group" else name
        if name in TIME_FIELDS:
            raw.append(f"TRY_CAST({text} AS BIGINT) AS {name}")
            typed.append(f"make_timestamp(NULLIF({name}, 0) * 1000000) AS {name}")
            checks.append(f"{name} IS NOT NULL")
        elif name in _ACCT_TYPES:
            raw.append(f"TRY_CAST({text} AS {_ACCT_TYPES[name]}) AS {name}")
            typed.append(name)
            checks.append(f"{name} IS NOT NULL")
        else:
            raw.append(f"{text} AS {column}")
            typed.append(column)
    return (
        f"SELECT ord, {', '.join(typed)}, {' AND '.join(checks)} AS ok FROM ("
        f"SELECT ord, n, {', '.join(raw)} "
        "FROM (SELECT ord, f, len(f) AS n, "
        f"CASE WHEN len(f) = {PRE_62_COUNT} THEN 0 ELSE len(f) - {len(FIELDS)} END AS e "
        f"FROM ({_ACCT_SPLIT})))"
    )


# An accounting record is staged as `acct` when it is a colon line, as `acct_json` when
# it is a JSON line (record_json.py), and either way split into the colon line's fields.
_ACCT_SPLIT = (
    "SELECT ord, string_split(body, ':') AS f FROM gridd_stage WHERE kind = 'acct' "
    f"UNION ALL SELECT ord, {record_json.fields_sql('x')} AS f FROM "
    f"(SELECT ord, {record_json.extract_sql('body')} AS x FROM gridd_stage "
    "WHERE kind = 'acct_json')"
)


def _fields(kind: str, minimum: int, columns: str, checks: str) -> str:
    return (
        f"SELECT ord, {columns}, len(f) >= {minimum} AND {checks} AS ok "
        f"FROM (SELECT ord, string_split(body, ':') AS f FROM gridd_stage "
        f"WHERE kind = '{kind}')"
    )


def _int_ok(*indexes: int) -> str:
    return " AND ".join(f"TRY_CAST(f[{i}] AS BIGINT) IS NOT NULL" for i in indexes)


# A configuration change's time: epoch seconds with a fraction, as microseconds.
_CONFIG_MICROS = ("TRY_CAST(round(TRY_CAST(json_extract_string(j, '$.time') AS DOUBLE) "
                  "* 1e6) AS BIGINT)")


# Per record type: SELECT ord, <typed columns>, <ok> AS ok FROM ... gridd_stage.
KINDS: dict[str, str] = {
    "acct": _acct_select(),
    # new_job: submission_time job_number task_number pe_taskid job_name owner group
    #          project department account priority
    "new_job": _fields(
        "new_job", 11,
        f"{ts('f[1]')} AS submission_time, TRY_CAST(f[2] AS BIGINT) AS job_number, "
        "TRY_CAST(f[3] AS BIGINT) AS task_number, f[4] AS pe_taskid, f[5] AS job_name, "
        'f[6] AS owner, f[7] AS "group", f[8] AS project, f[9] AS department, '
        "f[10] AS account, TRY_CAST(f[11] AS INTEGER) AS priority",
        _int_ok(1, 2, 3, 11)),
    # job_log: time event job_number task_number pe_taskid state user host state_time
    #          priority submission_time job_name owner group project department account
    #          message
    "job_log": _fields(
        "job_log", 18,
        f"{ts('f[1]')} AS time, f[2] AS event, TRY_CAST(f[3] AS BIGINT) AS job_number, "
        "TRY_CAST(f[4] AS BIGINT) AS task_number, f[5] AS pe_taskid, f[6] AS state, "
        "f[7] AS initiator, f[8] AS host, TRY_CAST(f[9] AS INTEGER) AS state_time, "
        f"TRY_CAST(f[10] AS INTEGER) AS priority, {ts('f[11]')} AS submission_time, "
        'f[12] AS job_name, f[13] AS owner, f[14] AS "group", f[15] AS project, '
        f"f[16] AS department, f[17] AS account, {_rest(18)} AS message",
        _int_ok(1, 3, 4, 9, 10, 11)),
    # new_ar: submission_time ar_number owner
    "new_ar": _fields(
        "new_ar", 3,
        f"{ts('f[1]')} AS submission_time, TRY_CAST(f[2] AS BIGINT) AS ar_number, "
        f"{_rest(3)} AS owner",
        _int_ok(1, 2)),
    # ar_attr: time submission_time ar_number name account start_time end_time
    #          granted_pe granted_resources
    "ar_attr": _fields(
        "ar_attr", 9,
        f"{ts('f[1]')} AS time, {ts('f[2]')} AS submission_time, "
        "TRY_CAST(f[3] AS BIGINT) AS ar_number, f[4] AS name, f[5] AS account, "
        f"{ts('f[6]')} AS start_time, {ts('f[7]')} AS end_time, f[8] AS granted_pe, "
        f"{_rest(9)} AS resources",
        _int_ok(1, 2, 3, 6, 7)),
    # ar_log: time submission_time ar_number state event message
    "ar_log": _fields(
        "ar_log", 6,
        f"{ts('f[1]')} AS time, {ts('f[2]')} AS submission_time, "
        "TRY_CAST(f[3] AS BIGINT) AS ar_number, f[4] AS state, f[5] AS event, "
        f"{_rest(6)} AS message",
        _int_ok(1, 2, 3)),
    # ar_acct: termination_time submission_time ar_number qname hostname slots
    "ar_acct": _fields(
        "ar_acct", 6,
        f"{ts('f[1]')} AS time, {ts('f[2]')} AS submission_time, "
        "TRY_CAST(f[3] AS BIGINT) AS ar_number, f[4] AS qname, f[5] AS hostname, "
        "TRY_CAST(f[6] AS INTEGER) AS slots",
        _int_ok(1, 2, 3, 6)),
    # host: hostname time state name=value,...    (load values)
    "host": _fields(
        "host", 4,
        f"f[1] AS hostname, {ts('f[2]')} AS time, {_rest(4)} AS pairs", _int_ok(2)),
    # host_consumable: hostname time state name=value=capacity,...
    "host_consumable": _fields(
        "host_consumable", 4,
        f"f[1] AS hostname, {ts('f[2]')} AS time, {_rest(4)} AS pairs", _int_ok(2)),
    # queue: qname hostname time state
    "queue": _fields(
        "queue", 4,
        f"f[1] AS qname, f[2] AS hostname, {ts('f[3]')} AS time, {_rest(4)} AS state",
        _int_ok(3)),
    # queue_consumable: qname hostname time state name=value=capacity,...
    "queue_consumable": _fields(
        "queue_consumable", 5,
        f"f[1] AS qname, f[2] AS hostname, {ts('f[3]')} AS time, {_rest(5)} AS pairs",
        _int_ok(3)),
    # config: one JSON object {time, kind, name, body} (config_history.py); no file has
    #         it. The time keeps its fraction (microseconds); a null body is a deletion.
    "config": (
        f"SELECT ord, make_timestamp({_CONFIG_MICROS}) AS time, "
        "json_extract_string(j, '$.kind') AS object_kind, "
        "json_extract_string(j, '$.name') AS name, "
        "json_type(json_extract(j, '$.body')) = 'NULL' AS deleted, "
        "CASE WHEN json_type(json_extract(j, '$.body')) <> 'NULL' "
        "THEN json_extract(j, '$.body') END AS body, "
        "coalesce(json_extract_string(j, '$.kind') <> '' "
        "AND json_extract_string(j, '$.name') IS NOT NULL "
        f"AND json_extract(j, '$.body') IS NOT NULL AND {_CONFIG_MICROS} IS NOT NULL, "
        "false) AS ok "
        "FROM (SELECT ord, TRY_CAST(body AS JSON) AS j FROM gridd_stage WHERE kind = 'config')"),
}


def table(kind: str) -> str:
    """The temporary table of typed columns a record type is parsed into."""
    return f"gridd_{kind}"


def parse(kind: str) -> str:
    return f"CREATE OR REPLACE TEMP TABLE {table(kind)} AS {KINDS[kind]}"


# Record types read under another name: the AR specification's name for 8.1.9's ar_attr.
ALIASES = {"ar_attribute": "ar_attr"}
# Staged kinds parsed with another kind: a JSON accounting line is an acct record.
PARSED_AS = {"acct_json": "acct"}
# Record types a reporting file may hold that have no place here (the share tree's usage).
IGNORED = ("sharelog",)


# Every type name a reporting file's line may carry.
TYPE_NAMES = (*KINDS, *ALIASES, *IGNORED)


def kind_of(type_name: str) -> str:
    """SQL for the record type a line's type field names."""
    cases = " ".join(f"WHEN '{a}' THEN '{k}'" for a, k in ALIASES.items())
    return f"CASE {type_name} {cases} ELSE {type_name} END"


def rejected(kinds: set[str]) -> str:
    """Count the records that did not parse, with the position of the first of them."""
    known = " UNION ALL ".join(
        f"SELECT ord FROM {table(k)} WHERE NOT ok" for k in sorted(kinds))
    unknown = ", ".join(f"'{k}'" for k in (*KINDS, *PARSED_AS, *IGNORED))
    return (f"SELECT count(*), min(ord) FROM ({known + ' UNION ALL ' if known else ''}"
            f"SELECT ord FROM gridd_stage WHERE kind NOT IN ({unknown}))")

"""The SQL that maps parsed records (record_sql's tables) onto ARCo's tables, set-wise.

A job is known by (job_number, task_number, pe_taskid, submission_time) and an AR by
(ar_number, submission_time), as ARCo's dbwriter knows them: each batch's jobs and ARs
are first matched to their rows (or given new ids), then their usage, log, requests and
attributes are inserted with one statement per table. The users, groups, projects,
departments, hosts and queues the records name are added to the dimension tables, and
host and queue values to their *_values tables.
"""

from __future__ import annotations

from dataclasses import dataclass

from gridd.accounting.record_sql import table

# --- jobs -------------------------------------------------------------------------------
_JOB_KEY = "job_number, task_number, pe_taskid, submission_time"
_AR_KEY = "ar_number, submission_time"


def _same(left: str, right: str, key: str) -> str:
    """Join condition on a key; a time of 0 is NULL and must still match itself."""
    return " AND ".join(f"{left}.{c} IS NOT DISTINCT FROM {right}.{c}" for c in key.split(", "))


_JOB_ATTRS = 'job_name, "group", owner, account, priority, project, department'
# Which record describes a job best: an accounting record, else the latest job log entry,
# else the new_job record.
_JOB_SOURCES = {"acct": 0, "job_log": 1, "new_job": 2}


def job_keys(kinds: set[str]) -> str:
    """The batch's jobs, each with its existing j_id (old_id) or a new one."""
    candidates = " UNION ALL ".join(
        f"SELECT {_JOB_KEY}, {_JOB_ATTRS}, "
        f"{'category' if kind == 'acct' else 'NULL::VARCHAR AS category'}, {rank} AS rank, ord "
        f"FROM {table(kind)} WHERE ok"
        for kind, rank in _JOB_SOURCES.items() if kind in kinds
    )
    # the best record of each job: grouping by job and joining the winner back costs
    # half of sorting the records (DISTINCT ON)
    return f"""
        CREATE OR REPLACE TEMP TABLE gridd_keys AS
        SELECT b.*, j.j_id AS old_id,
               CASE WHEN j.j_id IS NULL THEN nextval('sge_job_seq') ELSE j.j_id END AS j_id
        FROM (SELECT arg_min(ord, {{'rank': rank, 'latest': -ord}}) AS ord
              FROM ({candidates}) GROUP BY {_JOB_KEY}) best
        JOIN ({candidates}) b USING (ord)
        LEFT JOIN sge_job j
          ON j.j_job_number = b.job_number AND j.j_task_number = b.task_number
         AND j.j_pe_taskid = b.pe_taskid
         AND j.j_submission_time IS NOT DISTINCT FROM b.submission_time
    """


# Jobs of the batch already in the database that an accounting record describes
KNOWN_JOBS = "SELECT count(old_id) FILTER (rank = 0) FROM gridd_keys"

NEW_JOBS = """
    INSERT INTO sge_job (j_id, j_job_number, j_task_number, j_pe_taskid, j_job_name, j_group,
                         j_owner, j_account, j_priority, j_submission_time, j_project,
                         j_department)
    SELECT j_id, job_number, task_number, pe_taskid, job_name, "group", owner, account,
           priority, submission_time, project, department
    FROM gridd_keys WHERE old_id IS NULL
"""

# An accounting record has the last word on a known job's attributes: the job log's
# priority, for one, is the scheduler's (1024 + the -p value), the file's is -p.
UPDATE_JOBS = """
    UPDATE sge_job SET j_job_name = k.job_name, j_group = k."group", j_owner = k.owner,
                       j_account = k.account, j_priority = k.priority,
                       j_project = k.project, j_department = k.department
    FROM gridd_keys k WHERE sge_job.j_id = k.old_id AND k.rank = 0
"""

_USAGE_COLUMNS = {  # sge_job_usage column: gridd_acct expression
    "ju_curr_time": "a.end_time", "ju_qname": "a.qname", "ju_hostname": "a.hostname",
    "ju_start_time": "a.start_time", "ju_end_time": "a.end_time", "ju_failed": "a.failed",
    "ju_exit_status": "a.exit_status", "ju_granted_pe": "a.granted_pe",
    "ju_slots": "a.slots", "ju_ru_wallclock": "a.ru_wallclock", "ju_ru_utime": "a.ru_utime",
    "ju_ru_stime": "a.ru_stime", "ju_ru_maxrss": "a.ru_maxrss", "ju_ru_ixrss": "a.ru_ixrss",
    "ju_ru_issmrss": "a.ru_ismrss", "ju_ru_idrss": "a.ru_idrss", "ju_ru_isrss": "a.ru_isrss",
    "ju_ru_minflt": "a.ru_minflt", "ju_ru_majflt": "a.ru_majflt", "ju_ru_nswap": "a.ru_nswap",
    "ju_ru_inblock": "a.ru_inblock", "ju_ru_outblock": "a.ru_oublock",
    "ju_ru_msgsnd": "a.ru_msgsnd", "ju_ru_msgrcv": "a.ru_msgrcv",
    "ju_ru_nsignals": "a.ru_nsignals", "ju_ru_nvcsw": "a.ru_nvcsw",
    "ju_ru_nivcsw": "a.ru_nivcsw", "ju_cpu": "a.cpu", "ju_mem": "a.mem", "ju_io": "a.io",
    "ju_iow": "a.iow", "ju_maxvmem": "a.maxvmem", "ju_ar_number": "a.arid",
    "ju_category": "a.category", "ju_ar_submission_time": "a.ar_submission_time",
}


def usage(known_jobs: bool) -> str:
    """Insert the accounting records; a run (job, start, end, host) a known job already
    holds is skipped, so a record read twice (from a cell's accounting and its reporting
    file, say) counts once."""
    dedupe = """
        AND NOT EXISTS (SELECT 1 FROM sge_job_usage u
                        WHERE u.ju_parent = k.old_id
                          AND u.ju_start_time IS NOT DISTINCT FROM a.start_time
                          AND u.ju_end_time IS NOT DISTINCT FROM a.end_time
                          AND u.ju_hostname = a.hostname)""" if known_jobs else ""
    return f"""
        INSERT INTO sge_job_usage (ju_id, ju_parent, {', '.join(_USAGE_COLUMNS)})
        SELECT nextval('sge_job_usage_seq'), k.j_id, {', '.join(_USAGE_COLUMNS.values())}
        FROM gridd_acct a JOIN gridd_keys k ON {_same('a', 'k', _JOB_KEY)}
        WHERE a.ok {dedupe}
    """


def requests(known_jobs: bool) -> str:
    """The -l requests in the category of jobs that have none recorded yet."""
    missing = ("old_id IS NULL OR NOT EXISTS "
               "(SELECT 1 FROM sge_job_request r WHERE r.jr_parent = old_id)"
               if known_jobs else "old_id IS NULL")
    return f"""
        INSERT INTO sge_job_request (jr_id, jr_parent, jr_variable, jr_value)
        SELECT nextval('sge_job_request_seq'), j_id, split_part(request, '=', 1),
               substr(request, strpos(request, '=') + 1)
        FROM (SELECT j_id,
                     unnest(string_split(split_part(split_part(' ' || category, ' -l ', 2),
                                                    ' ', 1), ',')) AS request
              FROM gridd_keys WHERE rank = 0 AND ({missing}))
        WHERE request <> ''
    """


JOB_LOG = f"""
    INSERT INTO sge_job_log (jl_id, jl_parent, jl_time, jl_event, jl_state, jl_user, jl_host,
                             jl_state_time, jl_message)
    SELECT nextval('sge_job_log_seq'), k.j_id, l.time, l.event, l.state, l.initiator, l.host,
           l.state_time, l.message
    FROM gridd_job_log l JOIN gridd_keys k ON {_same('l', 'k', _JOB_KEY)}
    WHERE l.ok
"""

# --- advance reservations ---------------------------------------------------------------
_AR_SOURCES = ("new_ar", "ar_attr", "ar_log", "ar_acct")


def ar_keys(kinds: set[str]) -> str:
    """The batch's ARs with their existing ar_id (old_id) or a new one, and the owner."""
    candidates = " UNION ALL ".join(
        f"SELECT {_AR_KEY}, "
        f"{'owner' if kind == 'new_ar' else 'NULL::VARCHAR AS owner'} "
        f"FROM {table(kind)} WHERE ok"
        for kind in _AR_SOURCES if kind in kinds
    )
    return f"""
        CREATE OR REPLACE TEMP TABLE gridd_ar_keys AS
        SELECT b.*, a.ar_id AS old_id,
               CASE WHEN a.ar_id IS NULL THEN nextval('sge_ar_seq') ELSE a.ar_id END AS ar_id
        FROM (SELECT {_AR_KEY}, max(owner) AS owner FROM ({candidates}) GROUP BY {_AR_KEY}) b
        LEFT JOIN sge_ar a ON a.ar_number = b.ar_number
         AND a.ar_submission_time IS NOT DISTINCT FROM b.submission_time
    """


NEW_ARS = [
    """INSERT INTO sge_ar (ar_id, ar_number, ar_owner, ar_submission_time)
       SELECT ar_id, ar_number, owner, submission_time FROM gridd_ar_keys
       WHERE old_id IS NULL""",
    # an AR first seen through a later record gets its owner when its new_ar comes
    """UPDATE sge_ar SET ar_owner = k.owner FROM gridd_ar_keys k
       WHERE sge_ar.ar_id = k.old_id AND k.owner IS NOT NULL AND sge_ar.ar_owner IS NULL""",
]

AR_RECORDS: dict[str, list[str]] = {
    "ar_attr": [
        f"""INSERT INTO sge_ar_attribute (ara_id, ara_parent, ara_curr_time, ara_name,
                                          ara_account, ara_start_time, ara_end_time,
                                          ara_granted_pe)
            SELECT nextval('sge_ar_attribute_seq'), k.ar_id, a.time, a.name, a.account,
                   a.start_time, a.end_time, a.granted_pe
            FROM gridd_ar_attr a JOIN gridd_ar_keys k ON {_same('a', 'k', _AR_KEY)}
            WHERE a.ok""",
        # the resources are those the AR's latest attributes grant
        f"""CREATE OR REPLACE TEMP TABLE gridd_ar_granted AS
            SELECT k.ar_id, a.resources
            FROM (SELECT DISTINCT ON ({_AR_KEY}) * FROM gridd_ar_attr
                  WHERE ok ORDER BY {_AR_KEY}, ord DESC) a
            JOIN gridd_ar_keys k ON {_same('a', 'k', _AR_KEY)}""",
        """DELETE FROM sge_ar_resource_usage
           WHERE arru_parent IN (SELECT ar_id FROM gridd_ar_granted)""",
        """INSERT INTO sge_ar_resource_usage (arru_id, arru_parent, arru_variable, arru_value)
           SELECT nextval('sge_ar_resource_usage_seq'), ar_id, split_part(r, '=', 1),
                  substr(r, strpos(r, '=') + 1)
           FROM (SELECT ar_id, unnest(string_split(resources, ',')) AS r
                 FROM gridd_ar_granted WHERE resources NOT IN ('', 'NONE'))""",
    ],
    "ar_log": [
        f"""INSERT INTO sge_ar_log (arl_id, arl_parent, arl_time, arl_event, arl_state,
                                    arl_host, arl_message)
            SELECT nextval('sge_ar_log_seq'), k.ar_id, l.time, l.event, l.state, NULL,
                   l.message
            FROM gridd_ar_log l JOIN gridd_ar_keys k ON {_same('l', 'k', _AR_KEY)}
            WHERE l.ok""",
    ],
    "ar_acct": [
        f"""INSERT INTO sge_ar_usage (aru_id, aru_parent, aru_termination_time, aru_qname,
                                      aru_hostname, aru_slots)
            SELECT nextval('sge_ar_usage_seq'), k.ar_id, u.time, u.qname, u.hostname,
                   u.slots
            FROM gridd_ar_acct u JOIN gridd_ar_keys k ON {_same('u', 'k', _AR_KEY)}
            WHERE u.ok""",
    ],
}

# --- dimensions -------------------------------------------------------------------------


@dataclass(frozen=True)
class Dimension:
    """A table of names that values and reports refer to, filled from the records."""

    table: str
    id_column: str
    name_columns: tuple[str, ...]
    sources: dict[str, tuple[str, ...]]  # record type: expressions giving the names


DIMENSIONS = (
    Dimension("sge_user", "u_id", ("u_user",), {
        "acct": ("owner",), "job_log": ("owner",), "new_job": ("owner",),
        "new_ar": ("owner",)}),
    Dimension("sge_group", "g_id", ("g_group",), {
        "acct": ('"group"',), "job_log": ('"group"',), "new_job": ('"group"',)}),
    Dimension("sge_project", "p_id", ("p_project",), {
        "acct": ("project",), "job_log": ("project",), "new_job": ("project",)}),
    Dimension("sge_department", "d_id", ("d_department",), {
        "acct": ("department",), "job_log": ("department",), "new_job": ("department",)}),
    Dimension("sge_host", "h_id", ("h_hostname",), {
        "acct": ("hostname",), "host": ("hostname",), "host_consumable": ("hostname",),
        "ar_acct": ("hostname",), "queue": ("hostname",),
        "queue_consumable": ("hostname",)}),
    Dimension("sge_queue", "q_id", ("q_qname", "q_hostname"), {
        "acct": ("qname", "hostname"), "queue": ("qname", "hostname"),
        "queue_consumable": ("qname", "hostname"), "ar_acct": ("qname", "hostname")}),
)


def new_names(kinds: set[str]) -> str:
    """Names in the batch that their dimension table lacks: (table, name, second name)."""
    parts = []
    for dim in DIMENSIONS:
        sources = [(k, exprs) for k, exprs in dim.sources.items() if k in kinds]
        if not sources:
            continue
        second = "b" if len(dim.name_columns) > 1 else "NULL::VARCHAR"
        names = " UNION ".join(
            f"SELECT {exprs[0]} AS a, {exprs[1] if len(exprs) > 1 else 'NULL::VARCHAR'} AS b "
            f"FROM {table(k)} WHERE ok"
            for k, exprs in sources
        )
        match = " AND ".join(
            f"d.{col} = n.{alias}" for col, alias in zip(dim.name_columns, "ab", strict=False))
        parts.append(
            f"SELECT DISTINCT '{dim.table}' AS dim, a, {second} AS b FROM ({names}) n "
            f"WHERE a IS NOT NULL AND a <> '' "
            f"AND NOT EXISTS (SELECT 1 FROM {dim.table} d WHERE {match})"
        )
    return " UNION ALL ".join(parts)


def add_names(dim: Dimension) -> str:
    """Insert names given as parameter lists ($1, and $2 for a queue's host)."""
    if len(dim.name_columns) == 1:
        source = "SELECT unnest($1::VARCHAR[]) AS a"
    else:
        source = "SELECT unnest($1::VARCHAR[]) AS a, unnest($2::VARCHAR[]) AS b"
    values = "a" if len(dim.name_columns) == 1 else "a, b"
    return (
        f"INSERT INTO {dim.table} ({dim.id_column}, {', '.join(dim.name_columns)}) "
        f"SELECT nextval('{dim.table}_seq'), {values} FROM ({source})"
    )


# --- host and queue values ----------------------------------------------------------------
# "mem_free=23460.886719M" holds the number 23460.886719 * 2^20: GE's memory suffixes,
# k/m/g/t decimal, K/M/G/T binary.
_NUMBER = """CASE
    WHEN regexp_matches(v, '^[-+0-9.]+[kKmMgGtT]$') THEN TRY_CAST(v[:-2] AS DOUBLE) *
        CASE right(v, 1) WHEN 'k' THEN 1e3 WHEN 'm' THEN 1e6 WHEN 'g' THEN 1e9
             WHEN 't' THEN 1e12 WHEN 'K' THEN 1024.0 WHEN 'M' THEN 1048576.0
             WHEN 'G' THEN 1073741824.0 ELSE 1099511627776.0 END
    ELSE TRY_CAST(v AS DOUBLE) END"""


def _pairs(source: str, owner: str, consumable: bool) -> str:
    """name=value[=capacity] items of a record, one row each."""
    return f"""
        SELECT {owner}, time, split_part(p, '=', 1) AS variable, v,
               {"TRY_CAST(split_part(p, '=', 3) AS DOUBLE)" if consumable else "NULL::DOUBLE"}
                   AS config
        FROM (SELECT *, split_part(p, '=', 2) AS v
              FROM (SELECT {owner}, time, unnest(string_split(pairs, ',')) AS p, ord
                    FROM {source} WHERE ok))
        WHERE p <> ''
    """


def _host_values(kind: str) -> str:
    return f"""
        INSERT INTO sge_host_values (hv_id, hv_parent, hv_time_start, hv_time_end, hv_variable,
                                     hv_value, hv_dvalue, hv_dconfig)
        SELECT nextval('sge_host_values_seq'), h.h_id, time, time, variable, v, {_NUMBER},
               config
        FROM ({_pairs(table(kind), 'hostname', kind == 'host_consumable')}) x
        JOIN sge_host h ON h.h_hostname = x.hostname
    """


_QUEUE_VALUE_INSERT = """
    INSERT INTO sge_queue_values (qv_id, qv_parent, qv_time_start, qv_time_end, qv_variable,
                                  qv_value, qv_dvalue, qv_dconfig)
"""


# --- configuration history (gridd's, not ARCo's: see reports/schema/004) -----------------
# Ids follow the changes' order (time, then the outbox's order within one time), as the
# history's readers break ties by them; one writer, inside the fold's transaction, so
# counting on from the largest id is safe.
CONFIG_HISTORY = """
    INSERT INTO sge_config_history (cfh_id, cfh_time, cfh_kind, cfh_name, cfh_deleted,
                                    cfh_body)
    SELECT (SELECT coalesce(max(cfh_id), 0) FROM sge_config_history)
               + row_number() OVER (ORDER BY time, ord),
           time, object_kind, name, deleted, body
    FROM gridd_config WHERE ok
"""


# The record kinds whose rows one statement each puts into their table.
INSERTS: dict[str, str] = {
    "host": _host_values("host"),
    "host_consumable": _host_values("host_consumable"),
    "queue": f"""{_QUEUE_VALUE_INSERT}
        SELECT nextval('sge_queue_values_seq'), q.q_id, time, time, 'state', state, NULL,
               NULL
        FROM gridd_queue x JOIN sge_queue q ON q.q_qname = x.qname AND q.q_hostname = x.hostname
        WHERE x.ok""",
    "queue_consumable": f"""{_QUEUE_VALUE_INSERT}
        SELECT nextval('sge_queue_values_seq'), q.q_id, time, time, variable, v, {_NUMBER},
               config
        FROM ({_pairs('gridd_queue_consumable', 'qname, hostname', True)}) x
        JOIN sge_queue q ON q.q_qname = x.qname AND q.q_hostname = x.hostname""",
    "config": CONFIG_HISTORY,
}

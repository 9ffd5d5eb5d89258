"""Which type each attribute of each qconf object has (gridd.formats.field_types), one
table per kind: cluster queues, exec hosts, host groups, PEs, projects, users, access
lists, the scheduler configuration and the global (and host-local) configuration.

A table is the one place an attribute's type is said: gridd.formats.qconf_objects reads
every object through it, whatever the command (-A*/-M* files, the editor forms, the
attribute verbs) or the spool it comes from. The checks only some kinds need are here
with their tables, in Grid Engine 8.1.9's words where it has some.
"""

from __future__ import annotations

import re

from gridd.formats.field_types import (
    ASSIGNMENTS,
    BOOL,
    COUNT,
    HOSTS,
    MASTER,
    MEMORY,
    NAME,
    NAMES,
    OBJECT_NAME,
    QCONF,
    QUEUE_COUNT,
    SIGNED,
    STRING,
    TIME,
    WEIGHT,
    FieldType,
    InvalidValue,
    check_count,
    check_double,
    check_time,
    check_weight,
    choice,
    factors,
    group_name,
    host_name,
    in_queue,
    name_list,
    project_or_none,
    said,
    user_name,
)
from gridd.model.objects import NONE, words
from gridd.model.reporting_params import ACCOUNTING_FORMATS, accounting_format
from gridd.model.values import is_unsigned, parse_bool, parse_time

# ---- cluster queues ---------------------------------------------------------------------------


def _priority(attr: str, value: str) -> str:
    """Nice value of the jobs: -20 to 20, as nice(2) takes it."""
    if not SIGNED.fullmatch(value):
        raise InvalidValue(f'priority "{value}" is not a number', ("Invalid character",),
                           found=MASTER)
    if not -20 <= int(value) <= 20:
        raise InvalidValue(f'priority "{value}" is not from -20 to 20',
                           ("Priority not in range -20 to +20",), found=MASTER)
    return str(int(value))


_RANGE = re.compile(r"([0-9]+)(?:-([0-9]+))?")


def _ranges(value: str) -> list[tuple[int, int]]:
    """`1-4,8,10` as (first, last) pairs; ValueError if it is not such a list."""
    out = []
    for item in value.split(","):
        match = _RANGE.fullmatch(item.strip())
        if match is None:
            raise ValueError(item)
        first = int(match.group(1))
        last = int(match.group(2) or first)
        if last < first:
            raise ValueError(item)
        out.append((first, last))
    return out


def _processors(attr: str, value: str) -> str:
    """Processor numbers a queue binds its jobs to (`1-4,8`), or UNDEFINED."""
    if value.upper() == "UNDEFINED":
        return value
    try:
        _ranges(value)
    except ValueError:
        raise InvalidValue(
            f'"{value}" is not a range of processor numbers',
            ("Numerical value invalid!",
             f'The initial portion of string "{value}" contains no decimal number'),
            found=MASTER) from None
    return value


_QTYPES = ("BATCH", "INTERACTIVE")


def _qtype(attr: str, value: str) -> str:
    """Shown in Grid Engine's fixed order whatever the order written."""
    given = [item.upper() for item in words(value)]
    for item in given:
        if item not in _QTYPES:
            raise InvalidValue(
                f'"{value}" is not a queue type (BATCH, INTERACTIVE or NONE)',
                (f'reading conf file: unknown specifier "{item}" for ',
                 f'error parsing queue type from string "{value}"'))
    return " ".join(t for t in _QTYPES if t in given) or NONE


def _subordinates(attr: str, value: str) -> str:
    """`queue[=slots]` items; the slot threshold, when given, must be a number."""
    items = words(value)
    for item in items:
        name, _, threshold = item.partition("=")
        if not NAME.fullmatch(name) or (threshold and not is_unsigned(threshold)):
            raise InvalidValue(f'"{item}" is not a subordinate queue (queue[=slots])')
    return ",".join(items) if items else NONE


def _shell(attr: str, value: str) -> str:
    """The shell of the jobs: a full path, as execd starts it without a search."""
    if not value.startswith("/"):
        raise InvalidValue(f'shell "{value}" is not a full path',
                           (f'Invalid value "{value}" for shell ',), found=MASTER)
    return value


_LIMITS: dict[str, FieldType] = {
    f"{kind}_{limit}": TIME if limit in ("rt", "cpu") else MEMORY
    for limit in ("rt", "cpu", "fsize", "data", "stack", "core", "rss", "vmem")
    for kind in ("s", "h")
}

_QUEUE: dict[str, FieldType] = {
    "qname": OBJECT_NAME,
    "hostlist": HOSTS,
    "seq_no": QUEUE_COUNT,
    "load_thresholds": ASSIGNMENTS,
    "suspend_thresholds": ASSIGNMENTS,
    "nsuspend": QUEUE_COUNT,
    "suspend_interval": TIME,
    "priority": FieldType("PRIORITY", _priority),
    "min_cpu_interval": TIME,
    "processors": FieldType("RANGES", _processors),
    "qtype": FieldType("QTYPE", _qtype),
    "ckpt_list": NAMES,
    "pe_list": NAMES,
    "rerun": BOOL,
    "slots": QUEUE_COUNT,
    "tmpdir": STRING,
    "shell": FieldType("PATH", _shell),
    "prolog": STRING,
    "epilog": STRING,
    "shell_start_mode": said(
        choice("posix_compliant", "script_from_stdin", "unix_behavior"),
        'Invalid value "{value}" as shell start mode'),
    "starter_method": STRING,
    "suspend_method": STRING,
    "resume_method": STRING,
    "terminate_method": STRING,
    "notify": TIME,
    "owner_list": NAMES,
    "user_lists": NAMES,
    "xuser_lists": NAMES,
    "subordinate_list": FieldType("SUBORDINATES", _subordinates),
    "complex_values": ASSIGNMENTS,
    "projects": NAMES,
    "xprojects": NAMES,
    "calendar": STRING,  # gridd has no calendars: admin_refs refuses any name
    "initial_state": said(choice("default", "enabled", "disabled"),
                           'Invalid value "{value}" as initial state'),
    **_LIMITS,
}
QUEUE = {name: in_queue(field) for name, field in _QUEUE.items()}

# ---- exec hosts, host groups, PEs, projects, users, access lists ---------------------------

EXECHOST: dict[str, FieldType] = {
    "hostname": FieldType("HOST", host_name),
    "load_scaling": factors(check_double),
    "complex_values": ASSIGNMENTS,
    "load_values": STRING,  # reported by execd
    "processors": COUNT,
    "user_lists": NAMES,
    "xuser_lists": NAMES,
    "projects": NAMES,
    "xprojects": NAMES,
    "usage_scaling": factors(check_double),
    "report_variables": name_list(","),
}

HOSTGROUP: dict[str, FieldType] = {
    "group_name": FieldType("GROUP", group_name),
    "hostlist": HOSTS,
}

_ALLOCATION_VARIABLES = ("pe_slots", "fill_up", "round_robin")


def _allocation_rule(attr: str, value: str) -> str:
    """$pe_slots, $fill_up, $round_robin or a fixed number of slots per host."""
    if value.startswith("$"):
        if value[1:] not in _ALLOCATION_VARIABLES:
            raise InvalidValue(f'unknown allocation rule "{value}"',
                               (f'unknown variable "{value[1:]}"',))
        return value
    if not is_unsigned(value) or int(value) == 0:
        raise InvalidValue(f'allocation rule "{value}" is no $variable and no positive number')
    return str(int(value))


def _urgency_slots(attr: str, value: str) -> str:
    if value in ("min", "max", "avg"):
        return value
    return check_count(attr, value)


PE: dict[str, FieldType] = {
    "pe_name": OBJECT_NAME,
    "slots": COUNT,
    "user_lists": NAMES,
    "xuser_lists": NAMES,
    "start_proc_args": STRING,
    "stop_proc_args": STRING,
    "allocation_rule": FieldType("ALLOCATION_RULE", _allocation_rule),
    "control_slaves": BOOL,
    "job_is_first_task": BOOL,
    "urgency_slots": FieldType("URGENCY_SLOTS", _urgency_slots),
    "accounting_summary": BOOL,
    "qsort_args": STRING,
}

PROJECT: dict[str, FieldType] = {
    "name": OBJECT_NAME,
    "oticket": COUNT,
    "fshare": COUNT,
    "acl": NAMES,
    "xacl": NAMES,
}

USER: dict[str, FieldType] = {
    "name": FieldType("NAME", user_name),
    "oticket": COUNT,
    "fshare": COUNT,
    "delete_time": COUNT,
    "default_project": FieldType("NAME", project_or_none),
}

USERSET_TYPES = ("ACL", "DEPT")
_USER = re.compile(r"@?[^\s,=\[\]@/\\:'\"]+")


def _userset_type(attr: str, value: str) -> str:
    """ACL, DEPT or both (`ACL,DEPT` is shown `ACL DEPT`), in Grid Engine's order."""
    given = [item.upper() for item in words(value)]
    for item in given:
        if item not in USERSET_TYPES:
            raise InvalidValue(
                f'"{item}" is no userset type (ACL or DEPT)',
                (f'reading conf file: unknown specifier "{item}" for userset type',))
    if not given:
        raise InvalidValue("a userset needs a type (ACL or DEPT)")
    return " ".join(t for t in USERSET_TYPES if t in given)


def _user_list(attr: str, value: str) -> str:
    items = words(value)
    for item in items:
        if not _USER.fullmatch(item):
            raise InvalidValue(f'"{item}" is not a valid user or @group name')
    return ",".join(dict.fromkeys(items)) or NONE


USERSET: dict[str, FieldType] = {
    "name": OBJECT_NAME,
    "type": FieldType("USERSET_TYPE", _userset_type),
    "fshare": COUNT,
    "oticket": COUNT,
    "entries": FieldType("NAMES", _user_list),
}

# ---- the scheduler configuration ----------------------------------------------------------


def _sched_time(attr: str, value: str) -> str:
    """The scheduler reads its times after the file: its complaint names the attribute."""
    try:
        return check_time(attr, value)
    except InvalidValue as error:
        raise InvalidValue(str(error), (f'error: attribute "{attr}" is not a time value',),
                           found=QCONF) from None


SCHED_TIME = FieldType("TIME", _sched_time)


def _algorithm(attr: str, value: str) -> str:
    if value != "default":
        raise InvalidValue(f'"{value}" is not a scheduling algorithm',
                           (f'error: attribute "{value}" is not a valid algorithm name.',),
                           found=QCONF)
    return value


def _queue_sort_method(attr: str, value: str) -> str:
    """load or seqno, in any case, shown in lower case. Grid Engine takes any word for
    load; a word meant for seqno but misspelt would then go unnoticed, so it is refused."""
    if value.lower() not in ("load", "seqno"):
        raise InvalidValue(f'"{value}" is not a queue sort method (load or seqno)',
                           (f'error: attribute "{value}" is not a valid queue sort method.',),
                           found=QCONF)
    return value.lower()


def _schedd_job_info(attr: str, value: str) -> str:
    """true, false or `job_list` and the jobs whose reasons are kept."""
    if value in ("true", "false"):
        return value
    head, _, jobs = value.partition(" ")
    if head != "job_list":
        raise InvalidValue(f'"{value}" is not true, false or job_list',
                           (f'error: attribute "{attr} " is not a valid parameter',),
                           found=QCONF)
    if not jobs.strip() or not all(is_unsigned(job) for job in jobs.replace(",", " ").split()):
        raise InvalidValue(f'"{value}" is not a valid job list',
                           (f'error: attribute "{attr}" is not a valid job_list',),
                           found=QCONF)
    return value


_PE_RANGE_ALGORITHMS = ("auto", "least", "bin", "highest")


def _param_problem(entry: str) -> str | None:
    """Why one `NAME=value` of the scheduler's params is refused, None if it is not."""
    name, equals, value = entry.partition("=")
    key = name.upper()
    if key not in ("DURATION_OFFSET", "JC_FILTER", "PROFILE", "MONITOR", "PE_RANGE_ALG"):
        return f'found unknown param: "{entry}"'
    invalid = f'Invalid scheduler param setting: "{entry}"'
    if not equals:
        return invalid
    try:
        if key == "DURATION_OFFSET":
            parse_time(value)
        elif key == "PE_RANGE_ALG":
            if value.lower() not in _PE_RANGE_ALGORITHMS:
                return invalid
        else:
            parse_bool(value)
    except ValueError:
        return invalid
    return None


def _params(attr: str, value: str) -> str:
    """NONE or the scheduler's params (DURATION_OFFSET=0:2:0,MONITOR=1), kept as written."""
    for entry in words(value):
        problem = _param_problem(entry)
        if problem:
            raise InvalidValue(problem, (f"error: {problem}",), found=QCONF)
    return value


def _halflife_decay_list(attr: str, value: str) -> str:
    """NONE or `usage=minutes` items (-1: running jobs only, 0: no decay)."""
    for item in words(value.replace(":", " ")):
        _, equals, minutes = item.partition("=")
        if not equals or not SIGNED.fullmatch(minutes) or int(minutes) < -1:
            raise InvalidValue(f'"{value}" is not a list of usage=minutes',
                               ("error: Invalid halflife_day_list. Ignoring the setting.",),
                               found=QCONF)
    return value


def _policy_hierarchy(attr: str, value: str) -> str:
    """NONE or up to three of the letters O, F, S, each once."""
    if value != NONE and (len(set(value)) != len(value) or not set(value) <= set("OFS")):
        raise InvalidValue(f'"{value}" is not a policy hierarchy',
                           ("error: Invalid policy hierarchy string. Disabling policy hierarchy.",),
                           found=QCONF)
    return value


_SCHED_COUNT = ("maxujobs", "flush_submit_sec", "flush_finish_sec", "halftime",
                "weight_tickets_functional", "weight_tickets_share",
                "max_functional_jobs_to_schedule", "max_pending_tasks_per_job",
                "max_reservation")
_SCHED_WEIGHT = ("compensation_factor", "weight_user", "weight_project", "weight_department",
                 "weight_job", "weight_ticket", "weight_waiting_time", "weight_deadline",
                 "weight_urgency", "weight_priority")

SCHED: dict[str, FieldType] = {
    "algorithm": FieldType("CHOICE", _algorithm),
    "schedule_interval": SCHED_TIME,
    "queue_sort_method": FieldType("CHOICE", _queue_sort_method),
    "job_load_adjustments": ASSIGNMENTS,
    "load_adjustment_decay_time": SCHED_TIME,
    "load_formula": STRING,  # a sum of weighted complexes: gridd.master.admin_refs
    "schedd_job_info": FieldType("JOB_INFO", _schedd_job_info),
    "params": FieldType("PARAMS", _params),
    "reprioritize_interval": SCHED_TIME,
    "usage_weight_list": factors(check_weight),
    "share_override_tickets": BOOL,
    "share_functional_shares": BOOL,
    "report_pjob_tickets": BOOL,
    "halflife_decay_list": FieldType("HALFLIFE", _halflife_decay_list),
    "policy_hierarchy": FieldType("POLICY", _policy_hierarchy),
    "default_duration": SCHED_TIME,
    **dict.fromkeys(_SCHED_COUNT, COUNT),
    **dict.fromkeys(_SCHED_WEIGHT, WEIGHT),
}

# ---- the global and host configurations ---------------------------------------------------


def _conf(field: FieldType) -> FieldType:
    """A parameter of the global or a host's configuration. The master checks these,
    not qconf while it reads: no file is named, and a value is kept as written."""

    def check(attr: str, value: str) -> str:
        try:
            field(attr, value)
        except InvalidValue as error:
            line = (f'denied: got invalid value "{value}" for {attr}'
                    if field.label == "CHOICE" else
                    error.ge_lines[0] if error.found == MASTER and error.ge_lines else
                    f'format error for "{attr}" in "{value}" configuration')
            raise InvalidValue(str(error), (line,), found=MASTER) from None
        return value

    return FieldType(field.label, check)


def _either(*allowed: str) -> FieldType:
    """One of some words, in any case."""
    lowered = tuple(word.lower() for word in allowed)

    def check(attr: str, value: str) -> str:
        if value.lower() not in lowered:
            raise InvalidValue(f'"{value}" is none of {", ".join(allowed)}')
        return value

    return FieldType("CHOICE", check)


def _time_or_none(attr: str, value: str) -> str:
    return value if value.upper() == NONE else check_time(attr, value)


def _gid_range(attr: str, value: str) -> str:
    """Group ids for the jobs' processes, `m-n` ranges of numbers above 99."""
    try:
        ranges = _ranges(value)
    except ValueError:
        raise InvalidValue(f'"{value}" is not a list of ranges') from None
    if min(first for first, _ in ranges) < 100:
        raise InvalidValue(
            f'"{value}" starts below 100',
            ("minimum group id in gid_range may not be less than 100 in cluster configuration",),
            found=MASTER)
    return value


_REPORTING_TYPES = {"accounting": BOOL, "reporting": BOOL, "joblog": BOOL,
                    "log_consumables": BOOL, "flush_time": TIME,
                    "accounting_flush_time": TIME, "sharelog": TIME,
                    "accounting_format": _either(*ACCOUNTING_FORMATS),
                    "old_accounting": BOOL}


def _reporting_params(attr: str, value: str) -> str:
    """NONE or blank-separated `name=value` items of known names, each value of its type
    (gridd.master.reporting reads them so: `a=true,b=true` would be one item); the
    accounting file's form chosen once (accounting_format and old_accounting agree)."""
    given: dict[str, str] = {}
    for item in [] if value.upper() == NONE else value.split():
        name, equals, text = item.partition("=")
        field = _REPORTING_TYPES.get(name)
        if field is None or not equals:
            raise InvalidValue(f'"{item}" is not a reporting parameter')
        field(name, text)
        given[name] = text
    try:
        accounting_format(given)
    except ValueError as err:
        raise InvalidValue(str(err), (f"denied: {attr} {err}",), found=MASTER) from None
    return value


_CONF_COUNT = ("min_uid", "min_gid", "finished_jobs", "max_aj_instances", "max_aj_tasks",
               "max_u_jobs", "max_jobs", "auto_user_oticket", "auto_user_fshare",
               "auto_user_delete_time", "max_advance_reservations")
_CONF_STRING = ("execd_spool_dir", "mailer", "xterm", "load_sensor", "prolog", "epilog",
                "administrator_mail", "set_token_cmd", "pag_cmd", "shepherd_cmd",
                "qmaster_params", "execd_params", "qlogin_command", "qlogin_daemon",
                "rlogin_command", "rlogin_daemon", "rsh_command", "rsh_daemon", "jsv_url",
                "jsv_allowed_mod", "libjvm_path", "additional_jvm_args")

CONF: dict[str, FieldType] = {
    **dict.fromkeys(_CONF_STRING, STRING),
    **{name: _conf(field) for name, field in {
        "shell_start_mode": _either("posix_compliant", "unix_behavior", "script_from_stdin"),
        "login_shells": NAMES,
        "user_lists": NAMES,
        "xuser_lists": NAMES,
        "projects": NAMES,
        "xprojects": NAMES,
        "enforce_project": _either("true", "false"),
        "enforce_user": _either("true", "false", "auto"),
        "load_report_time": TIME,
        "max_unheard": TIME,
        "reschedule_unknown": TIME,
        "loglevel": _either("log_crit", "log_err", "log_warning", "log_notice", "log_info",
                            "log_debug"),
        "token_extend_time": FieldType("TIME", _time_or_none),
        "reporting_params": FieldType("REPORTING", _reporting_params),
        "gid_range": FieldType("RANGES", _gid_range),
        "auto_user_default_project": FieldType("NAME", project_or_none),
        "delegated_file_staging": BOOL,
        "reprioritize": BOOL,
        **dict.fromkeys(_CONF_COUNT, COUNT),
    }.items()},
}

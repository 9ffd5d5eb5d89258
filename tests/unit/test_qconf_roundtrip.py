"""parse∘print is the identity on every qconf object format (hypothesis).

The queue (test_qconf_objects) and the complex table (test_formats_qconf) have their
own properties; here are the others: exec hosts, host groups, PEs, projects, access
lists, the scheduler configuration, the global and the host-local configurations. Each
object is drawn as a file an administrator might write (any spelling qconf accepts),
normalized by reading it once, and must then survive show → read unchanged, with every
wrapped line within 80 columns.
"""

from __future__ import annotations

from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from gridd.formats.objects import parse_object, print_configuration
from gridd.formats.qconf_objects import (
    HOST_CONF_NAMES,
    from_pairs,
    host_conf_from_pairs,
    show,
    show_userset,
    to_pairs,
    userset_from_pairs,
)
from gridd.model.objects import GlobalConf, SchedConf

_NAME = st.from_regex(r"[a-z][a-z0-9_.-]{0,11}", fullmatch=True)
_HOST = st.from_regex(r"[a-z][a-z0-9-]{0,8}(\.[a-z]{2,5}){0,2}", fullmatch=True)
_GROUP = _NAME.map(lambda n: "@" + n)
_TOKEN = st.text(alphabet="abcdefghijklmnopqrstuvwxyz0123456789_.:=/@$*-", min_size=1,
                 max_size=20)
_SEPARATORS = st.sampled_from([",", " ", ", "])


def _list_of(items: st.SearchStrategy[str], max_size: int = 8,
             separators: st.SearchStrategy[str] = _SEPARATORS) -> st.SearchStrategy[str]:
    """A list value as people write it: NONE, or items separated by commas or blanks."""

    @st.composite
    def draw_list(draw: st.DrawFn) -> str:
        chosen = draw(st.lists(items, max_size=max_size, unique=True))
        if not chosen:
            return draw(st.sampled_from(["NONE", "none"]))
        text = chosen[0]
        for item in chosen[1:]:
            text += draw(separators) + item
        return text

    return draw_list()


@st.composite
def _text(draw: st.DrawFn) -> str:
    """Free text such as a prolog command line: tokens and single blanks."""
    return " ".join(draw(st.lists(_TOKEN, min_size=1, max_size=12)))


_NUMBER = st.integers(0, 10**9).map(str)
_ASSIGNMENTS = _list_of(st.builds(lambda n, v: f"{n}={v}", _NAME,
                                  st.from_regex(r"[0-9a-zA-Z.]{1,8}", fullmatch=True)))
_DECIMAL = st.floats(-1e9, 1e9, allow_nan=False).map(str)
_FACTORS = _list_of(st.builds(lambda n, v: f"{n}={v}", _NAME, _DECIMAL))
_NAMES = _list_of(_NAME)
_BOOL = st.sampled_from(["TRUE", "FALSE", "true", "false", "1", "0"])
_TIME = st.one_of(_NUMBER, st.sampled_from(["INFINITY", "0:0:15", "00:05:00", "1:0:0", "::5"]))


def _pairs(draw: st.DrawFn, fields: dict[str, st.SearchStrategy[str]], name_key: str
           ) -> list[tuple[str, str]]:
    """The naming attribute and a random subset of the others, in random order."""
    keys = [k for k in fields if k != name_key]
    chosen = draw(st.lists(st.sampled_from(keys), unique=True)) if keys else []
    return [(name_key, draw(fields[name_key]))] + [(k, draw(fields[k])) for k in chosen]


def _shows_back(kind: str, obj: Any) -> None:
    text = show(kind, obj)
    assert from_pairs(kind, parse_object(text), source="shown") == obj
    assert show(kind, from_pairs(kind, parse_object(text), source="shown")) == text
    assert all(len(line) <= 80 for line in text.splitlines() if line.endswith("\\"))


_EXECHOST = {
    "hostname": _HOST,
    "load_scaling": _FACTORS,
    "complex_values": _ASSIGNMENTS,
    "load_values": _text(),
    "processors": _NUMBER,
    "user_lists": _NAMES,
    "xuser_lists": _NAMES,
    "projects": _NAMES,
    "xprojects": _NAMES,
    "usage_scaling": _FACTORS,
    "report_variables": _NAMES,
}


@given(st.data())
def test_exechost_round_trips(data: st.DataObject) -> None:
    pairs = data.draw(st.composite(lambda draw: _pairs(draw, _EXECHOST, "hostname"))())
    _shows_back("exechost", from_pairs("exechost", pairs, source="drawn"))


@given(_GROUP, _list_of(st.one_of(_HOST, _GROUP), max_size=30))
def test_hostgroup_round_trips(name: str, hostlist: str) -> None:
    group = from_pairs("hostgroup", [("group_name", name), ("hostlist", hostlist)],
                       source="drawn")
    _shows_back("hostgroup", group)


_PE = {
    "pe_name": _NAME,
    "slots": _NUMBER,
    "user_lists": _NAMES,
    "xuser_lists": _NAMES,
    "start_proc_args": _text(),
    "stop_proc_args": _text(),
    "allocation_rule": st.one_of(st.sampled_from(["$pe_slots", "$fill_up", "$round_robin"]),
                                 st.integers(1, 64).map(str)),
    "control_slaves": _BOOL,
    "job_is_first_task": _BOOL,
    "urgency_slots": st.one_of(st.sampled_from(["min", "max", "avg"]), _NUMBER),
    "accounting_summary": _BOOL,
    "qsort_args": _text(),
}


@given(st.data())
def test_pe_round_trips(data: st.DataObject) -> None:
    pairs = data.draw(st.composite(lambda draw: _pairs(draw, _PE, "pe_name"))())
    _shows_back("pe", from_pairs("pe", pairs, source="drawn"))


_PROJECT = {"name": _NAME, "oticket": _NUMBER, "fshare": _NUMBER, "acl": _NAMES,
            "xacl": _NAMES}


@given(st.data())
def test_project_round_trips(data: st.DataObject) -> None:
    pairs = data.draw(st.composite(lambda draw: _pairs(draw, _PROJECT, "name"))())
    _shows_back("project", from_pairs("project", pairs, source="drawn"))


_USERSET = {
    "name": _NAME,
    "type": st.sampled_from(["ACL", "DEPT", "ACL,DEPT", "DEPT ACL", "acl"]),
    "fshare": _NUMBER,
    "oticket": _NUMBER,
    "entries": _list_of(st.one_of(_NAME, _GROUP), max_size=30),
}


@given(st.data())
def test_userset_round_trips(data: st.DataObject) -> None:
    pairs = data.draw(st.composite(lambda draw: _pairs(draw, _USERSET, "name"))())
    userset = userset_from_pairs(pairs, source="drawn")
    text = show_userset(userset)
    assert userset_from_pairs(parse_object(text), source="shown") == userset
    assert show_userset(userset_from_pairs(parse_object(text), source="shown")) == text


_COUNTS = ("maxujobs", "flush_submit_sec", "flush_finish_sec", "halftime",
           "weight_tickets_functional", "weight_tickets_share",
           "max_functional_jobs_to_schedule", "max_pending_tasks_per_job", "max_reservation")
_WEIGHTS = ("compensation_factor", "weight_user", "weight_project", "weight_department",
            "weight_job", "weight_ticket", "weight_waiting_time", "weight_deadline",
            "weight_urgency", "weight_priority")
_SCHED = {
    "algorithm": st.just("default"),
    "schedule_interval": _TIME,
    "queue_sort_method": st.sampled_from(["load", "seqno", "SEQNO", "Load"]),
    "job_load_adjustments": _ASSIGNMENTS,
    "load_adjustment_decay_time": _TIME,
    "load_formula": _text(),
    "schedd_job_info": st.sampled_from(["true", "false", "job_list 1,2", "job_list 7"]),
    "params": st.sampled_from(["none", "MONITOR=1", "DURATION_OFFSET=0:2:0,MONITOR=true",
                               "PE_RANGE_ALG=bin PROFILE=0", "JC_FILTER=false"]),
    "reprioritize_interval": _TIME,
    "usage_weight_list": _FACTORS,
    "share_override_tickets": _BOOL,
    "share_functional_shares": _BOOL,
    "report_pjob_tickets": _BOOL,
    "halflife_decay_list": st.sampled_from(["none", "cpu=5:mem=-1:io=0", "cpu=30"]),
    "policy_hierarchy": st.sampled_from(["OFS", "NONE", "SO", "F"]),
    "default_duration": _TIME,
    **dict.fromkeys(_COUNTS, _NUMBER),
    **dict.fromkeys(_WEIGHTS, _DECIMAL),
}


@given(st.data())
def test_scheduler_configuration_round_trips(data: st.DataObject) -> None:
    assert set(_SCHED) == set(SchedConf.__struct_fields__)
    values = data.draw(st.fixed_dictionaries({}, optional=_SCHED))
    _shows_back("sched", from_pairs("sched", values.items(), source="drawn"))


# The configurations keep a list as written, and a line broken after ", " reads back
# without the blank: their lists are drawn with one separator between items.
_CONF_NAMES = _list_of(_NAME, separators=st.sampled_from([",", " "]))
_CONF_COUNTS = ("min_uid", "min_gid", "finished_jobs", "max_aj_instances", "max_aj_tasks",
                "max_u_jobs", "max_jobs", "auto_user_oticket", "auto_user_fshare",
                "auto_user_delete_time", "max_advance_reservations")
_CONF = {
    **{name: _text() for name in GlobalConf.__struct_fields__},
    "shell_start_mode": st.sampled_from(["posix_compliant", "unix_behavior", "SCRIPT_FROM_STDIN"]),
    "login_shells": _CONF_NAMES,
    "user_lists": _CONF_NAMES,
    "xuser_lists": _CONF_NAMES,
    "projects": _CONF_NAMES,
    "xprojects": _CONF_NAMES,
    "enforce_project": st.sampled_from(["true", "false", "TRUE"]),
    "enforce_user": st.sampled_from(["true", "false", "auto", "Auto"]),
    "load_report_time": _TIME,
    "max_unheard": _TIME,
    "reschedule_unknown": _TIME,
    "loglevel": st.sampled_from(["log_warning", "log_info", "LOG_ERR"]),
    "token_extend_time": st.one_of(_TIME, st.just("none")),
    "reporting_params": st.sampled_from([
        "accounting=true reporting=false flush_time=00:00:15 joblog=false sharelog=00:00:00",
        "none", "accounting=false", "log_consumables=true accounting_flush_time=0",
        "accounting=true accounting_format=json old_accounting=false",
        "old_accounting=TRUE accounting_format=colon"]),
    "gid_range": st.sampled_from(["65400-65500", "100", "200-300,400"]),
    "auto_user_default_project": st.one_of(_NAME, st.just("none")),
    "delegated_file_staging": _BOOL,
    "reprioritize": _BOOL,
    **dict.fromkeys(_CONF_COUNTS, _NUMBER),
}


@given(st.data())
def test_global_configuration_round_trips(data: st.DataObject) -> None:
    values = data.draw(st.fixed_dictionaries({}, optional=_CONF))
    conf = from_pairs("conf", values.items(), source="drawn")
    text = print_configuration("global", to_pairs(conf))
    assert from_pairs("conf", parse_object(text), source="shown") == conf
    assert print_configuration("global", to_pairs(conf)) == text


@given(_HOST, st.data())
def test_host_configuration_round_trips(host: str, data: st.DataObject) -> None:
    names = data.draw(st.lists(st.sampled_from(sorted(HOST_CONF_NAMES)), min_size=1,
                               unique=True))
    values = {name: data.draw(_CONF[name]) for name in names}
    conf = host_conf_from_pairs(values.items(), source="drawn")
    text = print_configuration(host, list(conf.items()))
    assert text.startswith(f"#{host}:\n") and text.endswith("\n\n")
    assert host_conf_from_pairs(parse_object(text), source="shown") == conf
    assert list(conf) == list(values)  # shown in the order written

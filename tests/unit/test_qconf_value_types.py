"""Every typed attribute of every qconf object is checked against its type, whatever the
command, in Grid Engine 8.1.9's words, and a refused change changes nothing (issue 29,
items 3 and 4).

The words are 8.1.9's, from its qconf run on a live cell (`qconf -Msconf` of a file with
`max_reservation lots`, `qconf -Mconf` with `loglevel many`, `-mattr queue complex_values
num_proc=abc all.q`, ...). Where 8.1.9 takes a value silently and misreads it later
(`max_u_jobs many`, `queue_sort_method lots`, `load_thresholds np_load_avg=abc`), gridd
refuses it in the words 8.1.9 uses for its neighbours.
"""

from __future__ import annotations

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gridd.formats import object_fields
from gridd.formats.field_types import FieldType
from gridd.formats.objects import print_object
from gridd.formats.parsing import FormatError
from gridd.formats.qconf_objects import (
    KINDS,
    from_pairs,
    host_conf_from_pairs,
    userset_from_pairs,
)
from gridd.master.admin import Caller, run_qconf
from gridd.master.bootstrap import CellConfig, initial_config
from gridd.master.state import MasterState
from gridd.model.complexes import ComplexAttr
from gridd.model.config import Configuration

LICENSE = ComplexAttr("license", "lic", "INT", "<=", "YES", "YES", "0", "0")


def cell() -> Configuration:
    """`gridd up --hosts 2`'s configuration, with an INT consumable `license`."""
    state = MasterState()
    initial_config(state, CellConfig(hosts=["node1", "node2"], slots=2))
    state.config.complexes.append(LICENSE)
    return state.config


def run(cfg: Configuration, *argv: str, files: dict[str, str] | None = None
        ) -> tuple[list[str], list[str], int]:
    ans = run_qconf(cfg, list(argv), Caller("root", "vm", files or {}))
    return ans.out, ans.err, ans.code


def refused(cfg: Configuration, *argv: str, files: dict[str, str] | None = None) -> str:
    """The stderr of a refused command, which must have changed nothing."""
    before = msgspec.msgpack.encode(cfg)
    out, err, code = run(cfg, *argv, files=files)
    assert code == 1, (out, err)
    assert msgspec.msgpack.encode(cfg) == before
    return "\n".join(err)


def _with(shown: list[str], attr: str, value: str) -> str:
    """A -s<kind> output with one attribute's value replaced."""
    lines = [f"{attr} {value}" if line.split(" ", 1)[0] == attr else line for line in shown]
    return "\n".join(lines) + "\n"


# ---- the scheduler configuration -------------------------------------------------------------

_READ = 'error: error reading file: "bads"'
_SAID = "error reading in file"


@pytest.mark.parametrize(("attr", "value", "lines"), [
    ("max_reservation", "lots",
     ['error: error parsing unsigned long value from string "lots"', _READ, _SAID]),
    ("max_reservation", "-1",
     ['error: parameter "max_reservation" must be a positive number', _READ, _SAID]),
    ("maxujobs", "1.5", ['error: "1.5" is not an u_long32 value', _READ, _SAID]),
    ("halftime", "99999999999",
     ['error: "99999999999" is not an u_long32 value', _READ, _SAID]),
    ("schedule_interval", "soon", ['error: attribute "schedule_interval" is not a time value',
                                   _SAID]),
    ("default_duration", "1:x", ['error: attribute "default_duration" is not a time value',
                                 _SAID]),
    ("algorithm", "simple", ['error: attribute "simple" is not a valid algorithm name.', _SAID]),
    ("weight_user", "lots", ['error: error parsing double value from string "lots"', _READ,
                             _SAID]),
    ("usage_weight_list", "cpu=abc", ['error: error parsing double value from string "abc"',
                                      _READ, _SAID]),
    ("share_override_tickets", "lots", ['error: error parsing value "lots"', _READ, _SAID]),
    ("schedd_job_info", "TRUE",
     ['error: attribute "schedd_job_info " is not a valid parameter', _SAID]),
    ("schedd_job_info", "job_list x",
     ['error: attribute "schedd_job_info" is not a valid job_list', _SAID]),
    ("params", "lots", ['error: found unknown param: "lots"', _SAID]),
    ("params", "MONITOR=abc", ['error: Invalid scheduler param setting: "MONITOR=abc"', _SAID]),
    ("params", "MONITOR", ['error: Invalid scheduler param setting: "MONITOR"', _SAID]),
    ("halflife_decay_list", "cpu=x",
     ["error: Invalid halflife_day_list. Ignoring the setting.", _SAID]),
    ("policy_hierarchy", "OFSD",
     ["error: Invalid policy hierarchy string. Disabling policy hierarchy.", _SAID]),
    ("policy_hierarchy", "ofs",
     ["error: Invalid policy hierarchy string. Disabling policy hierarchy.", _SAID]),
    # 8.1.9 takes any word for load here: gridd refuses what is neither
    ("queue_sort_method", "lots",
     ['error: attribute "lots" is not a valid queue sort method.', _SAID]),
    # what the master checks against the complexes: no file named
    ("load_formula", "lots", ['"load_formula" references not existing complex attribute "lots"']),
    ("load_formula", "np_load_avg/2",
     ['"load_formula" references not existing complex attribute "np_load_avg/2"']),
    ("load_formula", "2*np_load_avg",
     ['"load_formula" uses "np_load_avg" as weighting factor (only numbers are allowed)']),
    ("load_formula", "np_load_avg*x",
     ['"load_formula" uses "x" as weighting factor (only numbers are allowed)']),
    ("load_formula", "np_load_avg+",
     ['"load_formula" references not existing complex attribute ""']),
    ("load_formula", "arch",
     ['String, CString, ReString or Host attributes are not allowed in "load_formula": "arch"']),
    ("job_load_adjustments", "np_load_avg=abc", ['attribute "np_load_avg" is not a double value']),
    ("job_load_adjustments", "nosuch=1",
     ['"job_load_adjustments" references not existing complex attribute "nosuch"']),
])
def test_a_scheduler_value_not_of_its_type_is_refused(attr: str, value: str,
                                                     lines: list[str]) -> None:
    cfg = cell()
    shown = run(cfg, "-ssconf")[0]
    assert refused(cfg, "-Msconf", "bads", files={"bads": _with(shown, attr, value)}) == (
        "\n".join(lines))
    assert run(cfg, "-ssconf")[0] == shown


@pytest.mark.parametrize(("attr", "value", "shown"), [
    ("weight_user", "0.3", "0.300000"),
    ("weight_urgency", "1e2", "100.000000"),
    ("compensation_factor", "-1", "-1.000000"),
    ("usage_weight_list", "cpu=0.5,mem=0.5", "cpu=0.500000,mem=0.500000"),
    ("max_reservation", "010", "10"),
    ("queue_sort_method", "SEQNO", "seqno"),
    ("share_override_tickets", "true", "TRUE"),
    ("params", "DURATION_OFFSET=0:2:0,MONITOR=true", "DURATION_OFFSET=0:2:0,MONITOR=true"),
    ("load_formula", "load_avg*2-mem_free*0.1", "load_avg*2-mem_free*0.1"),
    ("schedd_job_info", "job_list 1,2", "job_list 1,2"),
])
def test_scheduler_values_are_shown_as_grid_engine_shows_them(attr: str, value: str,
                                                              shown: str) -> None:
    cfg = cell()
    text = _with(run(cfg, "-ssconf")[0], attr, value)
    assert run(cfg, "-Msconf", "f", files={"f": text})[2] == 0
    assert getattr(cfg.sched, attr) == shown


# ---- the global and host configurations ------------------------------------------------------


@pytest.mark.parametrize(("attr", "value", "line"), [
    ("max_u_jobs", "many", 'format error for "max_u_jobs" in "many" configuration'),
    ("max_jobs", "-1", 'format error for "max_jobs" in "-1" configuration'),
    ("auto_user_oticket", "many", 'format error for "auto_user_oticket" in "many" configuration'),
    ("load_report_time", "soon", 'format error for "load_report_time" in "soon" configuration'),
    ("enforce_project", "maybe", 'denied: got invalid value "maybe" for enforce_project'),
    ("enforce_user", "many", 'denied: got invalid value "many" for enforce_user'),
    ("loglevel", "many", 'denied: got invalid value "many" for loglevel'),
    ("shell_start_mode", "many", 'denied: got invalid value "many" for shell_start_mode'),
    ("delegated_file_staging", "maybe",
     'format error for "delegated_file_staging" in "maybe" configuration'),
    ("gid_range", "1-2",
     "minimum group id in gid_range may not be less than 100 in cluster configuration"),
    ("gid_range", "many", 'format error for "gid_range" in "many" configuration'),
    ("reporting_params", "accounting=maybe",
     'format error for "reporting_params" in "accounting=maybe" configuration'),
    ("reporting_params", "accounting=true,joblog=true",
     'format error for "reporting_params" in "accounting=true,joblog=true" configuration'),
    ("reporting_params", "accounting_format=xml",
     'format error for "reporting_params" in "accounting_format=xml" configuration'),
    ("reporting_params", "old_accounting=maybe",
     'format error for "reporting_params" in "old_accounting=maybe" configuration'),
    ("reporting_params", "accounting=true accounting_format=colon old_accounting=false",
     "denied: reporting_params accounting_format=colon and old_accounting=false disagree"),
    ("user_lists", "many", 'Userset "many" does not exist'),
    ("projects", "many",
     'denied: project "many" referenced in projects of configuration "global" does not exist'),
])
def test_a_global_value_not_of_its_type_is_refused(attr: str, value: str, line: str) -> None:
    cfg = cell()
    shown = run(cfg, "-sconf")[0]
    assert refused(cfg, "-Mconf", "/tmp/global",
                   files={"/tmp/global": _with(shown, attr, value)}) == line
    assert run(cfg, "-sconf")[0] == shown


def test_a_host_configuration_is_checked_as_the_global_one() -> None:
    cfg = cell()
    bad = {"/tmp/node1": "max_u_jobs many\n"}
    assert refused(cfg, "-Aconf", "/tmp/node1", files=bad) == (
        'format error for "max_u_jobs" in "many" configuration')
    assert run(cfg, "-Aconf", "/tmp/node1", files={"/tmp/node1": "max_u_jobs 5\n"})[2] == 0
    assert refused(cfg, "-Mconf", "/tmp/node1", files=bad) == (
        'format error for "max_u_jobs" in "many" configuration')
    assert refused(cfg, "-Mconf", "/tmp/node1", files={"/tmp/node1": "xuser_lists staff\n"}) == (
        'Userset "staff" does not exist')
    assert cfg.host_confs["node1"] == {"max_u_jobs": "5"}


@pytest.mark.parametrize("host", ["global", "node1"])
def test_what_a_configuration_names_stays(host: str) -> None:
    """An access list or project a configuration names may not go, in 8.1.9's words
    (run here on the global one): the configuration would name what there is none of,
    and every later edit of it that kept the name would be refused."""
    cfg = cell()
    files = {"u": "name staff\ntype ACL\nfshare 0\noticket 0\nentries NONE\n",
             "p": "name big\noticket 0\nfshare 0\nacl NONE\nxacl NONE\n",
             f"/tmp/{host}": "xuser_lists staff\nxprojects big\n"}
    if host == "global":
        shown = _with(run(cfg, "-sconf")[0], "xuser_lists", "staff").splitlines()
        files[f"/tmp/{host}"] = _with(shown, "xprojects", "big")
    assert run(cfg, "-Au", "u", "-Aprj", "p", files=files)[2] == 0
    assert run(cfg, "-Mconf" if host == "global" else "-Aconf", f"/tmp/{host}",
               files=files)[2] == 0
    assert refused(cfg, "-dul", "staff") == (
        f'denied: userset "staff" is still referenced in xuser list of configuration "{host}"')
    assert refused(cfg, "-dprj", "big") == (
        f'denied: project "big" is still referenced in xprojects of configuration "{host}"')


# ---- values the complex table types (item 4) --------------------------------------------------


@pytest.mark.parametrize(("argv", "line"), [
    # complexes.txt: `qconf -mattr queue complex_values license=abc all.q`
    (("queue", "complex_values", "license=abc", "all.q"),
     'attribute "license" is not a integer value'),
    (("queue", "complex_values", "lic=abc", "all.q"), 'attribute "license" is not a integer value'),
    (("queue", "complex_values", "[node1=license=abc]", "all.q"),
     'attribute "license" is not a integer value'),
    (("queue", "complex_values", "license=abc", "all.q@node1"),
     'attribute "license" is not a integer value'),
    (("exechost", "complex_values", "license=abc", "global"),
     'attribute "license" is not a integer value'),
    (("exechost", "complex_values", "license=1.5", "node1"),
     'attribute "license" is not a integer value'),
    (("queue", "complex_values", "h_vmem=abc", "all.q"),
     'attribute "h_vmem" is not a memory value'),
    (("queue", "complex_values", "h_rt=abc", "all.q"), 'attribute "h_rt" is not a time value'),
    (("queue", "complex_values", "cpu=abc", "all.q"), 'attribute "cpu" is not a double value'),
    (("queue", "complex_values", "display_win_gui=maybe", "all.q"),
     'attribute "display_win_gui" is not a boolean value'),
    (("queue", "complex_values", "slots=-1", "all.q"),
     'attribute "slots" is consumable but has a negative value'),
    # 8.1.9 takes these silently; their words are those of complex_values
    (("queue", "load_thresholds", "np_load_avg=abc", "all.q"),
     'attribute "np_load_avg" is not a double value'),
    (("queue", "suspend_thresholds", "mem_free=abc", "all.q"),
     'attribute "mem_free" is not a memory value'),
    (("queue", "load_thresholds", "nosuch=1", "all.q"),
     'Complex attribute "nosuch" does not exist'),
])
def test_a_value_not_of_its_complex_type_is_refused(argv: tuple[str, ...], line: str) -> None:
    cfg = cell()
    for verb in ("-mattr", "-rattr", "-aattr"):
        if verb == "-aattr" and argv[1] != "complex_values":
            continue
        assert refused(cfg, verb, *argv) == line


def test_a_queue_file_with_a_value_not_of_its_complex_type_is_refused() -> None:
    cfg = cell()
    shown = run(cfg, "-sq", "all.q")[0]
    queue = _with(shown, "qname", "new.q")
    assert refused(cfg, "-Aq", "q", files={"q": _with(queue.splitlines(), "complex_values",
                                                        "license=abc")}) == (
        'attribute "license" is not a integer value')
    assert refused(cfg, "-Mq", "q", files={"q": _with(shown, "complex_values",
                                                        "license=5,[node2=license=x]")}) == (
        'attribute "license" is not a integer value')
    assert run(cfg, "-Mq", "q", files={"q": _with(shown, "complex_values", "license=5")})[2] == 0


# ---- every typed attribute of every object (hypothesis) ---------------------------------------

# Values no attribute of a type takes, by the type's label. Every label a table uses must
# be here (test_every_type_has_wrong_values), so a new type is tested from the start.
_WORD = st.from_regex(r"[a-z]{1,8}", fullmatch=True)
_ZZ = st.from_regex(r"zz[a-z]{0,6}", fullmatch=True)  # no keyword starts so
_WITH_EQUALS = st.from_regex(r"[a-z]{1,5}=[a-z]{1,5}", fullmatch=True)
WRONG: dict[str, st.SearchStrategy[str]] = {
    "COUNT": st.one_of(_WORD, st.integers(max_value=-1).map(str),
                       st.integers(2**32, 2**40).map(str), st.just("1.5")),
    "DOUBLE": _WORD,
    "BOOL": _ZZ,
    "TIME": st.one_of(_ZZ, st.just("1:x"), st.just("1:2:3:4")),
    "MEMORY": st.one_of(_ZZ, st.just("4X")),
    "CHOICE": _ZZ,
    "NAME": _WITH_EQUALS,
    "NAMES": _WITH_EQUALS,
    "HOST": _WITH_EQUALS,
    "HOSTS": st.from_regex(r"[a-z]{1,5}![a-z]{1,5}", fullmatch=True),
    "GROUP": _WORD,
    "ASSIGNMENTS": _ZZ,
    "PRIORITY": st.one_of(_WORD, st.integers(21, 99).map(str)),
    "RANGES": st.one_of(_ZZ, st.just("5-1")),
    "QTYPE": _ZZ,
    "PATH": _WORD,
    "SUBORDINATES": _WITH_EQUALS,
    "ALLOCATION_RULE": st.one_of(_ZZ, st.just("$bogus"), st.just("0")),
    "URGENCY_SLOTS": _ZZ,
    "USERSET_TYPE": _ZZ,
    "JOB_INFO": _ZZ,
    "PARAMS": _ZZ,
    "HALFLIFE": _ZZ,
    "POLICY": _ZZ,
    "REPORTING": _ZZ,
}

# The attributes that take any text; each other one has a type that refuses something.
FREE_TEXT = {
    "queue": {"tmpdir", "prolog", "epilog", "starter_method", "suspend_method",
              "resume_method", "terminate_method",
              "calendar"},  # any calendar name is refused as unknown (admin_refs)
    "exechost": {"load_values"},  # reported by execd
    "hostgroup": set(),
    "pe": {"start_proc_args", "stop_proc_args", "qsort_args"},
    "project": set(),
    "user": set(),
    "userset": set(),
    "sched": {"load_formula"},  # checked against the complexes (admin_refs)
    "conf": {"execd_spool_dir", "mailer", "xterm", "load_sensor", "prolog", "epilog",
             "administrator_mail", "set_token_cmd", "pag_cmd", "shepherd_cmd",
             "qmaster_params", "execd_params", "qlogin_command", "qlogin_daemon",
             "rlogin_command", "rlogin_daemon", "rsh_command", "rsh_daemon", "jsv_url",
             "jsv_allowed_mod", "libjvm_path", "additional_jvm_args"},
}
TABLES: dict[str, dict[str, FieldType]] = {
    **{name: kind.types for name, kind in KINDS.items()},
    "userset": object_fields.USERSET,
}
NAMED_BY = {"queue": "qname", "exechost": "hostname", "hostgroup": "group_name",
            "pe": "pe_name", "project": "name", "user": "name", "userset": "name"}
TYPED = sorted((kind, attr) for kind, table in TABLES.items() for attr, field in table.items()
               if field.label != "STRING" and attr != NAMED_BY.get(kind))


def test_the_free_text_attributes_are_those_named() -> None:
    for kind, table in TABLES.items():
        assert {attr for attr, field in table.items() if field.label == "STRING"} == (
            FREE_TEXT[kind]), kind


def test_every_type_has_wrong_values() -> None:
    labels = {field.label for table in TABLES.values() for field in table.values()}
    assert labels - {"STRING"} <= set(WRONG)


# an object of each kind to modify, and the option that reads its file
_MODIFY = {"queue": ("all.q", "-Mq"), "exechost": ("node1", "-Me"),
           "hostgroup": ("@g", "-Mhgrp"), "pe": ("smp", "-Mp"), "project": ("p", "-Mprj"),
           "user": ("u", "-Muser"), "userset": ("arusers", "-Mu"),
           "sched": (None, "-Msconf"), "conf": (None, "-Mconf")}
_ATTR_OBJECTS = {"queue", "exechost", "hostgroup", "pe"}


def _rich_cell() -> Configuration:
    cfg = cell()
    files = {"g": "group_name @g\nhostlist node1\n", "p": "name p\n",
             "u": "name u\noticket 0\nfshare 0\ndelete_time 0\ndefault_project NONE\n",
             "node2": "max_u_jobs 5\n"}
    for option in ("-Ahgrp g", "-Aprj p", "-Auser u", "-Aconf node2"):
        verb, path = option.split()
        assert run(cfg, verb, path, files=files)[2] == 0, option
    return cfg


def _read(kind: str, pairs: list[tuple[str, str]]) -> object:
    if kind == "userset":
        return userset_from_pairs(pairs, source="f")
    return from_pairs(kind, pairs, source="f")


@pytest.mark.parametrize(("kind", "attr"), TYPED)
@settings(max_examples=15, deadline=None)
@given(data=st.data())
def test_a_wrong_value_of_any_typed_attribute_changes_nothing(kind: str, attr: str,
                                                              data: st.DataObject) -> None:
    field = TABLES[kind][attr]
    value = data.draw(WRONG[field.label], label="value")
    name, option = _MODIFY[kind]
    named = [(NAMED_BY[kind], name)] if kind in NAMED_BY else []
    with pytest.raises(FormatError):
        _read(kind, [*named, (attr, value)])
    cfg = _rich_cell()
    text = print_object([*named, (attr, value)], width=30)
    if kind == "conf":
        refused(cfg, option, "/x/global", files={"/x/global": text})
        with pytest.raises(FormatError):
            host_conf_from_pairs([(attr, value)], source="f")
        refused(cfg, "-Mconf", "/x/node2", files={"/x/node2": text})
    else:
        refused(cfg, option, "f", files={"f": text})
    if kind in _ATTR_OBJECTS:
        for verb in ("-rattr", "-mattr"):
            refused(cfg, verb, kind, attr, value, name)

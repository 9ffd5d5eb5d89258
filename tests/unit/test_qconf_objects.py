"""qconf configuration objects: Grid Engine 8.1.9's own `qconf -s*` outputs read into the
model and shown again byte for byte, the values Grid Engine normalizes, and its complaints
about bad object files.

The expected texts are copied from reference/sge-8.1.9/transcripts (final_config.txt,
queues_pe.txt, resource_reservation.txt), whose names are given with each.
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gridd.formats.objects import parse_object, print_configuration
from gridd.formats.overrides import print_overridable, queue_value
from gridd.formats.parsing import FormatError
from gridd.formats.qconf_objects import KINDS, from_pairs, show, to_pairs
from gridd.model.objects import (
    ClusterQueue,
    ExecHostConf,
    GlobalConf,
    HostGroup,
    ParallelEnvConf,
    Project,
    SchedConf,
)
from gridd.model.overrides import Overridable

# `qconf -sq all.q` (final_config.txt)
QCONF_SQ_ALL = """\
qname                 all.q
hostlist              vm
seq_no                0
load_thresholds       NONE
suspend_thresholds    NONE
nsuspend              1
suspend_interval      00:05:00
priority              0
min_cpu_interval      00:05:00
processors            UNDEFINED
qtype                 BATCH INTERACTIVE
ckpt_list             NONE
pe_list               mpi smp
rerun                 FALSE
slots                 4
tmpdir                /tmp
shell                 /bin/sh
prolog                NONE
epilog                NONE
shell_start_mode      posix_compliant
starter_method        NONE
suspend_method        NONE
resume_method         NONE
terminate_method      NONE
notify                00:00:60
owner_list            NONE
user_lists            NONE
xuser_lists           NONE
subordinate_list      NONE
complex_values        t02=2
projects              NONE
xprojects             NONE
calendar              NONE
initial_state         default
s_rt                  INFINITY
h_rt                  INFINITY
s_cpu                 INFINITY
h_cpu                 INFINITY
s_fsize               INFINITY
h_fsize               INFINITY
s_data                INFINITY
h_data                INFINITY
s_stack               INFINITY
h_stack               INFINITY
s_core                INFINITY
h_core                INFINITY
s_rss                 INFINITY
h_rss                 INFINITY
s_vmem                INFINITY
h_vmem                INFINITY
"""


# `qconf -sq short.q` (final_config.txt)
QCONF_SQ_SHORT = """\
qname                 short.q
hostlist              @linux
seq_no                1
load_thresholds       NONE
suspend_thresholds    NONE
nsuspend              1
suspend_interval      00:05:00
priority              0
min_cpu_interval      00:05:00
processors            UNDEFINED
qtype                 BATCH INTERACTIVE
ckpt_list             NONE
pe_list               mpi
rerun                 FALSE
slots                 2
tmpdir                /tmp
shell                 /bin/sh
prolog                NONE
epilog                NONE
shell_start_mode      posix_compliant
starter_method        NONE
suspend_method        NONE
resume_method         NONE
terminate_method      NONE
notify                00:00:60
owner_list            NONE
user_lists            NONE
xuser_lists           NONE
subordinate_list      NONE
complex_values        NONE
projects              NONE
xprojects             NONE
calendar              NONE
initial_state         default
s_rt                  INFINITY
h_rt                  0:10:0
s_cpu                 INFINITY
h_cpu                 INFINITY
s_fsize               INFINITY
h_fsize               INFINITY
s_data                INFINITY
h_data                INFINITY
s_stack               INFINITY
h_stack               INFINITY
s_core                INFINITY
h_core                INFINITY
s_rss                 INFINITY
h_rss                 INFINITY
s_vmem                INFINITY
h_vmem                INFINITY
"""


# `qconf -sq short.q` (queues_pe.txt)
QCONF_SQ_SHORT_THRESHOLDS = """\
qname                 short.q
hostlist              @linux
seq_no                1
load_thresholds       np_load_avg=1.75
suspend_thresholds    NONE
nsuspend              1
suspend_interval      00:05:00
priority              0
min_cpu_interval      00:05:00
processors            UNDEFINED
qtype                 BATCH INTERACTIVE
ckpt_list             NONE
pe_list               mpi
rerun                 FALSE
slots                 2
tmpdir                /tmp
shell                 /bin/sh
prolog                NONE
epilog                NONE
shell_start_mode      posix_compliant
starter_method        NONE
suspend_method        NONE
resume_method         NONE
terminate_method      NONE
notify                00:00:60
owner_list            NONE
user_lists            NONE
xuser_lists           NONE
subordinate_list      NONE
complex_values        NONE
projects              NONE
xprojects             NONE
calendar              NONE
initial_state         default
s_rt                  INFINITY
h_rt                  0:10:0
s_cpu                 INFINITY
h_cpu                 INFINITY
s_fsize               INFINITY
h_fsize               INFINITY
s_data                INFINITY
h_data                INFINITY
s_stack               INFINITY
h_stack               INFINITY
s_core                INFINITY
h_core                INFINITY
s_rss                 INFINITY
h_rss                 INFINITY
s_vmem                INFINITY
h_vmem                INFINITY
"""


# `qconf -sp mpi` (final_config.txt)
QCONF_SP_MPI = """\
pe_name            mpi
slots              8
user_lists         NONE
xuser_lists        NONE
start_proc_args    NONE
stop_proc_args     NONE
allocation_rule    $fill_up
control_slaves     FALSE
job_is_first_task  TRUE
urgency_slots      min
accounting_summary FALSE
qsort_args         NONE
"""


# `qconf -sp smp` (final_config.txt)
QCONF_SP_SMP = """\
pe_name            smp
slots              8
user_lists         NONE
xuser_lists        NONE
start_proc_args    NONE
stop_proc_args     NONE
allocation_rule    $pe_slots
control_slaves     FALSE
job_is_first_task  TRUE
urgency_slots      min
accounting_summary FALSE
qsort_args         NONE
"""


# `qconf -se vm` (final_config.txt)
QCONF_SE_VM = """\
hostname              vm
load_scaling          NONE
complex_values        slots=4
load_values           arch=lx-amd64,num_proc=2,mem_total=24105.558594M, \\
                      swap_total=0.000000M,virtual_total=24105.558594M, \\
                      m_topology=SCC,m_socket=1,m_core=2,m_thread=2, \\
                      load_avg=7.007324,load_short=15.480957, \\
                      load_medium=7.007324,load_long=4.882812, \\
                      mem_free=22893.320312M,swap_free=0.000000M, \\
                      virtual_free=22893.320312M,mem_used=1212.238281M, \\
                      swap_used=0.000000M,virtual_used=1212.238281M, \\
                      cpu=99.900000,m_topology_inuse=SCC,np_load_avg=3.503662, \\
                      np_load_short=7.740479,np_load_medium=3.503662, \\
                      np_load_long=2.441406
processors            2
user_lists            NONE
xuser_lists           NONE
projects              NONE
xprojects             NONE
usage_scaling         NONE
report_variables      NONE
"""


# `qconf -se global` (final_config.txt)
QCONF_SE_GLOBAL = """\
hostname              global
load_scaling          NONE
complex_values        license=5
load_values           NONE
processors            0
user_lists            NONE
xuser_lists           NONE
projects              NONE
xprojects             NONE
usage_scaling         NONE
report_variables      np_load_avg,mem_free,slots,license
"""


# `qconf -shgrp @linux` (queues_pe.txt)
QCONF_SHGRP_LINUX = """\
group_name @linux
hostlist vm
"""


# `qconf -ssconf` (final_config.txt)
QCONF_SSCONF = """\
algorithm                         default
schedule_interval                 0:0:2
maxujobs                          0
queue_sort_method                 load
job_load_adjustments              NONE
load_adjustment_decay_time        0:0:0
load_formula                      np_load_avg
schedd_job_info                   true
flush_submit_sec                  1
flush_finish_sec                  1
params                            MONITOR=1
reprioritize_interval             0:0:0
halftime                          168
usage_weight_list                 cpu=1.000000,mem=0.000000,io=0.000000
compensation_factor               5.000000
weight_user                       0.250000
weight_project                    0.250000
weight_department                 0.250000
weight_job                        0.250000
weight_tickets_functional         0
weight_tickets_share              0
share_override_tickets            TRUE
share_functional_shares           TRUE
max_functional_jobs_to_schedule   200
report_pjob_tickets               TRUE
max_pending_tasks_per_job         50
halflife_decay_list               none
policy_hierarchy                  OFS
weight_ticket                     0.500000
weight_waiting_time               0.278000
weight_deadline                   3600000.000000
weight_urgency                    0.500000
weight_priority                   0.000000
max_reservation                   10
default_duration                  0:10:0
"""


# `qconf -ssconf` (resource_reservation.txt)
QCONF_SSCONF_DEBIAN = """\
algorithm                         default
schedule_interval                 0:0:15
maxujobs                          0
queue_sort_method                 load
job_load_adjustments              np_load_avg=0.50
load_adjustment_decay_time        0:7:30
load_formula                      np_load_avg
schedd_job_info                   true
flush_submit_sec                  0
flush_finish_sec                  0
params                            none
reprioritize_interval             0:0:0
halftime                          168
usage_weight_list                 cpu=1.000000,mem=0.000000,io=0.000000
compensation_factor               5.000000
weight_user                       0.250000
weight_project                    0.250000
weight_department                 0.250000
weight_job                        0.250000
weight_tickets_functional         0
weight_tickets_share              0
share_override_tickets            TRUE
share_functional_shares           TRUE
max_functional_jobs_to_schedule   200
report_pjob_tickets               TRUE
max_pending_tasks_per_job         50
halflife_decay_list               none
policy_hierarchy                  OFS
weight_ticket                     0.500000
weight_waiting_time               0.278000
weight_deadline                   3600000.000000
weight_urgency                    0.500000
weight_priority                   0.000000
max_reservation                   0
default_duration                  INFINITY
"""


# `qconf -sconf` (final_config.txt)
QCONF_SCONF = """\
#global:
execd_spool_dir              /var/spool/gridengine/execd
mailer                       /usr/bin/mail
xterm                        /usr/bin/xterm
load_sensor                  none
prolog                       none
epilog                       none
shell_start_mode             posix_compliant
login_shells                 bash,sh,ksh,csh,tcsh
min_uid                      0
min_gid                      0
user_lists                   none
xuser_lists                  none
projects                     none
xprojects                    none
enforce_project              false
enforce_user                 auto
load_report_time             00:00:40
max_unheard                  00:05:00
reschedule_unknown           00:00:00
loglevel                     log_warning
administrator_mail           root
set_token_cmd                none
pag_cmd                      none
token_extend_time            none
shepherd_cmd                 none
qmaster_params               none
execd_params                 none
reporting_params             accounting=true reporting=true \\
                             flush_time=00:00:01 joblog=true sharelog=00:00:00
finished_jobs                100
gid_range                    65400-65500
qlogin_command               builtin
qlogin_daemon                builtin
rlogin_command               builtin
rlogin_daemon                builtin
rsh_command                  builtin
rsh_daemon                   builtin
max_aj_instances             2000
max_aj_tasks                 75000
max_u_jobs                   0
max_jobs                     0
auto_user_oticket            0
auto_user_fshare             0
auto_user_default_project    none
auto_user_delete_time        86400
delegated_file_staging       false
reprioritize                 0
jsv_url                      none
jsv_allowed_mod              ac,h,i,e,o,j,M,N,p,w
max_advance_reservations     1

"""


# --- reference outputs come back byte for byte -------------------------------------------

SHOWN = [
    ("queue", QCONF_SQ_ALL),
    ("queue", QCONF_SQ_SHORT),
    ("queue", QCONF_SQ_SHORT_THRESHOLDS),
    ("pe", QCONF_SP_MPI),
    ("pe", QCONF_SP_SMP),
    ("exechost", QCONF_SE_VM),
    ("exechost", QCONF_SE_GLOBAL),
    ("hostgroup", QCONF_SHGRP_LINUX),
    ("sched", QCONF_SSCONF),
    ("sched", QCONF_SSCONF_DEBIAN),
]


@pytest.mark.parametrize(("kind", "text"), SHOWN)
def test_reference_output_round_trips(kind: str, text: str) -> None:
    obj = from_pairs(kind, parse_object(text), source="ref")
    assert show(kind, obj) == text


def test_global_configuration_round_trips() -> None:
    conf = from_pairs("conf", parse_object(QCONF_SCONF), source="ref")
    assert conf.max_advance_reservations == "1"
    assert print_configuration("global", to_pairs(conf)) == QCONF_SCONF


def test_debian_scheduler_defaults_are_the_model_defaults() -> None:
    assert show("sched", SchedConf()) == QCONF_SSCONF_DEBIAN


def test_global_conf_defaults_leave_unset_entries_out() -> None:
    keys = [key for key, _ in to_pairs(GlobalConf())]
    assert keys[-1] == "jsv_allowed_mod"
    assert "max_advance_reservations" not in keys


def test_pe_queue_and_exechost_defaults() -> None:
    pe = from_pairs("pe", [("pe_name", "x")], source="f")
    assert (pe.slots, pe.allocation_rule, pe.urgency_slots) == ("0", "$pe_slots", "min")
    queue = ClusterQueue(qname="q")
    assert queue.load_thresholds == "np_load_avg=1.75"
    assert queue.pe_list == "make smp mpi"
    assert ExecHostConf(hostname="h").processors == "0"


def test_fields_are_in_grid_engine_order() -> None:
    shown = [line.split()[0] for line in QCONF_SQ_ALL.splitlines()]
    assert list(ClusterQueue.__struct_fields__) == shown
    assert list(ParallelEnvConf.__struct_fields__) == [
        line.split()[0] for line in QCONF_SP_MPI.splitlines()
    ]
    assert list(HostGroup.__struct_fields__) == ["group_name", "hostlist"]


def test_project_shows_like_qconf_sprj() -> None:
    project = from_pairs("project", [("name", "p1"), ("acl", "arusers,other")], source="f")
    assert project == Project(name="p1", acl="arusers other")
    # Grid Engine 8.1.9 does not align project files (checked against its qconf -sprj)
    assert show("project", project) == (
        "name p1\noticket 0\nfshare 0\nacl arusers other\nxacl NONE\n"
    )


# --- normalization -----------------------------------------------------------------------


def test_values_are_normalized_as_grid_engine_shows_them() -> None:
    queue = from_pairs(
        "queue",
        [
            ("qname", "q"),
            ("hostlist", "vm,@linux"),
            ("qtype", "interactive,batch"),
            ("pe_list", "mpi,smp"),
            ("rerun", "true"),
            ("slots", "2, [vm=03],[@linux=4]"),
            ("complex_values", "a=1 b=2"),
            ("user_lists", "none"),
        ],
        source="f",
    )
    assert queue.hostlist == "vm @linux"
    assert queue.qtype == "BATCH INTERACTIVE"
    assert queue.pe_list == "mpi smp"
    assert queue.rerun == "TRUE"
    assert queue.slots == "2,[vm=3],[@linux=4]"
    assert queue.complex_values == "a=1,b=2"
    assert queue.user_lists == "NONE"
    assert queue.h_rt == "INFINITY"


def test_queue_value_prefers_host_over_group_over_default() -> None:
    queue = ClusterQueue(qname="q", slots="1,[@linux=2],[vm=3]", h_rt="0:10:0,[@linux=1:0:0]")
    assert queue_value(queue, "slots", "vm", ["@linux"]) == "3"
    assert queue_value(queue, "slots", "other", ["@linux"]) == "2"
    assert queue_value(queue, "slots", "other", []) == "1"
    assert queue_value(queue, "h_rt", "vm", ["@linux"]) == "1:0:0"
    assert queue_value(queue, "tmpdir", "vm", ["@linux"]) == "/tmp"
    with pytest.raises(ValueError):
        queue_value(queue, "hostlist", "vm", [])


# --- Grid Engine's complaints ------------------------------------------------------------


def _error(kind: str, pairs: list[tuple[str, str]], source: str = "/tmp/f") -> FormatError:
    with pytest.raises(FormatError) as caught:
        from_pairs(kind, pairs, source=source)
    return caught.value


def test_bad_unsigned_value_gives_grid_engine_message() -> None:
    # queues_pe.txt: `qconf -Aq /tmp/q_bad`
    error = _error("queue", [("qname", "bad.q"), ("slots", "abc")], "/tmp/q_bad")
    assert error.ge_message == (
        'error: error parsing unsigned long value from string "abc"\n'
        'error: Error during parsing of attribute value "abc"\n'
        'error: error reading file: "/tmp/q_bad"'
    )


def test_bad_allocation_rule_gives_grid_engine_message() -> None:
    # queues_pe.txt: `qconf -Ap /tmp/pe_bad`
    # (qconf -Ap adds the last line, "error reading in file": see test_qconf_verbs)
    error = _error("pe", [("pe_name", "badpe"), ("slots", "8"), ("allocation_rule", "$bogus")])
    assert error.ge_message == (
        'error: parameter allocation_rule of pe "badpe": unknown variable "bogus"'
    )


@pytest.mark.parametrize(
    ("kind", "pairs", "words"),
    [
        ("queue", [("qname", "q"), ("bogus", "1")], 'unknown attribute name "bogus"'),
        ("queue", [("hostlist", "vm")], 'required attribute "qname" is missing'),
        ("queue", [("qname", "q"), ("qname", "r")], "more than once"),
        ("queue", [("qname", "q"), ("h_rt", "1:x")], "not a time value"),
        ("queue", [("qname", "q"), ("h_vmem", "4X")], "not a memory value"),
        ("queue", [("qname", "q"), ("h_vmem", "1G,[vm=lots]")], "not a memory value"),
        ("queue", [("qname", "q"), ("hostlist", "vm bad!host")], '"bad!host"'),
        ("queue", [("qname", "q"), ("slots", "1,[bad!host=2]")], '"bad!host"'),
        ("queue", [("qname", "q"), ("slots", "1,[vm=2")], "bad host override"),
        ("queue", [("qname", "q"), ("qtype", "BATCH PARALLEL")], "queue type"),
        ("queue", [("qname", "q"), ("rerun", "YES")], "boolean"),
        ("queue", [("qname", "q"), ("complex_values", "a=1,b")], "name=value"),
        ("queue", [("qname", "1q")], "not a valid object name"),
        ("pe", [("pe_name", "p"), ("allocation_rule", "0")], "no $variable"),
        ("pe", [("pe_name", "p"), ("urgency_slots", "most")], "unsigned"),
        ("exechost", [("hostname", "@linux")], "not a valid host name"),
        ("hostgroup", [("group_name", "linux")], "host group name"),
        ("sched", [("bogus", "1")], 'unknown attribute name "bogus"'),
        ("conf", [("min_uid", "")], "has no value"),
    ],
)
def test_invalid_objects_are_refused(kind: str, pairs: list[tuple[str, str]], words: str) -> None:
    error = _error(kind, pairs)
    assert words in str(error)
    assert error.ge_message.startswith("error: ")


# What Grid Engine 8.1.9's master says of values it checks after qconf read the file
# (`qconf -Aq` and `-mattr queue ... all.q` alike): the lines alone, no file named.
@pytest.mark.parametrize(("attr", "value", "lines"), [
    ("priority", "21", ["Priority not in range -20 to +20"]),
    ("priority", "abc", ["Invalid character"]),
    ("initial_state", "up", ['Invalid value "up" as initial state']),
    ("shell_start_mode", "x", ['Invalid value "x" as shell start mode']),
    ("shell", "relative", ['Invalid value "relative" for shell ']),
    ("processors", "x", ["Numerical value invalid!",
                         'The initial portion of string "x" contains no decimal number']),
])
def test_queue_values_the_master_refuses(attr: str, value: str, lines: list[str]) -> None:
    error = _error("queue", [("qname", "q"), (attr, value)])
    assert error.ge_message == "\n".join(lines)
    assert error.by_master


# What 8.1.9 says reading a cluster queue file with a value not of its type.
@pytest.mark.parametrize(("attr", "value", "first"), [
    ("slots", "-1", '"-1" is not an u_long32 value'),
    ("nsuspend", "1.5", '"1.5" is not an u_long32 value'),
    ("rerun", "maybe", 'error parsing value "maybe"'),
    ("h_rt", "1:x", 'error parsing value "1:x"'),
    ("h_vmem", "4X", 'error parsing value "4X"'),
    ("notify", "x", 'error parsing value "x"'),
    ("seq_no", "1,[vm=x]", 'error parsing unsigned long value from string "x"'),
])
def test_queue_values_qconf_cannot_read(attr: str, value: str, first: str) -> None:
    bad = value.rpartition("=")[2].rstrip("]")
    error = _error("queue", [("qname", "q"), (attr, value)], "q_bad")
    assert error.ge_message == (f"error: {first}\n"
                                f'error: Error during parsing of attribute value "{bad}"\n'
                                'error: error reading file: "q_bad"')


def test_a_queue_type_qconf_cannot_read() -> None:
    error = _error("queue", [("qname", "q"), ("qtype", "X")], "q_bad")
    assert error.ge_message == ('error: reading conf file: unknown specifier "X" for \n'
                                'error: error parsing queue type from string "X"\n'
                                'error: Error during parsing of attribute value "X"\n'
                                'error: error reading file: "q_bad"')


def test_valid_allocation_rules() -> None:
    for rule in ("$pe_slots", "$fill_up", "$round_robin", "4"):
        pe = from_pairs("pe", [("pe_name", "p"), ("allocation_rule", rule)], source="f")
        assert pe.allocation_rule == rule


# --- round trip with overrides -----------------------------------------------------------

_HOSTS = st.sampled_from(["vm", "node-1", "n2.example.org", "@linux", "@big_hosts"])
_SAMPLES = {
    "slots": st.integers(0, 64).map(str),
    "seq_no": st.integers(0, 99).map(str),
    "h_rt": st.sampled_from(["INFINITY", "0:10:0", "1:0:0", "3600"]),
    "h_vmem": st.sampled_from(["INFINITY", "1G", "512M", "100k"]),
    "pe_list": st.lists(st.sampled_from(["mpi", "smp", "make"]), min_size=1, unique=True).map(
        " ".join
    ),
    "qtype": st.sampled_from(["BATCH", "INTERACTIVE", "BATCH INTERACTIVE", "NONE"]),
    "load_thresholds": st.sampled_from(["NONE", "np_load_avg=1.75", "np_load_avg=1,mem_free=1G"]),
    "rerun": st.sampled_from(["TRUE", "FALSE"]),
    "tmpdir": st.sampled_from(["/tmp", "/scratch/local"]),
}


@st.composite
def _queues(draw: st.DrawFn) -> ClusterQueue:
    attrs = {}
    for name, values in _SAMPLES.items():
        overrides = draw(st.dictionaries(_HOSTS, values, max_size=4))
        attrs[name] = print_overridable(Overridable(draw(values), overrides))
    hosts = draw(st.lists(_HOSTS, unique=True, max_size=5))
    return ClusterQueue(qname="q.q", hostlist=" ".join(hosts) or "NONE", **attrs)


@given(_queues())
def test_queue_with_overrides_round_trips(queue: ClusterQueue) -> None:
    text = show("queue", queue)
    assert from_pairs("queue", parse_object(text), source="shown") == queue
    assert all(len(line) <= 80 for line in text.splitlines() if line.endswith("\\"))


def test_every_kind_shows_its_defaults_and_reads_them_back() -> None:
    names = {"queue": "qname", "exechost": "hostname", "hostgroup": "group_name"}
    names |= {"pe": "pe_name", "project": "name", "user": "name"}
    for kind_name, kind in KINDS.items():
        key = names.get(kind_name)
        obj = kind.cls(**({key: "@g" if kind_name == "hostgroup" else "x"} if key else {}))
        assert from_pairs(kind_name, parse_object(show(kind_name, obj)), source="s") == obj

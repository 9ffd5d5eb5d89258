"""qconf object formats: complex table, `name value` objects, overrides, names and dates.

The expected texts are Grid Engine 8.1.9's own output (reference/sge-8.1.9/transcripts:
final_config.txt, queues_pe.txt, complexes.txt, spooling.txt); parsing one and printing
it again must give it back byte for byte.
"""

from __future__ import annotations

import calendar
import subprocess
import sys
import time

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gridd.formats.complex_table import (
    ComplexRow,
    column_problem,
    parse_complex_table,
    print_complex_table,
)
from gridd.formats.names import format_date_time, parse_date_time
from gridd.formats.objects import (
    KEY_WIDTHS,
    LINE_WIDTH,
    SPOOL_KEY_WIDTHS,
    parse_object,
    print_configuration,
    print_object,
)
from gridd.formats.overrides import parse_overridable, parse_with_grammar, print_overridable
from gridd.formats.parsing import FormatError, load_parser
from gridd.model.overrides import Overridable

# --- reference outputs -------------------------------------------------------------------

QCONF_SC = """\
#name               shortcut   type      relop requestable consumable default  urgency\x20
#--------------------------------------------------------------------------------------
arch                a          STRING    ==    YES         NO         NONE     0
calendar            c          STRING    ==    YES         NO         NONE     0
cpu                 cpu        DOUBLE    >=    YES         NO         0        0
display_win_gui     dwg        BOOL      ==    YES         NO         0        0
h_core              h_core     MEMORY    <=    YES         NO         0        0
h_cpu               h_cpu      TIME      <=    YES         NO         0:0:0    0
h_data              h_data     MEMORY    <=    YES         NO         0        0
h_fsize             h_fsize    MEMORY    <=    YES         NO         0        0
h_rss               h_rss      MEMORY    <=    YES         NO         0        0
h_rt                h_rt       TIME      <=    YES         NO         0:0:0    0
h_stack             h_stack    MEMORY    <=    YES         NO         0        0
h_vmem              h_vmem     MEMORY    <=    YES         NO         0        0
hostname            h          HOST      ==    YES         NO         NONE     0
license             lic        INT       <=    YES         YES        0        0
load_avg            la         DOUBLE    >=    NO          NO         0        0
load_long           ll         DOUBLE    >=    NO          NO         0        0
load_medium         lm         DOUBLE    >=    NO          NO         0        0
load_short          ls         DOUBLE    >=    NO          NO         0        0
m_core              core       INT       <=    YES         NO         0        0
m_socket            socket     INT       <=    YES         NO         0        0
m_thread            thread     INT       <=    YES         NO         0        0
m_topology          topo       STRING    ==    YES         NO         NONE     0
m_topology_inuse    utopo      STRING    ==    YES         NO         NONE     0
mem_free            mf         MEMORY    <=    YES         NO         0        0
mem_total           mt         MEMORY    <=    YES         NO         0        0
mem_used            mu         MEMORY    >=    YES         NO         0        0
min_cpu_interval    mci        TIME      <=    NO          NO         0:0:0    0
np_load_avg         nla        DOUBLE    >=    NO          NO         0        0
np_load_long        nll        DOUBLE    >=    NO          NO         0        0
np_load_medium      nlm        DOUBLE    >=    NO          NO         0        0
np_load_short       nls        DOUBLE    >=    NO          NO         0        0
num_proc            p          INT       ==    YES         NO         0        0
qname               q          STRING    ==    YES         NO         NONE     0
rerun               re         BOOL      ==    NO          NO         0        0
s_core              s_core     MEMORY    <=    YES         NO         0        0
s_cpu               s_cpu      TIME      <=    YES         NO         0:0:0    0
s_data              s_data     MEMORY    <=    YES         NO         0        0
s_fsize             s_fsize    MEMORY    <=    YES         NO         0        0
s_rss               s_rss      MEMORY    <=    YES         NO         0        0
s_rt                s_rt       TIME      <=    YES         NO         0:0:0    0
s_stack             s_stack    MEMORY    <=    YES         NO         0        0
s_vmem              s_vmem     MEMORY    <=    YES         NO         0        0
seq_no              seq        INT       ==    NO          NO         0        0
slots               s          INT       <=    YES         YES        1        1000
swap_free           sf         MEMORY    <=    YES         NO         0        0
swap_rate           sr         MEMORY    >=    YES         NO         0        0
swap_rsvd           srsv       MEMORY    >=    YES         NO         0        0
swap_total          st         MEMORY    <=    YES         NO         0        0
swap_used           su         MEMORY    >=    YES         NO         0        0
t02                 t02        INT       <=    YES         YES        0        0
tmpdir              tmp        STRING    ==    NO          NO         NONE     0
virtual_free        vf         MEMORY    <=    YES         NO         0        0
virtual_total       vt         MEMORY    <=    YES         NO         0        0
virtual_used        vu         MEMORY    >=    YES         NO         0        0
# >#< starts a comment but comments are not saved across edits --------
"""

QCONF_SQ_ALL_Q = """\
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

QCONF_SHGRP_LINUX = """\
group_name @linux
hostlist vm
"""

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

QCONF_SU_ARUSERS = """\
name    arusers
type    ACL
fshare  0
oticket 0
entries roland
"""

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

SPOOL_CQUEUE_ALL_Q = """\
# Version: 8.1.9
#\x20
# DO NOT MODIFY THIS FILE MANUALLY!
#\x20
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
pe_list               NONE
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
complex_values        NONE
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

SPOOL_EXEC_HOST_VM = """\
# Version: 8.1.9
#\x20
# DO NOT MODIFY THIS FILE MANUALLY!
#\x20
hostname              vm
load_scaling          NONE
complex_values        slots=4
load_values           @LOAD_VALUES@
processors            2
reschedule_unknown_list NONE
user_lists            NONE
xuser_lists           NONE
projects              NONE
xprojects             NONE
usage_scaling         NONE
report_variables      NONE
"""

SPOOL_CONFIGURATION = """\
# Version: 8.1.9
#\x20
# DO NOT MODIFY THIS FILE MANUALLY!
#\x20
conf_name                    global
conf_version                 0
execd_spool_dir              /var/spool/gridengine/classic/execd
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
reporting_params             @REPORTING_PARAMS@
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

"""

SPOOL_SCHED_CONFIGURATION = """\
# Version: 8.1.9
#\x20
# DO NOT MODIFY THIS FILE MANUALLY!
#\x20
algorithm default
schedule_interval 0:0:15
maxujobs 0
queue_sort_method 0
job_load_adjustments np_load_avg=0.50
load_adjustment_decay_time 0:7:30
load_formula np_load_avg
schedd_job_info true
flush_submit_sec 0
flush_finish_sec 0
params none
reprioritize_interval 0:0:0
halftime 168
usage_weight_list cpu=1.000000 mem=0.000000 io=0.000000
compensation_factor 5.000000
weight_user 0.250000
weight_project 0.250000
weight_department 0.250000
weight_job 0.250000
weight_tickets_functional 0
weight_tickets_share 0
weight_tickets_override 0
share_override_tickets TRUE
share_functional_shares TRUE
max_functional_jobs_to_schedule 200
report_pjob_tickets TRUE
max_pending_tasks_per_job 50
halflife_decay_list none
policy_hierarchy OFS
weight_ticket 0.500000
weight_waiting_time 0.278000
weight_deadline 3600000.000000
weight_urgency 0.500000
weight_priority 0.000000
max_reservation 0
default_duration INFINITY
"""

SPOOL_CENTRY_SLOTS = """\
# Version: 8.1.9
#\x20
# DO NOT MODIFY THIS FILE MANUALLY!
#\x20
name        slots
shortcut    s
type        INT
relop       <=
requestable YES
consumable  YES
default     1
urgency     1000
"""

SPOOL_EXEC_HOST_VM = SPOOL_EXEC_HOST_VM.replace(
    "@LOAD_VALUES@",
    "arch=lx-amd64,num_proc=2,mem_total=24105.558594M,swap_total=0.000000M,"
    "virtual_total=24105.558594M,m_topology=SCC,m_socket=1,m_core=2,m_thread=2",
)
SPOOL_CONFIGURATION = SPOOL_CONFIGURATION.replace(
    "@REPORTING_PARAMS@",
    "accounting=true reporting=false flush_time=00:00:15 joblog=false sharelog=00:00:00",
)

# --- complex table -------------------------------------------------------------------


def test_qconf_sc_round_trip() -> None:
    rows = parse_complex_table(QCONF_SC)
    assert len(rows) == 54
    assert rows[0] == ComplexRow("arch", "a", "STRING", "==", "YES", "NO", "NONE", "0")
    assert rows[43] == ComplexRow("slots", "s", "INT", "<=", "YES", "YES", "1", "1000")
    assert print_complex_table(rows) == QCONF_SC


# The table qconf -Mc was given in complexes.txt: the default table plus two rows typed
# by hand with other column widths; each case appended one more line as line 58.
_EDITED = (
    QCONF_SC.replace(
        "license             lic        INT       <=    YES         YES        0        0\n", ""
    ).replace(
        "t02                 t02        INT       <=    YES         YES        0        0\n", ""
    )
    + "license             lic        INT         <=    YES         YES        0        0\n"
    + "t02                 t02        INT         <=    YES         YES        0        0\n"
)
_NOT_CORRECT = '\nComplex attribute file "/tmp/sc_bad" is not correct'
_NEWLINE = (
    'error: each value in the attribute value list in line 58 should end with "<NEWLINE>"'
    + _NOT_CORRECT
)


@pytest.mark.parametrize(
    ("line", "ge_message"),
    [
        # Accepted by the parser; Grid Engine rejects or accepts them on their meaning.
        (
            "bad_str             bs         STRING      ==    YES         YES        NONE     0",
            None,
        ),
        (
            "bad_relop           br         INT         >=    YES         YES        0        0",
            None,
        ),
        (
            "bad_forced          bf         INT         <=    FORCED      YES        1        0",
            None,
        ),
        (
            "dup_sc              lic        INT         <=    YES         YES        0        0",
            None,
        ),
        (
            "license             lic2       INT         <=    YES         YES        0        0",
            None,
        ),
        (
            "bad_default         bd         INT         <=    YES         YES        abc      0",
            None,
        ),
        (
            "bad_bool_cons       bbc        BOOL        ==    YES         YES        0        0",
            None,
        ),
        (
            "bad_restr           brs        RESTRING    ==    YES         YES        NONE     0",
            None,
        ),
        (
            "job_cons            jc         INT         <=    YES         JOB        0        0",
            None,
        ),
        (
            "mem_cons            mc         MEMORY      <=    YES         YES        1G       0",
            None,
        ),
        # Syntax errors.
        (
            "bad_type            bt         FOO         <=    YES         YES        0        0",
            'error: unknown complex attribute type "FOO"' + _NOT_CORRECT,
        ),
        (
            "bad_relop2          br2        INT         ~=    YES         NO         0        0",
            _NEWLINE,
        ),
        (
            "bad_cons            bc         INT         <=    YES         MAYBE      0        0",
            _NEWLINE,
        ),
        (
            "too_few             tf         INT         <=    YES",
            "Complex urgency definition is missing",
        ),
    ],
)
def test_complex_lines_of_complexes_txt(line: str, ge_message: str | None) -> None:
    text = _EDITED + line + "\n"
    assert text.count("\n") == 58
    if ge_message is None:
        assert parse_complex_table(text, source="/tmp/sc_bad")[-1] == ComplexRow(*line.split())
        return
    with pytest.raises(FormatError) as caught:
        parse_complex_table(text, source="/tmp/sc_bad")
    assert caught.value.ge_message == ge_message
    assert caught.value.line == 58


def test_complex_error_locations_and_text() -> None:
    with pytest.raises(FormatError) as caught:
        parse_complex_table("a a INT <= YES MAYBE 0 0\n", source="f")
    assert (
        str(caught.value)
        == 'f:1:16: unexpected "MAYBE" in the consumable column; expected YES, NO, JOB or HOST'
    )
    with pytest.raises(FormatError) as caught:
        parse_complex_table("a a INT <= YES NO 0 0 extra\n", source="f")
    assert caught.value.message == 'unexpected "extra" after the urgency'
    assert caught.value.ge_message.startswith(
        "error: each value in the attribute value list in line 1 "
    )
    with pytest.raises(FormatError) as caught:
        parse_complex_table("# only a comment\na a INT <= YES NO", source="f")
    assert (caught.value.line, caught.value.column) == (2, 18)
    assert caught.value.message == "missing default column"
    assert caught.value.ge_message == "Complex urgency definition is missing"


def test_complex_comments_blank_lines_and_keyword_case() -> None:
    text = "\n# a comment\nx  y int  EXCL  yes  job  0  5   # why x\n\n  z z BOOL == NO NO 0 0"
    assert parse_complex_table(text) == [
        ComplexRow("x", "y", "int", "EXCL", "yes", "JOB", "0", "5"),
        ComplexRow("z", "z", "BOOL", "==", "NO", "NO", "0", "0"),
    ]
    # The consumable column is read in any case and as one letter, as Open Cluster
    # Scheduler reads it, and kept as the word both print.
    letters = "".join(f"{n} {n} INT <= YES {c} 0 0\n" for n, c in zip("abcd", "ynJh", strict=True))
    assert [row.consumable for row in parse_complex_table(letters)] == ["YES", "NO", "JOB", "HOST"]
    assert parse_complex_table("") == []
    # A keyword is a keyword only in its own column.
    assert parse_complex_table("INT YES INT == NO NO NO 0\n")[0].name == "INT"
    with pytest.raises(FormatError):
        parse_complex_table("a a INTEGER == NO NO 0 0\n")


def test_long_complex_name_pushes_columns() -> None:
    row = ComplexRow("a_very_long_attribute_name", "s", "INT", "<=", "YES", "NO", "0", "0")
    line = print_complex_table([row]).splitlines()[2]
    assert (
        line
        == "a_very_long_attribute_name s          INT       <=    YES         NO         0        0"
    )


_WORD = st.text(alphabet="abcdefghijklmnopqrstuvwxyz0123456789_.:-=", min_size=1, max_size=12)


@st.composite
def complex_rows(draw: st.DrawFn) -> ComplexRow:
    return ComplexRow(
        draw(_WORD),
        draw(_WORD),
        draw(
            st.sampled_from(
                ["INT", "STRING", "TIME", "MEMORY", "BOOL", "DOUBLE", "HOST", "CSTRING", "RESTRING"]
            )
        ),
        draw(st.sampled_from(["==", "!=", ">=", ">", "<=", "<", "EXCL"])),
        draw(st.sampled_from(["YES", "NO", "FORCED"])),
        draw(st.sampled_from(["YES", "NO", "JOB"])),
        draw(_WORD),
        draw(st.from_regex(r"[0-9]{1,6}", fullmatch=True)),
    )


@given(st.lists(complex_rows(), max_size=8))
def test_complex_table_round_trip(rows: list[ComplexRow]) -> None:
    text = print_complex_table(rows)
    assert parse_complex_table(text) == rows
    assert print_complex_table(parse_complex_table(text)) == text
    assert all(column_problem(row) is None for row in rows)


@pytest.mark.parametrize(("row", "problem"), [
    (ComplexRow("", "s", "INT", "<=", "YES", "NO", "0", "0"),
     "error: a complex attribute needs a name"),
    (ComplexRow("gpu", "g", "INT", "<=", "YES", "YES", "", "0"),
     'error: complex attribute "gpu": the default column is empty'),
    (ComplexRow("my gpu", "g", "INT", "<=", "YES", "NO", "0", "0"),
     'error: complex attribute "my gpu": the name column "my gpu" is not one word '
     '(no blanks, no "#")'),
    (ComplexRow("gpu", "g#1", "INT", "<=", "YES", "NO", "0", "0"),
     'error: complex attribute "gpu": the shortcut column "g#1" is not one word '
     '(no blanks, no "#")'),
])
def test_a_row_the_table_cannot_hold_says_which_column(row: ComplexRow, problem: str) -> None:
    assert column_problem(row) == problem


# --- name value objects -----------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        (QCONF_SQ_ALL_Q, "queue"),
        (QCONF_SP_MPI, "pe"),
        (QCONF_SHGRP_LINUX, "hostgroup"),
        (QCONF_SSCONF, "sched"),
        (QCONF_SU_ARUSERS, "userset"),
        (QCONF_SE_VM, "exechost"),
    ],
)
def test_qconf_show_round_trip(text: str, kind: str) -> None:
    assert print_object(parse_object(text), width=KEY_WIDTHS[kind]) == text


def test_qconf_sconf_round_trip() -> None:
    pairs = parse_object(QCONF_SCONF)
    assert pairs[0] == ("execd_spool_dir", "/var/spool/gridengine/execd")
    assert dict(pairs)["reporting_params"] == (
        "accounting=true reporting=true flush_time=00:00:01 joblog=true sharelog=00:00:00"
    )
    assert print_configuration("global", pairs) == QCONF_SCONF


def test_wrapped_list_is_joined_without_blanks() -> None:
    load_values = dict(parse_object(QCONF_SE_VM))["load_values"]
    assert load_values.startswith("arch=lx-amd64,num_proc=2,mem_total=24105.558594M,swap_total=")
    assert " " not in load_values
    assert all(len(line) <= LINE_WIDTH for line in QCONF_SE_VM.splitlines())


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        (SPOOL_CQUEUE_ALL_Q, "queue"),
        (SPOOL_EXEC_HOST_VM, "exechost"),
        (SPOOL_SCHED_CONFIGURATION, "sched"),
        (SPOOL_CENTRY_SLOTS, "centry"),
    ],
)
def test_classic_spool_round_trip(text: str, kind: str) -> None:
    pairs = parse_object(text)
    assert pairs[0][0] != "#"
    assert print_object(pairs, width=SPOOL_KEY_WIDTHS[kind], spool=True) == text


def test_classic_spool_configuration() -> None:
    pairs = parse_object(SPOOL_CONFIGURATION)
    assert pairs[:2] == [("conf_name", "global"), ("conf_version", "0")]
    assert print_configuration("global", pairs, spool=True) == SPOOL_CONFIGURATION


def test_object_parsing_details() -> None:
    text = (
        "# comment\n\n   qname   all.q  \nprolog /bin/x#1 \\\n   arg\nempty\n"
        "list a, \\\n    b \\\n  c\r\nlast value"
    )
    assert parse_object(text) == [
        ("qname", "all.q"),
        ("prolog", "/bin/x#1 arg"),
        ("empty", ""),
        ("list", "a,b c"),
        ("last", "value"),
    ]
    assert parse_object("") == []


def test_wrapping_limits() -> None:
    # A line of exactly 80 columns stays whole; a blank or comma break keeps `head \` <= 80.
    value = ",".join(["abcdefghi"] * 5) + ",abcdefgh"
    line = print_object([("k", value)], width=21)
    assert len(line) == 81 and "\\" not in line
    longer = print_object([("k", value + "x")], width=21)
    assert longer.splitlines() == [
        "k                     abcdefghi,abcdefghi,abcdefghi,abcdefghi,abcdefghi, \\",
        "                      abcdefghx",
    ]
    # A word longer than a line is not cut.
    huge = "x" * 100
    assert print_object([("k", huge)], width=0) == f"k {huge}\n"
    # A long name shifts the continuation indent to the value column.
    words = " ".join(["word"] * 30)
    wrapped = print_object([("reschedule_unknown_list", words)], width=21).splitlines()
    assert wrapped[1].startswith(" " * 24 + "word")
    assert parse_object("\n".join(wrapped)) == [("reschedule_unknown_list", words)]


_KEY = st.from_regex(r"[a-z][a-z_]{0,29}", fullmatch=True)
_TOKEN = st.text(alphabet="abcdefghijklmnopqrstuvwxyz0123456789_.:=/@$*-", min_size=1, max_size=30)


@st.composite
def values(draw: st.DrawFn) -> str:
    """Tokens joined by single commas or blanks, as Grid Engine's list values are."""
    tokens = draw(st.lists(_TOKEN, min_size=1, max_size=15))
    value = tokens[0]
    for token in tokens[1:]:
        value += draw(st.sampled_from([",", " "])) + token
    return value


@given(
    st.lists(st.tuples(_KEY, values()), max_size=8),
    st.sampled_from(sorted(set(KEY_WIDTHS.values()) | set(SPOOL_KEY_WIDTHS.values()))),
    st.booleans(),
)
def test_object_round_trip(pairs: list[tuple[str, str]], width: int, spool: bool) -> None:
    text = print_object(pairs, width=width, spool=spool)
    assert parse_object(text) == pairs
    assert print_object(parse_object(text), width=width, spool=spool) == text
    if not spool:
        assert all(len(line) <= LINE_WIDTH for line in text.splitlines() if " " in line.strip())


# --- overrides ----------------------------------------------------------------------


def test_overrides_as_qconf_shows_them() -> None:
    slots = dict(parse_object("slots                 2,[vm=3]\n"))["slots"]
    assert parse_overridable(slots) == Overridable("2", {"vm": "3"})
    value = parse_overridable("np_load_avg=1.75,mem_free=1G , [@linux=np_load_avg=2] ,[vm=NONE]")
    assert value == Overridable(
        "np_load_avg=1.75,mem_free=1G", {"@linux": "np_load_avg=2", "vm": "NONE"}
    )
    assert list(value.overrides) == ["@linux", "vm"]
    assert (
        print_overridable(value) == "np_load_avg=1.75,mem_free=1G,[@linux=np_load_avg=2],[vm=NONE]"
    )
    assert parse_overridable("BATCH INTERACTIVE,[vm=BATCH]").overrides == {"vm": "BATCH"}
    assert print_overridable(Overridable("4")) == "4"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("1,[vm=3],[vm=4]", '<stdin>:1:11: "vm" has more than one override'),
        ("1,[vm]", '<stdin>:1:6: unexpected "]"; expected "="'),
        ("1,[vm=3", '<stdin>:1:8: unexpected end of value; expected "]"'),
        ("1,[vm= 3]", '<stdin>:1:7: unexpected " "; expected a value'),
        ("", "<stdin>:1:1: unexpected end of value; expected a default value"),
        ("1,[vm=3]x", '<stdin>:1:9: unexpected "x"; expected ","'),
    ],
)
def test_override_errors(text: str, message: str) -> None:
    with pytest.raises(FormatError) as caught:
        parse_overridable(text)
    assert str(caught.value) == message


_HOST = st.from_regex(r"@?[a-z][a-z0-9.-]{0,15}", fullmatch=True)


@given(st.one_of(values(), st.text()).filter(lambda text: not {"[", "]"} & set(text)))
def test_a_value_without_brackets_is_read_as_the_grammar_reads_it(text: str) -> None:
    try:
        expected: Overridable | str = parse_with_grammar(text)
    except FormatError as exc:
        expected = str(exc)
    try:
        assert parse_overridable(text) == expected
    except FormatError as exc:
        assert str(exc) == expected


@given(values(), st.dictionaries(_HOST, values(), max_size=4))
def test_overrides_round_trip(default: str, overrides: dict[str, str]) -> None:
    value = Overridable(default, overrides)
    text = print_overridable(value)
    assert parse_overridable(text) == value
    assert print_overridable(parse_overridable(text)) == text


# --- DATE_TIME, BOOL --------------------------------------------------------------------


_UTC = {"to_epoch": calendar.timegm, "from_epoch": time.gmtime}
_NOW = calendar.timegm((2026, 11, 22, 6, 0, 0))


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("202611221530", (2026, 11, 22, 15, 30, 0)),
        ("202611221530.45", (2026, 11, 22, 15, 30, 45)),
        ("2611221530", (2026, 11, 22, 15, 30, 0)),
        ("9901010000", (1999, 1, 1, 0, 0, 0)),
        ("01020304", (2026, 1, 2, 3, 4, 0)),
        ("02290000.59", None),
        ("202402290000", (2024, 2, 29, 0, 0, 0)),
    ],
)
def test_date_time(text: str, expected: tuple[int, ...] | None) -> None:
    if expected is None:
        with pytest.raises(ValueError):
            parse_date_time(text, now=_NOW, **_UTC)
        return
    assert parse_date_time(text, now=_NOW, **_UTC) == calendar.timegm(expected)


@pytest.mark.parametrize(
    "text",
    [
        "",
        "1234567",
        "123456789",
        "13010000",
        "01320000",
        "01012400",
        "01010060",
        "01010000.60",
        "01010000.5",
        "0101000a",
    ],
)
def test_date_time_rejects(text: str) -> None:
    with pytest.raises(ValueError):
        parse_date_time(text, now=_NOW, **_UTC)


@given(st.integers(min_value=0, max_value=calendar.timegm((2999, 12, 31, 23, 59, 59))))
def test_date_time_round_trip(epoch: int) -> None:
    text = format_date_time(epoch, from_epoch=time.gmtime)
    assert parse_date_time(text, now=_NOW, **_UTC) == epoch


def test_date_time_local_time_by_default() -> None:
    epoch = parse_date_time("203001020304.05", now=_NOW)
    assert time.localtime(epoch)[:6] == (2030, 1, 2, 3, 4, 5)
    assert format_date_time(epoch) == "203001020304.05"


# --- errors and parser construction ---------------------------------------------------


def test_format_error_text() -> None:
    error = FormatError('unexpected "x"', "/tmp/q", 3, 7, ('"]"', "a value"))
    assert str(error) == '/tmp/q:3:7: unexpected "x"; expected "]" or a value'
    assert error.ge_message == 'unexpected "x"'
    assert str(FormatError("bad", "f", 1, 1)) == "f:1:1: bad"


def test_parsers_are_built_once_and_lark_is_imported_lazily() -> None:
    from gridd.formats import objects

    assert load_parser("object", objects._transformer) is load_parser(
        "object", objects._transformer
    )
    code = (
        "import sys, gridd.formats.objects, gridd.formats.complex_table, "
        "gridd.formats.overrides, gridd.formats.names; print('lark' in sys.modules)"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert result.stdout.strip() == "False"

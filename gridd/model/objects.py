"""The configuration objects qconf adds, shows, modifies and deletes.

Every attribute is kept as the normalized text Grid Engine 8.1.9 shows for it (`qconf -sq`,
`-se`, `-shgrp`, `-sp`, `-sprj`, `-ssconf`, `-sconf`): these objects travel between qconf,
the master and the spool, and each of those needs the text exactly as Grid Engine prints
it, whereas only a few attributes are ever needed as numbers, and those by code that
already owns the parsers (gridd.model.values). Validation and normalization happen once,
in gridd.formats.qconf_objects, so an object built from a file always holds printable text.

The field order is Grid Engine's print order, and the defaults are those of the Debian
8.1.9 packages (the `qconf -aq` template, Debian's global and scheduler configuration).
msgspec Structs for the reasons given in gridd.model.job.
"""

from __future__ import annotations

import re

import msgspec

NONE = "NONE"
# An item of a list ends at a comma or a blank, except inside parentheses, which hold the
# ids of an RSMAP value: `gpu=2(0 1),lic=3` has two items.
_ITEM = re.compile(r"(?:[^\s,(]+|\([^)]*\)?)+")
# The cluster queue's attributes that have one value for all its instances: every other
# may have per-host overrides (gridd.model.overrides).
NOT_OVERRIDABLE = frozenset({"qname", "hostlist"})


def list_items(text: str) -> list[str]:
    """The items of a comma or blank separated list (`a,b c`, `gpu=2(0 1),lic=3`)."""
    return _ITEM.findall(text)


def words(text: str) -> list[str]:
    """The items of a list attribute (`mpi smp`, `a,b`); NONE is the empty list."""
    items = list_items(text)
    return [] if [item.upper() for item in items] == [NONE] else items


class ClusterQueue(msgspec.Struct, kw_only=True):
    """A cluster queue. Every attribute but qname and hostlist is overridable text such
    as `2,[vm=3],[@linux=4]`; gridd.formats.overrides.queue_value reads what one queue
    instance gets.
    """

    qname: str
    hostlist: str = NONE
    seq_no: str = "0"
    load_thresholds: str = "np_load_avg=1.75"
    suspend_thresholds: str = NONE
    nsuspend: str = "1"
    suspend_interval: str = "00:05:00"
    priority: str = "0"
    min_cpu_interval: str = "00:05:00"
    processors: str = "UNDEFINED"
    qtype: str = "BATCH INTERACTIVE"
    ckpt_list: str = NONE
    pe_list: str = "make smp mpi"
    rerun: str = "FALSE"
    slots: str = "1"
    tmpdir: str = "/tmp"
    shell: str = "/bin/sh"
    prolog: str = NONE
    epilog: str = NONE
    shell_start_mode: str = "posix_compliant"
    starter_method: str = NONE
    suspend_method: str = NONE
    resume_method: str = NONE
    terminate_method: str = NONE
    notify: str = "00:00:60"
    owner_list: str = NONE
    user_lists: str = NONE
    xuser_lists: str = NONE
    subordinate_list: str = NONE
    complex_values: str = NONE
    projects: str = NONE
    xprojects: str = NONE
    calendar: str = NONE
    initial_state: str = "default"
    s_rt: str = "INFINITY"
    h_rt: str = "INFINITY"
    s_cpu: str = "INFINITY"
    h_cpu: str = "INFINITY"
    s_fsize: str = "INFINITY"
    h_fsize: str = "INFINITY"
    s_data: str = "INFINITY"
    h_data: str = "INFINITY"
    s_stack: str = "INFINITY"
    h_stack: str = "INFINITY"
    s_core: str = "INFINITY"
    h_core: str = "INFINITY"
    s_rss: str = "INFINITY"
    h_rss: str = "INFINITY"
    s_vmem: str = "INFINITY"
    h_vmem: str = "INFINITY"

    def hosts(self) -> list[str]:
        """The host list's members, host names and @groups, unresolved."""
        return words(self.hostlist)


class ExecHostConf(msgspec.Struct, kw_only=True):
    """An execution host (or `global`). load_values and processors are reported by the
    execd, not configured; they are kept because `qconf -se` shows them.
    """

    hostname: str
    load_scaling: str = NONE
    complex_values: str = NONE
    load_values: str = NONE
    processors: str = "0"
    user_lists: str = NONE
    xuser_lists: str = NONE
    projects: str = NONE
    xprojects: str = NONE
    usage_scaling: str = NONE
    report_variables: str = NONE


class HostGroup(msgspec.Struct, kw_only=True):
    """A host group; its host list may name other @groups."""

    group_name: str
    hostlist: str = NONE

    def members(self) -> list[str]:
        """Hosts and nested @groups, unresolved."""
        return words(self.hostlist)


class ParallelEnvConf(msgspec.Struct, kw_only=True):
    """A parallel environment as `qconf -sp` shows it (qsort_args included, which 8.1.9
    prints although the brief lists of PE attributes often omit it).
    """

    pe_name: str
    slots: str = "0"
    user_lists: str = NONE
    xuser_lists: str = NONE
    start_proc_args: str = NONE
    stop_proc_args: str = NONE
    allocation_rule: str = "$pe_slots"
    control_slaves: str = "FALSE"
    job_is_first_task: str = "TRUE"
    urgency_slots: str = "min"
    accounting_summary: str = "FALSE"
    qsort_args: str = NONE


class Project(msgspec.Struct, kw_only=True):
    """A project (`qconf -sprj`): share tree and override tickets, and who may use it."""

    name: str
    oticket: str = "0"
    fshare: str = "0"
    acl: str = NONE
    xacl: str = NONE


class User(msgspec.Struct, kw_only=True):
    """A user object (`qconf -suser`): made by hand, or at a user's first submission when
    the global configuration's enforce_user is auto (from its auto_user_* values)."""

    name: str
    oticket: str = "0"
    fshare: str = "0"
    delete_time: str = "0"  # when an object made at submission goes (0: never)
    default_project: str = NONE


class SchedConf(msgspec.Struct, kw_only=True):
    """The scheduler configuration, defaults as Debian installs it (`qconf -ssconf`)."""

    algorithm: str = "default"
    schedule_interval: str = "0:0:15"
    maxujobs: str = "0"
    queue_sort_method: str = "load"
    job_load_adjustments: str = "np_load_avg=0.50"
    load_adjustment_decay_time: str = "0:7:30"
    load_formula: str = "np_load_avg"
    schedd_job_info: str = "true"
    flush_submit_sec: str = "0"
    flush_finish_sec: str = "0"
    params: str = "none"
    reprioritize_interval: str = "0:0:0"
    halftime: str = "168"
    usage_weight_list: str = "cpu=1.000000,mem=0.000000,io=0.000000"
    compensation_factor: str = "5.000000"
    weight_user: str = "0.250000"
    weight_project: str = "0.250000"
    weight_department: str = "0.250000"
    weight_job: str = "0.250000"
    weight_tickets_functional: str = "0"
    weight_tickets_share: str = "0"
    share_override_tickets: str = "TRUE"
    share_functional_shares: str = "TRUE"
    max_functional_jobs_to_schedule: str = "200"
    report_pjob_tickets: str = "TRUE"
    max_pending_tasks_per_job: str = "50"
    halflife_decay_list: str = "none"
    policy_hierarchy: str = "OFS"
    weight_ticket: str = "0.500000"
    weight_waiting_time: str = "0.278000"
    weight_deadline: str = "3600000.000000"
    weight_urgency: str = "0.500000"
    weight_priority: str = "0.000000"
    max_reservation: str = "0"
    default_duration: str = "INFINITY"


class GlobalConf(msgspec.Struct, kw_only=True):
    """The global configuration (`qconf -sconf`), Debian's defaults.

    The last fields are absent from a fresh cell and shown only once set (None = absent);
    Grid Engine appends such entries in the order they were added, we in field order.
    """

    execd_spool_dir: str = "/var/spool/gridengine/execd"
    mailer: str = "/usr/bin/mail"
    xterm: str = "/usr/bin/xterm"
    load_sensor: str = "none"
    prolog: str = "none"
    epilog: str = "none"
    shell_start_mode: str = "posix_compliant"
    login_shells: str = "bash,sh,ksh,csh,tcsh"
    min_uid: str = "1000"
    min_gid: str = "1000"
    user_lists: str = "none"
    xuser_lists: str = "none"
    projects: str = "none"
    xprojects: str = "none"
    enforce_project: str = "false"
    enforce_user: str = "auto"
    load_report_time: str = "00:00:40"
    max_unheard: str = "00:05:00"
    reschedule_unknown: str = "00:00:00"
    loglevel: str = "log_warning"
    administrator_mail: str = "root"
    set_token_cmd: str = "none"
    pag_cmd: str = "none"
    token_extend_time: str = "none"
    shepherd_cmd: str = "none"
    qmaster_params: str = "none"
    execd_params: str = "none"
    reporting_params: str = (
        "accounting=true reporting=false flush_time=00:00:15 joblog=false sharelog=00:00:00"
    )
    finished_jobs: str = "100"
    gid_range: str = "65400-65500"
    qlogin_command: str = "builtin"
    qlogin_daemon: str = "builtin"
    rlogin_command: str = "builtin"
    rlogin_daemon: str = "builtin"
    rsh_command: str = "builtin"
    rsh_daemon: str = "builtin"
    max_aj_instances: str = "2000"
    max_aj_tasks: str = "75000"
    max_u_jobs: str = "0"
    max_jobs: str = "0"
    auto_user_oticket: str = "0"
    auto_user_fshare: str = "0"
    auto_user_default_project: str = "none"
    auto_user_delete_time: str = "86400"
    delegated_file_staging: str = "false"
    reprioritize: str = "0"
    jsv_url: str = "none"
    jsv_allowed_mod: str = "ac,h,i,e,o,j,M,N,p,w"
    libjvm_path: str | None = None
    additional_jvm_args: str | None = None
    max_advance_reservations: str | None = None

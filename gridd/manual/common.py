"""What several manual sources share: -help itself, the argument forms many options use,
and the sections about the cell every command reaches."""

from __future__ import annotations

from gridd.manual.page import Layout, Option, Section, Term

# -fmt, as qstat, qhost, qrstat and qquota take it (Open Cluster Scheduler's spelling).
FORMAT = Option("-fmt", "plain|xml|json", "print the information in this format",
                text="Open Cluster Scheduler's spelling: -fmt xml is -xml, -fmt json is "
                     "-json, -fmt plain the usual text; it replaces what an earlier -fmt, "
                     "-xml or -json asked for. With both -xml and -json, JSON is printed.")
HELP = Option("-help", summary="print this help",
              text="Print the usage and the options in brief on standard output and exit 0, "
                   "doing nothing else.")

# The layouts of 8.1.9's -help texts, by the commands that use them.
WIDE = Layout(indent=3, column=44)  # qsub, qalter, qdel, qhold, qconf, qrsub, ...
QSTAT = Layout(indent=8, column=42, term_column=25)  # qstat, qselect

DATE_TIME = Term("date_time", "[[CC]YY]MMDDhhmm[.SS]")
TIME = Term("time", "hours:minutes:seconds | seconds")
USER_LIST = Term("user_list", "user[,user,...]")
WC_USER_LIST = Term("user_list", "user|*|@userset[,user|*|@userset,...]")
JOB_TASK_LIST = Term("job_task_list", "job_tasks[,job_tasks,...]")
JOB_TASKS = Term("job_tasks", "job_id[.task_id_range]|job_name|pattern")
TASK_ID_RANGE = Term("task_id_range", "task_id[-task_id[:step]]")
RESOURCE_LIST = Term("resource_list", "resource[=value][,resource[=value],...]")
SLOT_RANGE = Term("slot_range", "n[-m]|-m|n- (n, m > 0)")
MAIL_LIST = Term("mail_list", "user[@host][,user[@host],...]")
PE_LIST = Term("pe_list", "pe[,pe,...]")
PATH_LIST = Term("path_list", "[host:]path[,[host:]path,...]")
WC_QUEUE = (
    Term("wc_cqueue", "a cluster queue, or a pattern of their names"),
    Term("wc_host", "a host, or a pattern of host names"),
    Term("wc_hostgroup", "@hostgroup, or a pattern of host group names"),
    Term("wc_qinstance", "wc_cqueue@wc_host"),
    Term("wc_qdomain", "wc_cqueue@wc_hostgroup"),
    Term("wc_queue", "wc_cqueue|wc_qdomain|wc_qinstance"),
    Term("wc_queue_list", "wc_queue[,wc_queue,...]"),
)

PATTERNS = ("Names of jobs, queues, hosts and users may be patterns: * matches any "
            "characters, ? one, and [...] one of those listed, as in the shell.")

ENVIRONMENT = Section("ENVIRONMENT", items=(
    ("GRIDD_ROOT", "The cell's root directory; the command finds the master's endpoint "
                   "in common/master_endpoint below it. When it is unset, "
                   "$SGE_ROOT/$SGE_CELL is the cell (SGE_CELL defaulting to default), "
                   "else ~/.gridd."),
    ("SGE_ROOT, SGE_CELL", "Where the cell is when GRIDD_ROOT is unset, as Grid Engine's "
                           "commands find theirs; a job's environment sets both (and "
                           "GRIDD_ROOT) to its own cell."),
    ("GRIDD_KEY", "The CURVE secret key file to connect with (default: "
                  "common/keys/users/$USER.key_secret below the cell's root); it must be "
                  "readable by its owner alone. Set, it also keeps a command on the "
                  "master's machine off the master's local socket (common/master_local), "
                  "where it would be taken for its uid's user."),
))

"""accounting(5): the accounting file gridd writes (gridd.accounting.record)."""

from gridd.manual.page import FilePage, Section

# accounting.jsonl's keys, in Open Cluster Scheduler's order (gridd.accounting.record_json
# writes them; a test holds the two together).
JSON_KEYS = ("job_number", "task_number", "start_time", "end_time", "owner", "group",
             "account", "qname", "hostname", "project", "department", "granted_pe", "slots",
             "arid", "job_name", "priority", "submission_time", "ar_submission_time",
             "pe_taskid", "category", "failed", "exit_status", "usage")

FIELDS = (
    ("qname", "The cluster queue the job (or task) ran in."),
    ("hostname", "The execution host it ran on."),
    ("group", "The owner's group."),
    ("owner", "The user who submitted the job."),
    ("job_name", "The job's name (qsub -N)."),
    ("job_number", "The job's id."),
    ("account", "The account (qsub -A; sge when none was given)."),
    ("priority", "The job's -p priority."),
    ("submission_time", "When the job was submitted, in seconds since the epoch."),
    ("start_time", "When it started (0: never)."),
    ("end_time", "When it ended."),
    ("failed", "0 when the job ran to its end; else the step it failed in, as qacct -j "
               "names it: up to 18 a step of starting it (11: before job), 19 no exit "
               "status, 25 rescheduled (qmod -r), 37 a limit passed, 100 killed once it "
               "ran (deleted)."),
    ("exit_status", "The job's exit status; 128 plus the signal's number when a signal "
                    "ended it."),
    ("ru_wallclock", "Seconds from start to end."),
    ("ru_utime", "User time, in seconds."),
    ("ru_stime", "System time, in seconds."),
    ("ru_maxrss", "The largest resident set, in kilobytes."),
    ("ru_ixrss", "0 (not measured)."),
    ("ru_ismrss", "0 (not measured)."),
    ("ru_idrss", "0 (not measured)."),
    ("ru_isrss", "0 (not measured)."),
    ("ru_minflt", "Page faults served without I/O."),
    ("ru_majflt", "Page faults that needed I/O."),
    ("ru_nswap", "0 (not measured)."),
    ("ru_inblock", "Blocks read."),
    ("ru_oublock", "Blocks written."),
    ("ru_msgsnd", "0 (not measured)."),
    ("ru_msgrcv", "0 (not measured)."),
    ("ru_nsignals", "0 (not measured)."),
    ("ru_nvcsw", "Voluntary context switches."),
    ("ru_nivcsw", "Involuntary context switches."),
    ("project", "The job's project (NONE)."),
    ("department", "The owner's department (defaultdepartment)."),
    ("granted_pe", "The parallel environment the job ran in (NONE)."),
    ("slots", "The slots it held."),
    ("task_number", "The task of an array job (0 for other jobs)."),
    ("cpu", "CPU time, user and system, in seconds."),
    ("mem", "Memory used over time: virtual memory integrated over the run, in GiB "
            "seconds."),
    ("io", "Data read and written, in GiB."),
    ("category", "What the job asked for that decides where it may run (-l, -q, -pe, -P, "
                 "-ar ...), as the scheduler groups jobs alike; NONE when nothing. The one "
                 "field that may hold a colon."),
    ("iow", "0 (I/O wait is not measured)."),
    ("pe_taskid", "NONE: gridd accounts a parallel job's slots in one record."),
    ("maxvmem", "The largest virtual memory size, in bytes."),
    ("arid", "The advance reservation the job ran in (0: none)."),
    ("ar_submission_time", "When that advance reservation was submitted (0: none)."),
)

PAGE = FilePage(
    name="accounting",
    purpose="the accounting file of finished jobs",
    description=(
        "gridd writes a line to $GRIDD_ROOT/common/accounting for every job, or task of "
        "an array job, that has ended (or was deleted before it ran), once the execution "
        "daemon has reported its end. The lines are those Grid Engine 8.1.9 writes, so "
        "that tools that read its accounting file read gridd's; the same records go to "
        "the reporting database (qacct(1), gridd report) and, with reporting=true, to "
        "the reporting file as acct records (reporting(5)).\n\n"
        "The file starts with lines beginning with #, which readers skip. Each other line "
        "holds the fields below, in this order, separated by colons. Times are seconds "
        "since the epoch; real numbers are written with six decimals. A file written by "
        "Grid Engine before 6.2 ends its lines at maxvmem; qacct -f and gridd dbwriter "
        "read both.\n\n"
        "Lines are written, durably, as soon as the master has confirmed a job's end; "
        "accounting=false in the global configuration's reporting_params writes none."),
    sections=(
        Section("FIELDS", items=FIELDS),
        Section("JSON LINES", (
            "With accounting_format=json in reporting_params (or Open Cluster Scheduler's "
            "old_accounting=false), the records go instead to "
            "$GRIDD_ROOT/common/accounting.jsonl, one JSON object a line and no header, "
            "as Open Cluster Scheduler writes its accounting. The keys are its, in its "
            f"order: {', '.join(JSON_KEYS)}; usage is an object holding rusage "
            "(ru_wallclock to ru_nivcsw) and eusage (wallclock, cpu, mem, io, iow, "
            "maxvmem). Times are microseconds "
            "since the epoch, of whole seconds; real numbers have six decimals, as in the "
            "colon line. project and granted_pe are left out when NONE, arid and "
            "ar_submission_time when the job ran in no advance reservation. Every field "
            "above has its key, so a record reads the same from either file. The schema "
            "of a record is schemas/accounting.json in gridd's source.\n\n"
            "A cell whose accounting_format changed keeps both files: each record is in "
            "the one that was chosen when it was written. qacct(1) without a database "
            "reads both, and qacct -f and gridd dbwriter read either, telling a file of "
            "JSON lines by its first record, whatever its name; Open Cluster Scheduler's "
            "accounting.jsonl too.")),
    ),
    see_also=("qacct(1)", "reporting(5)", "gridd(1)"),
)

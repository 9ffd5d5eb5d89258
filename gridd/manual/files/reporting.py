"""reporting(5): the reporting file gridd writes (gridd.accounting.report_lines,
ar_report and record.acct_line)."""

from gridd.manual.files.accounting import FIELDS as ACCOUNTING_FIELDS
from gridd.manual.page import FilePage, Section

_JOB = ("job_name", "owner", "group", "project", "department", "account")
_CONSUMABLES = "consumables: name=used=total,... for the consumables report_variables names"

# Each record type: its fields after time:type:, and when gridd writes it.
RECORDS: dict[str, tuple[tuple[str, ...], str]] = {
    "new_job": (("submission_time", "job_number", "task_number", "pe_taskid", *_JOB,
                 "priority"),
                "A job was submitted (task_number -1, pe_taskid NONE; the priority is "
                "-p plus 1024)."),
    "job_log": (("event_time", "event", "job_number", "task_number", "pe_taskid", "state",
                 "user", "host", "state_time", "priority", "submission_time", *_JOB,
                 "message"),
                "With joblog=true: a step in a job's life (pending, sent, delivered, "
                "finished, deleted, ...), the state it went to, who or what caused it "
                "(a user, master, execution daemon, scheduler) and a message."),
    "acct": (tuple(name for name, _ in ACCOUNTING_FIELDS),
             "A job or task ended: the fields of its accounting line (accounting(5))."),
    "new_ar": (("submission_time", "ar_number", "owner"),
               "An advance reservation was granted."),
    "ar_attr": (("event_time", "submission_time", "ar_number", "name", "account",
                 "start_time", "end_time", "granted_pe", "granted_resources"),
                "An advance reservation's attributes, when it is granted: its window, "
                "the PE granted (NONE) and the resources, name=value,... (NONE)."),
    "ar_log": (("state_change_time", "submission_time", "ar_number", "state", "event",
                "message"),
               "An advance reservation changed state (w, r, d, W, E)."),
    "ar_acct": (("termination_time", "submission_time", "ar_number", "qname", "hostname",
                 "slots"),
                "An advance reservation ended: a record per queue instance it held slots "
                "in."),
    "queue": (("qname", "hostname", "time", "state"),
              "A queue instance's state letters changed (qmod(1))."),
    "queue_consumable": (("qname", "hostname", "time", "state", "consumables"),
                         "A task started or ended in a queue instance: " + _CONSUMABLES
                         + ", where they changed."),
    "host": (("hostname", "time", "command", "load_values"),
             "A host reported its load: name=value,... of the values its report_variables "
             "(else the global host's) names; command is always X."),
    "host_consumable": (("hostname", "time", "command", "consumables"),
                        "A task started or ended on a host (or the global host, global): "
                        + _CONSUMABLES + "; command is always X."),
}

PAGE = FilePage(
    name="reporting",
    purpose="the reporting file of jobs, advance reservations, queues and hosts",
    description=(
        "With reporting=true in the global configuration's reporting_params "
        "(qconf -mconf), gridd writes records to $GRIDD_ROOT/common/reporting, a line "
        "each, in the types and fields Grid Engine 8.1.9 writes, so that tools reading "
        "its reporting file (ARCo's dbwriter among them) read gridd's. The same records "
        "go to the reporting database $GRIDD_ROOT/common/reporting.duckdb, into ARCo's "
        "tables and views, for gridd report and qacct(1).\n\n"
        "Every line starts with the record's time (seconds since the epoch) and its type; "
        "the type's fields follow, all separated by colons. Text from users cannot add a "
        "field or a line: a colon in it is written as ;, a line break or other control "
        "character as a blank.\n\n"
        "reporting_params: accounting=true|false (acct records and the accounting file), "
        "accounting_format=colon|json (the accounting file's lines: Grid Engine's colon "
        "lines in accounting, the default, or JSON lines in accounting.jsonl, see "
        "accounting(5); Open Cluster Scheduler's old_accounting=true|false says the same, "
        "true for colon, and qconf refuses the two when they disagree), "
        "reporting=true|false (this file), joblog=true|false (job_log records), "
        "flush_time (the longest a record waits for the database). This file's lines "
        "stay colon lines whatever accounting_format says."),
    sections=(Section("RECORD TYPES", items=tuple(
        (kind, text if kind == "acct" else f"{text} Fields, in order: {', '.join(fields)}.")
        for kind, (fields, text) in RECORDS.items())),),
    see_also=("accounting(5)", "host_conf(5)", "qacct(1)", "gridd(1)"),
)

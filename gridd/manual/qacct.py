"""qacct's manual source."""

from gridd.manual.common import ENVIRONMENT, HELP
from gridd.manual.page import Command, Layout, Option, Section, Term

MATCHING = ("Sum the usage up per {what} (a line each); with a value, only the "
            "records of that {what}.")

COMMAND = Command(
    name="qacct",
    purpose="sum up and list finished jobs",
    usage="[options]",
    description=(
        "qacct reads the records of finished jobs and prints the usage they add up to: "
        "wall clock, user and system time, cpu, memory, io and io wait. The options that "
        "name a column (-A, -ar, -D, -g, -h, -o, -P, -pe, -q, -slots) break the sum down "
        "by it, a line per value, or with a value select only the records that have it. "
        "-j lists the records themselves, a block each.\n\n"
        "The records come from the cell's reporting database (through the master while "
        "the cell runs) or, before its first job is accounted, from the accounting file "
        "$GRIDD_ROOT/common/accounting, and accounting.jsonl beside it when "
        "accounting_format=json wrote one (both when both exist, the records in the "
        "order jobs ended in); -f reads another accounting file, Grid Engine's too, or "
        "one of JSON lines, Open Cluster Scheduler's too, told by its first record "
        "(accounting(5))."),
    entries=(
        Option("-ar", "[ar_id]", "sum up per advance reservation",
               text=MATCHING.format(what="advance reservation")),
        Option("-A", "[account_string]", "sum up per account",
               text=MATCHING.format(what="account")),
        Option("-b", "begin_time", "jobs started at or after this time",
               text="Only jobs started at or after this time (ended, with -E)."),
        Option("-d", "days", "jobs started in the last days",
               text="Only jobs started in these last days: counted back from -e, forward "
                    "from -b, or back from now."),
        Option("-D", "[department]", "sum up per department",
               text=MATCHING.format(what="department")),
        Option("-e", "end_time", "jobs started before this time",
               text="Only jobs started before this time (ended, with -E)."),
        Option("-E", summary="-b, -e and -d judge the end time",
               text="Let -b, -e and -d select jobs by the time they ended, not started."),
        Option("-f", "acctfile", "read this accounting file",
               shown="[-f] acctfile",
               text="Read the records of this accounting file instead of the cell's; the "
                    "-f may be left out."),
        Option("-g", "[groupid|groupname]", "sum up per group",
               text=MATCHING.format(what="group") + " A group may be named by its id."),
        Option("-h", "[host]", "sum up per host",
               text=MATCHING.format(what="execution host")),
        HELP,
        Option("-j", "[job_id|job_name|pattern]", "list the records of jobs",
               text="List every record in full, or those of these jobs, then the sum."),
        Option("-l", "attr=val,...", "jobs that asked for these resources",
               text="Only jobs whose hard requests asked for these resources (with these "
                    "values)."),
        Option("-json", summary="print the information as JSON",
               text="Print the answer as one JSON document: the records -j lists under "
                    "\"job\", the summary's lines under \"summary\" (or the total under "
                    "\"total\"), with the text's labels as keys, numbers as numbers, times "
                    "in ISO 8601 (UTC) and null for what the text calls undefined. The schema is "
                    "schemas/qacct.json in gridd's source."),
        Option("-m", summary="only master tasks",
               text="Count only the records of master tasks of parallel jobs (and of "
                    "serial jobs)."),
        Option("-o", "[owner]", "sum up per owner",
               text=MATCHING.format(what="owner")),
        Option("-u", "[owner]", "the same as -o",
               text="The same as -o."),
        Option("-pe", "[pe_name]", "sum up per parallel environment",
               text=MATCHING.format(what="parallel environment")),
        Option("-P", "[project]", "sum up per project",
               text=MATCHING.format(what="project")),
        Option("-q", "[queue]", "sum up per cluster queue",
               text=MATCHING.format(what="cluster queue") + " A queue instance "
                    "(queue@host) or a pattern selects too."),
        Option("-slots", "[slots]", "sum up per number of slots",
               text=MATCHING.format(what="number of slots")),
        Option("-t", "task_id_range", "with -j: only these array tasks",
               text="With -j and a job, only the records of these tasks of an array job "
                    "(n[-m[:s]][,...])."),
    ),
    terms=(
        Term("begin_time, end_time", "[[CC]YY]MMDDhhmm[.SS]"),
        Term("queue", "cluster_queue|queue@host|pattern"),
        Term("task_id_range", "n[-m[:s]][,n[-m[:s]]...]"),
    ),
    layout=Layout(indent=1, column=35, term_indent=1, term_column=35),
    sections=(
        Section("EXIT STATUS",
                "0 when the sum or the records are shown; 1 when a job -j names has no "
                "record, for a wrong command line, or when the records cannot be read."),
        Section("FILES", items=(
            ("$GRIDD_ROOT/common/reporting.duckdb", "the cell's reporting database"),
            ("$GRIDD_ROOT/common/accounting", "the cell's accounting file"),
            ("$GRIDD_ROOT/common/accounting.jsonl",
             "the cell's accounting as JSON lines (accounting_format=json)"),
        )),
        ENVIRONMENT,
    ),
    see_also=("accounting(5)", "reporting(5)", "qstat(1)", "gridd(1)"),
)

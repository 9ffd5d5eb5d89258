"""qstat's manual source."""

from gridd.manual import queue_selection as select
from gridd.manual.common import ENVIRONMENT, FORMAT, HELP, QSTAT
from gridd.manual.page import Command, Option, Section, Term

COMMAND = Command(
    name="qstat",
    purpose="show jobs and queues",
    usage="[options]",
    description=(
        "qstat shows jobs and queue instances. Without options it lists the caller's "
        "unfinished jobs, a line each: job id, priority, name, owner, state, the time it "
        "was submitted or started, its queue instance and slots, and for array jobs the "
        "tasks. The state letters are those of Grid Engine: qw (waiting), hqw (held), "
        "r (running), t (being started), s, S and T (suspended, by qmod(1), by its queue, "
        "by a suspend threshold), Rq and Rr (rescheduled), dr (being deleted) and Eqw "
        "(in error).\n\n"
        "-f lists every queue instance with its jobs under it; -j shows jobs in full; "
        "-g c sums up each cluster queue; -xml prints any of these as XML in Grid Engine's "
        "schema. The queue selection options (-l, -pe, -q, -qs, -U) narrow the queue "
        "instances shown and the waiting jobs to those that might run in them."),
    entries=(
        Option("-ext", summary="with tickets, project, department and usage",
               text="Add the columns of Grid Engine's extended view: tickets (always 0: "
                    "gridd hands out none), project, department, and the cpu, memory and "
                    "io usage of running jobs."),
        Option("-explain", "a|c|A|E", "say why instances are in alarm or error",
               text="As -f, and under each queue instance in one of these states say why: "
                    "a (load alarm: the load thresholds passed), A (suspend alarm), "
                    "c (configuration ambiguous), E (error)."),
        Option("-f", summary="full output: every queue instance with its jobs",
               text="List every queue instance (its type, reserved, used and total slots, "
                    "load average, architecture and state) with the jobs running in it, "
                    "then the waiting jobs."),
        Option("-F", "[resource_attributes]", "-f with the resources of each instance",
               text="As -f, and under each queue instance the resources it offers (load "
                    "values, consumables with what is left of them), or only those named, "
                    "each with a letter for where the value comes from."),
        Option("-g", "{c|d|t}",
               "c: a summary per cluster queue\n"
               "d: a line per array task\n"
               "t: a line per parallel task",
               text="c: a line per cluster queue with its load and its used, reserved, "
                    "available and total slots and the instances in each kind of state. "
                    "d: a line for each task of an array job, waiting ones too. t: a line "
                    "for each slot of a parallel job, MASTER or SLAVE."),
        HELP,
        Option("-j", "[job_identifier_list]", "show jobs in full",
               text="Show every detail of these jobs (ids, names or patterns; all of them "
                    "without a list): their requests, paths, environment, usage while they "
                    "run, and why the scheduler could not start them yet."),
        select.RESOURCES,
        Option("-ncb", summary="accepted for compatibility",
               text="Taken for scripts that pass it; gridd shows no core binding anyway."),
        Option("-ne", summary="with -f, leave out empty instances",
               text="With -f, list only the queue instances where jobs run."),
        select.PES,
        select.QUEUES,
        select.STATE,
        Option("-r", summary="with each job's requests",
               text="Under each job, show what it asked for: hard and soft resources, "
                    "queues, PE and slots, master queues."),
        Option("-s", "{p|r|s|z|hu|ho|hs|hd|hj|ha|h|a}", "show only jobs in these states\n"
               "(h: every kind of hold, a: p, r and s)",
               text="Only jobs in these states: p (waiting), r (running), s (suspended), "
                    "z (finished lately), hu, ho, hs (held by their user, an operator, the "
                    "system), hd and hj (waiting for an array or a job dependency), ha "
                    "(waiting for their -a start time); h is every kind of hold, a is prs, "
                    "the default."),
        Option("-t", summary="accepted for compatibility",
               text="Taken for scripts that pass it; gridd shows no sub-task information."),
        Option("-u", "user_list", "show the jobs of these users",
               text="Show the jobs of these users instead of the caller's; * for "
                    "everybody's."),
        select.USERS,
        Option("-urg", summary="with each job's urgency and its parts",
               text="Add the columns of a job's urgency: its normalised value, the "
                    "resource, waiting time and deadline contributions, its submission "
                    "time and deadline."),
        Option("-pri", summary="with each job's priority and its parts",
               text="Add the columns of a job's priority: normalised urgency, -p priority "
                    "and tickets."),
        Option("-xml", summary="print the information as XML",
               text="Print the view asked for as XML, in Grid Engine's qstat schema."),
        FORMAT,
        Option("-json", summary="print the information as JSON",
               text="Print the view asked for as one JSON document: what -xml shows, under "
                    "Open Cluster Scheduler 9.2's keys, with numbers as numbers and times "
                    "in ISO 8601 (UTC). The schema is schemas/qstat.json in gridd's "
                    "source; with -j, each job named with what -j's text shows of it "
                    "(schemas/qstat-job.json), and a job that does not exist said as the "
                    "text says it."),
    ),
    terms=(
        Term("job_identifier_list", "job_id|job_name|pattern[,job_id|job_name|pattern...]"),
        Term("resource_attributes", "resource,resource,..."),
        *select.TERMS,
    ),
    layout=QSTAT,
    sections=(
        Section("EXIT STATUS",
                "0 when the information is shown; 1 for a wrong command line, a job -j "
                "names that does not exist, or when the master cannot be reached."),
        ENVIRONMENT,
    ),
    see_also=("qsub(1)", "qhost(1)", "qselect(1)", "qmod(1)", "queue_conf(5)"),
)

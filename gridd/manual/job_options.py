"""The job options qsub and qalter share: what each sets of a job, said once. qsub sets it
for a new job; qalter changes it for jobs that wait (most options) or any job."""

from __future__ import annotations

from gridd.manual.common import (
    DATE_TIME,
    MAIL_LIST,
    PATH_LIST,
    RESOURCE_LIST,
    SLOT_RANGE,
    TASK_ID_RANGE,
    WC_QUEUE,
)
from gridd.manual.page import Option, Term

_YES_NO = "y[es]|n[o]"
# Where every path of a job is resolved, and what a path that fails there does.
_ON_THE_HOST = ("It is resolved on the execution host, as the job's owner: if it cannot be "
                "used there, the job does not start and waits in error state (Eqw; qstat -j "
                "says why) until qmod -cj clears it.")
_PATHS = ("$HOME, $USER, $JOB_ID, $JOB_NAME, $HOSTNAME and $TASK_ID are replaced by their "
          "values; of several paths, the one whose host: prefix names the execution host is "
          "taken, else one without a prefix. " + _ON_THE_HOST)
_HARD_SOFT = ("Requests after -soft are preferences, the scheduler's to weigh; those before "
              "it, or after -hard, must be met.")

OPTIONS: dict[str, Option] = {option.name: option for option in (
    Option("-a", "date_time", "start no sooner than date_time",
           text="The job is not started before this time; until then qstat -s ha shows "
                "it."),
    Option("-ac", "context_list", "add context variables",
           text="Add these variables (name[=value]) to the job's context, which qstat -j "
                "shows; a name without a value gets NONE."),
    Option("-A", "account_string", "account name written to accounting",
           text="The account the job is accounted to (the account field of "
                "accounting(5))."),
    Option("-ar", "ar_id", "run inside advance reservation ar_id",
           text="Run the job inside this advance reservation (qrsub(1)), on what it holds, "
                "once it has started; the job must fit in it and the caller be among its "
                "users."),
    Option("-binding", "[env|pe|set] strategy", "core binding asked for",
           text="A core binding (linear:n, striding:n:step or explicit:socket,core:...), "
                "with how it is passed (set, the default; env; pe). gridd records and "
                "shows it, but binds nothing."),
    Option("-c", "n", "when to checkpoint: never",
           text="gridd offers no checkpointing: n (never) is taken, any other letters or "
                "interval are refused."),
    Option("-ckpt", "ckpt_name", "checkpointing environment",
           text="gridd offers no checkpointing environment: naming one is refused."),
    Option("-cwd", summary="run in the current directory",
           text="Run the job in the directory the command is given in (default: the "
                "owner's home directory). " + _ON_THE_HOST),
    Option("-dc", "simple_context_list", "delete context variables",
           text="Delete these variables from the job's context."),
    Option("-dl", "date_time", "deadline (for deadlineusers)",
           text="The job's deadline: its urgency grows as the deadline nears. Only users "
                "in the deadlineusers access list may give one."),
    Option("-e", "path_list", "where standard error goes",
           text="The file or directory the job's standard error goes to (default: "
                "NAME.eJOB_ID in the working directory). " + _PATHS),
    Option("-hard", summary="the following -l and -q are requirements",
           text=_HARD_SOFT),
    Option("-hold_jid", "job_identifier_list", "start after these jobs have ended",
           text="The job waits until every job named (ids, names or patterns) has ended."),
    Option("-hold_jid_ad", "job_identifier_list", "each task after the same task of these",
           text="Each task of this array job waits until the task of the same number of "
                "each array job named has ended."),
    Option("-i", "file", "standard input of the job",
           text="The file the job reads as its standard input (default: /dev/null). "
                + _ON_THE_HOST),
    Option("-j", _YES_NO, "write standard error into standard output",
           text="With y, standard error goes where standard output goes."),
    Option("-js", "job_share", "job share (an unsigned number)",
           text="The job's share; gridd records it and hands out no tickets by it."),
    Option("-l", "resource_list", "request resources",
           text="Resources the job needs (complex attributes with values): consumables "
                "are debited per slot, other attributes must be offered by the queue "
                "instance, its host or the cell. " + _HARD_SOFT),
    Option("-M", "mail_list", "mail addresses for notifications",
           text="Whom mail about the job goes to (default: its owner at the submit host)."),
    Option("-m", "mail_options", "when to send mail (a, b, e, s or n)",
           text="When to mail: any of b (begin), e (end), a (abort or reschedule), s "
                "(suspend), or n (never)."),
    Option("-masterq", "wc_queue_list", "queues the master task may take",
           text="For a parallel job, the queue instances its master task may run in."),
    Option("-N", "name", "job name",
           text="The job's name (default: the script's or command's file name); it may "
                "not contain /, and a new job's may not start with a digit nor hold "
                "blanks, :, @, \\, * or ?."),
    Option("-notify", summary="warn the job before suspending or killing it",
           text="Recorded and shown, as Grid Engine's jobs are asked to be warned; gridd "
                "sends no warning signal."),
    Option("-o", "path_list", "where standard output goes",
           text="The file or directory the job's standard output goes to (default: "
                "NAME.oJOB_ID in the working directory). " + _PATHS),
    Option("-P", "project_name", "project of the job",
           text="The project the job belongs to; the global configuration, queues and "
                "hosts may admit or shut out projects."),
    Option("-p", "priority", "priority from -1023 to 1024",
           text="The job's priority among the caller's jobs, from -1023 to 1024; only "
                "operators and managers may raise it above 0."),
    Option("-pe", "pe_name slot_range", "parallel environment and slot range",
           text="Run as a parallel job of this parallel environment (sge_pe(5)), on as "
                "many slots of the range as can be had, spread as its allocation_rule "
                "says."),
    Option("-q", "wc_queue_list", "queues the job may run in",
           text="The queue instances the job may run in. " + _HARD_SOFT),
    Option("-R", _YES_NO, "reserve resources for this job",
           text="With y, a job that cannot start yet gets a reservation (as the "
                "scheduler's max_reservation allows): the earliest time what it needs is "
                "free is kept clear of jobs that would end later."),
    Option("-r", _YES_NO, "whether the job may be run again",
           text="Whether the job may be rescheduled (qmod -r) and run again (default: "
                "the rerun of its queue)."),
    Option("-sc", "context_list", "set the context variables (replaces them)",
           text="Replace the job's context with these variables."),
    Option("-soft", summary="the following -l and -q are preferences",
           text=_HARD_SOFT),
    Option("-S", "path_list", "shell that runs the script",
           text="The interpreter the job's script is run with (default: the queue's "
                "shell)."),
    Option("-tc", "max_running_tasks", "an array's tasks running at once at most",
           text="At most this many tasks of the array job run at once (0: no limit)."),
    Option("-v", "variable_list", "pass these variables to the job",
           text="Variables for the job's environment: name=value, or name alone for "
                "its value here."),
    Option("-V", summary="pass the whole environment to the job",
           text="Pass every variable of the caller's environment to the job."),
    Option("-w", "e|w|n|v|p", "how strictly to check the job",
           text="Whether the master checks that some queue could ever run the job: "
                "e refuses it if none could, w warns and takes it, n (the default) does "
                "not check, v and p only say whether one could and submit nothing."),
    Option("-wd", "working_directory", "run in working_directory",
           text="The directory the job runs in. " + _ON_THE_HOST),
)}

TERMS = (
    Term("context_list", "variable[=value][,variable[=value],...]"),
    DATE_TIME,
    Term("job_identifier_list", "job_id|job_name|pattern[,job_id|job_name|pattern,...]"),
    MAIL_LIST,
    Term("mail_options", "a|b|e|s[...] | n"),
    PATH_LIST,
    Term("priority", "-1023 - 1024"),
    RESOURCE_LIST,
    Term("simple_context_list", "variable[,variable,...]"),
    SLOT_RANGE,
    TASK_ID_RANGE,
    Term("variable_list", "variable[=value][,variable[=value],...]"),
    *WC_QUEUE,
    Term("strategy", "linear:n | striding:n:step | explicit:socket,core[:...]"),
)


def chosen(*names: str) -> tuple[Option, ...]:
    """These shared options, in this order."""
    return tuple(OPTIONS[name] for name in names)

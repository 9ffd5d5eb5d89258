"""qrsub's manual source."""

from gridd.manual.common import (
    DATE_TIME,
    ENVIRONMENT,
    HELP,
    MAIL_LIST,
    RESOURCE_LIST,
    SLOT_RANGE,
    TIME,
    WC_QUEUE,
    WIDE,
)
from gridd.manual.page import Command, Option, Section, Term

COMMAND = Command(
    name="qrsub",
    purpose="reserve resources in advance",
    usage="[options]",
    description=(
        "qrsub asks for an advance reservation (AR): slots, and the consumables -l names, "
        "held on queue instances over a window of time. The master grants it only where "
        "everything asked is free all through the window (resource quotas aside), and "
        "answers \"Your advance reservation N has been granted\"; from then on only the "
        "jobs submitted into it (qsub -ar N) use what it holds, and other jobs keep "
        "clear of it.\n\n"
        "The window is given by two of -a (start, default now), -e (end) and -d "
        "(duration). Managers and the users of the arusers access list may reserve.\n\n"
        "Options are read from $GRIDD_ROOT/common/sge_ar_request, then ~/.sge_ar_request, "
        "then the command line; a later one wins, except that -l requests merge and -M "
        "addresses add up. The master's answers, refusals included, are printed on "
        "standard output."),
    entries=(
        Option("-a", "date_time", "start of the reservation",
               text="When the window starts (default: now)."),
        Option("-A", "account_string", "account name written to accounting",
               text="The account the AR is accounted to (ar_acct records of reporting(5))."),
        Option("-ckpt", "ckpt_name", "reserve only queues offering this checkpointing",
               text="Reserve only in queue instances whose ckpt_list names this "
                    "checkpointing environment."),
        Option("-d", "time", "length of the reservation",
               text="How long the window lasts."),
        Option("-e", "date_time", "end of the reservation",
               text="When the window ends."),
        Option("-he", "y[es]|n[o]", "hard error handling: no jobs start while in error",
               text="With y, an AR whose host is lost or whose queue is disabled goes to "
                    "state E and none of its jobs starts until it is well again; with n "
                    "(the default) it goes to W and its jobs go on starting where they "
                    "can."),
        HELP,
        Option("-l", "resource_list", "reserve these resources",
               text="Consumables to hold beside the slots, per slot as for jobs (a "
                    "consumable JOB once, a consumable HOST once on each host of the AR "
                    "and, where the global host offers it, once per host there too, as "
                    "Open Cluster Scheduler holds it: each job in the AR takes it once); "
                    "other attributes choose where the AR may be."),
        Option("-M", "mail_list", "mail addresses for notifications",
               text="Whom mail about the AR goes to."),
        Option("-m", "mail_options", "when to send mail (b, e, a or n)",
               text="When to mail: any of b (begin), e (end), a (error), or n (never)."),
        Option("-masterq", "wc_queue_list", "queues the master task may be reserved in",
               text="For a parallel AR, the queue instances its first slot, the one of a "
                    "job's master task, may be reserved in."),
        Option("-N", "name", "name of the reservation",
               text="A name for the AR (qrstat(1), qrdel(1) take it); it may not contain "
                    "/ or start with a digit."),
        Option("-now", "y[es]|n[o]", "reserve in interactive queues only",
               text="With y, reserve only in queue instances of type INTERACTIVE."),
        Option("-pe", "pe_name slot_range", "parallel environment and slot range",
               text="Reserve slots for parallel jobs of this parallel environment, as "
                    "many as the range allows, spread as its allocation_rule says."),
        Option("-q", "wc_queue_list", "queues to reserve in",
               text="Reserve only in these queue instances."),
        Option("-u", "wc_user_list", "users and @usersets who may submit into it",
               text="Who may submit jobs into the AR (default: its owner alone), beside "
                    "operators and managers; each of them must be let into the queues "
                    "reserved too."),
        Option("-w", "e|v", "e: refuse what cannot be granted, v: only check",
               text="e (the default): grant the AR or refuse it; v: only say whether it "
                    "could be granted, reserving nothing."),
    ),
    terms=(
        DATE_TIME, TIME,
        Term("mail_options", "b|e|a[...] | n"),
        MAIL_LIST, RESOURCE_LIST, SLOT_RANGE,
        Term("wc_user_list", "user|@userset[,user|@userset,...]"),
        *WC_QUEUE,
    ),
    layout=WIDE,
    sections=(
        Section("EXIT STATUS",
                "0 when the AR was granted (or, with -w v, could be); 1 when it was "
                "refused, for a wrong command line or request file, or when the master "
                "cannot be reached."),
        Section("FILES", items=(
            ("$GRIDD_ROOT/common/sge_ar_request", "the cell's default options"),
            ("~/.sge_ar_request", "the caller's default options"),
        )),
        ENVIRONMENT,
    ),
    see_also=("qrstat(1)", "qrdel(1)", "qsub(1)", "reporting(5)"),
)

"""queue_conf(5): a cluster queue as qconf shows and reads it
(gridd.model.objects.ClusterQueue)."""

from gridd.manual.page import FilePage, Section

_KEPT = "gridd keeps and shows it, and does nothing with it."
_LIMIT = ("A resource limit of the queue: INFINITY, or a {what}. Jobs may request it with "
          "-l; one that asks for more is not sent here.")
_RUN_TIME = _LIMIT.format(what="time") + (" A running job is killed at its h_rt, and sent "
                                          "SIGUSR1 at its s_rt.")

ATTRIBUTES = (
    ("qname", "The cluster queue's name."),
    ("hostlist", "Its hosts and @host groups (NONE): a queue instance, queue@host, on each."),
    ("seq_no", "Its sequence number: with the scheduler's queue_sort_method seqno, jobs go "
               "to instances of lower numbers first (with load, it breaks ties)."),
    ("load_thresholds", "name=value,...: when a host's load reaches one of these, its "
                        "instance is in load alarm (a) and takes no new jobs."),
    ("suspend_thresholds", "name=value,...: when a host's load reaches one of these, the "
                           "jobs of its instance are suspended (state A) until it no "
                           "longer does."),
    ("nsuspend", _KEPT),
    ("suspend_interval", _KEPT),
    ("priority", _KEPT),
    ("min_cpu_interval", _KEPT),
    ("processors", _KEPT),
    ("qtype", "BATCH, INTERACTIVE, both, or NONE: jobs run only in BATCH instances; "
              "qrsub -now y reserves only in INTERACTIVE ones."),
    ("ckpt_list", "The checkpointing environments it offers (gridd offers none)."),
    ("pe_list", "The parallel environments whose jobs it takes."),
    ("rerun", "TRUE: its jobs may be rescheduled (qmod -r) and run again, unless "
              "submitted with -r n."),
    ("slots", "How many slots (tasks, or slots of parallel jobs) each instance offers."),
    ("tmpdir", "Where each job gets a directory of its own, made anew ($TMPDIR)."),
    ("shell", "The shell that runs job scripts (unless qsub -S names one)."),
    ("prolog", _KEPT),
    ("epilog", _KEPT),
    ("shell_start_mode", _KEPT),
    ("starter_method", _KEPT),
    ("suspend_method", _KEPT),
    ("resume_method", _KEPT),
    ("terminate_method", _KEPT),
    ("notify", _KEPT),
    ("owner_list", "Users who may disable, enable, suspend and unsuspend its instances "
                   "(qmod(1)) beside operators and managers."),
    ("user_lists", "Access lists whose users may run jobs here (NONE: anybody)."),
    ("xuser_lists", "Access lists whose users may not."),
    ("subordinate_list", "Queues it names must exist; " + _KEPT.lower()),
    ("complex_values", "name=value,...: consumables each instance offers (and values of "
                       "other attributes): jobs' -l requests are debited from them."),
    ("projects", "Projects whose jobs may run here (NONE: any)."),
    ("xprojects", "Projects whose jobs may not."),
    ("calendar", "NONE: gridd has no calendars."),
    ("initial_state", _KEPT),
    ("s_rt", _RUN_TIME),
    ("h_rt", _RUN_TIME),
    ("s_cpu", _LIMIT.format(what="time")),
    ("h_cpu", _LIMIT.format(what="time")),
    ("s_fsize", _LIMIT.format(what="size")),
    ("h_fsize", _LIMIT.format(what="size")),
    ("s_data", _LIMIT.format(what="size")),
    ("h_data", _LIMIT.format(what="size")),
    ("s_stack", _LIMIT.format(what="size")),
    ("h_stack", _LIMIT.format(what="size")),
    ("s_core", _LIMIT.format(what="size")),
    ("h_core", _LIMIT.format(what="size")),
    ("s_rss", _LIMIT.format(what="size")),
    ("h_rss", _LIMIT.format(what="size")),
    ("s_vmem", _LIMIT.format(what="size")),
    ("h_vmem", _LIMIT.format(what="size")),
)

PAGE = FilePage(
    name="queue_conf",
    purpose="the configuration of a cluster queue",
    description=(
        "A cluster queue is shown by qconf -sq, made with qconf -aq or -Aq, changed with "
        "-mq, -Mq or the attribute options (-mattr queue ...). The file holds a line per "
        "attribute, its name, blanks and its value, in the order below; a line ending in "
        "a backslash goes on in the next.\n\n"
        "Every attribute but qname and hostlist may be given a value per host or host "
        "group beside its default:\n\n"
        "  slots  4,[node1=8],[@big=16]\n\n"
        "A host's own value wins over its group's, which wins over the default. "
        "Times are hours:minutes:seconds or seconds; sizes take the suffixes K, M, G, "
        "T (powers of 1024) and k, m, g, t (powers of 1000); lists are separated by blanks or "
        "commas, NONE for none."),
    sections=(Section("ATTRIBUTES", items=ATTRIBUTES),),
    see_also=("qconf(1)", "host_conf(5)", "sge_pe(5)", "qstat(1)"),
)

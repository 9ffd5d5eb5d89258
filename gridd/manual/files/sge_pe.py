"""sge_pe(5): a parallel environment as qconf shows and reads it
(gridd.model.objects.ParallelEnvConf)."""

from gridd.manual.page import FilePage, Section

_KEPT = "gridd keeps and shows it, and does nothing with it."

ATTRIBUTES = (
    ("pe_name", "The parallel environment's name, as qsub -pe names it."),
    ("slots", "How many slots its jobs may hold together, in the whole cell."),
    ("user_lists", "Access lists whose users may submit jobs to it (NONE: anybody)."),
    ("xuser_lists", "Access lists whose users may not."),
    ("start_proc_args", _KEPT),
    ("stop_proc_args", _KEPT),
    ("allocation_rule", "How a job's slots are spread over hosts: $pe_slots (all on one "
                        "host), $fill_up (each host filled before the next is taken), "
                        "$round_robin (a slot per host in turn), or a number (that many "
                        "slots on each host taken)."),
    ("control_slaves", _KEPT),
    ("job_is_first_task", _KEPT),
    ("urgency_slots", _KEPT),
    ("accounting_summary", _KEPT),
    ("qsort_args", _KEPT),
)

PAGE = FilePage(
    name="sge_pe",
    purpose="the configuration of a parallel environment",
    description=(
        "A parallel environment is shown by qconf -sp, added with qconf -ap or -Ap, "
        "changed with -mp, -Mp or the attribute options (-mattr pe ...). A parallel job "
        "(qsub -pe NAME RANGE) runs in queue instances whose pe_list names the "
        "environment, on as many slots of its range as can be had, spread over hosts as "
        "allocation_rule says; its master task runs on the first host (or where -masterq "
        "says), the job script with $PE_HOSTFILE naming the hosts and their slots.\n\n"
        "The file holds a line per attribute, its name, blanks and its value."),
    sections=(Section("ATTRIBUTES", items=ATTRIBUTES),),
    see_also=("qsub(1)", "qconf(1)", "queue_conf(5)"),
)

"""sge_schedule(5): the schedule file the scheduler writes with MONITOR
(gridd.sched.reserve.Booking.lines)."""

from gridd.manual.page import FilePage, Section

FIELDS = (
    ("job_id", "The job's id."),
    ("task_id", "The task of an array job (1 for other jobs)."),
    ("state", "RUNNING (a job that runs, until its expected end), STARTING (started by "
              "this run) or RESERVING (a reservation for a job submitted with -R y)."),
    ("start_time", "When it started, starts or is reserved to start, in seconds since the "
                   "epoch."),
    ("duration", "How long it is expected to take, in seconds: its h_rt or s_rt, else the "
                 "scheduler's default_duration, plus DURATION_OFFSET (INFINITY for none)."),
    ("level_type", "Where the resource is used: G (the global host), H (an execution host), "
                   "Q (a queue instance) or P (a parallel environment)."),
    ("object_name", "Its name: global, the host, queue@host, or the PE."),
    ("resource_name", "The resource (slots, or a consumable)."),
    ("utilization", "How much of it the job uses there (1 for an exclusive attribute)."),
)

PAGE = FilePage(
    name="sge_schedule",
    purpose="the schedule file: what each scheduling run planned",
    description=(
        "With MONITOR=1 (or true) among the params of the scheduler configuration "
        "(qconf -msconf), the scheduler appends to $GRIDD_ROOT/common/schedule, for each "
        "run while jobs run or wait, what it planned: a line :::::::: begins a run, then "
        "a line for each resource each job holds, starts with or reserves, at each level "
        "it takes the resource from. The file is never truncated: rotate it as any "
        "log.\n\n"
        "The fields of a line are separated by colons:\n\n"
        "  job_id:task_id:state:start_time:duration:level_type:object_name:resource_name:"
        "utilization\n\n"
        "What gridd's own quota scopes and advance reservations hold is not written."),
    sections=(Section("FIELDS", items=FIELDS),),
    see_also=("qsub(1)", "qstat(1)", "qconf(1)", "gridd(1)"),
)

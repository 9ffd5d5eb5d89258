"""qmod's manual source."""

from gridd.manual.common import ENVIRONMENT, HELP
from gridd.manual.page import Command, Layout, Option, Section, Term

RESCHEDULE = ("Rescheduling kills a running task that may run again (submitted with "
              "-r y, or in a queue with rerun TRUE, or with -f); its run is accounted "
              "(failed 25) and the task waits to run again (Rq, then Rr in qstat(1)). "
              "Only managers may reschedule.")

COMMAND = Command(
    name="qmod",
    purpose="change the states of queue instances and jobs",
    usage="[options]",
    description=(
        "qmod disables and enables queue instances, suspends and unsuspends queue "
        "instances and jobs, clears their error states and reschedules jobs. Each option "
        "applies to the words after it up to the next option (separated by commas or "
        "blanks); the options are carried out in order.\n\n"
        "Queue instances are named as cluster queues (all their instances), queue@host, "
        "queue@@hostgroup, or patterns of these; jobs by id, id.task_range or name. "
        "The options that take both (-c, -r, -s, -us) take a word for a job where a job "
        "answers to it, else for queue instances.\n\n"
        "A job may be changed by its owner, operators and managers; a queue instance by "
        "operators, managers and the users its owner_list names. The master answers with "
        "a line per job or instance, which qmod prints on standard output."),
    entries=(
        Option("-c", "job_wc_queue_list", "clear the error state of jobs or instances",
               text="As -cj for the words that name jobs, as -cq for the others."),
        Option("-cj", "job_list", "clear the error state of jobs",
               text="Clear the error state (E) of these jobs: they wait to be started "
                    "again."),
        Option("-cq", "wc_queue_list", "clear the error state of instances",
               text="Clear the error state (E) of these queue instances."),
        Option("-d", "wc_queue_list", "disable queue instances",
               text="Disable these queue instances: they start no new jobs; the jobs "
                    "running in them go on."),
        Option("-e", "wc_queue_list", "enable queue instances",
               text="Enable these queue instances again."),
        Option("-f", summary="force: reschedule any job",
               text="With -r, -rj or -rq, reschedule jobs that are not rerunnable too."),
        HELP,
        Option("-r", "job_wc_queue_list", "reschedule jobs, or those of instances",
               text="As -rj for the words that name jobs, as -rq for the others."),
        Option("-rj", "job_list", "reschedule jobs",
               text="Reschedule these running jobs. " + RESCHEDULE),
        Option("-rq", "wc_queue_list", "reschedule the jobs of queue instances",
               text="Reschedule every job running in these queue instances. " + RESCHEDULE),
        Option("-s", "job_wc_queue_list", "suspend jobs or queue instances",
               text="As -sj for the words that name jobs, as -sq for the others."),
        Option("-sj", "job_list", "suspend jobs",
               text="Suspend these running jobs: their processes are stopped (SIGSTOP) "
                    "until they are unsuspended."),
        Option("-sq", "wc_queue_list", "suspend queue instances",
               text="Suspend these queue instances: the jobs running in them are stopped, "
                    "and no new job starts there until they are unsuspended."),
        Option("-us", "job_wc_queue_list", "unsuspend jobs or queue instances",
               text="As -usj for the words that name jobs, as -usq for the others."),
        Option("-usj", "job_list", "unsuspend jobs",
               text="Let these suspended jobs go on (SIGCONT)."),
        Option("-usq", "wc_queue_list", "unsuspend queue instances",
               text="Unsuspend these queue instances: their jobs go on."),
    ),
    terms=(
        Term("job_wc_queue_list", "{job_tasks|wc_queue}[{,| }{job_tasks|wc_queue}...]"),
        Term("job_list", "job_tasks[{,| }job_tasks...]"),
        Term("job_tasks", "job_id[.task_id_range]|job_name|pattern"),
        Term("task_id_range", "task_id[-task_id[:step]]"),
        Term("wc_queue", "cqueue|cqueue@host|cqueue@@hostgroup, or a pattern"),
        Term("wc_queue_list", "wc_queue[,wc_queue,...]"),
    ),
    layout=Layout(indent=3, column=27, term_column=27),
    sections=(
        Section("EXIT STATUS",
                "0 when every change was made; 1 when one was refused (no such job or "
                "queue, no permission), for a wrong command line, or when the master "
                "cannot be reached."),
        ENVIRONMENT,
    ),
    see_also=("qstat(1)", "qselect(1)", "queue_conf(5)"),
)

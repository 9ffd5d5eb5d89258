"""qdel's manual source."""

from gridd.manual.common import (
    ENVIRONMENT,
    HELP,
    JOB_TASK_LIST,
    JOB_TASKS,
    PATTERNS,
    TASK_ID_RANGE,
    USER_LIST,
    WIDE,
)
from gridd.manual.page import Command, Operand, Option, Section

COMMAND = Command(
    name="qdel",
    purpose="delete jobs",
    usage="[options] job_task_list",
    description=(
        "qdel deletes the jobs, or the tasks of array jobs, that job_task_list names, "
        "or every job of the users -u names. A job that waits goes at once; a running "
        "job is killed by its execution daemon and goes once that daemon has reported its "
        "end, when it is accounted.\n\n"
        "Users may delete their own jobs; operators and managers anybody's. "
        "The master answers with a line per job, which qdel prints on standard output.\n\n"
        + PATTERNS),
    entries=(
        Option("-f", summary="forget running jobs at once",
               text="Delete running jobs without waiting for their execution daemons: the "
                    "jobs are killed, their resources freed and they are accounted at once "
                    "(for a host that is down, say)."),
        HELP,
        Option("-u", "user_list", "delete the jobs of these users",
               text="Delete every unfinished job of these users (* for every user's); with "
                    "a job_task_list too, those jobs are deleted as well."),
        Operand("job_task_list", "the jobs and array tasks to delete",
                text="Job ids, job ids with a range of array tasks (7.1-10:2), job names "
                     "or patterns of job names, separated by commas or given as separate "
                     "words."),
    ),
    terms=(JOB_TASK_LIST, JOB_TASKS, TASK_ID_RANGE, USER_LIST),
    layout=WIDE,
    sections=(
        Section("EXIT STATUS",
                "0 when every job named was deleted or registered for deletion; 1 when a "
                "job does not exist or may not be deleted by the caller, when the command "
                "line is wrong, or when the master cannot be reached."),
        ENVIRONMENT,
    ),
    see_also=("qsub(1)", "qstat(1)", "qmod(1)", "gridd(1)"),
)

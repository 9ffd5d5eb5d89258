"""qhold's manual source (qrls takes the same options: gridd.manual.qrls)."""

from gridd.manual.common import (
         ENVIRONMENT,
         HELP,
         JOB_TASK_LIST,
         JOB_TASKS,
         PATTERNS,
         TASK_ID_RANGE,
         WIDE,
)
from gridd.manual.page import Command, Operand, Option, Section, Term

HOLDS = ("u: the user hold, which the job's owner, operators and managers may change; "
         "o: the operator hold, for operators and managers; s: the system hold, for "
         "managers alone.")

COMMAND = Command(
    name="qhold",
    purpose="hold jobs back",
    usage="[options] job_task_list",
    description=(
        "qhold puts holds on waiting jobs, or on tasks of array jobs, so that they are not "
        "started until every hold is released (qrls(1), qalter -h). A held job shows hqw "
        "in qstat(1). A running job keeps the hold for when it waits again (qstat shows "
        "hr), after qmod -r, say.\n\n"
        "The master answers with a line per task whose holds changed.\n\n" + PATTERNS),
    entries=(
        Option("-h", "hold_list", "the holds to set or release (default: u)",
               text="The holds: any of the letters u, o and s. " + HOLDS),
        HELP,
        Operand("job_task_list", "the jobs and array tasks concerned",
                text="Job ids, job ids with a range of array tasks (7.1-10:2), job names "
                     "or patterns of job names, separated by commas or given as separate "
                     "words."),
    ),
    terms=(Term("hold_list", "u|o|s[...]"), JOB_TASK_LIST, JOB_TASKS, TASK_ID_RANGE),
    layout=WIDE,
    sections=(
        Section("EXIT STATUS", items=(
            ("0", "the holds were changed (or were already so)"),
            ("1", "no job was named, or the master cannot be reached"),
            ("2", "a wrong job_task_list or an unknown option"),
            ("3", "a job does not exist"),
            ("4", "several tasks of a job that is not an array job (its task 1 is its "
                  "only task)"),
            ("7", "a wrong hold_list"),
            ("18", "the caller may not change that hold of that job"),
        )),
        ENVIRONMENT,
    ),
    see_also=("qrls(1)", "qalter(1)", "qsub(1)", "qstat(1)"),
)

"""qalter's manual source."""

from gridd.manual import job_options as job
from gridd.manual.common import ENVIRONMENT, HELP, JOB_TASK_LIST, JOB_TASKS, WIDE
from gridd.manual.page import Command, Operand, Option, Section, Term

COMMAND = Command(
    name="qalter",
    purpose="change jobs that were submitted",
    usage="[options] job_task_list",
    description=(
        "qalter changes what qsub(1) set of jobs that wait, with qsub's options, and "
        "their holds (-h). The options it names are checked as qsub checks them, and the "
        "master changes every job named or, where a value is refused, none. A job may be "
        "changed by its owner, operators and managers; only operators and managers may "
        "raise its priority.\n\n"
        "The master answers with a line per change, which qalter prints on standard "
        "output. qsub's options that qalter does not take (-now, -sync, -t, -terse, "
        "-verify, -clear, -C) are refused after the whole line is read."),
    entries=(
        *job.chosen("-a", "-ac", "-A", "-ar", "-binding"),
        Option("-c", "interval", "accepted for compatibility",
               text="Taken, with its argument, and ignored: gridd checkpoints nothing."),
        *job.chosen("-ckpt", "-cwd", "-dc", "-dl", "-e"),
        Option("-h", "hold_list", "set or release holds",
               text="Set holds (u, o, s: user, operator, system), release them (U, O, S), "
                    "or release every hold (n), as qhold(1) and qrls(1) do."),
        job.OPTIONS["-hard"],
        HELP,
        *job.chosen("-hold_jid", "-hold_jid_ad", "-i", "-j", "-js", "-l", "-M", "-m",
                    "-masterq", "-N", "-notify", "-o", "-P", "-p", "-pe", "-q", "-R", "-r",
                    "-sc", "-soft", "-S", "-tc", "-v", "-V", "-w", "-wd"),
        Operand("job_task_list", "the jobs to change",
                text="Job ids, job names or patterns of job names, separated by commas or "
                     "given as separate words; -h alone also takes ranges of array tasks "
                     "(7.1-10:2)."),
    ),
    terms=(Term("hold_list", "n|u|o|s|U|O|S[...]"), JOB_TASK_LIST, JOB_TASKS, *job.TERMS),
    layout=WIDE,
    sections=(
        Section("EXIT STATUS", items=(
            ("0", "every change was made (or nothing was asked)"),
            ("1", "a job does not exist, a change was refused, no job was named, or the "
                  "master cannot be reached"),
            ("2", "a wrong command line or job_task_list"),
            ("4", "changes other than holds asked for array tasks"),
            ("5", "a qsub option qalter does not take"),
            ("7", "a wrong option argument"),
        )),
        ENVIRONMENT,
    ),
    see_also=("qsub(1)", "qhold(1)", "qrls(1)", "qstat(1)"),
)

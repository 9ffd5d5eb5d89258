"""qsub's manual source."""

from gridd.manual import job_options as job
from gridd.manual.common import ENVIRONMENT, HELP, WIDE
from gridd.manual.page import Command, Operand, Option, Section

_YES_NO = "y[es]|n[o]"

COMMAND = Command(
    name="qsub",
    purpose="submit a batch job",
    usage="[options] [script [script_args] | -- [script_args]]",
    description=(
        "qsub submits a job: a script, read from the file named or from standard input, "
        "or with -b y a command. The master checks the job and answers\n\n"
        "  Your job 7 (\"job.sh\") has been submitted\n\n"
        "once it has spooled it; the scheduler then starts it where its requests are met, "
        "in the order of its priority.\n\n"
        "Options come from five places, read in this order, later ones winning: "
        "$GRIDD_ROOT/common/sge_request, ~/.sge_request, ./.sge_request, the script's "
        "lines that start with #$ (or the -C prefix), and the command line. -l, -v, "
        "-hold_jid and -M add up over them all; -clear forgets what came before it."),
    entries=(
        *job.chosen("-a", "-ac", "-A", "-ar"),
        Option("-b", _YES_NO, "the command is a binary, not a script",
               text="With y, the words after the options are a command and its arguments; "
                    "the job has no script, and no #$ lines are read. They are joined with "
                    "blanks and run by the job's shell (-S) on the execution host, as Grid "
                    "Engine runs them: '$SGE_TASK_ID' expands there, blanks between words "
                    "collapse and ; separates commands. -shell n runs them as given. The "
                    "job is named after the command (-N names it otherwise); a name with "
                    "blanks is refused."),
        *job.chosen("-binding", "-c", "-ckpt"),
        Option("-clear", summary="forget every option read before it",
               text="Forget the options read before it: those of the request files, and "
                    "those earlier in the same place."),
        job.OPTIONS["-cwd"],
        Option("-C", "directive_prefix", "prefix of option lines in the script",
               text="Read the script's options from lines starting with this prefix "
                    "instead of #$; an empty prefix reads none."),
        *job.chosen("-dc", "-dl", "-e"),
        Option("-h", summary="submit with a user hold",
               text="Submit the job with a user hold: it waits until qrls(1) releases it."),
        job.OPTIONS["-hard"],
        HELP,
        *job.chosen("-hold_jid", "-hold_jid_ad", "-i", "-j", "-js", "-l", "-M", "-m",
                    "-masterq", "-N", "-notify"),
        Option("-now", _YES_NO, "start at once or not at all",
               text="With y, qsub waits until the job is started and fails (exit 1), the "
                    "job deleted, if it cannot be at once."),
        *job.chosen("-o", "-P", "-p", "-pe", "-q", "-R", "-r", "-sc"),
        Option("-shell", _YES_NO, "run a binary job's command through a shell",
               text="With n, a binary job's command is run directly, found on PATH, "
                    "with its arguments exactly as given, instead of through its shell."),
        job.OPTIONS["-soft"],
        Option("-sync", _YES_NO, "wait for the job and exit with its status",
               text="With y, qsub waits until the job has ended and exits with its exit "
                    "status (1 if it was deleted or killed by a signal)."),
        job.OPTIONS["-S"],
        Option("-t", "task_id_range", "an array job with these tasks",
               text="Submit an array job: a task for each number of the range n[-m[:s]], "
                    "each with its own $SGE_TASK_ID."),
        job.OPTIONS["-tc"],
        Option("-terse", summary="print only the job id",
               text="Print only the job's id (id.range for an array job) when it is "
                    "submitted."),
        job.OPTIONS["-v"],
        Option("-verify", summary="show the job without submitting it",
               text="Print the job as qstat -j would show it, and submit nothing."),
        *job.chosen("-V", "-w", "-wd"),
        Option("-@", "file", "read more options from file",
               text="Read options from this file, in its place on the command line."),
        Operand("[script|-- [script_args]]", "what to run",
                text="The script and its arguments, or with -b y the command and its "
                     "arguments; without a script (or after --), the script is read from "
                     "standard input."),
    ),
    terms=job.TERMS,
    layout=WIDE,
    sections=(
        Section("EXIT STATUS", items=(
            ("0", "the job was submitted (with -sync y: it ended with status 0)"),
            ("1", "the master refused the job, or cannot be reached"),
            ("2", "a wrong command line"),
            ("4", "no script could be read from standard input, or an option file"),
            ("5", "an option qsub knows but does not take"),
            ("7", "a wrong option argument"),
            ("14", "the script file cannot be read"),
        )),
        Section("FILES", items=(
            ("$GRIDD_ROOT/common/sge_request", "the cell's default options"),
            ("~/.sge_request", "the caller's default options"),
            ("./.sge_request", "the directory's default options"),
        )),
        ENVIRONMENT,
    ),
    see_also=("qstat(1)", "qalter(1)", "qdel(1)", "qhold(1)", "qrsub(1)", "sge_pe(5)"),
)

"""qrsh's manual source (qlogin's takes its options from here)."""

from gridd.manual import job_options as job
from gridd.manual.common import ENVIRONMENT, HELP, WIDE
from gridd.manual.page import Command, Operand, Option, Section

_YES_NO = "y[es]|n[o]"

OWN: dict[str, Option] = {option.name: option for option in (
    Option("-b", _YES_NO, "the command is a binary (the default), not a script",
           text="With n, the first word after the options names a script file, which is "
                "copied with the job as qsub copies one."),
    Option("-h", summary="submit with a user hold",
           text="Submit the job with a user hold. With -now n qrsh then waits until "
                "qrls(1) releases the job and it starts."),
    Option("-inherit", summary="start a task of the job it runs in",
           text="qrsh -inherit [-nostdin] [-V] host command [args]: from inside a running "
                "parallel job, start command on host, one of the job's granted hosts, as "
                "a task of that job (the job's JOB_ID and SGE_TASK_ID, as its environment "
                "holds them). The job's parallel environment must have control_slaves "
                "TRUE; the task takes one of the job's slots there, gets the job's "
                "environment (plus qrsh's own with -V), runs in qrsh's working directory, "
                "is killed with the job and accounted as a task of it. MPI libraries "
                "start their remote processes this way."),
    Option("-nostdin", summary="give the command no standard input",
           text="The command's standard input is empty (/dev/null with -inherit): qrsh "
                "reads nothing from its own."),
    Option("-noshell", summary="run the command without a shell",
           text="Run the command directly, found on PATH, with its arguments exactly as "
                "given, instead of through the job's shell."),
    Option("-now", _YES_NO, "start at once (the default) or wait",
           text="With y (the default) the job must start at once: if no queue can take it "
                "now, qrsh says 'Your \"qrsh\" request could not be scheduled, try again "
                "later.' and exits 1. With n it waits in the queue like any job until it "
                "starts."),
    Option("-pty", _YES_NO, "run the command on a pseudo-terminal or not",
           text="With y the command runs on a pseudo-terminal on the execution host, this "
                "terminal raw meanwhile (so that ^C, ^Z and ^D reach it as keys), and "
                "with its window size; with n on pipes. Default: y without a command "
                "(a login shell), n with one."),
    Option("-verbose", summary="say what happens before the session",
           text="Print the submitted job's line on standard output, then on standard "
                "error when it waits, when it was scheduled and which host the session "
                "opens to."),
    Option("-verify", summary="show the job without submitting it",
           text="Print the job as qstat -j would show it, and submit nothing."),
    Option("-@", "file", "read more options from file",
           text="Read options from this file, in its place on the command line."),
)}

COMMAND = Command(
    name="qrsh",
    purpose="run a command on a cluster host, its input and output here",
    usage="[options] [command [args]]",
    description=(
        "qrsh submits command as an interactive job and, once it runs, connects this "
        "process's standard input, output and error to it as they happen: signals qrsh "
        "gets (^C, SIGTERM, SIGHUP) reach it, and qrsh exits with its exit status (128 "
        "plus the signal's number when a signal killed it). Without a command it opens "
        "the owner's login shell there, on a pseudo-terminal.\n\n"
        "The job is scheduled as any job, with qsub's options; it is named after the "
        "command's first word (QRLOGIN without a command) and accounted with the job "
        "type -I y. Its streams travel encrypted over the cell's CURVE transport, on a "
        "session that a key made for this qrsh alone opens. If the terminal or qrsh goes "
        "away the job is killed; if its host dies qrsh ends with an error."),
    entries=(
        *job.chosen("-ac", "-A", "-ar"),
        OWN["-b"],
        *job.chosen("-cwd", "-dc"),
        OWN["-h"],
        job.OPTIONS["-hard"],
        HELP,
        *job.chosen("-hold_jid", "-hold_jid_ad"),
        OWN["-inherit"],
        *job.chosen("-js", "-l", "-M", "-m", "-masterq", "-N"),
        OWN["-nostdin"], OWN["-noshell"],
        job.OPTIONS["-notify"],
        OWN["-now"],
        *job.chosen("-P", "-p", "-pe"),
        OWN["-pty"],
        *job.chosen("-q", "-R", "-sc", "-soft", "-v"),
        OWN["-verbose"], OWN["-verify"],
        *job.chosen("-V", "-wd"),
        OWN["-@"],
        Operand("[command [args]]", "what to run",
                text="The command and its arguments, run by the job's shell on the "
                     "execution host; with -inherit, preceded by the host."),
    ),
    terms=job.TERMS,
    layout=WIDE,
    sections=(
        Section("EXIT STATUS", items=(
            ("N", "the command's exit status"),
            ("1", "a wrong command line, a refused or unschedulable job (with -now y), "
                  "an unreachable master, or a session that broke"),
        )),
        Section("FILES", items=(
            ("$GRIDD_ROOT/common/sge_request", "the cell's default options"),
            ("~/.sge_request", "the caller's default options"),
            ("./.sge_request", "the directory's default options"),
        )),
        ENVIRONMENT,
    ),
    see_also=("qlogin(1)", "qsub(1)", "qstat(1)", "qdel(1)", "sge_pe(5)"),
)

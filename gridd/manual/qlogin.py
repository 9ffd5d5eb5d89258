"""qlogin's manual source."""

from gridd.manual import job_options as job
from gridd.manual.common import ENVIRONMENT, HELP, WIDE
from gridd.manual.page import Command, Section
from gridd.manual.qrsh import OWN

COMMAND = Command(
    name="qlogin",
    purpose="an interactive shell on a cluster host",
    usage="[options]",
    description=(
        "qlogin submits an interactive job that runs the owner's login shell on the "
        "execution host, on a pseudo-terminal connected to this terminal (raw meanwhile; "
        "the window size follows this one's), and ends when the shell does. It says "
        "what it does as qrsh -verbose says it. The job is named QLOGIN, scheduled as "
        "any job and accounted with the job type -I y."),
    entries=(
        *job.chosen("-ac", "-A", "-ar", "-dc", "-hard"),
        HELP,
        *job.chosen("-js", "-l", "-M", "-m", "-masterq", "-N"),
        OWN["-now"],
        *job.chosen("-P", "-p", "-pe", "-q", "-R", "-sc", "-soft"),
        OWN["-verify"], OWN["-@"],
    ),
    terms=job.TERMS,
    layout=WIDE,
    sections=(
        Section("EXIT STATUS", items=(
            ("N", "the shell's exit status"),
            ("1", "a wrong command line, a refused or unschedulable job (with -now y), "
                  "an unreachable master, or a session that broke"),
        )),
        ENVIRONMENT,
    ),
    see_also=("qrsh(1)", "qsub(1)"),
)

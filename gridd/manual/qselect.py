"""qselect's manual source."""

from gridd.manual import queue_selection as select
from gridd.manual.common import ENVIRONMENT, HELP, QSTAT
from gridd.manual.page import Command, Section

COMMAND = Command(
    name="qselect",
    purpose="name the queue instances that meet conditions",
    usage="[options]",
    description=(
        "qselect prints the names of the queue instances (queue@host) that meet every "
        "condition its options set, one a line, for use in scripts:\n\n"
        "  qmod -d $(qselect -l arch=lx-amd64 -pe mpi)\n\n"
        "Without options it names every queue instance."),
    entries=(HELP, select.RESOURCES, select.PES, select.QUEUES, select.STATE, select.USERS),
    terms=select.TERMS,
    layout=QSTAT,
    sections=(
        Section("EXIT STATUS",
                "0 when some instance was named; 1 when none meets the conditions, for a "
                "wrong command line, or when the master cannot be reached."),
        ENVIRONMENT,
    ),
    see_also=("qstat(1)", "qmod(1)", "queue_conf(5)"),
)

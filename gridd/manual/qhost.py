"""qhost's manual source."""

from gridd.manual.common import ENVIRONMENT, FORMAT, HELP
from gridd.manual.page import Command, Layout, Option, Section

COMMAND = Command(
    name="qhost",
    purpose="show the execution hosts",
    usage="[options]",
    description=(
        "qhost shows every execution host, a line each: its architecture, processors "
        "(sockets, cores, threads), load average, total and used memory and swap. The "
        "first line, global, stands for the cell as a whole. A host whose execution "
        "daemon does not report shows - for what it would report."),
    entries=(
        Option("-F", "[resource_attribute]", "show the resources of each host",
               text="Under each host, show the resources it offers (load values, "
                    "consumables with what is left of them), or only those named, one a "
                    "line with a letter for where the value comes from."),
        Option("-h", "hostlist", "show only these hosts",
               text="Show only these hosts (names separated by commas); an unknown host "
                    "is an error."),
        HELP,
        Option("-j", summary="show the jobs on each host",
               text="Under each host, show the jobs running there, with their tasks' "
                    "queues and whether they are the master or a slave task."),
        Option("-l", "attr=val,...", "show only hosts offering these resources",
               text="Show only the hosts that offer every resource asked, as a job's -l "
                    "request would be judged."),
        Option("-ncb", summary="accepted for compatibility",
               text="Taken for scripts that pass it; gridd shows no core binding "
                    "information anyway."),
        Option("-q", summary="show the queue instances on each host",
               text="Under each host, show its queue instances with their type, used and "
                    "total slots and state."),
        Option("-u", "user[,user,...]", "with -j, show only these users' jobs",
               text="With -j, show only the jobs of these users."),
        Option("-xml", summary="print the information as XML",
               text="Print the same information as XML, in Grid Engine's qhost schema."),
        FORMAT,
        Option("-json", summary="print the information as JSON",
               text="Print the hosts as one JSON document, with what -q, -F and -j add, "
                    "under Open Cluster Scheduler 9.2's keys: counts and loads as numbers, "
                    "memory in bytes, null for a value not known, times in ISO 8601 (UTC). "
                    "The schema is schemas/qhost.json in gridd's source."),
    ),
    layout=Layout(indent=2, column=29),
    sections=(
        Section("EXIT STATUS",
                "0 when the hosts are shown; 1 for a wrong command line, an unknown host "
                "(-h), or when the master cannot be reached."),
        ENVIRONMENT,
    ),
    see_also=("qstat(1)", "host_conf(5)", "gridd(1)"),
)

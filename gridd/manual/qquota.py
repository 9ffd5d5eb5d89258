"""qquota's manual source."""

from gridd.manual.common import ENVIRONMENT, FORMAT, HELP, USER_LIST
from gridd.manual.page import Command, Layout, Option, Section, Term

COMMAND = Command(
    name="qquota",
    purpose="show what resource quotas are using",
    usage="[options]",
    description=(
        "qquota shows, for each rule of the enabled resource quota sets "
        "(sge_resource_quota(5)) that running jobs come under, how much of each limited "
        "resource they use against the limit, and for whom: the users, projects, parallel "
        "environments, queues and hosts the rule's filters take in. Without -u only the "
        "caller's usage is shown.\n\n"
        "Each option filters the rules shown; a later one replaces what an earlier one of "
        "the same name selected. Options are read from $GRIDD_ROOT/common/sge_qquota, then "
        "~/.sge_qquota, then the command line."),
    entries=(
        HELP,
        Option("-h", "wc_host_list|wc_hostgroup_list", "show only limits on these hosts",
               text="Only rules whose host filter takes in one of these hosts or host "
                    "groups."),
        Option("-l", "resource_attributes", "show only limits of these resources",
               text="Only the limits of these resources (a value after = is ignored)."),
        Option("-u", "user_list", "show the usage of these users (default: you)",
               text="The usage of these users instead of the caller's; * for everybody's."),
        Option("-pe", "wc_pe_list", "show only limits of these parallel environments",
               text="Only rules whose PE filter takes in one of these parallel "
                    "environments."),
        Option("-P", "wc_project_list", "show only limits of these projects",
               text="Only rules whose project filter takes in one of these projects."),
        Option("-q", "wc_cqueue_list", "show only limits of these queues",
               text="Only rules whose queue filter takes in one of these cluster queues."),
        Option("-xml", summary="print the information as XML",
               text="Print the rules as XML, in Grid Engine's qquota schema."),
        FORMAT,
        Option("-json", summary="print the information as JSON",
               text="Print the limits in use as one JSON document: what -xml shows, under "
                    "Open Cluster Scheduler 9.2's keys, a line per rule, scope and "
                    "resource, with the amounts and numeric limits as numbers (memory in "
                    "bytes). The schema is schemas/qquota.json in gridd's source."),
    ),
    terms=(
        Term("resource_attributes", "resource_name,resource_name,..."),
        Term("wc_cqueue_list", "wc_cqueue[,wc_cqueue,...]"),
        Term("wc_host_list", "wc_host[,wc_host,...]"),
        Term("wc_hostgroup_list", "wc_hostgroup[,wc_hostgroup,...]"),
        Term("wc_pe_list", "wc_pe[,wc_pe,...]"),
        Term("wc_project_list", "wc_project[,wc_project,...]"),
        USER_LIST,
    ),
    layout=Layout(indent=2, column=39),
    sections=(
        Section("EXIT STATUS",
                "0 when the usage is shown (there may be none); 1 for a wrong command line "
                "or option file, or when the master cannot be reached."),
        Section("FILES", items=(
            ("$GRIDD_ROOT/common/sge_qquota", "the cell's default options"),
            ("~/.sge_qquota", "the caller's default options"),
        )),
        ENVIRONMENT,
    ),
    see_also=("sge_resource_quota(5)", "qconf(1)", "qstat(1)"),
)

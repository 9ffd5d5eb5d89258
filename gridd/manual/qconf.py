"""qconf's manual source."""

from gridd.manual.common import ENVIRONMENT, HELP, USER_LIST, WIDE
from gridd.manual.page import Command, Option, Section, Term

_EDIT = ("qconf opens $EDITOR (default: vi) on {what}; what the editor leaves is sent as "
         "the file of {file}.")
_FROM_FILE = "Read {what} from a file, in the format qconf shows it ({page})."
_HOST_NAMES = ("Each name must resolve where qconf runs or be an execution host's; a "
               "host is known by its name without regard to case or domain (node7 is "
               "NODE7 and node7.example.org).")
_ATTR = ("One attribute of objects of a kind (queue, exechost, hostgroup, pe or "
         "resource_quota), named by obj_id_list. A queue attribute may carry [host=value] "
         "overrides: a value written so, or the object queue@host, edits that host's "
         "override and leaves the default alone. Of a resource quota set, the object is "
         "set, set/N (its Nth rule) or set/rule_name, and the attribute a rule's name, "
         "enabled, description, limit or a filter.")
_ATTR_FILE = ("As {verb}, with each \"attribute value\" line of the file, one after the "
              "other.")
_NONE = "gridd has none: qconf says so and exits 1."
_STILL_NAMED = "One that another object still names is refused."


def _show_list(option: str, what: str) -> Option:
    return Option(option, summary=f"show {what}", text=f"Print {what}, a name a line.")


COMMAND = Command(
    name="qconf",
    purpose="show and change the cell's configuration",
    usage="[options]",
    description=(
        "qconf shows and changes the configuration of the cell: managers and operators, "
        "administrative and submit hosts, access lists, complex attributes, the "
        "scheduler's, the global and the hosts' configurations, host groups, projects, "
        "users, cluster queues, parallel environments, execution hosts and resource "
        "quota sets.\n\n"
        "The options are carried out in order, each as the master receives it, and the "
        "changes are spooled before the master answers. Confirmations go to standard "
        "error and what is shown to standard output, as Grid Engine prints them. Showing "
        "needs no privilege; changing takes a manager (access lists: an operator) on an "
        "administrative host.\n\n"
        "The -a* and -m* forms without a file are interactive: qconf fetches the object "
        "(or a template for a new one), opens $EDITOR on it and sends what the editor "
        "leaves; a file left as it was changes nothing. The -A* and -M* forms read the "
        "object from a file instead, in the format qconf shows it."),
    entries=(
        Option("-aattr", "obj_nm attr_nm val obj_id_list", "add to a list attribute",
               text="Add val to a list attribute (or set a plain one). " + _ATTR),
        Option("-Aattr", "obj_nm fname obj_id_list", "add to list attributes, from a file",
               text=_ATTR_FILE.format(verb="-aattr")),
        Option("-aconf", "host_list", "add host configurations",
               text=_EDIT.format(what="an empty configuration for each host", file="-Aconf")),
        Option("-Aconf", "file_list", "add host configurations from files",
               text="Add the configuration of each file; a file is named after its host "
                    "(/tmp/node1 holds node1's)."),
        Option("-ae", "[exec_server_template]", "add an execution host",
               text=_EDIT.format(what="an execution host's configuration (that of the host "
                                      "named, or an empty one)", file="-Ae")),
        Option("-Ae", "fname", "add an execution host from a file",
               text=_FROM_FILE.format(what="an execution host", page="host_conf(5)")),
        Option("-ah", "hostname_list", "add administrative hosts",
               text="Let these hosts change the configuration. " + _HOST_NAMES),
        Option("-ahgrp", "group", "add a host group",
               text=_EDIT.format(what="a new host group", file="-Ahgrp")),
        Option("-Ahgrp", "file", "add a host group from a file",
               text=_FROM_FILE.format(what="a host group (group_name, hostlist)",
                                      page="qconf -shgrp")),
        Option("-arqs", "[rqs_list]", "add resource quota sets",
               text=_EDIT.format(what="a template of each set named (or of one)",
                                 file="-Arqs")),
        Option("-Arqs", "fname", "add resource quota sets from a file",
               text=_FROM_FILE.format(what="resource quota sets",
                                      page="sge_resource_quota(5)")),
        Option("-am", "user_list", "add managers",
               text="Add these users to the managers, who may change everything."),
        Option("-ao", "user_list", "add operators",
               text="Add these users to the operators, who may change access lists and "
                    "handle other users' jobs."),
        Option("-ap", "pe_name", "add a parallel environment",
               text=_EDIT.format(what="a template of the parallel environment", file="-Ap")),
        Option("-Ap", "fname", "add a parallel environment from a file",
               text=_FROM_FILE.format(what="a parallel environment", page="sge_pe(5)")),
        Option("-aprj", summary="add a project",
               text=_EDIT.format(what="a template of a project", file="-Aprj")),
        Option("-Aprj", "fname", "add a project from a file",
               text=_FROM_FILE.format(what="a project (name, oticket, fshare, acl, xacl)",
                                      page="qconf -sprj")),
        Option("-aq", "[queue_name]", "add a cluster queue",
               text=_EDIT.format(what="a template of the queue", file="-Aq")),
        Option("-Aq", "fname", "add a cluster queue from a file",
               text=_FROM_FILE.format(what="a cluster queue", page="queue_conf(5)")),
        Option("-as", "hostname_list", "add submit hosts",
               text="Let these hosts submit jobs. " + _HOST_NAMES),
        Option("-au", "user_list listname_list", "add users to access lists",
               text="Add these users (or @groups) to these access lists, which are made "
                    "when they do not exist."),
        Option("-Au", "fname", "add an access list from a file",
               text=_FROM_FILE.format(what="an access list (name, type, entries)",
                                      page="qconf -su")),
        Option("-auser", summary="add a user",
               text=_EDIT.format(what="a template of a user object", file="-Auser")),
        Option("-Auser", "fname", "add a user from a file",
               text=_FROM_FILE.format(what="a user object (name, oticket, fshare, "
                                           "delete_time, default_project)",
                                      page="qconf -suser")),
        Option("-dattr", "obj_nm attr_nm val obj_id_list", "delete from a list attribute",
               text="Delete val from a list attribute. " + _ATTR),
        Option("-Dattr", "obj_nm fname obj_id_list", "delete from list attributes, from "
               "a file", text=_ATTR_FILE.format(verb="-dattr")),
        Option("-dconf", "host_list", "delete host configurations",
               text="Delete the configurations of these hosts (the global one stays)."),
        Option("-de", "host_list", "delete execution hosts",
               text="Delete these execution hosts. " + _STILL_NAMED),
        Option("-dh", "host_list", "delete administrative hosts",
               text="Take these hosts off the administrative hosts."),
        Option("-dhgrp", "group", "delete a host group",
               text="Delete this host group. " + _STILL_NAMED),
        Option("-drqs", "rqs_list", "delete resource quota sets",
               text="Delete these resource quota sets."),
        Option("-dm", "user_list", "delete managers",
               text="Take these users off the managers."),
        Option("-do", "user_list", "delete operators",
               text="Take these users off the operators."),
        Option("-dp", "pe_name", "delete a parallel environment",
               text="Delete this parallel environment. " + _STILL_NAMED),
        Option("-dprj", "project_list", "delete projects",
               text="Delete these projects. " + _STILL_NAMED),
        Option("-dq", "wc_queue_list", "delete cluster queues",
               text="Delete these cluster queues. " + _STILL_NAMED),
        Option("-ds", "host_list", "delete submit hosts",
               text="Take these hosts off the submit hosts."),
        Option("-du", "user_list listname_list", "delete users from access lists",
               text="Take these users off these access lists."),
        Option("-dul", "listname_list", "delete access lists",
               text="Delete these access lists."),
        Option("-duser", "user_list", "delete users",
               text="Delete these user objects."),
        HELP,
        Option("-ke", "host_list|all", "shut execution daemons down, jobs going on",
               text="Shut the execution daemons of these hosts (or of all) down; their "
                    "jobs go on and the next execution daemon of the host takes them "
                    "over."),
        Option("-kej", "host_list|all", "shut execution daemons down, killing jobs",
               text="Shut the execution daemons of these hosts (or of all) down and kill "
                    "their jobs, which are accounted."),
        Option("-km", summary="shut the master down",
               text="Shut the master down, and its scheduler with it."),
        Option("-Mattr", "obj_nm fname obj_id_list", "change attributes, from a file",
               text=_ATTR_FILE.format(verb="-mattr")),
        Option("-mattr", "obj_nm attr_nm val obj_id_list", "change an attribute",
               text="Change an attribute, or the elements of a list attribute named as "
                    "val's are (adding the others). " + _ATTR),
        Option("-mc", summary="change the complex attributes",
               text=_EDIT.format(what="the table of complex attributes", file="-Mc")),
        Option("-Mc", "fname", "replace the complex attributes from a file",
               text="Replace the table of complex attributes with the file's, in the "
                    "format of -sc; a table with a wrong row is refused whole, and so is "
                    "one without an attribute that something still names (a host, a queue, "
                    "a resource quota set, the scheduler configuration, a job or an AR)."),
        Option("-mconf", "[host_list|global]", "change configurations",
               text=_EDIT.format(what="the global configuration, or each host's",
                                 file="-Mconf")),
        Option("-Mconf", "file_list", "change configurations from files",
               text="Replace the configuration of each file's host (the file is named after "
                    "it; global for the global configuration)."),
        Option("-me", "server", "change an execution host",
               text=_EDIT.format(what="the execution host's configuration", file="-Me")),
        Option("-Me", "fname", "change an execution host from a file",
               text=_FROM_FILE.format(what="an execution host", page="host_conf(5)")),
        Option("-mhgrp", "group", "change a host group",
               text=_EDIT.format(what="the host group", file="-Mhgrp")),
        Option("-Mhgrp", "file", "change a host group from a file",
               text=_FROM_FILE.format(what="a host group", page="qconf -shgrp")),
        Option("-mrqs", "[rqs_list]", "change resource quota sets",
               text=_EDIT.format(what="these resource quota sets (or all of them)",
                                 file="-Mrqs")),
        Option("-Mrqs", "fname [rqs_list]", "change resource quota sets from a file",
               text="Replace the sets rqs_list names with the file's; without a list, the "
                    "file's sets replace them all (sge_resource_quota(5))."),
        Option("-mp", "pe_name", "change a parallel environment",
               text=_EDIT.format(what="the parallel environment", file="-Mp")),
        Option("-Mp", "fname", "change a parallel environment from a file",
               text=_FROM_FILE.format(what="a parallel environment", page="sge_pe(5)")),
        Option("-mprj", "project", "change a project",
               text=_EDIT.format(what="the project", file="-Mprj")),
        Option("-Mprj", "fname", "change a project from a file",
               text=_FROM_FILE.format(what="a project", page="qconf -sprj")),
        Option("-mq", "queue", "change a cluster queue",
               text=_EDIT.format(what="the cluster queue", file="-Mq")),
        Option("-Mq", "fname", "change a cluster queue from a file",
               text=_FROM_FILE.format(what="a cluster queue", page="queue_conf(5)")),
        Option("-msconf", summary="change the scheduler configuration",
               text=_EDIT.format(what="the scheduler configuration", file="-Msconf")),
        Option("-Msconf", "fname", "change the scheduler configuration from a file",
               text=_FROM_FILE.format(what="the scheduler configuration",
                                      page="qconf -ssconf")),
        Option("-mu", "listname_list", "change access lists",
               text=_EDIT.format(what="each access list, one after the other", file="-Mu")),
        Option("-Mu", "fname", "change an access list from a file",
               text=_FROM_FILE.format(what="an access list", page="qconf -su")),
        Option("-muser", "user", "change a user",
               text=_EDIT.format(what="the user object", file="-Muser")),
        Option("-Muser", "fname", "change a user from a file",
               text=_FROM_FILE.format(what="a user object", page="qconf -suser")),
        Option("-purge", "queue attr_nm queue@host", "delete a host's override",
               text="Delete the [host=value] override of a queue attribute for one host "
                    "(or @hostgroup), leaving the default."),
        Option("-rattr", "obj_nm attr_nm val obj_id_list", "replace an attribute",
               text="Replace an attribute's whole value. " + _ATTR),
        Option("-Rattr", "obj_nm fname obj_id_list", "replace attributes, from a file",
               text=_ATTR_FILE.format(verb="-rattr")),
        Option("-sc", summary="show the complex attributes",
               text="Print the table of complex attributes: name, shortcut, type, relation, "
                    "requestable, consumable, default and urgency."),
        Option("-scall", summary="show the calendars", text=_NONE),
        Option("-sckptl", summary="show the checkpointing interfaces", text=_NONE),
        Option("-sconf", "[host_list|global]", "show configurations",
               text="Print the global configuration, or these hosts' own."),
        _show_list("-sconfl", "the hosts with configurations of their own"),
        Option("-se", "server", "show an execution host",
               text="Print an execution host's configuration and what it reports "
                    "(host_conf(5))."),
        _show_list("-sel", "the execution hosts"),
        _show_list("-sh", "the administrative hosts"),
        Option("-shgrp", "group", "show a host group",
               text="Print a host group: its name and host list."),
        Option("-shgrp_tree", "group", "show a host group as a tree",
               text="Print a host group and the groups it holds, as a tree."),
        Option("-shgrp_resolved", "group", "show a host group's hosts",
               text="Print every host a host group takes in, its groups resolved."),
        _show_list("-shgrpl", "the host groups"),
        _show_list("-sm", "the managers"),
        _show_list("-so", "the operators"),
        Option("-sp", "pe_name", "show a parallel environment",
               text="Print a parallel environment (sge_pe(5))."),
        _show_list("-spl", "the parallel environments"),
        Option("-sprj", "project", "show a project",
               text="Print a project."),
        _show_list("-sprjl", "the projects"),
        Option("-sq", "[wc_queue_list]", "show cluster queues",
               text="Print these cluster queues (queue_conf(5)), or the template -aq "
                    "starts from."),
        _show_list("-sql", "the cluster queues"),
        Option("-srqs", "[rqs_list]", "show resource quota sets",
               text="Print these resource quota sets, or all of them "
                    "(sge_resource_quota(5))."),
        _show_list("-srqsl", "the resource quota sets"),
        _show_list("-ss", "the submit hosts"),
        Option("-ssconf", summary="show the scheduler configuration",
               text="Print the scheduler configuration."),
        Option("-sss", summary="show the scheduler's host",
               text="Print the host the scheduler runs on: the master's."),
        Option("-sstree", summary="show the share tree", text=_NONE),
        Option("-su", "listname_list", "show access lists",
               text="Print these access lists."),
        _show_list("-sul", "the access lists"),
        Option("-suser", "user_list", "show users",
               text="Print these user objects."),
        _show_list("-suserl", "the user objects"),
        Option("-tsm", summary="trigger scheduler monitoring",
               text="Have the scheduler write why it did what it did in its next run to "
                    "$GRIDD_ROOT/common/schedd_runlog."),
    ),
    terms=(
        Term("hostname_list", "hostname[,hostname,...]"),
        Term("host_list", "all | hostname[,hostname,...]"),
        Term("listname_list", "listname[,listname,...]"),
        Term("rqs_list", "rqs_name[,rqs_name,...]"),
        USER_LIST,
        Term("project_list", "project[,project,...]"),
        Term("file_list", "file[,file,...]"),
        Term("obj_nm", "queue|exechost|hostgroup|pe|resource_quota"),
        Term("attr_nm", "an attribute of the object (queue_conf(5), host_conf(5), ...)"),
        Term("obj_id_list", "objectname [objectname ...]"),
        Term("wc_queue_list", "wc_queue[,wc_queue,...]"),
    ),
    layout=WIDE,
    sections=(
        Section("EXIT STATUS",
                "0 when every option was carried out; 1 when one failed, or when the master "
                "cannot be reached. An unknown option, one short of arguments or one the "
                "caller may not use stops the options after it."),
        Section("ENVIRONMENT", items=(
            *ENVIRONMENT.items,
            ("EDITOR", "The editor of the interactive forms (default: vi)."),
        )),
    ),
    see_also=("queue_conf(5)", "host_conf(5)", "sge_pe(5)", "sge_resource_quota(5)",
              "qmod(1)", "gridd(1)"),
)

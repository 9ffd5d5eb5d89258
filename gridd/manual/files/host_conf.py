"""host_conf(5): an execution host's configuration as qconf shows and reads it
(gridd.model.objects.ExecHostConf)."""

from gridd.manual.page import FilePage, Section

_KEPT = "gridd keeps and shows it, and does nothing with it."

ATTRIBUTES = (
    ("hostname", "The host's name; global stands for every host."),
    ("load_scaling", _KEPT),
    ("complex_values", "name=value,...: consumables the host offers to the jobs on it "
                       "(global: to the whole cell), and values of other attributes."),
    ("load_values", "What the host's execution daemon last reported (shown, not set)."),
    ("processors", "How many processors it reported (shown, not set)."),
    ("user_lists", "Access lists whose users may run jobs on the host (NONE: anybody)."),
    ("xuser_lists", "Access lists whose users may not."),
    ("projects", "Projects whose jobs may run on it (NONE: any)."),
    ("xprojects", "Projects whose jobs may not."),
    ("usage_scaling", _KEPT),
    ("report_variables", "The load values and consumables written to the reporting file "
                         "for the host (reporting(5)); the global host's list stands for "
                         "every host without one."),
)

PAGE = FilePage(
    name="host_conf",
    purpose="the configuration of an execution host",
    description=(
        "An execution host is shown by qconf -se, added with qconf -ae or -Ae, changed "
        "with -me, -Me or the attribute options (-mattr exechost ...). The host global "
        "holds what applies to the whole cell: its consumables are shared by all jobs, "
        "its access lists and projects judged for every host.\n\n"
        "The file holds a line per attribute, its name, blanks and its value; lists are "
        "separated by commas or blanks, NONE for none."),
    sections=(Section("ATTRIBUTES", items=ATTRIBUTES),),
    see_also=("qconf(1)", "qhost(1)", "queue_conf(5)", "reporting(5)"),
)

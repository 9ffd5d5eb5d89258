"""sge_resource_quota(5): resource quota sets as qconf shows and reads them
(grammar/rqs.lark, gridd.model.rqs)."""

from gridd.manual.page import FilePage, Section

# The keywords of a set, then those of a rule's filters.
KEYWORDS = (
    ("name", "The set's name (no blanks or /@:,{}[]()|%'\"\\ characters, not NONE, ALL or "
             "TEMPLATE)."),
    ("description", "Free text (NONE)."),
    ("enabled", "TRUE or FALSE: a disabled set limits nothing."),
    ("limit", "A rule: limit [name NAME] [filters] to resource=value,... One line per rule; "
              "the first rule whose filters take a job in is the one that limits it, in "
              "each enabled set."),
)
FILTERS = (
    ("users", "Users and @access lists (or @groups)."),
    ("projects", "Projects."),
    ("pes", "Parallel environments."),
    ("queues", "Cluster queues."),
    ("hosts", "Hosts and @host groups."),
)

PAGE = FilePage(
    name="sge_resource_quota",
    purpose="resource quota sets",
    description=(
        "Resource quota sets limit what jobs may use together, above what queues and "
        "hosts offer: at most so many slots, or so much of a consumable, for the users, "
        "projects, parallel environments, queues and hosts a rule's filters take in. "
        "They are shown by qconf -srqs, added with -arqs or -Arqs, changed with -mrqs, "
        "-Mrqs or the attribute options (qconf -mattr resource_quota enabled FALSE set); "
        "qquota(1) shows what they use. Every enabled set applies: a job starts only where "
        "the first matching rule of each set leaves room for it.\n\n"
        "A file holds any number of sets, each between a { line and a } line:\n\n"
        "  {\n"
        "     name         max_per_host\n"
        "     description  \"per host limits\"\n"
        "     enabled      TRUE\n"
        "     limit        name one users {alice,bob} hosts {@linux,!vm} to slots=2\n"
        "     limit        users * to slots=10,h_vmem=40G\n"
        "  }\n\n"
        "A filter is a list of names separated by commas; * takes in everything and a "
        "leading ! leaves a name out. Without braces the members share one limit; in "
        "braces each member has a limit of its own. A filter left out takes in "
        "everything.\n\n"
        "A limit is resource=value: a number for slots and consumables, or for a rule "
        "whose hosts are in braces a formula of the host's values such as $num_proc*2; "
        "for another attribute, a value the job must match. A rule is named set/N (its "
        "position from 1) or set/NAME in qquota and in the scheduler's reasons."),
    sections=(Section("KEYWORDS", items=KEYWORDS), Section("FILTERS", items=FILTERS)),
    see_also=("qquota(1)", "qconf(1)", "queue_conf(5)"),
)

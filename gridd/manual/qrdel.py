"""qrdel's manual source."""

from gridd.manual.common import ENVIRONMENT, HELP, USER_LIST, WIDE
from gridd.manual.page import Command, Operand, Option, Section, Term

COMMAND = Command(
    name="qrdel",
    purpose="delete advance reservations",
    usage="[options] ar_list",
    description=(
        "qrdel deletes the advance reservations ar_list names, or every one of the users "
        "-u names. An AR without jobs goes at once; the jobs running in one are deleted "
        "with it (qdel(1)), and it goes when they have. Its owner, operators and managers "
        "may delete an AR, if they are managers or in the arusers access list, from a "
        "submit host.\n\n"
        "The master's answers, refusals included, are printed on standard output."),
    entries=(
        Option("-f", summary="delete the ARs' running jobs forcibly",
               text="Delete the jobs of the ARs as qdel -f does: without waiting for their "
                    "execution daemons."),
        HELP,
        Option("-u", "user_list", "delete the ARs of these users",
               text="Delete every AR of these users (* for everybody's), beside those "
                    "ar_list names."),
        Operand("ar_list", "the ARs to delete",
                text="AR ids or names (names may be patterns), separated by commas or given "
                     "as separate words."),
    ),
    terms=(Term("ar_list", "ar_id|ar_name[,ar_id|ar_name,...]"), USER_LIST),
    layout=WIDE,
    sections=(
        Section("EXIT STATUS",
                "0 when every AR was deleted or registered for deletion; 1 when one does "
                "not exist or may not be deleted, for a wrong command line, or when the "
                "master cannot be reached."),
        ENVIRONMENT,
    ),
    see_also=("qrsub(1)", "qrstat(1)", "qdel(1)"),
)

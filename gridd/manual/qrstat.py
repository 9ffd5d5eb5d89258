"""qrstat's manual source."""

from gridd.manual.common import ENVIRONMENT, FORMAT, HELP, WIDE
from gridd.manual.page import Command, Option, Section, Term

COMMAND = Command(
    name="qrstat",
    purpose="show advance reservations",
    usage="[options]",
    description=(
        "qrstat shows advance reservations: without options the caller's, a line each "
        "with its id, name, owner, state, start, end and duration. The states are w "
        "(waiting for its start), r (running), d (deleted), W (warning: a host it holds "
        "is lost, or a queue disabled) and E (error: as W, with hard error handling, -he y "
        "of qrsub(1), so that no job of it starts).\n\n"
        "ARs named with -ar are shown in full, a block of name and value lines each, "
        "whoever owns them unless -u is given too."),
    entries=(
        Option("-ar", "ar_list", "show these ARs in full",
               text="Show every detail of these ARs (ids, names or patterns of names): "
                    "their windows, requests, queues, users and state."),
        Option("-explain", summary="say why ARs are in an error state",
               text="Add each AR's reason for its W or E state to the overview (the -ar "
                    "blocks show it anyway)."),
        HELP,
        Option("-u", "user_list", "show the ARs of these users",
               text="Show the ARs of these users instead of the caller's; * for "
                    "everybody's, $user for the caller."),
        Option("-xml", summary="print the information as XML",
               text="Print the overview, or the -ar blocks, as XML, in Grid Engine's "
                    "qrstat schema."),
        FORMAT,
        Option("-json", summary="print the information as JSON",
               text="Print the ARs as one JSON document: what -xml shows (with -ar, the "
                    "details too), under Open Cluster Scheduler 9.2's keys, with times in "
                    "ISO 8601 (UTC), the duration in seconds and slot counts as numbers. "
                    "The schema is schemas/qrstat.json in gridd's source."),
    ),
    terms=(Term("ar_list", "ar_id|ar_name[,ar_id|ar_name,...]"),
           Term("user_list", "user|*|$user[,user|*|$user,...]")),
    layout=WIDE,
    sections=(
        Section("EXIT STATUS",
                "0 when the ARs are shown (none may be); 1 when none of the ARs -ar names "
                "exists (they are then listed), for a wrong command line, or when the "
                "master cannot be reached."),
        ENVIRONMENT,
    ),
    see_also=("qrsub(1)", "qrdel(1)", "qstat(1)"),
)

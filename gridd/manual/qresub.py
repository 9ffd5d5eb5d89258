"""qresub's manual source."""

from gridd.manual.common import ENVIRONMENT, HELP, WIDE
from gridd.manual.page import Command, Operand, Option, Section, Term

COMMAND = Command(
    name="qresub",
    purpose="submit copies of jobs",
    usage="[options] job_id_list",
    description=(
        "qresub submits each job named again, as a new job with the same script or "
        "command and the same requests; the new job waits without holds unless -h names "
        "some. Only a job's owner and managers may copy it."),
    entries=(
        Option("-h", "hold_list", "the holds of the new jobs",
               text="Submit the copies with these holds: any of u (user), o (operator) "
                    "and s (system), or n for none."),
        HELP,
        Operand("job_id_list", "the jobs to copy",
                text="Job ids, separated by commas or given as separate words."),
    ),
    terms=(Term("hold_list", "n|u|o|s[...]"), Term("job_id_list", "job_id[,job_id,...]")),
    layout=WIDE,
    sections=(
        Section("EXIT STATUS",
                "0 when every job was copied; 4 when a job does not exist or the caller may "
                "not copy it; 1 when the master refuses a copy, when no job is named or the "
                "master cannot be reached; 7 for a wrong hold_list."),
        ENVIRONMENT,
    ),
    see_also=("qsub(1)", "qhold(1)", "qstat(1)"),
)

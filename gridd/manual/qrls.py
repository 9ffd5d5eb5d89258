"""qrls's manual source: qhold's options, releasing the holds they name."""

from gridd.manual.common import PATTERNS
from gridd.manual.qhold import COMMAND as QHOLD

COMMAND = QHOLD.renamed(
    "qrls", "release held jobs",
    "qrls releases holds of jobs, or of tasks of array jobs, that qhold(1), qsub -h or "
    "qalter -h set. A job whose holds are all released waits to be started again (qw "
    "in qstat(1)).\n\n"
    "The master answers with a line per task whose holds changed.\n\n" + PATTERNS,
    ("qhold(1)", "qalter(1)", "qsub(1)", "qstat(1)"))

"""What qsub says about a submission, taken or refused: its own module, imported by the
quick form of qsub (gridd.cli.quick) as by the whole command, the web and DRMAA."""

from __future__ import annotations


def format_task_range(task_range: tuple[int, int, int]) -> str:
    """`first-last:step`, the form of `Your job-array N.1-6:2` and `qstat -j`."""
    first, last, step = task_range
    return f"{first}-{last}:{step}"


def submitted_line(job_id: int, name: str, task_range: tuple[int, int, int] | None) -> str:
    """qsub's confirmation of a job (or job array) taken."""
    if task_range:
        return (f'Your job-array {job_id}.{format_task_range(task_range)} ("{name}") has '
                "been submitted")
    return f'Your job {job_id} ("{name}") has been submitted'


def unable_to_run(text: str) -> str:
    """A submission refused, as qsub (and the web's submit page) say it: the master's
    refusals start so already, the others get the words put before them."""
    return text if text.startswith("Unable to run job") else f"Unable to run job: {text}"

"""The small list syntaxes of job submission: `-l`, `-t`, `-pe`, `-hold_jid`, `-v`, `-m`.

They are parsed on the client so that a typo is reported before anything reaches the
master. Error texts are what follows `qsub: ` in Grid Engine's own messages, so callers
can prefix them according to where the option came from (command line, script, file).
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from gridd.model.objects import list_items

# What an open-ended PE range (`-pe mpi 4-`) means as an upper bound, as Grid Engine shows it.
PE_SLOTS_UNBOUNDED = 9999999

_LEADING_DIGITS = re.compile(r"[0-9]+")
_MAIL_LETTERS = "abes"


class MissingValueError(ValueError):
    """`-l name=` : the master, not the client syntax, refuses this in Grid Engine."""

    def __init__(self, name: str) -> None:
        super().__init__(f'missing value for resource "{name}"')
        self.name = name


class TaskIdError(ValueError):
    """A task id below 1: reported as a job rejection rather than a syntax error."""

    def __init__(self, task_id: int) -> None:
        super().__init__(f"{task_id} is an invalid task id")
        self.task_id = task_id


def parse_resource_list(text: str) -> dict[str, str]:
    """`h_rt=0:1:0,license=2` → {"h_rt": "0:1:0", "license": "2"}; a bare name means TRUE."""
    resources: dict[str, str] = {}
    for item in list_items(text):
        name, has_value, value = item.partition("=")
        if not name:
            raise ValueError(f'Wrong resource list format "{text}" specified to -l option')
        if has_value and not value:
            raise MissingValueError(name)
        resources.pop(name, None)
        resources[name] = value if has_value else "TRUE"
    return resources


def merge_resources(base: dict[str, str], extra: Mapping[str, str]) -> None:
    """Add later `-l` requests to `base`, in place: a name given again takes the new value
    and moves to the end, as `qstat -j` shows it."""
    for name, value in extra.items():
        base.pop(name, None)
        base[name] = value


def _leading_int(text: str) -> tuple[int, str]:
    """The number at the start of `text` and what follows it."""
    match = _LEADING_DIGITS.match(text)
    if match is None:
        raise ValueError(
            f'Numerical value invalid!\nThe initial portion of string "{text}" '
            "contains no decimal number"
        )
    return int(match.group()), text[match.end() :]


def _whole_int(text: str) -> int:
    value, trailer = _leading_int(text)
    if trailer:
        raise ValueError(f'Range specifier "{text}" has unknown trailer "{trailer}"')
    return value


def parse_task_range(text: str) -> tuple[int, int, int]:
    """`n`, `n-m` or `n-m:s` → (first, last, step).

    Grid Engine swaps a reversed range (`5-2` is `2-5`) instead of refusing it, so we do.
    """
    span, has_step, step_text = text.partition(":")
    step = _whole_int(step_text) if has_step else 1
    first_text, has_last, last_text = span.partition("-")
    first = _whole_int(first_text)
    last = _whole_int(last_text) if has_last else first
    if step < 1:
        raise ValueError("Negative or zero step in range is not allowed")
    first, last = min(first, last), max(first, last)
    if first < 1:
        raise TaskIdError(first)
    return first, last, step


def task_selection(task_part: str) -> range | None:
    """The task ids the part of a job-task identifier after its dot names ("" for all of
    them: None); a range, not a set, since a client may name billions."""
    if not task_part:
        return None
    first, last, step = parse_task_range(task_part)
    return range(first, last + 1, step)


def split_job_task(target: str) -> tuple[str, str]:
    """A job-task identifier as (job, tasks): "7.1-3" is job 7's tasks 1 to 3; a target
    that does not begin with a job number is a job name, dots and all ("my.job")."""
    ref, dot, tasks = target.partition(".")
    return (ref, tasks) if dot and ref.isdigit() else (target, "")


# qalter's refusal of a job-task identifier for anything but the hold (8.1.9's words).
ONLY_JOBS = "denied: the selected option works only on jobs and not on tasks"


def invalid_job_task(target: str) -> str | None:
    """8.1.9's words for a job-task identifier whose tasks are no task range ("7.x"),
    or None."""
    try:
        task_selection(split_job_task(target)[1])
    except ValueError:
        return f'ERROR! "{target}" is an invalid job-task identifier'
    return None


def first_invalid_job_task(targets: list[str]) -> str | None:
    """`invalid_job_task` of the first target that is invalid: the commands refuse a
    command line with one before asking the master anything."""
    return next((why for why in map(invalid_job_task, targets) if why), None)


def parse_pe_range(text: str) -> tuple[int, int]:
    """`n`, `n-m`, `-m` or `n-` → (min, max); open ends become 1 and PE_SLOTS_UNBOUNDED."""
    low_text, has_dash, high_text = text.partition("-")
    if not has_dash:
        low = _whole_int(low_text)
        return low, low
    low = _whole_int(low_text) if low_text else 1
    high = _whole_int(high_text) if high_text else PE_SLOTS_UNBOUNDED
    return min(low, high), max(low, high)


def parse_hold_list(text: str) -> list[str]:
    """Job ids or names to wait for; they are resolved by the master at submission."""
    return [item.strip() for item in text.split(",") if item.strip()]


def parse_variable_list(text: str, environ: Mapping[str, str]) -> dict[str, str]:
    """`A=1,B` → {"A": "1", "B": environ["B"]}; an unset B is exported empty."""
    variables: dict[str, str] = {}
    for item in text.split(","):
        name, has_value, value = item.partition("=")
        if not name:
            raise ValueError(
                f'Wrong variable list format -v "{text}" or environment variable not set'
            )
        variables[name] = value if has_value else environ.get(name, "")
    return variables


def parse_mail_options(text: str) -> str:
    """`-m` letters in canonical order (`bea` → `abe`); `n` alone means no mail."""
    if text == "n":
        return ""
    if not text or any(letter not in _MAIL_LETTERS for letter in text):
        raise ValueError(f'Wrong mail options list format "{text}" specified to -m option')
    return "".join(letter for letter in _MAIL_LETTERS if letter in text)


def parse_name_list(text: str) -> list[str]:
    """Comma-separated names such as `-q` queues or `-M` addresses."""
    return [item for item in text.split(",") if item]

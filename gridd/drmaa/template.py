"""Job templates: DRMAA's attributes, checked as they are set, and the job they make.

A template becomes qsub's options and goes through qsub's own parser (gridd.cli.qsub_args),
so that drmaa_native_specification takes every qsub option and sge_request files apply as
they do to qsub: binary job first (the native specification may say -b n), then the
native specification, then what the attributes say, then the command and its arguments.
"""

from __future__ import annotations

import calendar
import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TypeVar

import msgspec

from gridd.drmaa import codes as c
from gridd.drmaa.codes import (
    ACTIVE,
    BLOCK_EMAIL,
    DEADLINE_TIME,
    DURATION_HLIMIT,
    DURATION_SLIMIT,
    ERROR_PATH,
    HOLD,
    INPUT_PATH,
    JOB_CATEGORY,
    JOB_NAME,
    JOIN_FILES,
    JS_STATE,
    NATIVE_SPECIFICATION,
    OUTPUT_PATH,
    PLACEHOLDER_HD,
    PLACEHOLDER_INCR,
    PLACEHOLDER_WD,
    REMOTE_COMMAND,
    SCALAR,
    START_TIME,
    TRANSFER_FILES,
    V_ARGV,
    V_EMAIL,
    V_ENV,
    VECTOR,
    WCT_HLIMIT,
    WCT_SLIMIT,
    WD,
    DrmaaError,
)
from gridd.model.job import JobSpec

# [[[[CC]YY/]MM/]DD] hh:mm[:ss] [{-|+}UU:uu]
_DATE_TIME = re.compile(r"\s*(?:(?:(?:(\d{2})?(\d{2})/)?(\d{1,2})/)?(\d{1,2})\s+)?"
                        r"(\d{1,2}):(\d{2})(?::(\d{2}))?\s*(?:([-+])(\d{2}):(\d{2}))?\s*")
# [[h:]m:]s
_DURATION = re.compile(r"\s*(?:(?:(\d+):)?(\d+):)?(\d+)\s*")


def parse_time(text: str, now: float) -> float:
    """A DRMAA absolute time as epoch seconds; the date parts left out are today's."""
    match = _DATE_TIME.fullmatch(text)
    if match is None:
        raise DrmaaError(c.INVALID_ATTRIBUTE_FORMAT,
                         f'"{text}" is not a time of the form [[[[CC]YY/]MM/]DD] hh:mm[:ss] '
                         "[{-|+}UU:uu]")
    cc, yy, month, day, hour, minute, second, sign, off_h, off_m = match.groups()
    today = time.localtime(now)
    year = today.tm_year if yy is None else int(cc or str(today.tm_year)[:2]) * 100 + int(yy)
    parts = (year, int(month or today.tm_mon), int(day or today.tm_mday), int(hour),
             int(minute), int(second or 0))
    if not (1 <= parts[1] <= 12 and 1 <= parts[2] <= 31 and parts[3] < 24 and parts[4] < 60
            and parts[5] < 60):
        raise DrmaaError(c.INVALID_ATTRIBUTE_VALUE, f'"{text}" is not a valid time')
    if sign is None:
        return time.mktime((*parts, 0, 0, -1))
    offset = (int(off_h) * 3600 + int(off_m) * 60) * (1 if sign == "+" else -1)
    return calendar.timegm((*parts, 0, 0, 0)) - offset


def parse_duration(text: str) -> int:
    """A DRMAA time amount, [[h:]m:]s, in seconds."""
    match = _DURATION.fullmatch(text)
    if match is None:
        raise DrmaaError(c.INVALID_ATTRIBUTE_FORMAT,
                         f'"{text}" is not a time amount of the form [[h:]m:]s')
    hours, minutes, seconds = (int(g or 0) for g in match.groups())
    return hours * 3600 + minutes * 60 + seconds


def _either(name: str, first: str, second: str) -> Callable[[str], None]:
    def check(value: str) -> None:
        if value not in (first, second):
            raise DrmaaError(c.INVALID_ATTRIBUTE_VALUE,
                             f'attribute "{name}" must be either "{first}" or "{second}"')
    return check


def _letters(value: str) -> None:
    if value.strip("eio"):
        raise DrmaaError(c.INVALID_ATTRIBUTE_VALUE,
                         f'"{value}" is not a combination of the letters i, o and e')


_CHECKS: dict[str, Callable[[str], object]] = {
    JS_STATE: _either(JS_STATE, ACTIVE, HOLD),
    JOIN_FILES: _either(JOIN_FILES, "y", "n"),
    BLOCK_EMAIL: _either(BLOCK_EMAIL, "0", "1"),
    TRANSFER_FILES: _letters,
    START_TIME: lambda value: parse_time(value, time.time()),
    DEADLINE_TIME: lambda value: parse_time(value, time.time()),
    WCT_HLIMIT: parse_duration, WCT_SLIMIT: parse_duration,
    DURATION_HLIMIT: parse_duration, DURATION_SLIMIT: parse_duration,
}

V = TypeVar("V")


def _check_name(name: str, vector: bool) -> None:
    """A scalar attribute's name (a vector's with `vector`), else INVALID_ARGUMENT."""
    if name in (VECTOR if vector else SCALAR):
        return
    kind = "vector" if vector else "scalar"
    raise DrmaaError(c.INVALID_ARGUMENT, f'"{name}" is not a {kind} job template attribute'
                     if name in SCALAR + VECTOR else f'"{name}" is not a job template attribute')


@dataclass
class Template:
    """A job template's attributes as they were set."""

    scalars: dict[str, str] = field(default_factory=dict)
    vectors: dict[str, list[str]] = field(default_factory=dict)

    def set(self, name: str, value: str | None) -> None:
        _check_name(name, vector=False)
        if value is None:
            raise DrmaaError(c.INVALID_ARGUMENT, f'no value for "{name}"')
        check = _CHECKS.get(name)
        if check is not None:
            check(value)
        self.scalars[name] = value

    def get(self, name: str) -> str:
        _check_name(name, vector=False)
        return _value(self.scalars, name)

    def set_vector(self, name: str, values: list[str]) -> None:
        _check_name(name, vector=True)
        if name == V_ENV and any("=" not in v for v in values):
            raise DrmaaError(c.INVALID_ATTRIBUTE_FORMAT,
                             f'the entries of "{V_ENV}" are of the form NAME=value')
        self.vectors[name] = list(values)

    def get_vector(self, name: str) -> list[str]:
        _check_name(name, vector=True)
        return list(_value(self.vectors, name))


def _value(values: dict[str, V], name: str) -> V:
    if name not in values:
        raise DrmaaError(c.INVALID_ATTRIBUTE_VALUE, f'the attribute "{name}" is not set')
    return values[name]


def _path(name: str, value: str, wd: str) -> str:
    """An [host]:path attribute as qsub's -o takes it, its placeholders as execd's pseudo
    variables (the working directory's spelled out)."""
    if ":" not in value:
        raise DrmaaError(c.INVALID_ARGUMENT,
                         f'The "{name}" attribute must begin with a colon, \':\'')
    value = value[1:] if value.startswith(":") else value
    return (value.replace(PLACEHOLDER_INCR, "$TASK_ID").replace(PLACEHOLDER_HD, "$HOME")
            .replace(PLACEHOLDER_WD, wd))


def _limit(seconds: int) -> str:
    return f"{seconds // 3600}:{seconds % 3600 // 60:02d}:{seconds % 60:02d}"


def qsub_words(template: Template, home: str, now: float, bulk: tuple[int, int, int] | None,
               categories: dict[str, str]) -> list[str]:
    """qsub's command line for the template (`bulk`: -t first-last:step): a binary job
    verified as qsub -w e verifies, then the job category's options (`categories`, from
    the qtask files), the native specification, the attributes, the command."""
    from gridd.cli.qsub_args import QsubError, option_words

    a = template.scalars
    if not a.get(REMOTE_COMMAND):
        raise DrmaaError(c.DENIED_BY_DRM,
                         f'job template must have "{REMOTE_COMMAND}" attribute set')
    if a[REMOTE_COMMAND].startswith("-"):
        raise DrmaaError(c.INVALID_ATTRIBUTE_VALUE,
                         f'"{a[REMOTE_COMMAND]}" is not a command: it starts with "-"')
    try:
        words = ["-b", "y", "-shell", "n", "-w", "e",
                 *option_words(categories.get(a.get(JOB_CATEGORY, ""), "")),
                 *option_words(a.get(NATIVE_SPECIFICATION, ""))]
    except QsubError as exc:
        raise DrmaaError(c.DENIED_BY_DRM, exc.message) from None
    wd = a[WD].replace(PLACEHOLDER_HD, home) if WD in a else home
    if WD in a:
        words += ["-wd", wd]
    if a.get(JOB_NAME):
        words += ["-N", a[JOB_NAME]]
    if a.get(JS_STATE) == HOLD:
        words += ["-h"]
    for name, option in ((INPUT_PATH, "-i"), (OUTPUT_PATH, "-o"), (ERROR_PATH, "-e")):
        if a.get(name):
            words += [option, _path(name, a[name], wd)]
    if JOIN_FILES in a:
        words += ["-j", a[JOIN_FILES]]
    if a.get(BLOCK_EMAIL) == "1":
        words += ["-m", "n"]
    if template.vectors.get(V_EMAIL):
        words += ["-M", ",".join(template.vectors[V_EMAIL])]
    for name, option in ((START_TIME, "-a"), (DEADLINE_TIME, "-dl")):
        if name in a:
            words += [option, time.strftime("%Y%m%d%H%M.%S",
                                            time.localtime(parse_time(a[name], now)))]
    for name, resource in ((WCT_HLIMIT, "h_rt"), (WCT_SLIMIT, "s_rt"),
                           (DURATION_HLIMIT, "h_cpu"), (DURATION_SLIMIT, "s_cpu")):
        if name in a:
            words += ["-l", f"{resource}={_limit(parse_duration(a[name]))}"]
    if bulk is not None:
        words += ["-t", f"{bulk[0]}-{bulk[1]}:{bulk[2]}"]
    return [*words, a[REMOTE_COMMAND], *template.vectors.get(V_ARGV, [])]


def with_environment(spec: JobSpec, template: Template) -> JobSpec:
    """The job as DRMAA submits it: drmaa_v_env's variables on top of those qsub's -v/-V
    set (values may hold commas, which -v would split), and no error state."""
    env = dict(e.split("=", 1) for e in template.vectors.get(V_ENV, []))
    return msgspec.structs.replace(spec, env={**spec.env, **env}, no_error_state=True)

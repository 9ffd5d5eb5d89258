"""What `qrsub` asks for, worked out before talking to the master.

Options come from the cluster's `sge_ar_request` file, then the user's `~/.sge_ar_request`,
then the command line; a later source wins, except that `-l` requests merge and `-M`
addresses add up. Only the times that were given travel: the master checks that start,
end and duration fit together and works out the one left out. All I/O is passed in, so
this module is testable without files or environment and stays cheap to import.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import msgspec

from gridd.cli.qsub_args import (
    QsubError,
    add_setting,
    combine,
    missing_argument,
    option_words,
    yes_no,
)
from gridd.formats import requests
from gridd.formats.names import date_time_complaint, parse_date_time
from gridd.model.ar import ArSpec
from gridd.model.values import parse_time

EXIT_ERROR = 1

_ARITY = {
    "-a": 1, "-A": 1, "-ckpt": 1, "-d": 1, "-e": 1, "-he": 1, "-help": 0, "-l": 1,
    "-M": 1, "-m": 1, "-masterq": 1, "-N": 1, "-now": 1, "-pe": 2, "-q": 1, "-u": 1,
    "-w": 1,
}
# The options qrsub takes (gridd.manual.qrsub describes them).
OPTIONS = frozenset(_ARITY)
_AR_MAIL_LETTERS = frozenset("bean")

# Added up over every source instead of being replaced by a later one; added up within
# one source, but a later source's list replaces an earlier one's.
_MERGING = (frozenset({"resources", "mail_list"}),
            frozenset({"queues", "master_queues", "users"}))


class QrsubError(Exception):
    """A reservation refused before reaching the master. With `usage`, the usage text is
    printed before the message (as `ERROR! message`)."""

    def __init__(self, message: str, *, usage: bool = False, preamble: str = "") -> None:
        super().__init__(message)
        self.message = message
        self.usage = usage
        self.preamble = preamble  # said before the command's name (8.1.9's date complaints)
        self.exit_code = EXIT_ERROR


class QrsubRequest(msgspec.Struct, kw_only=True):
    spec: ArSpec
    help: bool = False


def _yes_no(option: str, value: str) -> bool:
    answer = yes_no(value)
    if answer is None:
        raise QrsubError(f'invalid option argument "{option} {value}"')
    return answer


def _date(option: str, value: str, now: float) -> float:
    try:
        return float(parse_date_time(value, now=now))
    except ValueError:  # (8.1.9 names -a for -e too: gridd names the option given)
        raise QrsubError(f'Wrong date/time format "{value}" specified to {option} option',
                         preamble=f"\n{date_time_complaint(value)}\n") from None


def _duration(value: str) -> float:
    try:
        seconds = parse_time(value)
    except ValueError:
        seconds = math.inf
    if math.isinf(seconds):
        raise QrsubError(f'Wrong time format "{value}" specified to -d option')
    return seconds


def _mail_options(value: str) -> str:
    if not value or set(value) - _AR_MAIL_LETTERS or ("n" in value and len(value) > 1):
        raise QrsubError(f'Wrong mail options list format "{value}" specified to -m option')
    return requests.parse_mail_options(value)


def _verify(value: str) -> str:
    if value not in ("e", "v"):
        raise QrsubError(f'invalid option argument "-w {value}"')
    return value


def _name(value: str) -> str:
    if "/" in value:
        raise QrsubError("argument to -N option must not contain / ")
    return value


def _pe(name: str, slots: str) -> dict[str, Any]:
    try:
        low, high = requests.parse_pe_range(slots)
    except ValueError as error:  # in qsub's words, as 8.1.9's qrsub says them
        raise QrsubError(str(error)) from None
    return {"pe_name": name, "pe_min": low, "pe_max": high}


def _resources(value: str) -> dict[str, str]:
    try:
        return requests.parse_resource_list(value)
    except ValueError as error:
        raise QrsubError(str(error)) from None


def _settings(option: str, args: list[str], now: float) -> dict[str, Any]:
    """The ArSpec fields one option sets."""
    value = args[0] if args else ""
    handlers: dict[str, Callable[[], dict[str, Any]]] = {
        "-a": lambda: {"start": _date("-a", value, now)},
        "-e": lambda: {"end": _date("-e", value, now)},
        "-d": lambda: {"duration": _duration(value)},
        "-A": lambda: {"account": value},
        "-ckpt": lambda: {"checkpoint": value},
        "-he": lambda: {"hard_error": _yes_no("-he", value)},
        "-l": lambda: {"resources": _resources(value)},
        "-m": lambda: {"mail_options": _mail_options(value)},
        "-M": lambda: {"mail_list": requests.parse_name_list(value)},
        "-masterq": lambda: {"master_queues": requests.parse_name_list(value)},
        "-N": lambda: {"name": _name(value)},
        "-now": lambda: {"immediate": _yes_no("-now", value)},
        "-pe": lambda: _pe(args[0], args[1]),
        "-q": lambda: {"queues": requests.parse_name_list(value)},
        "-u": lambda: {"users": requests.parse_name_list(value)},
        "-w": lambda: {"verify": _verify(value)},
        "-help": lambda: {"help": True},
    }
    return handlers[option]()


def _source(tokens: list[str], now: float) -> dict[str, Any]:
    """Settings of one source."""
    settings: dict[str, Any] = {}
    index = 0
    while index < len(tokens):
        option = tokens[index]
        count = _ARITY.get(option)
        if count is None:
            raise QrsubError(f'invalid option argument "{option}"')
        args = tokens[index + 1 : index + 1 + count]
        if len(args) < count:
            raise QrsubError(missing_argument(option, len(args)))
        for key, value in _settings(option, args, now).items():
            add_setting(settings, key, value, same_source=True, merging=_MERGING)
        index += 1 + count
    return settings


def _file_settings(path: str, text: str, now: float) -> dict[str, Any]:
    try:
        return _source(option_words(text), now)
    except (QsubError, QrsubError) as error:
        raise QrsubError(f"{path}: {error.message}", preamble=error.preamble) from None


def request_files(root: str, home: str) -> list[str]:
    """The default request files, in reading order (later ones win)."""
    return [f"{root}/common/sge_ar_request", f"{home}/.sge_ar_request"]


def parse_qrsub(
    argv: list[str],
    *,
    now: float,
    root: str,
    home: str,
    read_file: Callable[[str], str | None],
    owner: str = "",
    group: str = "",
) -> QrsubRequest:
    """Turn qrsub's arguments and default request files into one request.

    `argv` excludes the program name. Raises QrsubError for anything refused before the
    master is asked; its message is prefixed with the file it came from, if any.
    """
    if not argv:
        raise QrsubError("no option argument", usage=True)
    command_line = _source(list(argv), now)
    if command_line.get("help"):
        return QrsubRequest(spec=ArSpec(), help=True)
    sources = []
    for path in request_files(root, home):
        text = read_file(path)
        if text is not None:
            sources.append(_file_settings(path, text, now))
    sources.append(command_line)
    combined = combine(sources, _MERGING)
    combined.pop("help", None)
    return QrsubRequest(spec=ArSpec(owner=owner, group=group, **combined))

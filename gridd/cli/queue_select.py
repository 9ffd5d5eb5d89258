"""The queue selection options qselect and qstat share: -q, -l, -pe, -qs and -U, read into
what the master chooses by (gridd.sched.select)."""

from __future__ import annotations

from gridd import protocol as p
from gridd.formats import requests

OPTIONS = frozenset({"-q", "-l", "-pe", "-qs", "-U"})
STATES = "acdosuACDES"  # the letters -qs may name


class BadSelection(Exception):
    """An option's value refused; the text is what to print."""


def state_letters(value: str, allowed: str = STATES) -> str:
    """Queue state letters (-qs, qstat -explain), refused as 8.1.9 refuses a wrong one."""
    wrong = next((c for c in value if c not in allowed), None)
    if wrong is not None:
        line = f"unknown queue state: {wrong} found in string: {value}"
        raise BadSelection(f"error: {line}\n{line}")
    return value


class Selection:
    """What the options asked, gathered one option at a time."""

    def __init__(self) -> None:
        self.select = p.QueueSelect()
        self.given = False  # an option was

    def take(self, option: str, value: str) -> None:
        self.given = True
        if option == "-qs":
            self.select.states = state_letters(value)
        elif option == "-q":
            self.select.queues = requests.parse_name_list(value)
        elif option == "-pe":
            self.select.pes = requests.parse_name_list(value)
        elif option == "-U":
            self.select.users = requests.parse_name_list(value)
        else:
            try:
                self.select.resources = requests.parse_resource_list(value)
            except ValueError as exc:
                raise BadSelection(f"error: {exc}") from None

"""What every qconf verb shares: its answer, who called, and how option arguments split.

Pure: a verb takes the configuration, its arguments and the caller, changes the
configuration in place only after it has validated the change, and returns what qconf
prints. Grid Engine prints most confirmations on stderr and some refusals with exit
code 0; an Answer keeps both streams and the code apart so the command can do the same.
"""

from __future__ import annotations

import posixpath
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from gridd.formats.objects import parse_object
from gridd.formats.qconf_objects import from_pairs
from gridd.model.config import Configuration


@dataclass
class Answer:
    out: list[str] = field(default_factory=list)
    err: list[str] = field(default_factory=list)
    code: int = 0
    changed: bool = False

    def fail(self, text: str, code: int = 1) -> None:
        """A refusal; `code` is Grid Engine's, which is 0 for a few of them."""
        self.err.append(text)
        self.code = max(self.code, code)


@dataclass(frozen=True)
class Caller:
    """Who runs qconf, and the files its -A*/-M* options named (path -> text)."""

    user: str
    host: str
    files: dict[str, str] = field(default_factory=dict)

    def __str__(self) -> str:
        return f"{self.user}@{self.host}"

    def pairs(self, path: str) -> list[tuple[str, str]]:
        """The `attribute value` lines of a file the command named (FormatError if bad)."""
        return parse_object(self.files.get(path, ""), source=path)


def load_object(kind: str, who: Caller, path: str) -> Any:
    """The object a -A*/-M* file describes; FormatError with Grid Engine's words if bad."""
    return from_pairs(kind, who.pairs(path), source=path)


Verb = Callable[[Configuration, list[str], Caller], Answer]


def names(arg: str) -> list[str]:
    """The items of a comma (or blank) separated option argument such as `a,b`."""
    return [n for n in arg.replace(" ", ",").split(",") if n]


def basename(path: str) -> str:
    """The last part of a path: -Aconf and -Mconf name a host by their file's name."""
    return posixpath.basename(path.rstrip("/"))

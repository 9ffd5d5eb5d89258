"""What every qconf verb shares: its answer, who called, and how option arguments split.

Pure: a verb takes the configuration, its arguments and the caller, changes the
configuration in place only after it has validated the change, and returns what qconf
prints. Grid Engine prints most confirmations on stderr and some refusals with exit
code 0; an Answer keeps both streams and the code apart so the command can do the same.
"""

from __future__ import annotations

import posixpath
from collections.abc import Callable, Collection, Container, Iterable
from dataclasses import dataclass, field
from typing import Any

from gridd.formats.objects import parse_object
from gridd.formats.parsing import FormatError
from gridd.formats.qconf_objects import from_pairs
from gridd.model.config import Configuration
from gridd.model.host_names import host_key
from gridd.model.objects import list_items


@dataclass
class Answer:
    out: list[str] = field(default_factory=list)
    err: list[str] = field(default_factory=list)
    code: int = 0
    changed: bool = False
    stop_execds: list[tuple[str, bool]] = field(default_factory=list)  # (host, kill jobs)
    stop_master: bool = False
    monitor: bool = False  # -tsm

    def fail(self, text: str, code: int = 1) -> None:
        """A refusal; `code` is Grid Engine's, which is 0 for a few of them."""
        self.err.append(text)
        self.code = max(self.code, code)


class NameSets:
    """Sets beside the configuration's name lists (managers, operators, admin and submit
    hosts, access list entries) for one command line, so that a verb adding or removing
    a name finds it at once however long the line has made the list. Only those verbs
    change the lists, and they keep the sets in step; a list replaced whole (-Mu) is
    another list, with a set of its own."""

    def __init__(self) -> None:
        self._sets: dict[int, tuple[list[str], set[str]]] = {}
        self._hosts: dict[int, tuple[Collection[str], dict[str, str]]] = {}

    def of(self, items: list[str]) -> set[str]:
        kept = self._sets.get(id(items))
        if kept is None or kept[0] is not items:  # (the list is kept: its id stays its own)
            kept = self._sets[id(items)] = (items, set(items))
        return kept[1]

    def hosts(self, items: Collection[str]) -> dict[str, str]:
        """A list of host names by the key they compare by (gridd.model.host_names)."""
        kept = self._hosts.get(id(items))
        if kept is None or kept[0] is not items:
            kept = self._hosts[id(items)] = (items, {host_key(h): h for h in items})
        return kept[1]


@dataclass(frozen=True)
class Caller:
    """Who runs qconf, and the files its -A*/-M* options named (path -> text). Whether
    the host is an admin host is the master's finding (Master.qconf); qconf's verbs
    called on their own stand for a caller on one. The master's own machine may not
    leave the admin hosts: nobody could change the configuration any more. `resolved`:
    the host names of the command line that the master has no exec host by and that
    resolve where qconf runs. `names` is the command line's NameSets: run_qconf gives
    each command line new ones."""

    user: str
    host: str
    files: dict[str, str] = field(default_factory=dict)
    admin_host: bool = True
    master_host: str = ""
    execds: frozenset[str] = frozenset()  # the hosts whose execd is connected
    resolved: frozenset[str] = frozenset()
    names: NameSets = field(default_factory=NameSets, compare=False, repr=False)
    # (where, names) of what each job and advance reservation asks for, as
    # admin_refs.complex_references takes them: asked for only when needed (a -Mc
    # that removes an attribute)
    requested: Callable[[], Iterable[tuple[str, Iterable[str]]]] = lambda: ()

    def __str__(self) -> str:
        return f"{self.user}@{self.host}"

    def pairs(self, path: str) -> list[tuple[str, str]]:
        """The `attribute value` lines of a file the command named (FormatError if bad)."""
        return parse_object(self.files.get(path, ""), source=path)


def attr_operands_short(args: list[str], *, from_file: bool) -> str | None:
    """What 8.1.9 says of an attribute verb given too few operands (None: enough):
    -xattr wants the object, attribute, value and objects, -Xattr the object, file and
    objects. Short of the last two it names the last word given."""
    wanted = 3 if from_file else 4
    if len(args) >= wanted:
        return None
    if len(args) == wanted - 1:
        return ("qconf: missing filename as option argument" if from_file
                else "qconf: missing object list")
    return f'error: no option argument provided to "{args[-1]}"\nUsage: qconf -help'


def read_attr_file(who: Caller, path: str,
                   known: Container[str] | None) -> list[tuple[str, str]] | str:
    """The `attr value` lines of a -Aattr/-Mattr/-Dattr/-Rattr file, or qconf's refusal of
    it: unreadable, empty, naming an attribute `known` lacks (None: any), or one twice."""
    refused = (f'error: error reading file: "{path}"\n'
               f'error: invalid option argument "{path}"\nUsage: qconf -help')
    try:
        pairs = who.pairs(path)
    except FormatError:
        return refused
    seen: set[str] = set()
    for attr, _ in pairs:
        if known is not None and attr not in known:
            return f'error: unknown attribute name "{attr}"\n{refused}'
        if attr in seen:
            return f'error: attribute "{attr}" appears more than once\n{refused}'
        seen.add(attr)
    return pairs or refused


def refused_file(exc: FormatError, *trailer: str) -> str:
    """What qconf prints for a file refused with `exc`: Grid Engine's words, then the
    option's own `trailer` lines, unless the master refused what qconf read (it names
    no file)."""
    by_master = getattr(exc, "by_master", False)
    return "\n".join([exc.ge_message, *(() if by_master else trailer)])


def load_object(kind: str, who: Caller, path: str) -> Any:
    """The object a -A*/-M* file describes; FormatError with Grid Engine's words if bad."""
    return from_pairs(kind, who.pairs(path), source=path)


Verb = Callable[[Configuration, list[str], Caller], Answer]


def names(arg: str) -> list[str]:
    """The items of a comma (or blank) separated option argument such as `a,b`."""
    return list_items(arg)


def basename(path: str) -> str:
    """The last part of a path: -Aconf and -Mconf name a host by their file's name."""
    return posixpath.basename(path.rstrip("/"))

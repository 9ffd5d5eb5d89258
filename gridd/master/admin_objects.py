"""qconf on named configuration objects: host groups, projects, cluster queues, parallel
environments and exec hosts (-s*l, -s*, -A*, -M*, -d*, and the file the -a* editor
forms leave behind).

The five kinds differ only in words, and Grid Engine's words differ even between verbs
of one kind (an exec host is added to the "exechost list" but removed from the
"execution host list"); NamedKind holds them so that one implementation serves all.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import msgspec

from gridd.formats.parsing import FormatError
from gridd.formats.qconf_objects import REPORTED, show, template
from gridd.master import admin_refs as refs
from gridd.master.admin_base import Answer, Caller, Verb, load_object, names, refused_file
from gridd.model.config import Configuration


@dataclass(frozen=True)
class NamedKind:
    """How qconf speaks of one kind of named object, and where the cell keeps them."""

    kind: str  # gridd.formats.qconf_objects kind
    store: str  # Configuration attribute holding {name: object}
    key: str  # the attribute that names an object
    label: str  # as in 'added "x" to <label> list'
    empty: str  # what -s*l prints when there is none
    unknown: str  # -s* of a missing name ({} is the name)
    deleted_from: str = ""  # the list -d* removes from, when not `label`
    add_trailer: str = ""  # Grid Engine's last line when an -A* file is bad ({} is the file)
    modify_trailer: str = ""  # the same for -M*
    delete_problem: Callable[[Configuration, str], str | None] = lambda cfg, name: None
    confirm_out: bool = False  # -A/-M<kind> confirm on stdout (else stderr)
    show_list: bool = False  # -s<kind> takes a list of names (else one name, commas and all)
    unresolved: str = ""  # what a verb says of a host name there is none of that does not
    # resolve, when it is a host (then `unknown` is for one that resolves)

    def removed_from(self) -> str:
        return self.deleted_from or self.label


HOSTGROUPS = NamedKind(
    "hostgroup", "hostgroups", "group_name", "host group", "no host group list defined",
    'Host group "{}" does not exist', deleted_from="host group entry",
    modify_trailer='Host group file "{}" is not correct',
    delete_problem=refs.hostgroup_delete_problem)
PROJECTS = NamedKind(
    "project", "projects", "name", "project", "no project list defined",
    "{} is not known as a project", add_trailer="error reading in file",
    modify_trailer="error reading in file", delete_problem=refs.project_delete_problem)
USERS = NamedKind(
    "user", "users", "name", "user", "no user list defined",
    "{} is not known as a user", add_trailer="error reading in file",
    modify_trailer="error reading in file", confirm_out=True, show_list=True)
QUEUES = NamedKind(
    "queue", "queues", "qname", "cluster queue", "no cqueue list defined",
    'No cluster queue or queue instance matches the phrase "{}"',
    modify_trailer='Cluster queue file "{}" is not correct',
    delete_problem=refs.queue_delete_problem)
PES = NamedKind(
    "pe", "pes", "pe_name", "parallel environment", "no parallel environment defined",
    "{} is not a parallel environment", add_trailer="error reading in file",
    modify_trailer="error reading in file", delete_problem=refs.pe_delete_problem)
EXECHOSTS = NamedKind(
    "exechost", "exechosts", "hostname", "exechost", "no execution host defined",
    "{} is not an execution host", deleted_from="execution host",
    add_trailer="invalid format", modify_trailer="invalid format",
    delete_problem=refs.exechost_delete_problem, unresolved='can\'t resolve hostname "{}"')


def list_named(nk: NamedKind) -> Verb:
    """-s<kind>l. The `global` exec host holds cluster-wide values and is no host: -sel
    leaves it out, as Grid Engine does.
    """

    def verb(cfg: Configuration, args: list[str], who: Caller) -> Answer:
        found = sorted(n for n in getattr(cfg, nk.store) if nk is not EXECHOSTS or n != "global")
        ans = Answer(out=found)
        if not found:
            ans.fail(nk.empty)
        return ans
    return verb


def show_named(nk: NamedKind) -> Verb:
    """-shgrp, -sprj, -sp, -se: one object, its name taken whole (`a,b` is one name);
    -suser: each user of a list once, in the order named, a blank line between two (8.1.9
    prints it after a name there is none of too). A name there is none of fails the
    command (exit 1), as for every other kind; 8.1.9's -suser alone says so and exits 0."""

    def verb(cfg: Configuration, args: list[str], who: Caller) -> Answer:
        ans = Answer()
        wanted = dict.fromkeys(names(args[0])) if nk.show_list else [args[0]]
        for i, name in enumerate(wanted):
            if i:
                ans.out.append("")
            obj = getattr(cfg, nk.store).get(name)
            if obj is None:
                ans.fail(_unresolved(nk, name, who) or nk.unknown.format(name))
            else:
                ans.out += show(nk.kind, obj).splitlines()
        return ans
    return verb


def _unresolved(nk: NamedKind, name: str, who: Caller) -> str | None:
    """Grid Engine's words for a host name there is none of that does not resolve; None
    for one that does, and for the other kinds (the verb's own words then)."""
    if nk.unresolved and name not in who.resolved:
        return nk.unresolved.format(name)
    return None


def show_queues(cfg: Configuration, args: list[str], who: Caller) -> Answer:
    """qconf -sq [wc_queue_list]: the named queues one after the other (a pattern such as
    `*.q` names every queue it matches, each shown once); with no list, the template
    queue that -aq starts from.
    """
    ans = Answer()
    if not args:
        ans.out += template("queue").splitlines()
        return ans
    chosen: dict[str, None] = {}  # in the order first named, each once
    for pattern in names(args[0]):
        matched = sorted(q for q in cfg.queues if fnmatch.fnmatchcase(q, pattern))
        if not matched:
            ans.fail(QUEUES.unknown.format(pattern))
        chosen.update(dict.fromkeys(matched))
    for name in chosen:
        ans.out += show("queue", cfg.queues[name]).splitlines()
    return ans


def _keep_reported(nk: NamedKind, new: Any, old: Any | None) -> Any:
    """An exec host's load values and processor count come from its execd: a file can't
    set them (-se prints them, so a file made from its output often holds stale ones).
    """
    if nk is not EXECHOSTS:
        return new
    source = old if old is not None else type(new)(hostname=new.hostname)
    return msgspec.structs.replace(new, **{a: getattr(source, a) for a in REPORTED})


def put_named(nk: NamedKind, adding: bool, added: str = "") -> Verb:
    """-A<kind> file (adding) or -M<kind> file. `added` replaces the confirmation of an
    add ({} is the name): `-ae` confirms in other words than `-Ae`.
    """

    def verb(cfg: Configuration, args: list[str], who: Caller) -> Answer:
        ans = Answer()
        trailer = nk.add_trailer if adding else nk.modify_trailer
        try:
            obj = load_object(nk.kind, who, args[0])
        except FormatError as exc:
            ans.fail(refused_file(exc, *([trailer.format(args[0])] if trailer else [])))
            return ans
        name = getattr(obj, nk.key)
        store = getattr(cfg, nk.store)
        if nk is QUEUES and name == "template":  # the name of -aq's template (-sq)
            ans.fail(f'cluster queue name "{name}" is not valid')
            return ans
        if adding and name in store:
            ans.fail(f'{nk.label} "{name}" already exists')
            return ans
        if not adding and name not in store:
            ans.fail(_unresolved(nk, name, who) or f'denied: {nk.label} "{name}" does not exist')
            return ans
        obj = _keep_reported(nk, obj, store.get(name))
        problem = refs.object_problem(cfg, obj)
        if problem:
            ans.fail(problem)
            return ans
        store[name] = obj
        said = ans.out if nk.confirm_out else ans.err
        if adding and added:
            said.append(added.format(name))
        else:
            said.append(f'{who} {"added" if adding else "modified"} "{name}" '
                        f'{"to" if adding else "in"} {nk.label} list')
        ans.changed = True
        return ans
    return verb


def delete_named(nk: NamedKind) -> Verb:
    def verb(cfg: Configuration, args: list[str], who: Caller) -> Answer:
        ans = Answer()
        store = getattr(cfg, nk.store)
        for name in names(args[0]):
            problem = nk.delete_problem(cfg, name) if name in store else None
            if name not in store:
                ans.fail(_unresolved(nk, name, who)
                         or f'denied: {nk.removed_from()} "{name}" does not exist')
            elif problem:
                ans.fail(problem)
            else:
                del store[name]
                ans.err.append(f'{who} removed "{name}" from {nk.removed_from()} list')
                ans.changed = True
        return ans
    return verb


# ---- host groups -----------------------------------------------------------------------


def resolve_hostgroup(cfg: Configuration, name: str, seen: frozenset[str] = frozenset()
                      ) -> list[str]:
    """The hosts of a group with nested groups expanded (a cycle ends the descent)."""
    group = cfg.hostgroups.get(name)
    if group is None or name in seen:
        return []
    hosts: list[str] = []
    for member in group.members():
        found = (resolve_hostgroup(cfg, member, seen | {name}) if member.startswith("@")
                 else [member])
        hosts += [h for h in found if h not in hosts]
    return hosts


def show_hostgroup_resolved(cfg: Configuration, args: list[str], who: Caller) -> Answer:
    if args[0] not in cfg.hostgroups:
        return Answer(err=[HOSTGROUPS.unknown.format(args[0])], code=1)
    return Answer(out=resolve_hostgroup(cfg, args[0]))


def show_hostgroup_tree(cfg: Configuration, args: list[str], who: Caller) -> Answer:
    if args[0] not in cfg.hostgroups:
        return Answer(err=[HOSTGROUPS.unknown.format(args[0])], code=1)
    out: list[str] = []

    def walk(name: str, depth: int, seen: frozenset[str]) -> None:
        out.append("   " * depth + name)
        group = cfg.hostgroups.get(name)
        if group is None or name in seen:
            return
        for member in group.members():
            walk(member, depth + 1, seen | {name})

    walk(args[0], 0, frozenset())
    return Answer(out=out)

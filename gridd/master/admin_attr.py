"""qconf -aattr/-mattr/-dattr/-rattr, their file forms -Aattr/-Mattr/-Dattr/-Rattr, and
-purge: one attribute (or a few, from a file) of queues, exec hosts, host groups and PEs.

List attributes are edited element by element: `-aattr` adds what is missing, `-mattr`
replaces elements with the same name and adds the rest, `-dattr` removes, `-rattr`
replaces the whole value. A queue attribute may carry [host=value] overrides; a value
written as `[host=value]`, or given for the target `queue@host`, edits that host's
override and leaves the default alone.
Grid Engine's notes ("Unable to find ...", "No modification because ...") go to stdout
with the confirmation, as it prints them.
"""

from __future__ import annotations

from typing import Any

import msgspec

from gridd.formats.overrides import parse_overridable, print_overridable
from gridd.formats.parsing import FormatError
from gridd.formats.qconf_objects import KINDS, from_pairs, to_pairs
from gridd.master import admin_refs as refs
from gridd.master.admin_base import (
    Answer,
    Caller,
    Verb,
    attr_operands_short,
    names,
    read_attr_file,
)
from gridd.master.admin_objects import EXECHOSTS, HOSTGROUPS, PES, QUEUES, NamedKind
from gridd.model.config import Configuration
from gridd.model.objects import NOT_OVERRIDABLE
from gridd.model.overrides import Overridable

ATTR_OBJECTS = {"queue": QUEUES, "exechost": EXECHOSTS, "hostgroup": HOSTGROUPS, "pe": PES}
ASSIGNMENT_LISTS = {"complex_values", "load_thresholds", "suspend_thresholds", "load_scaling",
                    "usage_scaling"}
WORD_LISTS = {"pe_list", "ckpt_list", "user_lists", "xuser_lists", "projects", "xprojects",
              "owner_list", "subordinate_list", "hostlist", "report_variables"}
MODES = {"a": "add", "m": "modify", "d": "delete", "r": "replace"}


class _Refused(ValueError):
    """A change Grid Engine refuses with this text."""


def _is_list(attr: str) -> bool:
    return attr in ASSIGNMENT_LISTS or attr in WORD_LISTS


def _join(attr: str, items: list[str]) -> str:
    if not items:
        return "NONE"
    return ",".join(items) if attr in ASSIGNMENT_LISTS else " ".join(items)


def _edit_list(mode: str, attr: str, current: str, value: str, shown: str,
               notes: list[str]) -> str:
    """The new text of a list attribute after -aattr/-mattr/-dattr with ``value``."""
    assignments = attr in ASSIGNMENT_LISTS
    items = [] if refs.is_none(current) else names(current)
    given = [] if refs.is_none(value) else names(value)
    if mode == "modify" and not items:
        notes.append(f'"{attr}" of "{shown}" is empty - Adding new element(s).')
        return _join(attr, given)

    def key(item: str) -> str:
        return item.partition("=")[0] if assignments else item

    for item in given:
        found = [i for i, old in enumerate(items) if key(old) == key(item)]
        if mode == "delete":
            if not found:
                notes.append(f'"{key(item)}" does not exist in "{attr}" of "{shown}"')
            items = [old for old in items if key(old) != key(item)]
        elif found and mode == "add":
            notes.append(f'No modification because "{key(item)}" already exists in "{attr}" '
                         f'of "{shown}"')
        elif found:
            items[found[0]] = item
        else:
            if mode == "modify":
                notes.append(f'Unable to find "{key(item)}" in "{attr}" of "{shown}" - '
                             "Adding new element.")
            items.append(item)
    return _join(attr, items)


def _plain_value(mode: str, attr: str, current: str, value: str, shown: str,
                 notes: list[str]) -> str:
    if not _is_list(attr):
        # a single value: -aattr and -mattr set it, -dattr leaves it alone
        return current if mode == "delete" else value
    if mode == "replace":
        return value
    if mode == "modify" and refs.is_none(value):
        raise _Refused(f'"{value}" is not a valid list attribute value for -mattr.  '
                       "Try using -rattr instead.")
    return _edit_list(mode, attr, current, value, shown, notes)


def _new_value(mode: str, nk: NamedKind, attr: str, current: str, value: str, shown: str,
               notes: list[str]) -> str:
    """What ``attr`` becomes; queue attributes keep their [host=...] overrides apart."""
    if nk is not QUEUES or attr in NOT_OVERRIDABLE:
        return _plain_value(mode, attr, current, value, shown, notes)
    old = parse_overridable(current)
    given = parse_overridable("NONE," + value if value.startswith("[") else value)
    default = old.default
    if not value.startswith("["):
        default = _plain_value(mode, attr, old.default, given.default, shown, notes)
    overrides = dict(old.overrides)
    for host, text in given.overrides.items():
        if mode == "delete":
            overrides.pop(host, None)
        elif host in overrides and mode != "replace" and _is_list(attr):
            overrides[host] = _plain_value(mode, attr, overrides[host], text, shown, notes)
        else:
            overrides[host] = text
    return print_overridable(Overridable(default, overrides))


def _value_error(exc: FormatError) -> str:
    """Grid Engine's complaint about a bad value given on the command line: the words it
    prints reading a file, without the file (qconf made it) and without "error: ".
    """
    lines = [ln for ln in exc.ge_message.splitlines() if "reading file" not in ln]
    return "\n".join(ln.removeprefix("error: ") for ln in lines)


def _apply(cfg: Configuration, who: Caller, obj_name: str, nk: NamedKind, mode: str,
           pairs: list[tuple[str, str]], targets: list[str], ans: Answer) -> None:
    """Change each target in turn; a refused target is left as it was."""
    store = getattr(cfg, nk.store)
    # Grid Engine names the object in its notes, except for exec hosts, where it
    # names the object type
    for target in targets:
        edits = pairs
        if nk is QUEUES and "@" in target:
            # queue@host (or queue@@group) edits that host's override, as [host=value].
            target, _, host = target.partition("@")
            if host.startswith("@") and host not in cfg.hostgroups:
                ans.fail(f'Did not modify "{pairs[0][0]}" for host group "{host}" which '
                         "does not exist.")
                continue
            edits = [(attr, f"[{host}={value}]") for attr, value in pairs]
        obj = store.get(target)
        if obj is None:
            ans.fail(f'denied: {nk.label} "{target}" does not exist')
            continue
        shown = obj_name if nk is EXECHOSTS else target
        old = dict(to_pairs(obj))
        new = dict(old)
        notes: list[str] = []
        try:
            for attr, value in edits:
                new[attr] = _new_value(mode, nk, attr, new[attr], value, shown, notes)
            changed: Any = from_pairs(nk.kind, new.items(), source=f"-{mode[0]}attr")
        except FormatError as exc:
            ans.fail(_value_error(exc))
            continue
        except _Refused as exc:
            ans.fail(str(exc))
            continue
        problem = refs.object_problem(cfg, changed)
        if problem:
            ans.fail(problem)
            continue
        ans.out += notes
        if changed == obj and nk is EXECHOSTS and mode == "add":
            continue  # Grid Engine says only why nothing changed
        store[target] = changed
        ans.out.append(f'{who} modified "{target}" in {nk.label} list')
        ans.changed = True


def _check_object(obj_name: str, attrs: list[str], ans: Answer) -> NamedKind | None:
    nk = ATTR_OBJECTS.get(obj_name)
    if nk is None:
        ans.fail(f'Modification of object "{obj_name}" not supported')
        return None
    if nk.key in attrs:
        ans.fail(f"qconf: cannot change {nk.key}")
        return None
    return nk


def attr_verb(mode: str) -> Verb:
    """-aattr/-mattr/-dattr/-rattr obj_nm attr_nm value obj_id ..."""

    def verb(cfg: Configuration, args: list[str], who: Caller) -> Answer:
        ans = Answer()
        short = attr_operands_short(args, from_file=False)
        if short is not None:
            ans.fail(short)
            return ans
        obj_name, attr, value, targets = args[0], args[1], args[2], args[3:]
        nk = _check_object(obj_name, [attr], ans)
        if nk is None:
            return ans
        if attr not in KINDS[nk.kind].types:
            ans.fail(f'The attribute name ("{attr}") and/or value ("{value}") is invalid')
            return ans
        _apply(cfg, who, obj_name, nk, mode, [(attr, value)], targets, ans)
        return ans

    return verb


def attr_file_verb(mode: str) -> Verb:
    """-Aattr/-Mattr/-Dattr/-Rattr obj_nm fname obj_id ...: the file holds `attr value`
    lines, all applied to each object with one confirmation per object.
    """

    def verb(cfg: Configuration, args: list[str], who: Caller) -> Answer:
        ans = Answer()
        short = attr_operands_short(args, from_file=True)
        if short is not None:
            ans.fail(short)
            return ans
        obj_name, targets = args[0], args[2:]
        nk = ATTR_OBJECTS.get(obj_name)
        pairs = read_attr_file(who, args[1], None if nk is None else KINDS[nk.kind].types)
        if isinstance(pairs, str):
            ans.fail(pairs)
            return ans
        nk = _check_object(obj_name, [a for a, _ in pairs], ans)
        if nk is None:
            return ans
        _apply(cfg, who, obj_name, nk, mode, pairs, targets, ans)
        return ans

    return verb


def purge_override(cfg: Configuration, args: list[str], who: Caller) -> Answer:
    """qconf -purge queue attr queue@host: drop one host's (or @group's) override."""
    ans = Answer()
    if args[0] != "queue":
        ans.fail(f'error: -purge works on "queue" objects, not "{args[0]}"')
        return ans
    attr = args[1]
    for target in names(args[2]):
        name, _, host = target.partition("@")
        queue = cfg.queues.get(name)
        if queue is None or not host or attr not in queue.__struct_fields__:
            ans.fail(f'denied: cluster queue "{target}" does not exist')
            continue
        old = parse_overridable(getattr(queue, attr))
        overrides = {h: v for h, v in old.overrides.items() if h != host}
        cfg.queues[name] = msgspec.structs.replace(
            queue, **{attr: print_overridable(Overridable(old.default, overrides))})
        ans.out.append(f'{who} modified "{name}" in cluster queue list')
        ans.changed = True
    return ans

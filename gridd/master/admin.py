"""qconf requests on the cell-wide lists: managers, operators, admin and submit hosts,
access lists. Pure: each verb takes the configuration and returns what qconf prints.

Grid Engine prints most of these confirmations on stderr and some "already exists"
answers with exit code 0; the replies keep both streams apart so the command can do
the same.
"""

from collections.abc import Callable
from dataclasses import dataclass, field

import msgspec

from gridd.model.complexes import ComplexAttr, validate_table
from gridd.model.config import Configuration, Userset


@dataclass
class Answer:
    out: list[str] = field(default_factory=list)
    err: list[str] = field(default_factory=list)
    code: int = 0
    changed: bool = False

    def fail(self, text: str) -> None:
        self.err.append(text)
        self.code = 1


@dataclass(frozen=True)
class Caller:
    """Who runs qconf, and the files its -A*/-M* options named (path -> text)."""

    user: str
    host: str
    files: dict[str, str] = field(default_factory=dict)

    def __str__(self) -> str:
        return f"{self.user}@{self.host}"


Verb = Callable[[Configuration, list[str], Caller], Answer]


def _names(arg: str) -> list[str]:
    return [n for n in arg.replace(" ", ",").split(",") if n]


# ---- managers and operators ---------------------------------------------------------

def _add_person(kind: str, attr: str) -> Verb:
    def verb(cfg: Configuration, args: list[str], who: Caller) -> Answer:
        ans = Answer()
        people: list[str] = getattr(cfg, attr)
        for name in _names(args[0]):
            if name in people:
                ans.fail(f'{kind} "{name}" already exists')
            else:
                people.append(name)
                ans.err.append(f'{who} added "{name}" to {kind} list')
                ans.changed = True
        return ans
    return verb


def _delete_person(kind: str, attr: str) -> Verb:
    def verb(cfg: Configuration, args: list[str], who: Caller) -> Answer:
        ans = Answer()
        people: list[str] = getattr(cfg, attr)
        for name in _names(args[0]):
            if name == "root":
                ans.fail(f'may not remove user "root" from {kind} list')
            elif name not in people:
                ans.fail(f'denied: {kind} "{name}" does not exist')
            else:
                people.remove(name)
                ans.err.append(f'{who} removed "{name}" from {kind} list')
                ans.changed = True
        return ans
    return verb


def _show_list(attr: str) -> Verb:
    def verb(cfg: Configuration, args: list[str], who: Caller) -> Answer:
        return Answer(out=sorted(getattr(cfg, attr)))
    return verb


# ---- admin and submit hosts -----------------------------------------------------------

def _add_host(kind: str, label: str, attr: str) -> Verb:
    def verb(cfg: Configuration, args: list[str], who: Caller) -> Answer:
        ans = Answer()
        hosts: list[str] = getattr(cfg, attr)
        for name in _names(args[0]):
            if name in hosts:
                ans.err.append(f'{kind} "{name}" already exists')  # exit 0, as GE does
            else:
                hosts.append(name)
                ans.err.append(f"{name} added to {label} list")
                ans.changed = True
        return ans
    return verb


def _delete_host(label: str, attr: str) -> Verb:
    def verb(cfg: Configuration, args: list[str], who: Caller) -> Answer:
        ans = Answer()
        hosts: list[str] = getattr(cfg, attr)
        for name in _names(args[0]):
            if name not in hosts:
                ans.fail(f'denied: "{name}" is not in the {label} list')
            else:
                hosts.remove(name)
                ans.err.append(f'{who} removed "{name}" from {label} list')
                ans.changed = True
        return ans
    return verb


# ---- access lists -----------------------------------------------------------------------

def add_to_userset(cfg: Configuration, args: list[str], who: Caller) -> Answer:
    ans = Answer()
    for list_name in _names(args[1]):
        userset = cfg.usersets.get(list_name)
        if userset is None:  # qconf -au creates a missing list
            userset = cfg.usersets[list_name] = Userset(list_name)
        for user in _names(args[0]):
            if user in userset.entries:
                ans.fail(f'"{user}" is already in access list "{list_name}"')
            else:
                userset.entries.append(user)
                ans.err.append(f'added "{user}" to access list "{list_name}"')
                ans.changed = True
    return ans


def delete_from_userset(cfg: Configuration, args: list[str], who: Caller) -> Answer:
    ans = Answer()
    for list_name in _names(args[1]):
        userset = cfg.usersets.get(list_name)
        if userset is None:
            ans.fail(f'access list "{list_name}" doesn\'t exist')
            continue
        for user in _names(args[0]):
            if user not in userset.entries:
                ans.fail(f'user "{user}" is not in access list "{list_name}"')
            else:
                userset.entries.remove(user)
                ans.err.append(f'deleted user "{user}" from access list "{list_name}"')
                ans.changed = True
    return ans


def show_usersets(cfg: Configuration, args: list[str], who: Caller) -> Answer:
    ans = Answer()
    blocks = []
    for name in _names(args[0]):
        userset = cfg.usersets.get(name)
        if userset is None:
            ans.fail(f'denied: access list "{name}" does not exist')
            continue
        blocks.append(format_userset(userset))
    for i, block in enumerate(blocks):
        if i:
            ans.out.append("")
        ans.out.extend(block)
    return ans


def format_userset(userset: Userset) -> list[str]:
    return [
        f"name    {userset.name}",
        f"type    {userset.type}",
        f"fshare  {userset.fshare}",
        f"oticket {userset.oticket}",
        f"entries {','.join(userset.entries) or 'NONE'}",
    ]


def delete_usersets(cfg: Configuration, args: list[str], who: Caller) -> Answer:
    ans = Answer()
    for name in _names(args[0]):
        if name not in cfg.usersets:
            ans.fail(f'denied: userset "{name}" does not exist')
        else:
            del cfg.usersets[name]
            ans.err.append(f'{who} removed "{name}" from userset list')
            ans.changed = True
    return ans


def show_userset_names(cfg: Configuration, args: list[str], who: Caller) -> Answer:
    return Answer(out=sorted(cfg.usersets))


# ---- complex attributes ------------------------------------------------------------------

def show_complexes(cfg: Configuration, args: list[str], who: Caller) -> Answer:
    from gridd.formats.complex_table import ComplexRow, print_complex_table

    rows = [ComplexRow(*msgspec.structs.astuple(attr))
            for attr in sorted(cfg.complexes, key=lambda a: a.name)]
    return Answer(out=print_complex_table(rows).splitlines())


def replace_complexes(cfg: Configuration, args: list[str], who: Caller) -> Answer:
    """qconf -Mc: the whole table at once, refused as a whole if any row is wrong."""
    from gridd.formats.complex_table import parse_complex_table
    from gridd.formats.parsing import FormatError

    ans = Answer()
    path = args[0]
    try:
        rows = parse_complex_table(who.files.get(path, ""), source=path)
    except FormatError as exc:
        ans.fail(exc.ge_message)
        return ans
    new = [ComplexAttr(*row) for row in rows]
    errors = validate_table(new, cfg.complexes)
    if errors:
        for error in errors:
            ans.fail(error)
        return ans
    old = {a.name: a for a in cfg.complexes}
    fresh = {a.name: a for a in new}
    for name in old:
        if name not in fresh:
            ans.err.append(f'{who} removed "{name}" from complex list')
    for name, attr in fresh.items():
        if name not in old:
            ans.err.append(f'{who} added "{name}" to complex entry list')
        elif old[name] != attr:
            ans.err.append(f'{who} modified "{name}" in complex entry list')
    if not ans.err:
        ans.err.append("Complex attribute configuration has not been changed")
        return ans
    cfg.complexes = sorted(new, key=lambda a: a.name)
    ans.changed = True
    return ans


# ---- named objects: host groups, projects ----------------------------------------------

@dataclass(frozen=True)
class NamedKind:
    """How qconf speaks of one kind of named object, and where the cell keeps them."""

    kind: str  # gridd.formats.qconf_objects kind
    store: str  # Configuration attribute holding {name: object}
    key: str  # the attribute that names an object
    label: str  # as in 'added "x" to <label> list'
    empty: str  # what -s*l prints when there is none
    unknown: str  # -s* of a missing name ({} is the name)


HOSTGROUPS = NamedKind("hostgroup", "hostgroups", "group_name", "host group",
                       "no host group list defined", 'Host group "{}" does not exist')
PROJECTS = NamedKind("project", "projects", "name", "project", "no project list defined",
                     "{} is not known as a project")
QUEUES = NamedKind("queue", "queues", "qname", "cluster queue", "no cqueue list defined",
                   'No cluster queue or queue instance matches the phrase "{}"')
PES = NamedKind("pe", "pes", "pe_name", "parallel environment",
                "no parallel environment defined", "{} is not a parallel environment")
EXECHOSTS = NamedKind("exechost", "exechosts", "hostname", "exechost",
                      "no execution host defined", 'can\'t resolve hostname "{}"')


def _list_named(nk: NamedKind) -> Verb:
    def verb(cfg: Configuration, args: list[str], who: Caller) -> Answer:
        names = sorted(getattr(cfg, nk.store))
        ans = Answer(out=names)
        if not names:
            ans.fail(nk.empty)
        return ans
    return verb


def _show_named(nk: NamedKind) -> Verb:
    def verb(cfg: Configuration, args: list[str], who: Caller) -> Answer:
        from gridd.formats.qconf_objects import show

        ans = Answer()
        for name in _names(args[0]):
            obj = getattr(cfg, nk.store).get(name)
            if obj is None:
                ans.fail(nk.unknown.format(name))
            else:
                ans.out += show(nk.kind, obj).splitlines()
        return ans
    return verb


def _load(kind: str, who: Caller, path: str, ans: Answer) -> object | None:
    """The object a -A*/-M* file describes, or None with GE's complaint in ``ans``."""
    from gridd.formats.objects import parse_object
    from gridd.formats.parsing import FormatError
    from gridd.formats.qconf_objects import from_pairs

    try:
        return from_pairs(kind, parse_object(who.files.get(path, ""), source=path),
                          source=path)
    except FormatError as exc:
        ans.fail(exc.ge_message)
        return None


def _put_named(nk: NamedKind, adding: bool) -> Verb:
    def verb(cfg: Configuration, args: list[str], who: Caller) -> Answer:
        ans = Answer()
        obj = _load(nk.kind, who, args[0], ans)
        if obj is None:
            return ans
        name = getattr(obj, nk.key)
        store = getattr(cfg, nk.store)
        if adding and name in store:
            ans.fail(f'{nk.label} "{name}" already exists')
        elif not adding and name not in store:
            ans.fail(f'denied: {nk.label} "{name}" does not exist')
        else:
            store[name] = obj
            ans.err.append(f'{who} {"added" if adding else "modified"} "{name}" '
                           f'{"to" if adding else "in"} {nk.label} list')
            ans.changed = True
        return ans
    return verb


def _delete_named(nk: NamedKind) -> Verb:
    def verb(cfg: Configuration, args: list[str], who: Caller) -> Answer:
        ans = Answer()
        store = getattr(cfg, nk.store)
        for name in _names(args[0]):
            if name not in store:
                ans.fail(f'denied: {nk.label} "{name}" does not exist')
            else:
                del store[name]
                ans.err.append(f'{who} removed "{name}" from {nk.label} list')
                ans.changed = True
        return ans
    return verb


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


# ---- scheduler and global configuration ---------------------------------------------------

def show_sched(cfg: Configuration, args: list[str], who: Caller) -> Answer:
    from gridd.formats.qconf_objects import show

    return Answer(out=show("sched", cfg.sched).splitlines())


def replace_sched(cfg: Configuration, args: list[str], who: Caller) -> Answer:
    ans = Answer()
    new = _load("sched", who, args[0], ans)
    if new is None:
        return ans
    if new == cfg.sched:
        ans.fail("configuration unchanged")
        return ans
    cfg.sched = new
    ans.err.append("changed scheduler configuration")
    ans.changed = True
    return ans


def show_conf(cfg: Configuration, args: list[str], who: Caller) -> Answer:
    from gridd.formats.objects import print_configuration
    from gridd.formats.qconf_objects import to_pairs

    return Answer(out=print_configuration("global", to_pairs(cfg.conf)).splitlines())


def replace_conf(cfg: Configuration, args: list[str], who: Caller) -> Answer:
    ans = Answer()
    # the file may begin with the "#global:" line that -sconf prints: drop comments
    text = who.files.get(args[0], "")
    bare = "\n".join(line for line in text.splitlines() if not line.startswith("#"))
    new = _load("conf", Caller(who.user, who.host, {args[0]: bare}), args[0], ans)
    if new is None:
        return ans
    if new == cfg.conf:
        ans.fail("configuration unchanged")
        return ans
    cfg.conf = new
    ans.err.append(f'{who} modified "global" in configuration list')
    ans.changed = True
    return ans


# ---- -aattr, -mattr, -dattr, -rattr, -purge -----------------------------------------------

ATTR_OBJECTS = {"queue": QUEUES, "exechost": EXECHOSTS, "hostgroup": HOSTGROUPS, "pe": PES}
ASSIGNMENT_LISTS = {"complex_values", "load_thresholds", "suspend_thresholds", "load_scaling",
                    "usage_scaling"}
WORD_LISTS = {"pe_list", "ckpt_list", "user_lists", "xuser_lists", "projects", "xprojects",
              "owner_list", "subordinate_list", "hostlist", "report_variables"}


def _edit_list(mode: str, attr: str, current: str, value: str, target: str,
               notes: list[str]) -> str:
    """The new text of a list attribute after -aattr/-mattr/-dattr with ``value``."""
    assignments = attr in ASSIGNMENT_LISTS
    items = [] if current.strip().upper() == "NONE" else _names(current)
    given = _names(value)
    if mode != "delete" and not items:
        notes.append(f'"{attr}" of "{target}" is empty - Adding new element(s).')
        return ",".join(given) if assignments else " ".join(given)

    def key(item: str) -> str:
        return item.partition("=")[0] if assignments else item

    for item in given:
        found = [i for i, old in enumerate(items) if key(old) == key(item)]
        if mode == "delete":
            items = [old for old in items if key(old) != key(item)]
        elif found:
            items[found[0]] = item
        else:
            notes.append(f'Unable to find "{key(item)}" in "{attr}" of "{target}" - '
                         "Adding new element.")
            items.append(item)
    if not items:
        return "NONE"
    return ",".join(items) if assignments else " ".join(items)


def _new_value(mode: str, nk: NamedKind, attr: str, current: str, value: str, target: str,
               notes: list[str]) -> str:
    """What ``attr`` becomes; queue attributes keep their [host=...] overrides apart."""
    if nk is QUEUES and attr not in ("qname", "hostlist"):
        from gridd.formats.overrides import Overridable, parse_overridable, print_overridable

        old = parse_overridable(current)
        overrides = dict(old.overrides)
        if value.startswith("["):
            new = parse_overridable("X," + value)
            for host, v in new.overrides.items():
                if mode == "delete":
                    overrides.pop(host, None)
                else:
                    overrides[host] = v
            return print_overridable(Overridable(old.default, overrides))
        default = _plain_value(mode, attr, old.default, value, target, notes)
        return print_overridable(Overridable(default, overrides))
    return _plain_value(mode, attr, current, value, target, notes)


def _plain_value(mode: str, attr: str, current: str, value: str, target: str,
                 notes: list[str]) -> str:
    if mode == "replace" or (attr not in ASSIGNMENT_LISTS and attr not in WORD_LISTS):
        return value
    if mode == "modify" and value.strip().upper() == "NONE":
        raise ValueError(f'"{value}" is not a valid list attribute value for -mattr.  '
                         "Try using -rattr instead.")
    return _edit_list(mode, attr, current, value, target, notes)


def _attr_verb(mode: str) -> Verb:
    def verb(cfg: Configuration, args: list[str], who: Caller) -> Answer:
        from gridd.formats.parsing import FormatError
        from gridd.formats.qconf_objects import from_pairs, to_pairs

        ans = Answer()
        nk = ATTR_OBJECTS.get(args[0])
        if nk is None:
            ans.fail(f'error: unknown object type "{args[0]}"')
            return ans
        attr, value, targets = args[1], args[2], [t for a in args[3:] for t in _names(a)]
        store = getattr(cfg, nk.store)
        for target in targets:
            obj = store.get(target)
            if obj is None:
                ans.fail(f'denied: {nk.label} "{target}" does not exist')
                continue
            pairs = dict(to_pairs(obj))
            if attr not in pairs or attr == nk.key:
                ans.fail(f'error: "{attr}" is not an attribute of {args[0]} "{target}"')
                continue
            notes: list[str] = []
            # GE names the object in these notes, except for exec hosts, where it names
            # the object type
            shown = args[0] if nk is EXECHOSTS else target
            try:
                pairs[attr] = _new_value(mode, nk, attr, pairs[attr], value, shown, notes)
                new = from_pairs(nk.kind, pairs.items(), source=f"-{mode[0]}attr")
            except FormatError as exc:
                lines = exc.ge_message.splitlines()
                ans.fail("\n".join(ln for ln in lines if "reading file" not in ln))
                continue
            except ValueError as exc:
                ans.fail(str(exc))
                continue
            store[target] = new
            ans.out += notes + [f'{who} modified "{target}" in {nk.label} list']
            ans.changed = True
        return ans
    return verb


def purge_override(cfg: Configuration, args: list[str], who: Caller) -> Answer:
    """qconf -purge queue attr queue@host: drop one host's (or @group's) override."""
    from gridd.formats.overrides import Overridable, parse_overridable, print_overridable

    ans = Answer()
    if args[0] != "queue":
        ans.fail(f'error: -purge works on "queue" objects, not "{args[0]}"')
        return ans
    attr = args[1]
    for target in _names(args[2]):
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


# option -> (number of arguments, handler); REST takes every argument that is left
REST = -1

VERBS: dict[str, tuple[int, Verb]] = {
    "-am": (1, _add_person("manager", "managers")),
    "-dm": (1, _delete_person("manager", "managers")),
    "-sm": (0, _show_list("managers")),
    "-ao": (1, _add_person("operator", "operators")),
    "-do": (1, _delete_person("operator", "operators")),
    "-so": (0, _show_list("operators")),
    "-ah": (1, _add_host("adminhost", "administrative host", "admin_hosts")),
    "-dh": (1, _delete_host("administrative host", "admin_hosts")),
    "-sh": (0, _show_list("admin_hosts")),
    "-as": (1, _add_host("submithost", "submit host", "submit_hosts")),
    "-ds": (1, _delete_host("submit host", "submit_hosts")),
    "-ss": (0, _show_list("submit_hosts")),
    "-au": (2, add_to_userset),
    "-du": (2, delete_from_userset),
    "-su": (1, show_usersets),
    "-sul": (0, show_userset_names),
    "-dul": (1, delete_usersets),
    "-sc": (0, show_complexes),
    "-Mc": (1, replace_complexes),
    "-shgrpl": (0, _list_named(HOSTGROUPS)),
    "-shgrp": (1, _show_named(HOSTGROUPS)),
    "-shgrp_resolved": (1, show_hostgroup_resolved),
    "-shgrp_tree": (1, show_hostgroup_tree),
    "-Ahgrp": (1, _put_named(HOSTGROUPS, adding=True)),
    "-Mhgrp": (1, _put_named(HOSTGROUPS, adding=False)),
    "-dhgrp": (1, _delete_named(HOSTGROUPS)),
    "-sprjl": (0, _list_named(PROJECTS)),
    "-sprj": (1, _show_named(PROJECTS)),
    "-Aprj": (1, _put_named(PROJECTS, adding=True)),
    "-Mprj": (1, _put_named(PROJECTS, adding=False)),
    "-dprj": (1, _delete_named(PROJECTS)),
    "-ssconf": (0, show_sched),
    "-Msconf": (1, replace_sched),
    "-sql": (0, _list_named(QUEUES)),
    "-sq": (1, _show_named(QUEUES)),
    "-Aq": (1, _put_named(QUEUES, adding=True)),
    "-Mq": (1, _put_named(QUEUES, adding=False)),
    "-dq": (1, _delete_named(QUEUES)),
    "-spl": (0, _list_named(PES)),
    "-sp": (1, _show_named(PES)),
    "-Ap": (1, _put_named(PES, adding=True)),
    "-Mp": (1, _put_named(PES, adding=False)),
    "-dp": (1, _delete_named(PES)),
    "-sel": (0, _list_named(EXECHOSTS)),
    "-se": (1, _show_named(EXECHOSTS)),
    "-Ae": (1, _put_named(EXECHOSTS, adding=True)),
    "-Me": (1, _put_named(EXECHOSTS, adding=False)),
    "-de": (1, _delete_named(EXECHOSTS)),
    "-aattr": (REST, _attr_verb("add")),
    "-mattr": (REST, _attr_verb("modify")),
    "-dattr": (REST, _attr_verb("delete")),
    "-rattr": (REST, _attr_verb("replace")),
    "-purge": (3, purge_override),
    "-sconf": (0, show_conf),
    "-Mconf": (1, replace_conf),
}


def run_qconf(config: Configuration, argv: list[str], who: Caller) -> Answer:
    """Apply qconf's options in order, as qconf does, stopping at a malformed one."""
    total = Answer()
    args = list(argv)
    while args:
        option = args.pop(0)
        if option not in VERBS:
            total.fail(f'error: invalid option argument "{option}"\nUsage: qconf -help')
            break
        count, verb = VERBS[option]
        if count == REST:
            count = len(args) if len(args) >= 4 else 4
        if len(args) < count:
            total.fail(f'error: no option argument provided to "{option}"\nUsage: qconf -help')
            break
        ans = verb(config, args[:count], who)
        del args[:count]
        total.out += ans.out
        total.err += ans.err
        total.code = max(total.code, ans.code)
        total.changed |= ans.changed
    return total

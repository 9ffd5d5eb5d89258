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


# option -> (number of arguments, handler)
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

"""qconf on the cell-wide lists: managers, operators, admin and submit hosts, access lists.

Grid Engine answers "already exists" for an admin or submit host with exit code 0 but
for a manager with 1; the verbs keep those differences, since scripts test the codes.
Names are looked up in the command line's sets beside the lists (Caller.names), and a
verb removes the names it was given in one pass: a look through the list for each name
made a long command line quadratic.
"""

from __future__ import annotations

from gridd.formats.parsing import FormatError
from gridd.formats.qconf_objects import show_userset, userset_from_pairs
from gridd.master.admin_base import Answer, Caller, Verb, names
from gridd.master.admin_refs import userset_delete_problem
from gridd.model.config import Configuration, Userset
from gridd.model.host_names import host_key, same_host

# ---- managers and operators ---------------------------------------------------------


def add_person(kind: str, attr: str) -> Verb:
    def verb(cfg: Configuration, args: list[str], who: Caller) -> Answer:
        ans = Answer()
        people: list[str] = getattr(cfg, attr)
        present = who.names.of(people)
        for name in names(args[0]):
            if name in present:
                ans.fail(f'{kind} "{name}" already exists')
            else:
                people.append(name)
                present.add(name)
                ans.err.append(f'{who} added "{name}" to {kind} list')
                ans.changed = True
        return ans
    return verb


def delete_person(kind: str, attr: str) -> Verb:
    def verb(cfg: Configuration, args: list[str], who: Caller) -> Answer:
        ans = Answer()
        people: list[str] = getattr(cfg, attr)
        present, gone = who.names.of(people), set()
        for name in names(args[0]):
            if name == "root":
                ans.fail(f'may not remove user "root" from {kind} list')
            elif name not in present:
                ans.fail(f'denied: {kind} "{name}" does not exist')
            else:
                present.remove(name)
                gone.add(name)
                ans.err.append(f'{who} removed "{name}" from {kind} list')
                ans.changed = True
        _drop(people, gone)
        return ans
    return verb


def show_list(attr: str) -> Verb:
    def verb(cfg: Configuration, args: list[str], who: Caller) -> Answer:
        return Answer(out=sorted(getattr(cfg, attr)))
    return verb


# ---- admin and submit hosts -----------------------------------------------------------


def add_host(kind: str, label: str, attr: str) -> Verb:
    """-ah, -as: a name must be an exec host's or resolve where qconf runs (Caller's
    `resolved`), as 8.1.9 resolves it; one naming a host of the list already (as host
    names compare) is not added again."""

    def verb(cfg: Configuration, args: list[str], who: Caller) -> Answer:
        ans = Answer()
        hosts: list[str] = getattr(cfg, attr)
        present = who.names.hosts(hosts)
        exechosts = who.names.hosts(cfg.exechosts)
        for name in names(args[0]):
            key = host_key(name)
            if key in present:
                ans.err.append(f'{kind} "{present[key]}" already exists')  # exit 0, as GE
            elif name not in who.resolved and key not in exechosts:
                ans.fail(f'can\'t resolve hostname "{name}"')  # exit 1, as 8.1.9
            else:
                hosts.append(name)
                present[key] = name
                ans.err.append(f"{name} added to {label} list")
                ans.changed = True
        return ans
    return verb


def delete_host(label: str, attr: str) -> Verb:
    """-dh, -ds: the list's name of the host each name names goes."""

    def verb(cfg: Configuration, args: list[str], who: Caller) -> Answer:
        ans = Answer()
        hosts: list[str] = getattr(cfg, attr)
        present, gone = who.names.hosts(hosts), set()
        for name in names(args[0]):
            same = present.get(host_key(name))
            if same is None:
                ans.fail(f'denied: "{name}" is not in the {label} list')
            elif attr == "admin_hosts" and same_host(same, who.master_host):
                ans.fail(f'denied: can\'t delete master host "{same}" from admin host list')
            else:
                del present[host_key(name)]
                gone.add(same)
                ans.err.append(f'{who} removed "{same}" from {label} list')
                ans.changed = True
        _drop(hosts, gone)
        return ans
    return verb


# ---- access lists -----------------------------------------------------------------------


def add_to_userset(cfg: Configuration, args: list[str], who: Caller) -> Answer:
    ans = Answer()
    for list_name in names(args[1]):
        userset = cfg.usersets.get(list_name)
        if userset is None:  # qconf -au creates a missing list
            userset = cfg.usersets[list_name] = Userset(list_name)
        present = who.names.of(userset.entries)
        for user in names(args[0]):
            if user in present:
                ans.fail(f'"{user}" is already in access list "{list_name}"')
            else:
                userset.entries.append(user)
                present.add(user)
                ans.err.append(f'added "{user}" to access list "{list_name}"')
                ans.changed = True
    return ans


def delete_from_userset(cfg: Configuration, args: list[str], who: Caller) -> Answer:
    ans = Answer()
    for list_name in names(args[1]):
        userset = cfg.usersets.get(list_name)
        if userset is None:
            ans.fail(f'access list "{list_name}" doesn\'t exist')
            continue
        present, gone = who.names.of(userset.entries), set()
        for user in names(args[0]):
            if user not in present:
                ans.fail(f'user "{user}" is not in access list "{list_name}"')
            else:
                present.remove(user)
                gone.add(user)
                ans.err.append(f'deleted user "{user}" from access list "{list_name}"')
                ans.changed = True
        _drop(userset.entries, gone)
    return ans


def _drop(items: list[str], gone: set[str]) -> None:
    """Remove the names in `gone` from the list, in place: in one pass for several."""
    if len(gone) == 1:
        items.remove(next(iter(gone)))
    elif gone:
        items[:] = [item for item in items if item not in gone]


def show_usersets(cfg: Configuration, args: list[str], who: Caller) -> Answer:
    """qconf -su a,b: the lists one after the other, a blank line between two."""
    ans = Answer()
    for name in names(args[0]):
        userset = cfg.usersets.get(name)
        if userset is None:
            ans.fail(f'denied: access list "{name}" does not exist')
            continue
        if ans.out:
            ans.out.append("")
        ans.out += format_userset(userset)
    return ans


def format_userset(userset: Userset) -> list[str]:
    """The lines of `qconf -su` for one list."""
    return show_userset(userset).splitlines()


def delete_usersets(cfg: Configuration, args: list[str], who: Caller) -> Answer:
    ans = Answer()
    for name in names(args[0]):
        if name not in cfg.usersets:
            ans.fail(f'denied: userset "{name}" does not exist')
            continue
        problem = userset_delete_problem(cfg, name)
        if problem:
            ans.fail(problem)
            continue
        del cfg.usersets[name]
        ans.err.append(f'{who} removed "{name}" from userset list')
        ans.changed = True
    return ans


def show_userset_names(cfg: Configuration, args: list[str], who: Caller) -> Answer:
    return Answer(out=sorted(cfg.usersets))


def put_userset(adding: bool) -> Verb:
    """qconf -Au file / -Mu file: a whole access list from a file like `-su` prints."""

    def verb(cfg: Configuration, args: list[str], who: Caller) -> Answer:
        ans = Answer()
        path = args[0]
        try:
            userset = userset_from_pairs(who.pairs(path), source=path)
        except FormatError as exc:
            ans.fail(f"{exc.ge_message}\nerror reading in file")
            return ans
        exists = userset.name in cfg.usersets
        if adding and exists:
            ans.fail(f'userset "{userset.name}" already exists')
        elif not adding and not exists:
            # Grid Engine 8.1.9 says '<name> is not known as a project' here
            ans.fail(f'denied: userset "{userset.name}" does not exist')
        else:
            cfg.usersets[userset.name] = userset
            ans.err.append(f'{who} {"added" if adding else "modified"} "{userset.name}" '
                           f'{"to" if adding else "in"} userset list')
            ans.changed = True
        return ans

    return verb

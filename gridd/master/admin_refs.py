"""References between configuration objects, checked before qconf changes anything.

A queue names host groups, PEs, access lists, projects, complex attributes and other
queues; an exec host names complex attributes, access lists and projects; a host group
names other host groups; the scheduler configuration names complex attributes, and the
global and host configurations access lists and projects. Grid Engine refuses an object
that names something missing, and the deletion of something still named, so that the
scheduler never meets a dangling name; a value given for a complex attribute (offered,
or a threshold) must be of its type. The words are Grid Engine 8.1.9's (checked against
its qconf); each check returns the first complaint, or None, and changes nothing.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from gridd.formats.overrides import overridable
from gridd.model.complexes import (
    STRING_TYPES,
    ComplexTable,
    capacity_problem,
    parse_value,
    value_problem,
)
from gridd.model.config import Configuration
from gridd.model.objects import (
    NONE,
    NOT_OVERRIDABLE,
    ClusterQueue,
    ExecHostConf,
    HostGroup,
    ParallelEnvConf,
    Project,
    SchedConf,
    words,
)
from gridd.sched.levels import parse_formula


def texts(obj: Any, attr: str) -> list[str]:
    """Every value an attribute holds: a queue's default and each host's override."""
    text = getattr(obj, attr)
    if isinstance(obj, ClusterQueue) and attr not in NOT_OVERRIDABLE:
        value = overridable(text)
        return [value.default, *value.overrides.values()]
    return [text]


def items(obj: Any, attr: str) -> list[str]:
    """The list items of an attribute, over all its values, in order, without repeats."""
    return list(dict.fromkeys(item for text in texts(obj, attr) for item in words(text)))


def assigned(obj: Any, attr: str) -> list[str]:
    """The names of a `name=value,...` attribute such as complex_values."""
    return list(dict.fromkeys(item.partition("=")[0] for item in items(obj, attr)))


def _assignments(obj: Any, attr: str) -> Iterator[tuple[str, str]]:
    """The (name, value) items of a `name=value,...` attribute, over all its values."""
    for text in texts(obj, attr):
        for item in words(text):
            name, _, value = item.partition("=")
            yield name, value


def override_keys(queue: ClusterQueue) -> set[str]:
    """The hosts and @groups a queue has [host=value] overrides for."""
    keys: set[str] = set()
    for attr in queue.__struct_fields__:
        if attr not in NOT_OVERRIDABLE:
            keys.update(overridable(getattr(queue, attr)).overrides)
    return keys


def _complex_names(cfg: Configuration) -> set[str]:
    return {a.name for a in cfg.complexes} | {a.shortcut for a in cfg.complexes}


def _typed(table: ComplexTable, obj: Any, attr: str, unknown: str, *,
           offered_by: str = "") -> Iterator[str]:
    """Each `name=value` of a complex_values or a threshold list: the name a complex
    attribute's (`unknown` says so otherwise, {} the name), the value of its type, and
    what a host or queue (`offered_by`) offers of a consumable not below zero. RSMAP ids
    are a host's: a queue instance shares its host's devices."""
    for name, value in _assignments(obj, attr):
        complex_attr = table.resolve(name)
        if complex_attr is None:
            yield unknown.format(name)
            continue
        if offered_by == "queue" and complex_attr.type == "RSMAP":
            yield (f'RSMAP "{complex_attr.name}" cannot be offered by a queue: only an '
                   "execution host or the global host lists its ids")
            continue
        problem = (capacity_problem if offered_by else value_problem)(complex_attr, value)
        if problem:
            yield problem
            continue
        amount = parse_value(complex_attr.type, value)
        if offered_by and complex_attr.consumable != "NO" and isinstance(amount, float) \
                and amount < 0:
            yield f'attribute "{complex_attr.name}" is consumable but has a negative value'


def _first(problems: Iterable[str | None]) -> str | None:
    return next((p for p in problems if p), None)


def _usersets(cfg: Configuration, obj: Any, attrs: Iterable[str]) -> Iterator[str]:
    for attr in attrs:
        for name in items(obj, attr):
            if name not in cfg.usersets:
                yield f'Userset "{name}" does not exist'


def _queue_problems(cfg: Configuration, queue: ClusterQueue) -> Iterator[str]:
    groups = [h for h in queue.hosts() if h.startswith("@")]
    groups += sorted(k for k in override_keys(queue) if k.startswith("@") and k not in groups)
    for group in groups:
        if group not in cfg.hostgroups:
            yield f'denied: host group "{group}" does not exist'
    table = ComplexTable(cfg.complexes)
    for attr in queue.__struct_fields__:
        if attr in ("pe_list",):
            for pe in items(queue, attr):
                if pe not in cfg.pes:
                    yield f'Parallel environment "{pe}" does not exist'
        elif attr == "ckpt_list":  # gridd has no checkpointing interfaces
            for ckpt in items(queue, attr):
                yield f'Ckpt "{ckpt}" does not exist'
        elif attr == "calendar":  # nor calendars
            for calendar in items(queue, attr):
                yield f'Calendar "{calendar}" does not exist'
        elif attr in ("user_lists", "xuser_lists"):
            yield from _usersets(cfg, queue, [attr])
        elif attr in ("projects", "xprojects"):
            for project in items(queue, attr):
                if project not in cfg.projects:
                    yield f'Project "{project}" does not exist'
        elif attr in ("complex_values", "load_thresholds", "suspend_thresholds"):
            yield from _typed(table, queue, attr, 'Complex attribute "{}" does not exist',
                              offered_by="queue" if attr == "complex_values" else "")
        elif attr == "subordinate_list":
            for name in assigned(queue, attr):
                if name not in cfg.queues and name != queue.qname:
                    yield (f'Subordinated cluster queue "{name}" referenced in '
                           f'"{queue.qname}" does not exist')


def _exechost_problems(cfg: Configuration, host: ExecHostConf) -> Iterator[str]:
    yield from _typed(ComplexTable(cfg.complexes), host, "complex_values",
                      'denied: attribute "{}" is not a complex attribute', offered_by="host")
    yield from _usersets(cfg, host, ("user_lists", "xuser_lists"))
    for attr in ("projects", "xprojects"):
        for project in items(host, attr):
            if project not in cfg.projects:
                yield (f'denied: project "{project}" referenced in {attr} of exechost '
                       f'"{host.hostname}" does not exist')
    known = _complex_names(cfg)
    for name in items(host, "report_variables"):
        if name not in known:
            yield f'unknown resource "{name}"'


def _sched_problems(cfg: Configuration, sched: SchedConf) -> Iterator[str]:
    """The load adjustments and the load formula name numeric complex attributes."""
    table = ComplexTable(cfg.complexes)
    yield from _typed(table, sched, "job_load_adjustments",
                      '"job_load_adjustments" references not existing complex attribute "{}"')
    terms = parse_formula(sched.load_formula)
    if terms is None:
        yield _unreadable_formula(sched.load_formula)
        return
    for _, term in terms:
        if _NUMBER.fullmatch(term):
            continue
        complex_attr = table.resolve(term)
        if complex_attr is None:
            yield f'"load_formula" references not existing complex attribute "{term}"'
        elif complex_attr.type in (*STRING_TYPES, "HOST"):
            yield ('String, CString, ReString or Host attributes are not allowed in '
                   f'"load_formula": "{term}"')


_NUMBER = re.compile(r"[0-9.]+")
_FORMULA_NAME = re.compile(r"[A-Za-z_][\w.]*|[0-9.]+")


def _unreadable_formula(formula: str) -> str:
    """Grid Engine's words for a load_formula that is no weighted sum (`a*2-b`): the
    first term whose weight is no number, or which is no name or number."""
    for index, term in enumerate(re.split(r"[+-]", formula)):
        name, star, weight = (part.strip() for part in term.partition("*"))
        if index == 0 and not term.strip():
            continue  # a leading sign
        if star and not _NUMBER.fullmatch(weight):
            return f'"load_formula" uses "{weight}" as weighting factor (only numbers are allowed)'
        if not _FORMULA_NAME.fullmatch(name):
            return f'"load_formula" references not existing complex attribute "{name}"'
    return f'"load_formula" references not existing complex attribute "{formula}"'


def conf_problem(cfg: Configuration, name: str, params: Mapping[str, str]) -> str | None:
    """What keeps a global or host configuration (`name`, its parameters) out: the
    access lists and projects it names must exist."""
    for attr in ("user_lists", "xuser_lists"):
        for userset in words(params.get(attr, NONE)):
            if userset not in cfg.usersets:
                return f'Userset "{userset}" does not exist'
    for attr in ("projects", "xprojects"):
        for project in words(params.get(attr, NONE)):
            if project not in cfg.projects:
                return (f'denied: project "{project}" referenced in {attr} of configuration '
                        f'"{name}" does not exist')
    return None


def _hostgroup_problems(cfg: Configuration, group: HostGroup) -> Iterator[str]:
    """Members must exist, and no group may end up containing itself. On an add the new
    group does not exist yet, so naming itself is a missing group, as Grid Engine says.
    """
    for member in group.members():
        if not member.startswith("@"):
            continue
        if member not in cfg.hostgroups:
            yield f'denied: host group "{member}" does not exist'
        elif _reaches(cfg, member, group.group_name, {group.group_name: group}):
            yield (f'Hostgroup "{member}" in specification of "{group.group_name}" '
                   "would create a cycle")


def _reaches(cfg: Configuration, start: str, goal: str, replaced: dict[str, HostGroup]) -> bool:
    """Whether `goal` is `start` or nested somewhere below it."""
    seen: set[str] = set()
    todo = [start]
    while todo:
        name = todo.pop()
        if name == goal:
            return True
        if name in seen:
            continue
        seen.add(name)
        group = replaced.get(name) or cfg.hostgroups.get(name)
        if group is not None:
            todo += [m for m in group.members() if m.startswith("@")]
    return False


def object_problem(cfg: Configuration, obj: Any) -> str | None:
    """What keeps `obj` (about to be added or to replace its namesake) out of the cell."""
    if isinstance(obj, ClusterQueue):
        return _first(_queue_problems(cfg, obj))
    if isinstance(obj, ExecHostConf):
        return _first(_exechost_problems(cfg, obj))
    if isinstance(obj, HostGroup):
        return _first(_hostgroup_problems(cfg, obj))
    if isinstance(obj, ParallelEnvConf):
        return _first(_usersets(cfg, obj, ("user_lists", "xuser_lists")))
    if isinstance(obj, Project):
        return _first(_usersets(cfg, obj, ("acl", "xacl")))
    if isinstance(obj, SchedConf):
        return _first(_sched_problems(cfg, obj))
    return None


# ---- deletions -----------------------------------------------------------------------------

def _queues_naming(cfg: Configuration, attr: str, name: str) -> list[str]:
    return [q for q, queue in sorted(cfg.queues.items()) if name in items(queue, attr)]


def _configurations_naming(cfg: Configuration, attr: str, name: str) -> Iterator[str]:
    """The configurations whose `attr` names `name`: the global one, then the hosts'."""
    if name in words(getattr(cfg.conf, attr)):
        yield "global"
    for host, params in sorted(cfg.host_confs.items()):
        if name in words(params.get(attr, NONE)):
            yield host


def queue_delete_problem(cfg: Configuration, name: str) -> str | None:
    for other, queue in sorted(cfg.queues.items()):
        if other != name and name in assigned(queue, "subordinate_list"):
            return (f'Cluster queue "{name}" is referenced in cluster queue "{other}" as a '
                    "subordinate. Deletion denied")
    return None


def pe_delete_problem(cfg: Configuration, name: str) -> str | None:
    for queue in _queues_naming(cfg, "pe_list", name):
        return f'denied: Parallel environment "{name}" is still referenced in queue "{queue}".'
    return None


def project_delete_problem(cfg: Configuration, name: str) -> str | None:
    for attr in ("projects", "xprojects"):
        for queue in _queues_naming(cfg, attr, name):
            return f'denied: project "{name}" is still referenced in {attr} of queue "{queue}"'
        for host, conf in sorted(cfg.exechosts.items()):
            if name in items(conf, attr):
                return (f'denied: project "{name}" is still referenced in {attr} of exechost '
                        f'"{host}"')
        for conf_name in _configurations_naming(cfg, attr, name):
            return (f'denied: project "{name}" is still referenced in {attr} of configuration '
                    f'"{conf_name}"')
    return None


def userset_delete_problem(cfg: Configuration, name: str) -> str | None:
    where = f'denied: userset "{name}" is still referenced in'
    for attr, label in (("user_lists", "user list"), ("xuser_lists", "xuser list")):
        for queue in _queues_naming(cfg, attr, name):
            return f'{where} {label} of queue "{queue}"'
        for pe_name, pe in sorted(cfg.pes.items()):
            if name in items(pe, attr):
                return f'{where} {label} of parallel environment "{pe_name}"'
        for host, conf in sorted(cfg.exechosts.items()):
            if name in items(conf, attr):
                return f'{where} {label} of exechost "{host}"'
        for conf_name in _configurations_naming(cfg, attr, name):
            return f'{where} {label} of configuration "{conf_name}"'
    for attr in ("acl", "xacl"):
        for project_name, project in sorted(cfg.projects.items()):
            if name in items(project, attr):
                return f'{where} {attr} of project "{project_name}"'
    return None


def hostgroup_delete_problem(cfg: Configuration, name: str) -> str | None:
    queues = [q for q, queue in sorted(cfg.queues.items())
              if name in queue.hosts() or name in override_keys(queue)]
    if queues:
        return f'denied: these cluster queues still reference "{name}": {" ".join(queues)}'
    groups = [g for g, group in sorted(cfg.hostgroups.items()) if name in group.members()]
    if groups:
        return f'denied: these hostgroups still reference "{name}": {" ".join(groups)}'
    return None


def exechost_delete_problem(cfg: Configuration, name: str) -> str | None:
    if name == "global":
        return 'denied: pseudo host "global" may not be deleted'
    for queue_name, queue in sorted(cfg.queues.items()):
        if _names_host(cfg, queue.hosts(), name, set()):
            return f'Host object "{name}" is still referenced in cluster queue "{queue_name}".'
    for group_name, group in sorted(cfg.hostgroups.items()):
        if name in group.members():
            return f'Host object "{name}" is still referenced in host group "{group_name}".'
    return None


def _names_host(cfg: Configuration, members: list[str], host: str, seen: set[str]) -> bool:
    """Whether a host list names the host, itself or through its host groups (8.1.9
    refuses to delete an exec host a queue has an instance on, however it got there)."""
    for member in members:
        if member == host:
            return True
        group = cfg.hostgroups.get(member) if member not in seen else None
        if group is not None:
            seen.add(member)
            if _names_host(cfg, group.members(), host, seen):
                return True
    return False


def complex_references(cfg: Configuration, requested: Iterable[tuple[str, Iterable[str]]] = ()
                       ) -> dict[str, str]:
    """Where each complex attribute named somewhere is first named, by full name, in
    Grid Engine's words (`host "global"`): the global host, the exec hosts, the queues,
    the resource quota sets, the scheduler configuration, then `requested`, the (where,
    names) of what jobs and advance reservations ask for. qconf -Mc keeps these."""
    table = ComplexTable(cfg.complexes)
    found: dict[str, str] = {}

    def note(names: Iterable[str], where: str) -> None:
        for name in names:
            complex_attr = table.resolve(name)
            if complex_attr is not None:
                found.setdefault(complex_attr.name, where)

    for host in sorted(cfg.exechosts, key=lambda name: (name != "global", name)):
        conf = cfg.exechosts[host]
        for attr in ("complex_values", "load_scaling"):
            note(assigned(conf, attr), f'host "{host}"')
        note(items(conf, "report_variables"), f'host "{host}"')
    for name, queue in sorted(cfg.queues.items()):
        for attr in ("complex_values", "load_thresholds", "suspend_thresholds"):
            note(assigned(queue, attr), f'queue "{name}"')
    for name, rule_set in cfg.rqs.items():
        for rule in rule_set.rules:
            for limit in rule.limits:
                formula = limit.formula or ()
                note([limit.name, *(term.name for term in formula if term.name)],
                     f'resource quota set "{name}"')
    terms = parse_formula(cfg.sched.load_formula) or ()
    note([*assigned(cfg.sched, "job_load_adjustments"), *(term for _, term in terms)],
         "scheduler configuration")
    for where, names in requested:
        note(names, where)
    return found


def is_none(text: str) -> bool:
    return text.strip().upper() == NONE

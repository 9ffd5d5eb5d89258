"""qconf's options, applied in order to the cell's configuration. Pure: no I/O.

The verbs live in admin_lists (people, hosts, access lists), admin_objects (host
groups, projects, queues, PEs, exec hosts), admin_attr (the attribute verbs),
admin_conf (complexes, scheduler, global and host configurations) and admin_rqs
(resource quota sets, and the attribute verbs on them); this module knows
how many arguments each option takes, who may use it, and runs a command line.

The interactive forms (-mq, -aq, -mu, ...) never arrive here: qconf opens the editor
itself and sends the result as the file of the matching -A*/-M* option. The one
exception is `-ae file`, the exec host an `-ae` editor session produced, because Grid
Engine confirms it in other words than -Ae.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from gridd.master import admin_attr as attr
from gridd.master import admin_conf as conf
from gridd.master import admin_lists as lists
from gridd.master import admin_objects as objects
from gridd.master import admin_rqs as rqs
from gridd.master import permissions
from gridd.master.admin_base import Answer, Caller, NameSets, Verb
from gridd.master.admin_objects import (
    EXECHOSTS,
    HOSTGROUPS,
    PES,
    PROJECTS,
    QUEUES,
    USERS,
    resolve_hostgroup,
)
from gridd.model.config import Configuration

__all__ = ["VERBS", "Answer", "Caller", "Option", "resolve_hostgroup", "run_qconf"]

OPTIONAL = -1  # one argument, if the next word is not an option
REST = -2  # `minimum` arguments, then every word up to the next option


@dataclass(frozen=True)
class Option:
    count: int
    verb: Verb
    changes: bool = True  # only managers may use it, from an admin host
    operators: bool = False  # operators may too (access lists)
    minimum: int = 0  # for REST
    optional: int = 0  # after `count` arguments, up to this many more that are no options
    missing: str = ""  # what Grid Engine says when the arguments are missing, if not the usual


def _show(count: int, verb: Verb) -> Option:
    return Option(count, verb, changes=False)


def _none_defined(what: str) -> Option:
    """The listing of a kind of object gridd has none of (no share tree, calendars or
    checkpointing interfaces), in 8.1.9's words for an empty list."""

    def verb(cfg: Configuration, args: list[str], who: Caller) -> Answer:
        ans = Answer()
        ans.fail(what)
        return ans

    return _show(0, verb)


def _kill_master(cfg: Configuration, args: list[str], who: Caller) -> Answer:
    """-km: the master shuts down (and its scheduler with it)."""
    return Answer(err=[f"{who} kills qmaster"], stop_master=True)


def _kill_execds(kill_jobs: bool) -> Verb:
    """-ke / -kej host_list|all: execds shut down, their jobs going on (-ke) or killed."""

    def verb(cfg: Configuration, args: list[str], who: Caller) -> Answer:
        ans = Answer()
        hosts = sorted(who.execds) if args[0] == "all" else [
            h for h in args[0].split(",") if h]
        if args[0] == "all" and not hosts:
            ans.fail(f"no execd known on host {who.master_host}")
        for host in hosts:
            if host in who.execds:
                ans.err.append(f"sent shutdown notification to  execd host {host}")
                ans.stop_execds.append((host, kill_jobs))
            else:
                ans.fail(f"failed sending shutdown notification to unknown execd host {host}")
        return ans

    return verb


def _monitor(cfg: Configuration, args: list[str], who: Caller) -> Answer:
    """-tsm: the scheduler records its next cycle in the schedd_runlog file."""
    return Answer(err=[f"{who} triggers scheduler monitoring"], monitor=True)


def _scheduler_host(cfg: Configuration, args: list[str], who: Caller) -> Answer:
    """-sss: where the scheduler runs, which is inside the master."""
    return Answer(out=[who.master_host])


VERBS: dict[str, Option] = {
    # managers, operators, admin and submit hosts
    "-am": Option(1, lists.add_person("manager", "managers")),
    "-dm": Option(1, lists.delete_person("manager", "managers")),
    "-sm": _show(0, lists.show_list("managers")),
    "-ao": Option(1, lists.add_person("operator", "operators")),
    "-do": Option(1, lists.delete_person("operator", "operators")),
    "-so": _show(0, lists.show_list("operators")),
    "-ah": Option(1, lists.add_host("adminhost", "administrative host", "admin_hosts")),
    "-dh": Option(1, lists.delete_host("administrative host", "admin_hosts")),
    "-sh": _show(0, lists.show_list("admin_hosts")),
    "-as": Option(1, lists.add_host("submithost", "submit host", "submit_hosts")),
    "-ds": Option(1, lists.delete_host("submit host", "submit_hosts")),
    "-ss": _show(0, lists.show_list("submit_hosts")),
    # access lists
    "-au": Option(2, lists.add_to_userset, operators=True),
    "-du": Option(2, lists.delete_from_userset, operators=True),
    "-su": _show(1, lists.show_usersets),
    "-sul": _show(0, lists.show_userset_names),
    "-dul": Option(1, lists.delete_usersets, operators=True),
    "-Au": Option(1, lists.put_userset(adding=True), operators=True),
    "-Mu": Option(1, lists.put_userset(adding=False), operators=True),
    # complex attributes, scheduler, global and host configurations
    "-sc": _show(0, conf.show_complexes),
    "-Mc": Option(1, conf.replace_complexes),
    "-ssconf": _show(0, conf.show_sched),
    "-Msconf": Option(1, conf.replace_sched),
    "-sconf": _show(OPTIONAL, conf.show_conf),
    "-sconfl": _show(0, conf.list_host_confs),
    "-Aconf": Option(1, conf.put_conf(adding=True)),
    "-Mconf": Option(1, conf.put_conf(adding=False)),
    "-dconf": Option(1, conf.delete_conf),
    # host groups
    "-shgrpl": _show(0, objects.list_named(HOSTGROUPS)),
    "-shgrp": _show(1, objects.show_named(HOSTGROUPS)),
    "-shgrp_resolved": _show(1, objects.show_hostgroup_resolved),
    "-shgrp_tree": _show(1, objects.show_hostgroup_tree),
    "-Ahgrp": Option(1, objects.put_named(HOSTGROUPS, adding=True)),
    "-Mhgrp": Option(1, objects.put_named(HOSTGROUPS, adding=False)),
    "-dhgrp": Option(1, objects.delete_named(HOSTGROUPS)),
    # projects
    "-sprjl": _show(0, objects.list_named(PROJECTS)),
    "-sprj": _show(1, objects.show_named(PROJECTS)),
    "-Aprj": Option(1, objects.put_named(PROJECTS, adding=True)),
    "-Mprj": Option(1, objects.put_named(PROJECTS, adding=False)),
    "-dprj": Option(1, objects.delete_named(PROJECTS)),
    # user objects
    "-suserl": _show(0, objects.list_named(USERS)),
    "-suser": _show(1, objects.show_named(USERS)),
    "-Auser": Option(1, objects.put_named(USERS, adding=True)),
    "-Muser": Option(1, objects.put_named(USERS, adding=False)),
    "-duser": Option(1, objects.delete_named(USERS)),
    # cluster queues
    "-sql": _show(0, objects.list_named(QUEUES)),
    "-sq": _show(OPTIONAL, objects.show_queues),
    "-Aq": Option(1, objects.put_named(QUEUES, adding=True)),
    "-Mq": Option(1, objects.put_named(QUEUES, adding=False)),
    "-dq": Option(1, objects.delete_named(QUEUES)),
    # parallel environments
    "-spl": _show(0, objects.list_named(PES)),
    "-sp": _show(1, objects.show_named(PES)),
    "-Ap": Option(1, objects.put_named(PES, adding=True)),
    "-Mp": Option(1, objects.put_named(PES, adding=False)),
    "-dp": Option(1, objects.delete_named(PES)),
    # execution hosts
    "-sel": _show(0, objects.list_named(EXECHOSTS)),
    "-se": _show(1, objects.show_named(EXECHOSTS)),
    "-Ae": Option(1, objects.put_named(EXECHOSTS, adding=True)),
    "-ae": Option(1, objects.put_named(EXECHOSTS, adding=True,
                                       added="added host {} to exec host list")),
    "-Me": Option(1, objects.put_named(EXECHOSTS, adding=False)),
    "-de": Option(1, objects.delete_named(EXECHOSTS)),
    # resource quota sets
    "-srqsl": _show(0, rqs.list_sets),
    "-srqs": _show(OPTIONAL, rqs.show_sets),
    "-Arqs": Option(1, rqs.add_sets, missing="no file argument given"),
    "-Mrqs": Option(1, rqs.modify_sets, optional=1, missing="no file argument given"),
    "-drqs": Option(1, rqs.delete_sets),
    # one attribute at a time (object resource_quota: admin_rqs)
    **{option: Option(REST, rqs.routed(attr.attr_verb(mode), rqs.attr_verb(mode)), minimum=3)
       for option, mode in (("-aattr", "add"), ("-mattr", "modify"), ("-dattr", "delete"),
                            ("-rattr", "replace"))},
    **{option: Option(REST, rqs.routed(attr.attr_file_verb(mode), rqs.attr_file_verb(mode)),
                      minimum=2)
       for option, mode in (("-Aattr", "add"), ("-Mattr", "modify"), ("-Dattr", "delete"),
                            ("-Rattr", "replace"))},
    "-purge": Option(3, attr.purge_override),
    # what gridd has none of, and where its scheduler runs
    "-sstree": _none_defined("no sharetree element"),
    "-scall": _none_defined("no calendar defined"),
    "-sckptl": _none_defined("no ckpt interface definition defined"),
    "-sss": _show(0, _scheduler_host),
    "-tsm": Option(0, _monitor),
    # shutting daemons down (managers)
    "-km": Option(0, _kill_master),
    "-ke": Option(1, _kill_execds(kill_jobs=False), missing='Need a hostname or the keyword "all"'),
    "-kej": Option(1, _kill_execds(kill_jobs=True), missing='Need a hostname or the keyword "all"'),
}


def _is_option(word: str) -> bool:
    return word.startswith("-") and len(word) > 1


def _take(option: Option, args: list[str], start: int) -> list[str] | None:
    """The arguments `option` takes from `args[start:]`, or None if too few. Only the
    words taken are looked at: a command line is read in time linear in its length."""
    if option.count == OPTIONAL:
        given = start < len(args) and not _is_option(args[start])
        return args[start:start + 1] if given else []
    if option.count == REST:
        if start >= len(args):
            return None
        end, most = min(start + option.minimum, len(args)), len(args)
    else:
        if len(args) - start < option.count:
            return None
        end = start + option.count
        most = min(end + option.optional, len(args))
    while end < most and not _is_option(args[end]):
        end += 1
    return args[start:end]


def may_change(argv: list[str]) -> bool:
    """Whether these qconf arguments name an option that changes the configuration (the
    -s* views do not)."""
    return any(option.changes for option in map(VERBS.get, argv) if option is not None)


def _refusal(config: Configuration, option: Option, who: Caller) -> str | None:
    """Why the caller may not make this change: the user is judged first, then the
    host, as Grid Engine does."""
    if option.operators:
        if not permissions.is_operator(config, who.user):
            return permissions.must_be_operator(who.user)
    elif not permissions.is_manager(config, who.user):
        return permissions.must_be_manager(who.user)
    return None if who.admin_host else permissions.not_admin_host(who.host)


def run_qconf(config: Configuration, argv: list[str], who: Caller) -> Answer:
    """Apply qconf's options in order, as qconf does, stopping at a malformed one or one
    the caller may not use.
    """
    total = Answer()
    who = replace(who, names=NameSets())
    i = 0
    while i < len(argv):
        name = argv[i]
        option = VERBS.get(name)
        if option is None:
            total.fail(f'error: invalid option argument "{name}"\nUsage: qconf -help')
            break
        taken = _take(option, argv, i + 1)
        if taken is None:
            total.fail(option.missing or
                       f'error: no option argument provided to "{name}"\nUsage: qconf -help')
            break
        i += 1 + len(taken)
        refused = _refusal(config, option, who) if option.changes else None
        if refused:
            total.fail(refused)
            break
        ans = option.verb(config, taken, who)
        total.out += ans.out
        total.err += ans.err
        total.code = max(total.code, ans.code)
        total.changed |= ans.changed
        total.stop_execds += ans.stop_execds
        total.stop_master |= ans.stop_master
        total.monitor |= ans.monitor
    return total

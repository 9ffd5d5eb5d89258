"""qconf on resource quota sets: -srqsl, -srqs, -Arqs, -Mrqs, -drqs, and the attribute
verbs (-aattr/-mattr/-dattr/-rattr and their file forms) on object `resource_quota`.

The configuration keeps the sets in the master's order (`Configuration.rqs`): a set that
is added or changed goes to the end, and -srqs shows them in that order. A file is
checked whole (syntax, names, limits against the complex table) before anything changes.

Grid Engine 8.1.9's words and streams: "added" lines on stdout, "modified" and "removed"
lines of -Mrqs and -drqs on stderr, the attribute verbs' notes and confirmations on
stdout. Where 8.1.9 changes part of what a file asks (it adds the sets of an -Arqs file
that do not exist yet and says nothing of the rest), gridd changes nothing and says
why; it confirms each set it adds.
"""

from __future__ import annotations

import fnmatch

import msgspec

from gridd.formats.parsing import FormatError
from gridd.formats.rqs import (
    RqsError,
    check_limits,
    lookup_rule,
    normalize_description,
    parse_enabled,
    parse_limit_list,
    parse_rule_sets,
    print_rule_sets,
)
from gridd.master.admin_base import (
    Answer,
    Caller,
    Verb,
    attr_operands_short,
    names,
    read_attr_file,
)
from gridd.model.complexes import ComplexTable
from gridd.model.config import Configuration
from gridd.model.rqs import Limit, Rule, RuleSet

OBJECT = "resource_quota"
LABEL = "resource quota set"
ATTRIBUTES = ("name", "enabled", "description", "limit")
# how the attribute verbs' notes name the list of limits, as 8.1.9 does
_LIMITS_OF = f'"resource_quota_rules" of "{OBJECT}"'


def _missing(name: str) -> str:
    return f'denied: {LABEL} "{name}" does not exist'


def _put(cfg: Configuration, rule_set: RuleSet) -> None:
    """Store a set at the end of the master's order."""
    cfg.rqs.pop(rule_set.name, None)
    cfg.rqs[rule_set.name] = rule_set


# ---- showing --------------------------------------------------------------------------------


def list_sets(cfg: Configuration, args: list[str], who: Caller) -> Answer:
    """qconf -srqsl: the names, sorted."""
    ans = Answer(out=sorted(cfg.rqs))
    if not ans.out:
        ans.fail(f"no {LABEL} list defined")
    return ans


def show_sets(cfg: Configuration, args: list[str], who: Caller) -> Answer:
    """qconf -srqs [name_list]: the sets a list names (patterns allowed), in the master's
    order; names that match nothing are passed over unless nothing matches at all.
    """
    ans = Answer()
    patterns = names(args[0]) if args else ["*"]
    chosen = [rs for name, rs in cfg.rqs.items()
              if any(fnmatch.fnmatchcase(name, pattern) for pattern in patterns)]
    if not chosen:
        ans.fail(f"No {LABEL} found")
        return ans
    ans.out += print_rule_sets(chosen).splitlines()
    return ans


# ---- whole sets from files -----------------------------------------------------------------


def _read(cfg: Configuration, who: Caller, path: str, ans: Answer) -> dict[str, RuleSet] | None:
    """The sets of a file by name (the first of a name counts, as in 8.1.9), checked
    against the complexes; None with the complaint in `ans` when the file is wrong.
    """
    try:
        read = parse_rule_sets(who.files.get(path, ""), source=path, complexes=cfg.complexes)
    except FormatError as exc:
        ans.fail(exc.ge_message)
        return None
    if not read:
        ans.fail(f'file "{path}" holds no {LABEL}')
        return None
    sets: dict[str, RuleSet] = {}
    for rule_set in read:
        sets.setdefault(rule_set.name, rule_set)
    return sets


def add_sets(cfg: Configuration, args: list[str], who: Caller) -> Answer:
    """qconf -Arqs file: every set of the file, or none if one of them exists already."""
    ans = Answer()
    sets = _read(cfg, who, args[0], ans)
    if sets is None:
        return ans
    existing = next((name for name in sets if name in cfg.rqs), None)
    if existing is not None:
        ans.fail(f'{LABEL} "{existing}" already exists')
        return ans
    for rule_set in sets.values():
        _put(cfg, rule_set)
        ans.out.append(f'{who} added "{rule_set.name}" to {LABEL} list')
    ans.changed = True
    return ans


def modify_sets(cfg: Configuration, args: list[str], who: Caller) -> Answer:
    """qconf -Mrqs file [name_list]: with a list, the named sets take the file's versions
    (each must be in the file, else nothing changes); without one, the file's sets
    replace all sets, which 8.1.9 reports as each old set removed and each new one added.
    """
    ans = Answer()
    path = args[0]
    sets = _read(cfg, who, path, ans)
    if sets is None:
        return ans
    if len(args) < 2:
        for name in cfg.rqs:
            ans.err.append(f'{who} removed "{name}" from {LABEL} list')
        cfg.rqs.clear()
        for rule_set in sets.values():
            _put(cfg, rule_set)
            ans.err.append(f'{who} added "{rule_set.name}" to {LABEL} list')
        ans.changed = True
        return ans
    wanted = names(args[1])
    absent = next((name for name in wanted if name not in sets), None)
    if absent is not None:
        ans.fail(f'{LABEL} "{absent}" not found in file "{path}"')
        return ans
    for name in wanted:
        if name not in cfg.rqs:
            ans.fail(_missing(name))
            continue
        _put(cfg, sets[name])
        ans.err.append(f'{who} modified "{name}" in {LABEL} list')
        ans.changed = True
    return ans


def delete_sets(cfg: Configuration, args: list[str], who: Caller) -> Answer:
    """qconf -drqs name_list: each in turn (names, not patterns)."""
    ans = Answer()
    for name in names(args[0]):
        if name not in cfg.rqs:
            ans.fail(_missing(name))
            continue
        del cfg.rqs[name]
        ans.err.append(f'{who} removed "{name}" from {LABEL} list')
        ans.changed = True
    return ans


# ---- one attribute at a time ----------------------------------------------------------------


class _Refused(ValueError):
    """A target left as it was, with the words to say why."""


def _invalid(attr: str, value: str) -> str:
    return f'The attribute name ("{attr}") and/or value ("{value}") is invalid'


def _given_limits(value: str) -> list[Limit]:
    """The limits an attribute verb names: `slots=2,h_vmem=4g`, or `to slots=2` (the form
    8.1.9's file forms want); filters before `to` are refused rather than ignored.
    """
    text = value.strip()
    if text == "to" or text.startswith(("to ", "to\t")):
        text = text[2:]
    try:
        return parse_limit_list(text)
    except ValueError:
        raise _Refused(_invalid("limit", value)) from None


def _resolved(table: ComplexTable, limit: Limit) -> str:
    attr = table.resolve(limit.name)
    return attr.name if attr is not None else limit.name


def _edit_limits(mode: str, table: ComplexTable, rule: Rule, value: str,
                 notes: list[str]) -> list[Limit]:
    given = _given_limits(value)
    limits = {old.name: old for old in rule.limits}  # (a rule limits a resource once)
    if mode == "delete":
        for limit in given:
            name = _resolved(table, limit)
            if limits.pop(name, None) is None:
                notes.append(f'"{name}" does not exist in {_LIMITS_OF}')
        return list(limits.values())
    try:
        checked = check_limits(table, rule, given)
    except RqsError as exc:
        raise _Refused(str(exc)) from None
    if mode == "replace":
        return checked
    for limit in checked:
        found = limit.name in limits
        if found and mode == "add":
            notes.append(f'No modification because "{limit.name}" already exists in '
                         f"{_LIMITS_OF}")
            continue
        if not found and mode == "modify":
            notes.append(f'Unable to find "{limit.name}" in {_LIMITS_OF} - Adding new element.')
        # 8.1.9 takes the old element out and appends the new one
        limits.pop(limit.name, None)
        limits[limit.name] = limit
    return list(limits.values())


def _edited(table: ComplexTable, mode: str, rule_set: RuleSet, ident: str,
            pairs: list[tuple[str, str]], notes: list[str]) -> RuleSet:
    """A copy of the set with the attribute pairs applied; _Refused if one can't be."""
    new = msgspec.structs.replace(rule_set, rules=list(rule_set.rules))
    for attr, value in pairs:
        if attr == "enabled":
            try:
                enabled = parse_enabled(value)
            except RqsError as exc:
                raise _Refused(str(exc)) from None
            if mode != "delete":
                new.enabled = enabled
        elif attr == "description":
            if mode != "delete":
                new.description = normalize_description(value)
        else:  # limit
            index = lookup_rule(new, ident) if ident else None
            if index is None:
                raise _Refused("no resource quota rule specified for modification")
            rule = new.rules[index]
            limits = _edit_limits(mode, table, rule, value, notes)
            if not limits:
                raise _Refused(f'resource quota rule "{new.name}/{ident}" would have no '
                               "limit left")
            new.rules[index] = msgspec.structs.replace(rule, limits=limits)
    return new


def _apply(cfg: Configuration, who: Caller, mode: str, pairs: list[tuple[str, str]],
           targets: list[str], ans: Answer) -> None:
    """Each target (`set`, `set/N`, `set/rule_name`) in turn; a refused one stays as it was."""
    table = ComplexTable(cfg.complexes)
    for target in targets:
        set_name, slash, ident = target.partition("/")
        rule_set = cfg.rqs.get(set_name)
        if not set_name or (slash and not ident) or "/" in ident:
            ans.fail(_missing(target))
            continue
        if rule_set is None:
            ans.fail(_missing(set_name))
            continue
        notes: list[str] = []
        try:
            new = _edited(table, mode, rule_set, ident, pairs, notes)
        except _Refused as exc:
            ans.fail(str(exc))
            continue
        ans.out += notes
        _put(cfg, new)
        ans.out.append(f'{who} modified "{set_name}" in {LABEL} list')
        ans.changed = True


def _pairs_problem(pairs: list[tuple[str, str]]) -> str | None:
    for attr, value in pairs:
        if attr == "name":
            return "qconf: cannot change name"
        if attr not in ATTRIBUTES or not value.strip():
            return _invalid(attr, value)
    return None


def attr_verb(mode: str) -> Verb:
    """-aattr/-mattr/-dattr/-rattr resource_quota attr value set[/rule] ..."""

    def verb(cfg: Configuration, args: list[str], who: Caller) -> Answer:
        ans = Answer()
        short = attr_operands_short(args, from_file=False)
        if short is not None:
            ans.fail(short)
            return ans
        pairs = [(args[1], args[2])]
        problem = _pairs_problem(pairs)
        if problem:
            ans.fail(problem)
            return ans
        _apply(cfg, who, mode, pairs, args[3:], ans)
        return ans

    return verb


def attr_file_verb(mode: str) -> Verb:
    """-Aattr/-Mattr/-Dattr/-Rattr resource_quota file set[/rule] ...: the file's
    `attr value` lines, such as `limit to slots=20` or `enabled TRUE`.
    """

    def verb(cfg: Configuration, args: list[str], who: Caller) -> Answer:
        ans = Answer()
        short = attr_operands_short(args, from_file=True)
        if short is not None:
            ans.fail(short)
            return ans
        pairs = read_attr_file(who, args[1], ATTRIBUTES)
        if isinstance(pairs, str):
            ans.fail(pairs)
            return ans
        problem = _pairs_problem(pairs)
        if problem:
            ans.fail(problem)
            return ans
        _apply(cfg, who, mode, pairs, args[2:], ans)
        return ans

    return verb


def routed(verb: Verb, rqs_verb: Verb) -> Verb:
    """An attribute verb that hands object `resource_quota` to its RQS counterpart."""

    def route(cfg: Configuration, args: list[str], who: Caller) -> Answer:
        return (rqs_verb if args and args[0] == OBJECT else verb)(cfg, args, who)

    return route

"""Resource quota sets in planning: the layer above global, host and queue instance.

For a job (who: user, group, project, PE) on a queue instance, every enabled rule set
contributes its first rule whose filters match both; that rule's limits apply to the
usage booked under the rule and its expanded scope (each member of a `{...}` filter has
its own usage, a plain list shares one). Consumable limits cap the amounts jobs take;
limits on fixed attributes are requirements on what a job asks for.

Matching is the costly part, so it is split by what it depends on: a rule's user,
project and PE filters depend only on the job (a bit mask per set and job), its queue
and host filters only on the instance (a bit mask per set and instance; instances with
equal masks share a signature). The first rule a set applies is the lowest bit of the
two masks and-ed, worked out once per job and signature.
"""

from __future__ import annotations

import fnmatch
import math
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass

from gridd.model.cluster import Instance, PlanConf, Running
from gridd.model.complexes import ComplexTable, parse_value
from gridd.model.rqs import FILTERS, Filter, QuotaRow, Rule, RuleSet, rule_id
from gridd.sched.match import JobRequest, Matcher, Need

_EPSILON = 1e-9
_TERM = re.compile(r"([+-]?)(?:\$([A-Za-z_][\w.-]*)(?:\*([0-9.]+))?|([0-9.]+))")


@dataclass(frozen=True, slots=True)
class Who:
    """The job's side of matching; pe is the PE a placement is tried in ("" for none)."""

    user: str
    group: str = ""
    project: str = ""
    pe: str = ""


Key = tuple[int, int, str, str, str, str, str]  # set, rule, user, project, pe, queue, host


@dataclass(frozen=True, slots=True)
class _Check:
    """One limit of one applied rule for one job on one instance."""

    usage: dict[str, float]  # what the rule's scope uses, by resource
    resource: str
    per_slot: float  # amount per slot (consumable YES)
    per_job: float  # amount once per job, on the master instance (consumable JOB)
    limit: float  # math.inf for a requirement that holds
    why: str


@dataclass(frozen=True, slots=True)
class Usage:
    """One line of qquota: a rule, its expanded scope, a resource used against its limit."""

    set_name: str
    rule: str
    key: Key
    resource: str
    used: float
    limit: str  # as the rule says, or the computed value of a dynamic limit


class Quotas:
    """The enabled rule sets of one cycle (or one qquota), with the usage booked so far."""

    def __init__(self, conf: PlanConf, matcher: Matcher,
                 loads: Mapping[str, Mapping[str, str]]) -> None:
        self.sets: list[RuleSet] = list(conf.rqs)
        self.matcher = matcher
        self.table: ComplexTable = matcher.table
        self.conf = conf
        self.loads = loads
        self.usage: dict[Key, dict[str, float]] = {}
        self._instance_sig: dict[str, int] = {}
        self._sig_masks: dict[tuple[int, ...], int] = {}
        self._sig_list: list[tuple[int, ...]] = []
        self._who_masks: dict[Who, tuple[int, ...]] = {}
        self._selected: dict[tuple[Who, int], tuple[tuple[int, int], ...]] = {}
        self._checks: dict[tuple[Who, JobRequest, str], tuple[_Check, ...]] = {}

    # ---- matching ------------------------------------------------------------------------

    def applied(self, who: Who, qi: Instance) -> tuple[tuple[int, int], ...]:
        """(set, rule) for every set with a rule matching the job on this instance."""
        sig = self._signature(qi)
        found = self._selected.get((who, sig))
        if found is None:
            who_masks = self._who_masks.get(who)
            if who_masks is None:
                who_masks = self._who_masks[who] = tuple(
                    _mask(rs.rules, lambda rule: self._job_matches(rule, who))
                    for rs in self.sets)
            picked = []
            for index, (wm, im) in enumerate(zip(who_masks, self._sig_list[sig], strict=True)):
                both = wm & im
                if both:
                    picked.append((index, (both & -both).bit_length() - 1))
            found = self._selected[(who, sig)] = tuple(picked)
        return found

    def _signature(self, qi: Instance) -> int:
        sig = self._instance_sig.get(qi.name)
        if sig is None:
            masks = tuple(_mask(rs.rules, lambda rule: self._place_matches(rule, qi))
                          for rs in self.sets)
            sig = self._sig_masks.get(masks)
            if sig is None:
                sig = self._sig_masks[masks] = len(self._sig_list)
                self._sig_list.append(masks)
            self._instance_sig[qi.name] = sig
        return sig

    def _job_matches(self, rule: Rule, who: Who) -> bool:
        return (_matches(rule.users, lambda item: self._user_is(item, who))
                and _optional_matches(rule.projects, who.project)
                and _optional_matches(rule.pes, who.pe))

    def _place_matches(self, rule: Rule, qi: Instance) -> bool:
        return (_matches(rule.queues, lambda item: fnmatch.fnmatchcase(qi.queue, item))
                and _matches(rule.hosts, lambda item: self._host_is(item, qi.host)))

    def _user_is(self, item: str, who: Who) -> bool:
        if item.startswith("@"):
            entries = self.conf.usersets.get(item[1:], ())
            return who.user in entries or (bool(who.group) and f"@{who.group}" in entries)
        return fnmatch.fnmatchcase(who.user, item)

    def _host_is(self, item: str, host: str) -> bool:
        if item.startswith("@"):
            return any(host in members for group, members in self.conf.hostgroups.items()
                       if fnmatch.fnmatchcase(group, item))
        return fnmatch.fnmatchcase(host, item)

    # ---- limits and usage -----------------------------------------------------------------

    def _key(self, set_index: int, rule_index: int, who: Who, qi: Instance) -> Key:
        rule = self.sets[set_index].rules[rule_index]
        return (set_index, rule_index,
                who.user if _expands(rule.users) else "",
                who.project if _expands(rule.projects) else "",
                who.pe if _expands(rule.pes) else "",
                qi.queue if _expands(rule.queues) else "",
                qi.host if _expands(rule.hosts) else "")

    def checks(self, who: Who, qi: Instance, req: JobRequest) -> tuple[_Check, ...]:
        """The limits that bind this job on this instance, each with its usage."""
        memo = (who, req, qi.name)
        found = self._checks.get(memo)
        if found is not None:
            return found
        needs = {need.name: need for need in req.hard}
        out = []
        for set_index, rule_index in self.applied(who, qi):
            rule = self.sets[set_index].rules[rule_index]
            key = self._key(set_index, rule_index, who, qi)
            why = (f'cannot run because it exceeds limit "{key_text(key)}" in rule '
                   f'"{rule_id(self.sets[set_index], rule_index)}"')
            for limit in rule.limits:
                attr = self.table.resolve(limit.name)
                need = needs.get(attr.name) if attr else None
                if attr is None or need is None:
                    continue
                if attr.consumable == "NO":
                    if not _requirement_holds(need, attr.type, limit.value):
                        out.append(_Check({}, attr.name, 0.0, 0.0, -1.0, why))
                    continue
                per_slot = float(need.key) if need.consumable == "YES" else 0.0
                per_job = float(need.key) if need.consumable == "JOB" else 0.0
                if per_slot or per_job:
                    usage = self.usage.setdefault(key, {})
                    out.append(_Check(usage, attr.name, per_slot, per_job,
                                      self.limit_value(limit.value, attr.type, qi.host), why))
        found = self._checks[memo] = tuple(out)
        return found

    def refusal(self, who: Who, qi: Instance, req: JobRequest, slots: int,
                master: bool = True) -> str | None:
        """Why the quotas refuse `slots` slots of the job here, or None."""
        for check in self.checks(who, qi, req):
            amount = check.per_slot * slots + (check.per_job if master else 0.0)
            if check.usage.get(check.resource, 0.0) + amount > check.limit + _EPSILON:
                return check.why
        return None

    def room(self, who: Who, qi: Instance, req: JobRequest) -> tuple[float, str | None]:
        """How many slots of the job the quotas allow here (not counting per-job amounts),
        and the refusal that bounds it."""
        room, why = math.inf, None
        for check in self.checks(who, qi, req):
            if check.limit < 0:
                return 0.0, check.why
            if check.per_slot:
                left = (check.limit - check.usage.get(check.resource, 0.0)) / check.per_slot
                if left < room:
                    room, why = max(math.floor(left + _EPSILON), 0), check.why
        return room, why

    def placement_excess(self, who: Who, granted: list[tuple[Instance, int]],
                         req: JobRequest) -> tuple[str, int] | None:
        """A limit a placement over several instances exceeds together (a user's slots
        over several hosts, say), and by how many slots at least; None when none."""
        wanted: dict[tuple[int, str], tuple[_Check, float]] = {}
        for index, (qi, slots) in enumerate(granted):
            for check in self.checks(who, qi, req):
                amount = check.per_slot * slots + (check.per_job if index == 0 else 0.0)
                mark = (id(check.usage), check.resource)
                wanted[mark] = (check, wanted.get(mark, (check, 0.0))[1] + amount)
        for check, amount in wanted.values():
            over = check.usage.get(check.resource, 0.0) + amount - check.limit
            if over > _EPSILON:
                slots = math.ceil(over / check.per_slot - _EPSILON) if check.per_slot else 0
                return check.why, max(slots, 1) if check.per_slot else 1 << 31
        return None

    def book(self, who: Who, qi: Instance, req: JobRequest, slots: int,
             master: bool = True) -> None:
        for check in self.checks(who, qi, req):
            amount = check.per_slot * slots + (check.per_job if master else 0.0)
            if amount:
                check.usage[check.resource] = check.usage.get(check.resource, 0.0) + amount

    def book_running(self, running: Iterable[Running],
                     instances: Mapping[str, Instance]) -> None:
        """Book what started tasks hold; an instance gone from the configuration still
        counts under the queue and host it had."""
        for task in running:
            req = self.matcher.request(task.hard)
            who = Who(task.owner, task.group, task.project, task.pe)
            for index, (name, slots) in enumerate(task.granted):
                qi = instances.get(name) or _gone(name)
                self.book(who, qi, req, slots, master=index == 0)

    def limit_value(self, text: str, type_: str, host: str) -> float:
        """A limit as a number: fixed, or a dynamic formula of the host's values."""
        if "$" not in text:
            try:
                return float(parse_value(type_, text))
            except ValueError:
                return math.inf
        total = 0.0
        for sign, name, weight, number in _TERM.findall(text):
            value = float(number) if number else self._host_number(host, name) * float(
                weight or 1)
            total += -value if sign == "-" else value
        return total

    def _host_number(self, host: str, name: str) -> float:
        attr = self.table.resolve(name)
        if attr is None:
            return 0.0
        text = self.conf.host_values.get(host, {}).get(attr.name)
        if text is None:
            text = self.loads.get(host, {}).get(attr.name)
        try:
            return float(parse_value(attr.type, text)) if text is not None else 0.0
        except ValueError:
            return 0.0

    def usage_lines(self) -> list[Usage]:
        """Every rule scope with something booked, in set and rule order (qquota)."""
        lines = []
        for key in sorted(self.usage, key=lambda k: (k[0], k[1], k[2:])):
            used = self.usage[key]
            rs = self.sets[key[0]]
            rule = rs.rules[key[1]]
            for limit in rule.limits:
                attr = self.table.resolve(limit.name)
                amount = used.get(attr.name if attr else limit.name, 0.0)
                if amount:
                    value = limit.value
                    if "$" in value and attr is not None:
                        value = _number_text(self.limit_value(value, attr.type, key[6]))
                    lines.append(Usage(rs.name, rule_id(rs, key[1]), key, limit.name,
                                       amount, value))
        return lines


    def rows(self, users: list[str], hosts: list[str], queues: list[str], pes: list[str],
             projects: list[str], resources: list[str]) -> list[QuotaRow]:
        """qquota's lines for the selected consumers and places (empty lists: all). A line
        of an expanded scope belongs to its member; a shared one to whoever its rule's
        filter matches."""
        wanted = {attr.name for name in resources if (attr := self.table.resolve(name))}
        out = []
        for line in self.usage_lines():
            rule = self.sets[line.key[0]].rules[line.key[1]]
            attr = self.table.resolve(line.resource)
            name = attr.name if attr else line.resource
            if resources and name not in wanted:
                continue
            if not self._selected(rule, line.key, users, hosts, queues, pes, projects):
                continue
            out.append(QuotaRow(rule=line.rule, resource=name,
                                type=attr.type if attr else "INT", used=line.used,
                                limit=line.limit, filters=_shown_filters(rule, line.key)))
        return out

    def _selected(self, rule: Rule, key: Key, users: list[str], hosts: list[str],
                  queues: list[str], pes: list[str], projects: list[str]) -> bool:
        _, _, k_user, k_project, k_pe, k_queue, k_host = key

        def among(names: list[str], member: str, matches: Callable[[str], bool]) -> bool:
            if not names or "*" in names:
                return True
            if member:
                return any(fnmatch.fnmatchcase(member, n) for n in names)
            return any(matches(n) for n in names)

        return (among(users, k_user, lambda u: _matches(
                    rule.users, lambda item: self._user_is(item, Who(u))))
                and among(hosts, k_host, lambda h: _matches(
                    rule.hosts, lambda item: self._host_is(item, h)))
                and among(queues, k_queue, lambda q: _matches(
                    rule.queues, lambda item: fnmatch.fnmatchcase(q, item)))
                and among(pes, k_pe, lambda pe: _optional_matches(rule.pes, pe))
                and among(projects, k_project, lambda pr: _optional_matches(rule.projects, pr)))


def _shown_filters(rule: Rule, key: Key) -> list[tuple[str, list[str], list[str]]]:
    """The rule's filters as a qquota line shows them: an expanded one by its member."""
    members = dict(zip(FILTERS, key[2:], strict=True))
    shown = []
    for name in FILTERS:
        flt = getattr(rule, name)
        if flt is None:
            continue
        if flt.expand:
            shown.append((name, [members[name]], []))
        else:
            shown.append((name, list(flt.scope), list(flt.xscope)))
    return shown


def key_text(key: Key) -> str:
    """The scope as the scheduler names it: expanded members by filter, "/" after each."""
    return "".join(f"{part}/" for part in key[2:])


def _mask(rules: list[Rule], matches: Callable[[Rule], bool]) -> int:
    mask = 0
    for index, rule in enumerate(rules):
        if matches(rule):
            mask |= 1 << index
    return mask


def _matches(flt: Filter | None, is_item: Callable[[str], bool]) -> bool:
    """A user, queue or host filter: absent or `*` matches all; exclusions always win."""
    if flt is None:
        return True
    if any(item == "*" or is_item(item) for item in flt.xscope):
        return False
    return not flt.scope or any(item == "*" or is_item(item) for item in flt.scope)


def _optional_matches(flt: Filter | None, value: str) -> bool:
    """A project or PE filter: `*` means jobs that have one, `!*` jobs that have none."""
    if flt is None:
        return True
    if any((item == "*" and value) or (value and fnmatch.fnmatchcase(value, item))
           for item in flt.xscope):
        return False
    if not flt.scope:
        return True
    return any((item == "*" and bool(value)) or (bool(value) and fnmatch.fnmatchcase(value, item))
               for item in flt.scope)


def _expands(flt: Filter | None) -> bool:
    return flt is not None and flt.expand


def _requirement_holds(need: Need, type_: str, text: str) -> bool:
    try:
        offered = parse_value(type_, text)
    except ValueError:
        return True
    return bool(need.test(need.key, offered))


def _gone(name: str) -> Instance:
    queue, _, host = name.partition("@")
    return Instance(name=name, queue=queue, host=host, slots=0)


def _number_text(value: float) -> str:
    return str(int(value)) if value == int(value) else f"{value:f}"

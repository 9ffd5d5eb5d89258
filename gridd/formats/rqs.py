"""Resource quota sets in text: what `qconf -srqs` prints and `qconf -Arqs`/`-Mrqs` read.

The syntax is grammar/rqs.lark. Reading checks a set the way Grid Engine 8.1.9's master
does, in its words where it has any (`unknown attribute name "slots"`, `resource quota
set has no rules`, ...): given the complex table, every limit names an attribute (by
name or shortcut; the full name is kept), its value suits the attribute's type, and a
dynamic limit (`slots=$num_proc*2-1`) references INT or DOUBLE attributes and sits in a
rule whose hosts are expanded. A dynamic limit is parsed then, once (the grammar's
`formula`), and kept as written and as its terms, which the scheduler works out per
host. Without a table only the syntax and the names are checked, which is what a client
needs to find the sets an edited file holds.

Printing is canonical: a rule's parts in the order `name`, users, projects, pes, queues,
hosts, `to`; a filter's items before its exclusions; every line wrapped at 80 columns as
Grid Engine wraps it. So print(parse(text)) is the text `qconf -srqs` shows.

8.1.9 facts kept here: `enabled` is FALSE when the file does not say; it reads
true/false/t/f/yes/no/y/n in any case and 1/0. A description is the rest of its line
with blanks collapsed (quotes are kept, and are part of it). TIME limits are kept in
seconds (`h_rt=1:0:0` shows as `h_rt=3600`); other values as written. A filter's
repeated items count once. Where 8.1.9 takes something it cannot mean (a limit with no
value, `slots=1.5`, `users a,,b`, a formula ending in `*`, a sign after `*` or after
another sign), we refuse it.
"""

from __future__ import annotations

import contextlib
import math
import re
from collections.abc import Iterable, Iterator, Sequence
from typing import TYPE_CHECKING, Any, NamedTuple

from gridd.formats.objects import CONTINUATION, LINE_WIDTH, break_line, join_continued
from gridd.formats.parsing import (
    FormatError,
    at_end,
    error_position,
    expected_names,
    expected_terminals,
    load_parser,
    offending_word,
)
from gridd.model.complexes import (
    CONSUMABLE_TYPES,
    STRING_TYPES,
    TYPE_WORDS,
    ComplexAttr,
    ComplexTable,
    parse_value,
)
from gridd.model.rqs import FILTERS, Filter, Limit, Rule, RuleSet, Term
from gridd.model.values import is_unsigned

if TYPE_CHECKING:
    from lark import Lark, Token
    from lark.exceptions import UnexpectedInput

# ---- printing ----------------------------------------------------------------------------

_INDENT = "   "
_KEY_WIDTH = 12  # `name`, `description`, `enabled`, `limit`, then one blank, then the value


def filter_text(flt: Filter) -> str:
    """`@staff,!roland`, or `{@linux,!vm}` when expanded."""
    text = ",".join([*flt.scope, *(f"!{item}" for item in flt.xscope)])
    return f"{{{text}}}" if flt.expand else text


def limits_text(limits: Iterable[Limit]) -> str:
    return ",".join(f"{limit.name}={limit.value}" for limit in limits)


def rule_text(rule: Rule) -> str:
    """A rule as its `limit` line holds it: `name r1 users * hosts {@linux} to slots=2`."""
    parts = ["name", rule.name] if rule.name else []
    for kind in FILTERS:
        flt = getattr(rule, kind)
        if flt is not None:
            parts += [kind, filter_text(flt)]
    return " ".join([*parts, "to", limits_text(rule.limits)])


def _wrap(line: str, first_value: int) -> str:
    """Grid Engine's wrapping of a shown line: break at the last blank (or after the last
    comma) that keeps the line and its ` \\` within 80 columns, else at the first one;
    continue three blanks in. The blank before the value is a break point, the blanks
    that pad the name column are not. Unlike Grid Engine we never break at a blank that
    follows a comma: reading the line back would lose that blank (`a, \\` is read `a,`).
    """
    lines = []
    start = first_value - 1  # the blank before the value
    while len(line) > LINE_WIDTH:
        cut = break_line(line, _cuts(line, start, first_value))
        if cut is None:
            break
        head, tail = cut
        lines.append(head + CONTINUATION)
        line = _INDENT + tail
        start = len(_INDENT) + 1
        first_value = 0
    lines.append(line)
    return "\n".join(lines)


def _cuts(line: str, start: int, first_value: int) -> Iterator[tuple[int, int]]:
    """A rule line's break points from `start` (see _wrap)."""
    end = len(line.rstrip())  # a blank breaks only if something follows it
    for index in range(start, len(line)):
        char, before = line[index], line[index - 1]
        if char == " " and (before not in " ," or index == first_value - 1) and index + 1 < end:
            yield index, index + 1
        elif before == "," and char != " " and index > start:
            yield index, index


def _attribute_line(key: str, value: str) -> str:
    padded = f"{_INDENT}{key.ljust(_KEY_WIDTH)} "
    return _wrap(padded + value, len(padded))


def print_rule_set(rule_set: RuleSet) -> str:
    """One set exactly as `qconf -srqs` shows it, braces included."""
    lines = [
        "{",
        _attribute_line("name", rule_set.name),
        _attribute_line("description", rule_set.description),
        _attribute_line("enabled", "TRUE" if rule_set.enabled else "FALSE"),
        *(_attribute_line("limit", rule_text(rule)) for rule in rule_set.rules),
        "}",
    ]
    return "\n".join(lines) + "\n"


def print_rule_sets(rule_sets: Iterable[RuleSet]) -> str:
    return "".join(print_rule_set(rule_set) for rule_set in rule_sets)


def template(names: Sequence[str] = ("template",)) -> str:
    """What `qconf -arqs [name,...]` opens the editor on: one disabled set per name."""
    return print_rule_sets(
        RuleSet(name=name, enabled=False, rules=[Rule(limits=[Limit("slots", "0")])])
        for name in names
    )


# ---- values -------------------------------------------------------------------------------


class RqsError(ValueError):
    """A part of a rule set that Grid Engine refuses, in its words (or ours in its style)."""


_TRUE = frozenset({"true", "t", "yes", "y", "1"})
_FALSE = frozenset({"false", "f", "no", "n", "0"})


def parse_enabled(text: str) -> bool:
    word = text.strip().lower()
    if word in _TRUE:
        return True
    if word in _FALSE:
        return False
    raise RqsError(f'error parsing value "{text.strip()}"')


def normalize_description(text: str) -> str:
    """A description as Grid Engine keeps it: its continued lines joined, blanks collapsed."""
    return " ".join(join_continued(text).split())


_FORBIDDEN = {
    "/": "Slash", "@": "At", ":": "Colon", ",": "Comma", "{": "Braces", "}": "Braces",
    "[": "Brackets", "]": "Brackets", "(": "Parenthesis", ")": "Parenthesis", "|": "Pipe",
    "%": "Percent", "'": "Quote", '"': "Double quote", "\\": "Backslash",
}
_KEYWORDS = ("NONE", "ALL", "TEMPLATE")


def name_problem(name: str) -> str | None:
    """Why `name` can't name a resource quota set (Grid Engine's words), or None."""
    for char in name:
        if char.isspace():
            return "Space (' ') not allowed in objectname"
        if char in _FORBIDDEN:
            return f"{_FORBIDDEN[char]} ('{char}') not allowed in objectname"
        if not char.isprintable() or not char.isascii():
            return f'Character "{char}" not allowed in objectname'
    if name.upper() in _KEYWORDS:
        return f'Keyword ("{name.upper()}") not allowed as objectname'
    return None


def rule_name_problem(name: str) -> str | None:
    """A rule's name follows the rules of object names and is not a number, since
    `set/2` names the second rule (8.1.9 takes any name)."""
    if name.isdigit():
        return f'rule name "{name}" is a number: rules are named by their position already'
    return name_problem(name)


def lookup_rule(rule_set: RuleSet, ident: str) -> int | None:
    """The index of the rule `set/ident` names: its position from 1, or its name."""
    if is_unsigned(ident):
        index = int(ident) - 1
        return index if 0 <= index < len(rule_set.rules) else None
    return next((i for i, rule in enumerate(rule_set.rules) if rule.name == ident), None)


_FORMULA_TYPES = frozenset({"INT", "DOUBLE"})
_TEXT_TYPES = STRING_TYPES | {"HOST"}
# A formula's number: unsigned, an exponent's sign being an operator of the formula.
_NUMBER = re.compile(r"(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][0-9]+)?")


def is_dynamic(value: str) -> bool:
    return "$" in value


def _formula(table: ComplexTable, attr: str, text: str) -> list[Term]:
    """A dynamic limit's terms, their references by full name; RqsError if it is not
    one (see the grammar's `formula`), with Grid Engine's words for a term's mistakes."""
    from lark.exceptions import UnexpectedInput

    try:
        terms = _parser().parse(text, start="formula")
    except UnexpectedInput:
        raise RqsError(f'attribute "{attr}" has an invalid dynamical limit "{text}"') from None
    return [_term(table, sign, words) for sign, words in terms]


def _term(table: ComplexTable, sign: str, words: list[str]) -> Term:
    """`$complex`, a number, either of them `*weight`; checked in 8.1.9's order."""
    if len(words) > 2:
        raise RqsError('"dynamical_limit" may not use multiple weighting factors')
    weight = _number(words[1]) if len(words) == 2 else 1.0
    if weight is None:
        raise RqsError(f'"dynamical_limit" uses "{words[1]}" as weighting factor '
                       "(only numbers are allowed)")
    base = words[0]
    if base.startswith("$"):
        factor, name = weight, _formula_reference(table, base[1:])
    else:
        number = _number(base)
        if number is None:  # 8.1.9 takes it for a name, from a `$` in it if there is one
            raise RqsError('"dynamical_limit" references not existing complex attribute '
                           f'"{base[base.find("$"):] if "$" in base else base}"')
        factor, name = number * weight, ""
    return Term(-factor if sign == "-" else factor, name)


def _number(word: str) -> float | None:
    """A formula's number, if the word is one (and finite: `1e999` is not)."""
    if _NUMBER.fullmatch(word) is None:
        return None
    number = float(word)
    return number if math.isfinite(number) else None


def _formula_reference(table: ComplexTable, name: str) -> str:
    attr = table.resolve(name)
    if attr is None:
        raise RqsError(f'"dynamical_limit" references not existing complex attribute "{name}"')
    if attr.type in _TEXT_TYPES:
        raise RqsError('String, CString, ReString or Host attributes are not allowed in '
                       f'"dynamical_limit": "{attr.name}"')
    if attr.type not in _FORMULA_TYPES:
        raise RqsError('only INT or DOUBLE attributes are allowed in "dynamical_limit": '
                       f'"{attr.name}"')
    return attr.name


def _static_value(attr: ComplexAttr, text: str) -> str:
    if attr.type in _TEXT_TYPES:
        return text
    infinite = attr.type != "BOOL" and text.strip().lower() in ("inf", "infinity")
    if infinite and attr.consumable != "NO":  # 8.1.9 refuses INFINITY (takes "inf" by mistake)
        raise RqsError(f'attribute "{attr.name}" is not a value that can be set to infinity')
    if infinite:
        return text
    try:
        number = parse_value(attr.type, text)
    except (ValueError, IndexError):
        raise RqsError(f'attribute "{attr.name}" is not a {TYPE_WORDS[attr.type]} value'
                       ) from None
    assert isinstance(number, float)
    if number < 0 and attr.consumable != "NO":
        raise RqsError(f'attribute "{attr.name}" is consumable but has a negative value')
    if attr.type == "TIME":
        return str(int(number + 0.5))
    return text


def check_limit(table: ComplexTable, limit: Limit, *, per_host: bool) -> Limit:
    """The limit as kept: the attribute's full name, the value checked for its type (a
    TIME in seconds), a dynamic one as written and parsed. Raises RqsError with Grid
    Engine's words.
    """
    attr = table.resolve(limit.name)
    if attr is None:
        raise RqsError(f'"resource_quota" references not existing complex attribute '
                       f'"{limit.name}"')
    if not is_dynamic(limit.value):
        return Limit(attr.name, _static_value(attr, limit.value))
    if not per_host:
        raise RqsError("dynamic limits are only supported for per host rules")
    if attr.type not in CONSUMABLE_TYPES:
        raise RqsError(f'attribute "{attr.name}" can not have a dynamical limit')
    return Limit(attr.name, limit.value, _formula(table, attr.name, limit.value))


def with_formulas(table: ComplexTable, rule_set: RuleSet) -> None:
    """Parse, in place, the rule set's dynamic limits kept as text alone, as spools
    written before limits were kept parsed hold them: the scheduler works out only
    parsed ones. A limit that no longer parses (its complex gone) stays as it is."""
    for rule in rule_set.rules:
        for index, limit in enumerate(rule.limits):
            if limit.formula is None and is_dynamic(limit.value):
                with contextlib.suppress(RqsError):
                    rule.limits[index] = check_limit(table, limit, per_host=True)


def is_per_host(rule: Rule) -> bool:
    """Whether each host has a rule of its own, where dynamic limits make sense."""
    return rule.hosts is not None and rule.hosts.expand


def check_limits(table: ComplexTable, rule: Rule, limits: Iterable[Limit]) -> list[Limit]:
    """check_limit for each; a resource limited twice is refused."""
    checked: list[Limit] = []
    for limit in limits:
        _add_limit(table, rule, checked, limit)
    return checked


def _add_limit(table: ComplexTable | None, rule: Rule, checked: list[Limit],
               limit: Limit) -> None:
    """Append the limit, checked against the complexes when there are any to check it
    against; RqsError if it can't be, or if its resource is limited already."""
    if table is not None:
        limit = check_limit(table, limit, per_host=is_per_host(rule))
    if any(old.name == limit.name for old in checked):
        raise RqsError(f'attribute "{limit.name}" appears more than once')
    checked.append(limit)


_PAIR = re.compile(r"([^\s,=\\]+)=([^\s,\\]+)")


def parse_limit_list(text: str) -> list[Limit]:
    """`slots=2,h_vmem=4g` (blanks may follow commas), names as written; ValueError if
    it is not such a list."""
    limits = []
    for item in re.split(r",[ \t]*", text.strip()):
        pair = _PAIR.fullmatch(item)
        if pair is None:
            raise ValueError(f'"{item}" is not a resource=value pair')
        limits.append(Limit(pair.group(1), pair.group(2)))
    return limits


# ---- parsing ------------------------------------------------------------------------------


class _Part(NamedTuple):
    """One element of a set or a rule as read, with the token that placed it."""

    key: str
    token: Any  # a lark Token (the value, or the key when that is where a problem lies)
    value: Any


_SINGULAR = {"users": "user", "projects": "project", "pes": "pe", "queues": "queue",
             "hosts": "host"}
_DESCRIBED = {
    "REST": "a value",
    "WORD": "a rule name",
    "ITEM": "a name, @group, * or !name",
    "PAIR": "a resource=value pair",
    "FILTER_KW": "users, projects, pes, queues or hosts",
    "KW_NAME": '"name"',
    "KW_ENABLED": '"enabled"',
    "KW_DESCRIPTION": '"description"',
    "KW_LIMIT": '"limit"',
    "KW_TO": '"to"',
    "LBRACE": '"{"',
    "RBRACE": '"}"',
    "_NL": "end of line",
}


def _transformer() -> Any:
    from lark import Token, Transformer

    class _Raw(Transformer[Token, list[Any]]):
        """Parts with their tokens; checking needs the whole set, so it comes after."""

        def start(self, children: list[Any]) -> list[Any]:
            return children

        def rule_set(self, children: list[Any]) -> tuple[Token, list[_Part]]:
            return children[0], children[1:-1]

        def name(self, children: list[Token]) -> _Part:
            return _Part("name", children[1], str(children[1]))

        def enabled(self, children: list[Token]) -> _Part:
            return _Part("enabled", children[1], str(children[1]))

        def description(self, children: list[Token]) -> _Part:
            return _Part("description", children[1], str(children[1]))

        def limit(self, children: list[Any]) -> _Part:
            parts = [c for c in children if isinstance(c, _Part)]
            return _Part("limit", children[0], parts)

        def rule_name(self, children: list[Token]) -> _Part:
            return _Part("name", children[1], str(children[1]))

        def filter(self, children: list[Any]) -> _Part:
            return _Part(str(children[0]), children[0], children[1])

        def scope(self, children: list[Any]) -> tuple[bool, list[Token]]:
            return False, children[0]

        def expanded(self, children: list[Any]) -> tuple[bool, list[Token]]:
            return True, children[1]

        def items(self, children: list[Token]) -> list[Token]:
            return children

        braced = items

        def limits(self, children: list[Token]) -> _Part:
            return _Part("to", children[0], children)

        def formula(self, children: list[Any]) -> list[tuple[str, list[str]]]:
            """(sign, words) per term: `-$p*2+1` is [("-", ["$p", "2"]), ("+", ["1"])]."""
            terms = []
            sign = "+"
            for child in children:
                if isinstance(child, Token):
                    sign = str(child)
                else:
                    terms.append((sign, child))
            return terms

        def term(self, children: list[Token]) -> list[str]:
            return [str(child) for child in children]

    return _Raw()


def _parser() -> Lark:
    return load_parser("rqs", _transformer, ("start", "formula"))


def parse_rule_sets(
    text: str, *, source: str = "<stdin>", complexes: Iterable[ComplexAttr] | None = None
) -> list[RuleSet]:
    """The sets a text holds, in its order. With `complexes`, limits are checked and
    named by full name (see check_limit); FormatError says what is wrong and where, its
    ge_message in Grid Engine's words.
    """
    from lark.exceptions import UnexpectedInput

    parser = _parser()
    try:
        raw = parser.parse(text, start="start")
    except UnexpectedInput as error:
        raise _syntax_error(parser, error, text, source) from None
    table = ComplexTable(complexes) if complexes is not None else None
    return [_rule_set(brace, parts, table, source) for brace, parts in raw]


def _fail(message: str, source: str, token: Token) -> FormatError:
    return FormatError(message, source, token.line or 0, token.column or 0)


def _once(parts: list[_Part], source: str) -> dict[str, _Part]:
    seen: dict[str, _Part] = {}
    for part in parts:
        if part.key in seen:
            raise _fail(f'attribute "{part.key}" appears more than once', source, part.token)
        seen[part.key] = part
    return seen


def _rule_set(brace: Token, parts: list[_Part], table: ComplexTable | None,
              source: str) -> RuleSet:
    single = _once([p for p in parts if p.key != "limit"], source)
    if "name" not in single:
        raise _fail("resource quota set has no name", source, brace)
    name_part = single["name"]
    name = name_part.value.strip()
    problem = name_problem(name)
    if problem:
        raise _fail(problem, source, name_part.token)
    enabled = False
    if "enabled" in single:
        try:
            enabled = parse_enabled(single["enabled"].value)
        except RqsError as exc:
            raise _fail(str(exc), source, single["enabled"].token) from None
    description = "NONE"
    if "description" in single:
        description = normalize_description(single["description"].value)
    rules = [_rule(part, table, source) for part in parts if part.key == "limit"]
    if not rules:
        raise _fail("resource quota set has no rules", source, brace)
    return RuleSet(name=name, description=description, enabled=enabled, rules=rules)


def _filter(kind: str, expand: bool, items: list[Token], source: str) -> Filter:
    # Repeated items count once; dicts keep the first of each in order, and in linear
    # time (a list's `in` made a filter of 10,000 users take seconds).
    scope: dict[str, None] = {}
    xscope: dict[str, None] = {}
    for token in items:
        item = str(token)
        excluded = item.startswith("!")
        bare = item[1:] if excluded else item
        if bare in ("@", ""):
            raise _fail(f"resource quota set contains invalid {_SINGULAR[kind]} filter",
                        source, token)
        (xscope if excluded else scope).setdefault(bare)
    return Filter(expand=expand, scope=list(scope), xscope=list(xscope))


def _rule(part: _Part, table: ComplexTable | None, source: str) -> Rule:
    single = _once(part.value, source)
    fields: dict[str, Any] = {}
    if "name" in single:
        problem = rule_name_problem(single["name"].value)
        if problem:
            raise _fail(problem, source, single["name"].token)
        fields["name"] = single["name"].value
    for kind in FILTERS:
        if kind in single:
            expand, items = single[kind].value
            fields[kind] = _filter(kind, expand, items, source)
    rule = Rule(**fields)
    checked: list[Limit] = []
    for token in single["to"].value:
        resource, _, value = str(token).partition("=")
        try:
            _add_limit(table, rule, checked, Limit(resource, value))
        except RqsError as exc:
            raise _fail(str(exc), source, token) from None
    rule.limits = checked
    return rule


def _filter_before(text: str, position: int) -> str:
    """The filter keyword nearest before `position` on its line ("users" if none)."""
    line_start = text.rfind("\n", 0, position) + 1
    found = re.findall(r"(?<!\S)(users|projects|pes|queues|hosts)(?!\S)",
                       text[line_start:position])
    return found[-1] if found else "users"


def _syntax_error(parser: Lark, error: UnexpectedInput, text: str, source: str) -> FormatError:
    """Grid Engine's words for the mistakes its reader names; ours, with the line, for
    the rest. The column and the expected tokens are in the error either way.
    """
    line, column = error_position(error, text)
    allowed = expected_terminals(error)
    expected = expected_names(parser, allowed, _DESCRIBED)
    ended = at_end(error)
    position = getattr(error, "pos_in_stream", None) or 0
    at_line_end = not ended and text[position:position + 1] in ("\n", "\r")
    word = offending_word(error, text)
    shown = "end of line" if at_line_end else f'"{word}"'

    if "KW_LIMIT" in allowed:  # LALR merges the lookaheads of the two kinds of lines
        expected = tuple(name for name in expected if name != '"{"')

    def fail(message: str) -> FormatError:
        return FormatError(message, source, line, column, expected)

    if ended:
        return fail(f'each value in the attribute value list in line {line} should end '
                    'with "}"')
    if "KW_LIMIT" in allowed:
        return fail(f'unknown attribute name "{word}"')
    if "LBRACE" in allowed and "ITEM" not in allowed:
        return fail(f'each value in the attribute value list in line {line} should begin '
                    'with "{"')
    if "KW_TO" in allowed and "FILTER_KW" in allowed:
        if at_line_end:
            return fail(f'rule in line {line} has no limits ("to resource=value,...")')
        return fail(f'unknown attribute name "{word.partition("=")[0]}"')
    if "ITEM" in allowed:
        kind = _SINGULAR[_filter_before(text, position)]
        return fail(f"resource quota set contains invalid {kind} filter")
    if "RBRACE" in allowed:
        return fail(f'expanded list in line {line} does not end with "}}"')
    if "PAIR" in allowed:
        if at_line_end:
            return fail(f'no limits after "to" in line {line}')
        return fail(f'{shown} in line {line} is not a resource=value pair')
    if "REST" in allowed:
        key = text[text.rfind("\n", 0, position) + 1:position].split()
        return fail(f'attribute "{key[0] if key else ""}" in line {line} has no value')
    if "WORD" in allowed:
        return fail(f"rule in line {line} has no name after \"name\"")
    return fail(f"unexpected {shown} in line {line}")

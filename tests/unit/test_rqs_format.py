"""The resource quota set language: reading (gridd.formats.rqs.parse_rule_sets) and
printing as `qconf -srqs` does.

Expected texts and messages are Grid Engine 8.1.9's: from the reference transcript
(resource_quotas.txt), or, where it shows nothing, from its qconf run on the same input.
Where 8.1.9 takes something it cannot mean, the test says what gridd says instead.
"""

from __future__ import annotations

import re
import string
from typing import NamedTuple

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gridd.formats.parsing import FormatError
from gridd.formats.rqs import (
    parse_limit_list,
    parse_rule_sets,
    print_rule_set,
    print_rule_sets,
    rule_text,
    template,
)
from gridd.model.complexes import DEFAULT_COMPLEXES, ComplexAttr
from gridd.model.rqs import Filter, Limit, Rule, RuleSet, Term, formula_value
from tests.rqs_reference import RQS_ALL

# the reference cell's consumables, and the spec's
COMPLEXES = [
    *DEFAULT_COMPLEXES,
    ComplexAttr("license", "lic", "INT", "<=", "YES", "YES", "0", "0"),
    ComplexAttr("compiler_lic", "cl", "INT", "<=", "YES", "YES", "0", "0"),
    ComplexAttr("vfree", "vfr", "MEMORY", "<=", "YES", "YES", "1g", "0"),
]


def parse(text: str, complexes: list[ComplexAttr] | None = COMPLEXES) -> list[RuleSet]:
    return parse_rule_sets(text, source="f", complexes=complexes)


def error(text: str) -> FormatError:
    with pytest.raises(FormatError) as info:
        parse(text)
    return info.value


# ---- the reference transcript ---------------------------------------------------------------



def test_the_reference_sets_read_and_print_back_as_qconf_shows_them():
    sets = parse(RQS_ALL)
    assert [s.name for s in sets] == ["maxujobs", "max_linux", "max_per_host"]
    assert sets[0].description == '"max 20 slots per user"'
    assert sets[1].description == "NONE"
    per_host = sets[2].rules
    assert per_host[0] == Rule(users=Filter(False, ["roland"]), hosts=Filter(True, ["@linux"]),
                               limits=[Limit("slots", "2")])
    assert per_host[1].users == Filter(True, ["*"])
    assert per_host[2].hosts == Filter(False, ["*"])
    assert print_rule_sets(sets) == RQS_ALL
    assert print_rule_set(sets[2]) == RQS_ALL[RQS_ALL.index("{\n   name         max_per_host"):]


def test_the_reference_odd_sets_that_8_1_9_takes():
    dyn = parse("{\n   name         dyn10\n   enabled      TRUE\n"
                "   limit        hosts {*} to slots=$num_proc*2\n}\n")[0]
    assert dyn.rules[0].limits == [Limit("slots", "$num_proc*2", [Term(2.0, "num_proc")])]
    group = parse("{\n   name         bad12\n   enabled      TRUE\n"
                  "   limit        users * hosts @nosuchgroup to slots=5\n}\n")[0]
    assert group.rules[0].hosts == Filter(False, ["@nosuchgroup"])  # unknown groups are fine
    twice = parse("{\n name bad13\n limit users * to slots=5\n}\n" * 2)
    assert [s.name for s in twice] == ["bad13", "bad13"]  # the verbs take the first
    same_rule_names = parse("{\n   name         bad14\n   enabled      TRUE\n"
                            "   limit        name r1 users * to slots=5\n"
                            "   limit        name r1 users * to slots=6\n}\n")[0]
    assert [r.name for r in same_rule_names.rules] == ["r1", "r1"]
    named = parse("{\n   name         named15\n   enabled      TRUE\n"
                  "   limit        name per_user users {*} to slots=5\n"
                  "   limit        name all_users users !roland to slots=6\n}\n")[0]
    assert named.rules[1].users == Filter(False, [], ["roland"])
    assert print_rule_set(named) == (
        "{\n   name         named15\n   description  NONE\n   enabled      TRUE\n"
        "   limit        name per_user users {*} to slots=5\n"
        "   limit        name all_users users !roland to slots=6\n}\n")


# (file, Grid Engine's message, line, column): every malformed set of the transcript
MALFORMED = [
    ("{\n   name         bad1\n   enabled      TRUE\n   limit        users * slots=5\n}\n",
     'unknown attribute name "slots"', 4, 25),
    ("{\n   name         bad2\n   enabled      TRUE\n   limit        users * to slots=5\n",
     'each value in the attribute value list in line 5 should end with "}"', 5, 1),
    ("{\n   name         bad3\n   enabled      TRUE\n   limit        usr * to slots=5\n}\n",
     'unknown attribute name "usr"', 4, 17),
    ("{\n   enabled      TRUE\n   limit        users * to slots=5\n}\n",
     "resource quota set has no name", 1, 1),
    ("{\n   name         bad5\n   enabled      TRUE\n   limit        users * to slots=abc\n}\n",
     'attribute "slots" is not a integer value', 4, 28),
    ("{\n   name         bad6\n   enabled      TRUE\n}\n",
     "resource quota set has no rules", 1, 1),
    ("{\n   name         bad/7\n   enabled      TRUE\n   limit        users * to slots=5\n}\n",
     "Slash ('/') not allowed in objectname", 2, 17),
    ("{\n   name         bad8\n   enabled      TRUE\n   limit        users * to nosuchres=5\n}\n",
     '"resource_quota" references not existing complex attribute "nosuchres"', 4, 28),
    ("{\n   name         bad9\n   enabled      maybe\n   limit        users * to slots=5\n}\n",
     'error parsing value "maybe"', 3, 17),
    ("{\n   name         bad11\n   enabled      TRUE\n"
     "   limit        users * to slots=$num_proc*2\n}\n",
     "dynamic limits are only supported for per host rules", 4, 28),
]


@pytest.mark.parametrize(("text", "message", "line", "column"), MALFORMED)
def test_every_malformed_set_of_the_reference(text: str, message: str, line: int, column: int):
    exc = error(text)
    assert exc.ge_message == message
    assert (exc.source, exc.line, exc.column) == ("f", line, column)
    assert str(exc).startswith(f"f:{line}:{column}: {message}")


def test_a_syntax_error_says_what_was_expected():
    exc = error("{\n name x\n limit users * slots=5\n}\n")
    assert '"to"' in exc.expected and "users, projects, pes, queues or hosts" in exc.expected
    assert str(exc).endswith('expected ",", "name", "to" or users, projects, pes, queues or '
                             "hosts")
    exc = error("{\n name x\n foo bar\n limit to slots=1\n}\n")
    assert exc.expected == ('"description"', '"enabled"', '"limit"', '"name"', '"}"',
                            "end of line")


# ---- what else is refused, and where ----------------------------------------------------------

OTHERS = [
    # 8.1.9's words, from its qconf
    ("name zzp\nfoo bar\nlimit to slots=1", 'unknown attribute name "foo"', 3, 1),
    ("name zzp\nname zzq\nlimit to slots=1", 'attribute "name" appears more than once', 3, 6),
    ("name zzp\nenabled 1\nenabled 0\nlimit to slots=1",
     'attribute "enabled" appears more than once', 4, 9),
    ("name zzp\nlimit users to slots=1", 'unknown attribute name "slots"', 3, 16),
    ("name zzp\nlimit users a users b to slots=1", 'attribute "users" appears more than once',
     3, 15),
    ("name zzp\nlimit users ! to slots=1", "resource quota set contains invalid user filter",
     3, 13),
    ("name zzp\nlimit projects ! to slots=1",
     "resource quota set contains invalid project filter", 3, 16),
    ("name zzp\nlimit users a,! to slots=1", "resource quota set contains invalid user filter",
     3, 15),
    ("name zzp\nlimit users a TO slots=1", 'unknown attribute name "TO"', 3, 15),
    ("NAME zzp\nlimit to slots=1", 'unknown attribute name "NAME"', 2, 1),
    ("name zzp x\nlimit to slots=1", "Space (' ') not allowed in objectname", 2, 6),
    ("name all\nlimit to slots=1", 'Keyword ("ALL") not allowed as objectname', 2, 6),
    ("name Template\nlimit to slots=1", 'Keyword ("TEMPLATE") not allowed as objectname', 2, 6),
    ("name a@b\nlimit to slots=1", "At ('@') not allowed in objectname", 2, 6),
    ("name a:b\nlimit to slots=1", "Colon (':') not allowed in objectname", 2, 6),
    ("name zzp\nenabled true false\nlimit to slots=1", 'error parsing value "true false"', 3, 9),
    ("name zzp\nlimit to slots=-1", 'attribute "slots" is consumable but has a negative value',
     3, 10),
    ("name zzp\nlimit to slots=infinity",
     'attribute "slots" is not a value that can be set to infinity', 3, 10),
    ("name zzp\nlimit to h_vmem=1gb", 'attribute "h_vmem" is not a memory value', 3, 10),
    ("name zzp\nlimit to cpu=abc", 'attribute "cpu" is not a double value', 3, 10),
    ("name zzp\nlimit to h_rt=abc", 'attribute "h_rt" is not a time value', 3, 10),
    ("name zzp\nlimit to dwg=yes", 'attribute "display_win_gui" is not a boolean value', 3, 10),
    ("name zzp\nlimit hosts {*} to slots=$arch*2",
     'String, CString, ReString or Host attributes are not allowed in "dynamical_limit": '
     '"arch"', 3, 20),
    ("name zzp\nlimit hosts {*} to slots=$nosuch*2",
     '"dynamical_limit" references not existing complex attribute "nosuch"', 3, 20),
    ("name zzp\nlimit hosts {*} to slots=$",
     '"dynamical_limit" references not existing complex attribute ""', 3, 20),
    ("name zzp\nlimit hosts {*} to slots=2*$num_proc",
     '"dynamical_limit" uses "$num_proc" as weighting factor (only numbers are allowed)', 3, 20),
    ("name zzp\nlimit hosts {*} to slots=$num_proc*$num_proc",
     '"dynamical_limit" uses "$num_proc" as weighting factor (only numbers are allowed)', 3, 20),
    ("name zzp\nlimit hosts {*} to slots=$num_proc*(2)",
     '"dynamical_limit" uses "(2)" as weighting factor (only numbers are allowed)', 3, 20),
    ("name zzp\nlimit hosts {*} to slots=$nosuch*x",
     '"dynamical_limit" uses "x" as weighting factor (only numbers are allowed)', 3, 20),
    ("name zzp\nlimit hosts {*} to slots=$num_proc*1e-1",
     '"dynamical_limit" uses "1e" as weighting factor (only numbers are allowed)', 3, 20),
    ("name zzp\nlimit hosts {*} to slots=$num_proc*2*3",
     '"dynamical_limit" may not use multiple weighting factors', 3, 20),
    ("name zzp\nlimit hosts {*} to slots=$nosuch*x*3",
     '"dynamical_limit" may not use multiple weighting factors', 3, 20),
    ("name zzp\nlimit hosts {*} to slots=x+$num_proc",
     '"dynamical_limit" references not existing complex attribute "x"', 3, 20),
    ("name zzp\nlimit hosts {*} to slots=$num_proc+1x",
     '"dynamical_limit" references not existing complex attribute "1x"', 3, 20),
    ("name zzp\nlimit hosts {*} to slots=3$num_proc",
     '"dynamical_limit" references not existing complex attribute "$num_proc"', 3, 20),
    ("name zzp\nlimit hosts {*} to slots=($num_proc)",
     '"dynamical_limit" references not existing complex attribute "$num_proc)"', 3, 20),
    ("name zzp\nlimit hosts {*} to slots=$NUM_PROC",
     '"dynamical_limit" references not existing complex attribute "NUM_PROC"', 3, 20),
    ("name zzp\nlimit hosts * to slots=$num_proc",
     "dynamic limits are only supported for per host rules", 3, 18),
    ("name zzp\nlimit queues {*} to slots=$num_proc",
     "dynamic limits are only supported for per host rules", 3, 21),
    # 8.1.9 takes these, meaning nothing or something else
    ("name zzp\nlimit users a", 'rule in line 3 has no limits ("to resource=value,...")', 3, 14),
    ("name zzp\nlimit users a to", 'no limits after "to" in line 3', 3, 17),
    ("name zzp\nlimit name", 'rule in line 3 has no name after "name"', 3, 11),
    ("name zzp\nlimit name 1 to slots=1",
     'rule name "1" is a number: rules are named by their position already', 3, 12),
    ("name zzp\nlimit name a/b to slots=1", "Slash ('/') not allowed in objectname", 3, 12),
    ("name zzp\nlimit users {a to slots=1", 'expanded list in line 3 does not end with "}"',
     3, 16),
    ("name zzp\nlimit users a,,b to slots=1", "resource quota set contains invalid user filter",
     3, 15),
    ("name zzp\nlimit users {} to slots=1", "resource quota set contains invalid user filter",
     3, 14),
    ("name zzp\nlimit hosts ! to slots=1", "resource quota set contains invalid host filter",
     3, 13),
    ("name zzp\nlimit hosts @,a to slots=1", "resource quota set contains invalid host filter",
     3, 13),
    ("name zzp\nlimit to slots 1", '"slots" in line 3 is not a resource=value pair', 3, 10),
    ("name zzp\nlimit to =1", '"=1" in line 3 is not a resource=value pair', 3, 10),
    ("name zzp\nlimit to slots=1,", 'no limits after "to" in line 3', 3, 18),
    ("name zzp\nlimit to slots=1,s=2", 'attribute "slots" appears more than once', 3, 18),
    ("name zzp\nlimit to slots=1.5", 'attribute "slots" is not a integer value', 3, 10),
    ("name zzp\nlimit to cpu=nan", 'attribute "cpu" is not a double value', 3, 10),
    ("name zzp\nlimit to slots=1 # note", 'unexpected "#" in line 3', 3, 18),
    ("name zzp\nlimit to slots=1 users a", 'unexpected "users" in line 3', 3, 18),
    ("name zzp\ndescription\nlimit to slots=1",
     'attribute "description" in line 3 has no value', 3, 12),
    ("name zzp\nlimit hosts {*} to slots=$mem_total",
     'only INT or DOUBLE attributes are allowed in "dynamical_limit": "mem_total"', 3, 20),
    ("name zzp\nlimit hosts {*} to slots=$num_proc*",
     'attribute "slots" has an invalid dynamical limit "$num_proc*"', 3, 20),
    ("name zzp\nlimit hosts {*} to slots=$num_proc+",
     'attribute "slots" has an invalid dynamical limit "$num_proc+"', 3, 20),
    # 8.1.9 works these out as $num_proc-1 and $num_proc+1, or fails (9999) on them
    ("name zzp\nlimit hosts {*} to slots=$num_proc--1",
     'attribute "slots" has an invalid dynamical limit "$num_proc--1"', 3, 20),
    ("name zzp\nlimit hosts {*} to slots=$num_proc+-1",
     'attribute "slots" has an invalid dynamical limit "$num_proc+-1"', 3, 20),
    ("name zzp\nlimit hosts {*} to slots=$num_proc*-1",
     'attribute "slots" has an invalid dynamical limit "$num_proc*-1"', 3, 20),
    ("name zzp\nlimit hosts {*} to slots=$num_proc*+2",
     'attribute "slots" has an invalid dynamical limit "$num_proc*+2"', 3, 20),
    ("name zzp\nlimit hosts {*} to slots=*2+$num_proc",
     'attribute "slots" has an invalid dynamical limit "*2+$num_proc"', 3, 20),
    ("name zzp\nlimit hosts {*} to slots=$num_proc**2",
     'attribute "slots" has an invalid dynamical limit "$num_proc**2"', 3, 20),
    ("name zzp\nlimit hosts {*} to slots=$num_proc*1e999",
     '"dynamical_limit" uses "1e999" as weighting factor (only numbers are allowed)', 3, 20),
    ("name zzp\nlimit hosts {*} to slots=$num_proc/2",
     '"dynamical_limit" references not existing complex attribute "num_proc/2"', 3, 20),
    ("name zzp\nlimit hosts {*} to arch=$num_proc",
     'attribute "arch" can not have a dynamical limit', 3, 20),
]


@pytest.mark.parametrize(("body", "message", "line", "column"), OTHERS)
def test_other_mistakes(body: str, message: str, line: int, column: int):
    exc = error("{\n" + body + "\n}\n")
    assert (exc.ge_message, exc.line, exc.column) == (message, line, column)


def test_text_outside_a_set():
    exc = error("junk\n{\nname a\nlimit to slots=1\n}\n")
    assert exc.ge_message == ('each value in the attribute value list in line 1 should begin '
                              'with "{"')
    exc = error("{ name zzs3\nlimit users a to slots=1 }\n")
    assert (exc.ge_message, exc.line, exc.column) == ('unexpected "name" in line 1', 1, 3)


# ---- how sets are read ------------------------------------------------------------------------


def test_filters_in_any_order_print_in_the_canonical_one():
    text = ("{\n name zz1\n limit users {roland,andre} projects !*,p1 hosts {@linux,!vm} "
            "queues all.q pes * to slots=5,h_vmem=1g\n limit to slots=3\n"
            " limit hosts * name foo users * to s=4\n}\n")
    # 8.1.9's qconf -srqs of this file
    assert print_rule_sets(parse(text)) == """\
{
   name         zz1
   description  NONE
   enabled      FALSE
   limit        users {roland,andre} projects p1,!* pes * queues all.q hosts \\
   {@linux,!vm} to slots=5,h_vmem=1g
   limit        to slots=3
   limit        name foo users * hosts * to slots=4
}
"""


def test_blanks_after_commas_as_the_spec_writes_them():
    # 8.1.9 refuses `users roland, andre` (unknown attribute name "andre"); the spec has it
    rule = parse("{\nname x\nlimit users roland, andre to vfree=5g, slots=2\n}\n")[0].rules[0]
    assert rule.users == Filter(False, ["roland", "andre"])
    assert rule.limits == [Limit("vfree", "5g"), Limit("slots", "2")]
    assert rule_text(rule) == "users roland,andre to vfree=5g,slots=2"
    assert parse("{\nname x\nlimit users {roland,\tandre} to vfree=5g\n}\n")[0].rules[0].users \
        == Filter(True, ["roland", "andre"])


def test_exclusions_and_repeats():
    rule = parse("{\nname x\nlimit users @staff,!roland,roland,a,a,!b,!b hosts !x,y "
                 "pes !* to slots=10\n}\n")[0].rules[0]
    assert rule.users == Filter(False, ["@staff", "roland", "a"], ["roland", "b"])
    assert rule.hosts == Filter(False, ["y"], ["x"])
    assert rule.pes == Filter(False, [], ["*"])
    assert rule_text(rule) == "users @staff,roland,a,!roland,!b pes !* hosts y,!x to slots=10"
    assert parse("{\nname x\nlimit users {!*} to slots=1\n}\n")[0].rules[0].users == Filter(
        True, [], ["*"])


def test_limits_by_shortcut_keep_the_full_name_and_times_are_seconds():
    rule = parse("{\nname x\nlimit users a to s=1,h_rt=1:0:0,s_rt=0:1:30,cl=2,dwg=true,"
                 "h_vmem=1G,cpu=1.50,num_proc=+4,arch=lx-amd64,h_cpu=1.5,s_cpu=INFINITY\n}\n"
                 )[0].rules[0]
    assert rule_text(rule) == (
        "users a to slots=1,h_rt=3600,s_rt=90,compiler_lic=2,display_win_gui=true,h_vmem=1G,"
        "cpu=1.50,num_proc=+4,arch=lx-amd64,h_cpu=2,s_cpu=INFINITY")
    # without a complex table only the syntax is read: names as written
    raw = parse("{\nname x\nlimit to s=1,h_rt=1:0:0,nosuch=x\n}\n", complexes=None)
    assert raw[0].rules[0].limits == [Limit("s", "1"), Limit("h_rt", "1:0:0"),
                                      Limit("nosuch", "x")]


def test_dynamic_limits():
    # kept as written (8.1.9 shows `$p` as `$p`) and as terms, references by full name
    rule = parse("{\nname x\nlimit users {*} hosts {@linux_hosts,!vm} to "
                 "slots=$num_proc*5,cl=$p*2+1-$cpu*0.5,license=-$num_proc+2*3\n}\n"
                 )[0].rules[0]
    assert rule.limits == [
        Limit("slots", "$num_proc*5", [Term(5.0, "num_proc")]),
        Limit("compiler_lic", "$p*2+1-$cpu*0.5",
              [Term(2.0, "num_proc"), Term(1.0), Term(-0.5, "cpu")]),
        Limit("license", "-$num_proc+2*3", [Term(-1.0, "num_proc"), Term(6.0)])]
    assert rule_text(rule).endswith("to slots=$num_proc*5,compiler_lic=$p*2+1-$cpu*0.5,"
                                    "license=-$num_proc+2*3")
    # a formula without a reference is no formula
    assert error("{\nname x\nlimit hosts {*} to slots=3+4\n}\n").ge_message == \
        'attribute "slots" is not a integer value'


@pytest.mark.parametrize(("value", "terms"), [
    ("$num_proc-1", [Term(1.0, "num_proc"), Term(-1.0)]),
    ("$num_proc*2-3", [Term(2.0, "num_proc"), Term(-3.0)]),
    ("1+$num_proc", [Term(1.0), Term(1.0, "num_proc")]),
    ("+$p+1", [Term(1.0, "num_proc"), Term(1.0)]),
    ("$num_proc*.5+5.-1e1", [Term(0.5, "num_proc"), Term(5.0), Term(-10.0)]),
    ("$m_core*3-$p", [Term(3.0, "m_core"), Term(-1.0, "num_proc")]),
])
def test_dynamic_limits_are_sums_of_weighted_terms(value: str, terms: list[Term]):
    rule = parse(f"{{\nname x\nlimit hosts {{*}} to slots={value}\n}}\n")[0].rules[0]
    assert rule.limits == [Limit("slots", value, terms)]


@pytest.mark.parametrize(("word", "enabled"), [
    ("TRUE", True), ("true", True), ("1", True), ("yes", True), ("Y", True), ("t", True),
    ("FALSE", False), ("FaLsE", False), ("0", False), ("no", False), ("n", False), ("F", False),
])
def test_enabled(word: str, enabled: bool):
    assert parse(f"{{\nname x\nenabled {word}\nlimit to slots=1\n}}\n")[0].enabled is enabled


@pytest.mark.parametrize("word", ["on", "off", "2", "00", "1.0", "TRUE_"])
def test_enabled_refused(word: str):
    assert error(f"{{\nname x\nenabled {word}\nlimit to slots=1\n}}\n").ge_message == \
        f'error parsing value "{word}"'


def test_enabled_is_false_unless_the_file_says_so():
    # 8.1.9: a set without `enabled` is disabled (the spec's examples leave it out)
    assert parse("{\nname x\nlimit to slots=1\n}\n")[0].enabled is False


def test_descriptions_keep_their_words_and_quotes():
    text = ('{\n name    zzs   \n   description   a   b "c  d"  e=f,g   \n'
            " enabled    TRUE   \n limit    users   a   to   slots=1\n}\n")
    rule_set = parse(text)[0]
    assert rule_set.description == 'a b "c d" e=f,g'  # as 8.1.9 keeps it
    assert rule_set.name == "zzs"
    assert parse('{\nname x\ndescription ""\nlimit to slots=1\n}\n')[0].description == '""'
    assert parse("{\nname x\ndescription #1 set\nlimit to slots=1\n}\n")[0].description == \
        "#1 set"
    joined = "{\n name x\n description a,b, \\\n    c  d\n limit users a,\\\n   b to slots=1\n}\n"
    rule_set = parse(joined)[0]
    assert (rule_set.description, rule_set.rules[0].users) == ("a,b,c d", Filter(False, ["a", "b"]))


def test_comments_blank_lines_tabs_and_crlf():
    text = ("# a comment\n{\n   # inner comment\n name zzd\n\n\t limit\tusers\ta\tto\tslots=1\n"
            "}\n\n\n{\r\nname y\r\nlimit to slots=2\r\n}")
    sets = parse(text)
    assert [rs.name for rs in sets] == ["zzd", "y"]
    assert rule_text(sets[0].rules[0]) == "users a to slots=1"
    assert rule_text(sets[1].rules[0]) == "to slots=2"
    assert parse("") == [] and parse("# nothing\n\n") == []


def test_parse_limit_list():
    assert parse_limit_list("slots=2, h_vmem=4g,arch=x") == [
        Limit("slots", "2"), Limit("h_vmem", "4g"), Limit("arch", "x")]
    for bad in ("slots", "slots=", "=1", "slots=1,", "users a to slots=1"):
        with pytest.raises(ValueError):
            parse_limit_list(bad)


def test_template():
    assert template() == ("{\n   name         template\n   description  NONE\n"
                          "   enabled      FALSE\n   limit        to slots=0\n}\n")
    assert [rs.name for rs in parse(template(["a1", "a2"]))] == ["a1", "a2"]


# ---- printing: wrapped as 8.1.9 wraps --------------------------------------------------------


def test_long_rules_wrap_at_80_columns_as_qconf_shows_them():
    users = ",".join(f"user{i:02d}" for i in range(30))
    hosts = ",".join(f"h{i}" for i in range(40))
    text = (f"{{\n name zzw\n limit users {users} to slots=1\n limit users {'x' * 100} to "
            f"slots=1\n limit users a hosts {hosts} to slots=1,h_vmem=1g\n"
            f" limit users {'a' * 57} projects p to slots=1\n"
            f" limit users {'a' * 62} projects p to slots=1\n"
            f" limit users {'a' * 65} projects p to slots=1\n}}\n")
    # 8.1.9's qconf -srqs of this file
    assert print_rule_sets(parse(text)) == f"""\
{{
   name         zzw
   description  NONE
   enabled      FALSE
   limit        users user00,user01,user02,user03,user04,user05,user06,user07, \\
   user08,user09,user10,user11,user12,user13,user14,user15,user16,user17, \\
   user18,user19,user20,user21,user22,user23,user24,user25,user26,user27, \\
   user28,user29 to slots=1
   limit        users \\
   {'x' * 100} \\
   to slots=1
   limit        users a hosts h0,h1,h2,h3,h4,h5,h6,h7,h8,h9,h10,h11,h12,h13, \\
   h14,h15,h16,h17,h18,h19,h20,h21,h22,h23,h24,h25,h26,h27,h28,h29,h30,h31, \\
   h32,h33,h34,h35,h36,h37,h38,h39 to slots=1,h_vmem=1g
   limit        users \\
   {'a' * 57} projects p to \\
   slots=1
   limit        users \\
   {'a' * 62} projects p \\
   to slots=1
   limit        users \\
   {'a' * 65} projects \\
   p to slots=1
}}
"""
    assert parse(print_rule_sets(parse(text))) == parse(text)


def test_long_names_and_descriptions_wrap_after_the_name_column():
    name = "n" * 75
    words = "d" * 90
    text = (f"{{\nname {name}\ndescription {words} and more\nlimit name {name} users a to "
            "slots=1\n}\n")
    shown = print_rule_sets(parse(text))
    # 8.1.9's qconf -srqs of this file
    assert shown == f"""\
{{
   name         \\
   {name}
   description  \\
   {words} \\
   and more
   enabled      FALSE
   limit        name \\
   {name} \\
   users a to slots=1
}}
"""
    assert parse(shown) == parse(text)
    desc = "this is a very long description that goes on and on and on and on and on and on forever"
    assert print_rule_set(RuleSet(name="zzd", description=desc, rules=parse(text)[0].rules)
                          ).splitlines()[2:4] == [
        "   description  this is a very long description that goes on and on and on and \\",
        "   on and on and on forever"]


def test_a_description_with_a_comma_and_a_blank_survives_wrapping():
    # 8.1.9 would break at the blank after the comma and read `x,y` back
    desc = "word " * 13 + "x, y"
    rule_set = RuleSet(name="a", description=desc.strip(), rules=[Rule(limits=[Limit("slots",
                                                                                      "1")])])
    shown = print_rule_set(rule_set)
    assert all(len(line) <= 80 for line in shown.splitlines())
    assert parse(shown) == [rule_set]


# ---- parse and print are inverse (hypothesis) -------------------------------------------------

_NAME = st.builds(lambda first, rest: first + rest, st.sampled_from(string.ascii_lowercase),
                  st.text(alphabet=string.ascii_lowercase + string.digits + "_.-", max_size=14)
                  ).filter(lambda n: n.upper() not in ("NONE", "ALL", "TEMPLATE"))
_ITEM = st.one_of(st.just("*"), _NAME, _NAME.map(lambda n: "@" + n),
                  st.text(alphabet=string.ascii_lowercase, min_size=16, max_size=31))
_WORD = st.text(alphabet=string.ascii_letters + string.digits + ',."\'#=!*@{}()/:;',
                min_size=1, max_size=18)


@st.composite
def _filters(draw: st.DrawFn) -> Filter | None:
    if draw(st.booleans()):
        return None
    scope = draw(st.lists(_ITEM, max_size=12, unique=True))
    xscope = draw(st.lists(_ITEM, max_size=3, unique=True, min_size=0 if scope else 1))
    return Filter(expand=draw(st.booleans()), scope=scope, xscope=xscope)


_STATIC = {
    "slots": st.integers(0, 10**6).map(str),
    "license": st.integers(0, 500).map(str),
    "vfree": st.tuples(st.integers(1, 999), st.sampled_from(["", "k", "K", "m", "M", "g", "G"])
                       ).map(lambda t: f"{t[0]}{t[1]}"),
    "cpu": st.sampled_from(["1.5", "0.25", "2", "100", "inf"]),
    "h_rt": st.one_of(st.integers(0, 10**7).map(str), st.just("INFINITY")),
    "arch": _NAME,
    "display_win_gui": st.sampled_from(["TRUE", "false", "1", "0"]),
}
# references as an administrator may write them, and the INT or DOUBLE complexes they name
_REFERENCES = {"num_proc": "num_proc", "p": "num_proc", "cpu": "cpu", "la": "load_avg",
               "core": "m_core"}
_NUMBERS = st.one_of(
    st.integers(0, 10**6).map(str),
    st.tuples(st.integers(0, 999), st.integers(0, 999)).map(lambda t: f"{t[0]}.{t[1]}"),
    st.sampled_from(["5.", ".25", "1e3", "2E1", "0"]))


class _Formula(NamedTuple):
    text: str
    terms: list[Term]


@st.composite
def _formulas(draw: st.DrawFn) -> _Formula:
    """A dynamic limit built term by term: its text, and the terms it means."""
    count = draw(st.integers(1, 4))
    referenced = draw(st.integers(0, count - 1))  # a formula references a complex
    text, terms = "", []
    for index in range(count):
        sign = draw(st.sampled_from(["", "+", "-"] if index == 0 else ["+", "-"]))
        if index == referenced or draw(st.booleans()):
            written = draw(st.sampled_from(sorted(_REFERENCES)))
            base, factor, name = f"${written}", 1.0, _REFERENCES[written]
        else:
            base = draw(_NUMBERS)
            factor, name = float(base), ""
        weight = draw(st.one_of(st.none(), _NUMBERS))
        if weight is not None:
            base, factor = f"{base}*{weight}", factor * float(weight)
        text += sign + base
        terms.append(Term(-factor if sign == "-" else factor, name))
    return _Formula(text, terms)


def _dynamic_rule(value: str) -> str:
    return f"{{\nname x\nlimit hosts {{*}} to slots={value}\n}}\n"


@settings(max_examples=300, deadline=None)
@given(_formulas())
def test_a_dynamic_limit_reads_as_its_terms_and_prints_as_written(formula: _Formula):
    rule_sets = parse(_dynamic_rule(formula.text))
    assert rule_sets[0].rules[0].limits == [Limit("slots", formula.text, formula.terms)]
    shown = print_rule_sets(rule_sets)
    assert f"slots={formula.text}\n" in shown
    assert parse(shown) == rule_sets


@settings(max_examples=300, deadline=None)
@given(_formulas(), st.fixed_dictionaries({
    name: st.one_of(st.integers(0, 64).map(float), st.floats(-1e6, 1e6))
    for name in set(_REFERENCES.values())}))
def test_a_dynamic_limit_works_out_as_python_arithmetic(formula: _Formula,
                                                        values: dict[str, float]):
    terms = parse(_dynamic_rule(formula.text))[0].rules[0].limits[0].formula
    assert terms is not None
    python = re.sub(r"\$(\w+)", lambda ref: f"({values[_REFERENCES[ref.group(1)]]!r})",
                    formula.text)
    assert formula_value(terms, values.get) == eval(python)


@st.composite
def _rules(draw: st.DrawFn) -> Rule:
    fields = {kind: draw(_filters()) for kind in ("users", "projects", "pes", "queues", "hosts")}
    rule = Rule(name=draw(st.one_of(st.just(""), _NAME)), **fields)
    per_host = rule.hosts is not None and rule.hosts.expand
    chosen = draw(st.lists(st.sampled_from(sorted(_STATIC)), min_size=1, max_size=4,
                           unique=True))
    for name in chosen:
        dynamic = per_host and name in ("slots", "license") and draw(st.booleans())
        if dynamic:
            formula = draw(_formulas())
            rule.limits.append(Limit(name, formula.text, formula.terms))
        else:
            rule.limits.append(Limit(name, draw(_STATIC[name])))
    return rule


@st.composite
def _rule_sets(draw: st.DrawFn) -> RuleSet:
    words = draw(st.lists(_WORD, min_size=1, max_size=16))
    description = draw(st.one_of(st.just("NONE"), st.just(" ".join(words))))
    return RuleSet(name=draw(_NAME), description=description, enabled=draw(st.booleans()),
                   rules=draw(st.lists(_rules(), min_size=1, max_size=4)))


@settings(max_examples=200, deadline=None)
@given(st.lists(_rule_sets(), min_size=1, max_size=3))
def test_parse_and_print_are_inverse(rule_sets: list[RuleSet]):
    shown = print_rule_sets(rule_sets)
    assert parse(shown) == rule_sets
    assert print_rule_sets(parse(shown)) == shown
    assert max(len(line) for line in shown.splitlines()) <= 80  # no word here is longer

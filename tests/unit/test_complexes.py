"""The complex table: Grid Engine 8.1.9's defaults and what `qconf -Mc` refuses.

Rows and messages are those of reference/sge-8.1.9/transcripts/complexes.txt.
"""

from __future__ import annotations

import pytest

from gridd.model.complexes import (
    BUILTIN,
    DEFAULT_COMPLEXES,
    DEFAULT_TABLE,
    ComplexAttr,
    ComplexTable,
    has_default,
    parse_value,
    resolve,
    validate_attr,
    validate_table,
)

# `qconf -sc` of a fresh 8.1.9 cell, columns split on blanks.
QCONF_SC = """\
arch                a          STRING    ==    YES         NO         NONE     0
calendar            c          STRING    ==    YES         NO         NONE     0
cpu                 cpu        DOUBLE    >=    YES         NO         0        0
display_win_gui     dwg        BOOL      ==    YES         NO         0        0
h_core              h_core     MEMORY    <=    YES         NO         0        0
h_cpu               h_cpu      TIME      <=    YES         NO         0:0:0    0
h_data              h_data     MEMORY    <=    YES         NO         0        0
h_fsize             h_fsize    MEMORY    <=    YES         NO         0        0
h_rss               h_rss      MEMORY    <=    YES         NO         0        0
h_rt                h_rt       TIME      <=    YES         NO         0:0:0    0
h_stack             h_stack    MEMORY    <=    YES         NO         0        0
h_vmem              h_vmem     MEMORY    <=    YES         NO         0        0
hostname            h          HOST      ==    YES         NO         NONE     0
load_avg            la         DOUBLE    >=    NO          NO         0        0
load_long           ll         DOUBLE    >=    NO          NO         0        0
load_medium         lm         DOUBLE    >=    NO          NO         0        0
load_short          ls         DOUBLE    >=    NO          NO         0        0
m_core              core       INT       <=    YES         NO         0        0
m_socket            socket     INT       <=    YES         NO         0        0
m_thread            thread     INT       <=    YES         NO         0        0
m_topology          topo       STRING    ==    YES         NO         NONE     0
m_topology_inuse    utopo      STRING    ==    YES         NO         NONE     0
mem_free            mf         MEMORY    <=    YES         NO         0        0
mem_total           mt         MEMORY    <=    YES         NO         0        0
mem_used            mu         MEMORY    >=    YES         NO         0        0
min_cpu_interval    mci        TIME      <=    NO          NO         0:0:0    0
np_load_avg         nla        DOUBLE    >=    NO          NO         0        0
np_load_long        nll        DOUBLE    >=    NO          NO         0        0
np_load_medium      nlm        DOUBLE    >=    NO          NO         0        0
np_load_short       nls        DOUBLE    >=    NO          NO         0        0
num_proc            p          INT       ==    YES         NO         0        0
qname               q          STRING    ==    YES         NO         NONE     0
rerun               re         BOOL      ==    NO          NO         0        0
s_core              s_core     MEMORY    <=    YES         NO         0        0
s_cpu               s_cpu      TIME      <=    YES         NO         0:0:0    0
s_data              s_data     MEMORY    <=    YES         NO         0        0
s_fsize             s_fsize    MEMORY    <=    YES         NO         0        0
s_rss               s_rss      MEMORY    <=    YES         NO         0        0
s_rt                s_rt       TIME      <=    YES         NO         0:0:0    0
s_stack             s_stack    MEMORY    <=    YES         NO         0        0
s_vmem              s_vmem     MEMORY    <=    YES         NO         0        0
seq_no              seq        INT       ==    NO          NO         0        0
slots               s          INT       <=    YES         YES        1        1000
swap_free           sf         MEMORY    <=    YES         NO         0        0
swap_rate           sr         MEMORY    >=    YES         NO         0        0
swap_rsvd           srsv       MEMORY    >=    YES         NO         0        0
swap_total          st         MEMORY    <=    YES         NO         0        0
swap_used           su         MEMORY    >=    YES         NO         0        0
tmpdir              tmp        STRING    ==    NO          NO         NONE     0
virtual_free        vf         MEMORY    <=    YES         NO         0        0
virtual_total       vt         MEMORY    <=    YES         NO         0        0
virtual_used        vu         MEMORY    >=    YES         NO         0        0
"""

LICENSE = ComplexAttr("license", "lic", "INT", "<=", "YES", "YES", "0", "0")
T02 = ComplexAttr("t02", "t02", "INT", "<=", "YES", "YES", "0", "0")
# The valid table every bad line of complexes.txt was appended to.
VALID = (*DEFAULT_COMPLEXES, LICENSE, T02)


def _attr(line: str) -> ComplexAttr:
    return ComplexAttr(*line.split())


def test_default_table_is_qconf_sc_of_a_new_cell() -> None:
    rows = [ComplexAttr(*line.split()) for line in QCONF_SC.splitlines()]
    assert list(DEFAULT_COMPLEXES) == rows
    assert set(BUILTIN) == {row.name for row in rows}


def test_default_table_is_valid() -> None:
    assert validate_table(DEFAULT_COMPLEXES, DEFAULT_COMPLEXES) == []
    assert validate_table(VALID, DEFAULT_COMPLEXES) == []


def test_resolve_by_name_or_shortcut() -> None:
    assert resolve("h_rt") is resolve("h_rt")
    assert resolve("s") == resolve("slots")
    assert resolve("mf").name == "mem_free"
    assert resolve("license") is None
    table = ComplexTable(VALID)
    assert table.resolve("lic") == LICENSE
    assert len(table) == len(DEFAULT_TABLE) + 2


# (appended line, GE 8.1.9's messages or None when accepted)
_BAD_LINES = [
    (
        "bad_str             bs         STRING      ==    YES         YES        NONE     0",
        [
            'Complex "bad_str" of type "STRING" cannot be a consumable',
            'Consumable "bad_str" can have only <= as an relational operator',
        ],
    ),
    (
        "bad_relop           br         INT         >=    YES         YES        0        0",
        ['Consumable "bad_relop" can have only <= as an relational operator'],
    ),
    (
        "bad_forced          bf         INT         <=    FORCED      YES        1        0",
        ['Consumable "bad_forced" cannot have a (non-zero) default value because it is forced.'],
    ),
    (
        "dup_sc              lic        INT         <=    YES         YES        0        0",
        ["complex with name dup_sc or shortcut lic already exists"],
    ),
    (
        "license             lic2       INT         <=    YES         YES        0        0",
        ["complex with name license or shortcut lic2 already exists"],
    ),
    (
        "bad_bool_cons       bbc        BOOL        ==    YES         YES        0        0",
        [
            'Exclusive complex "bad_bool_cons" must have EXCL as relational operator',
            'Consumable "bad_bool_cons" can have only <= as an relational operator',
        ],
    ),
    (
        "bad_restr           brs        RESTRING    ==    YES         YES        NONE     0",
        [
            'Complex "bad_restr" of type "RESTRING" cannot be a consumable',
            'Consumable "bad_restr" can have only <= as an relational operator',
        ],
    ),
    ("job_cons            jc         INT         <=    YES         JOB        0        0", None),
    ("mem_cons            mc         MEMORY      <=    YES         YES        1G       0", None),
]


@pytest.mark.parametrize(("line", "messages"), _BAD_LINES)
def test_lines_of_complexes_txt(line: str, messages: list[str] | None) -> None:
    assert validate_table((*VALID, _attr(line)), VALID) == (messages or [])


def test_int_default_abc_is_refused_unlike_grid_engine() -> None:
    # 8.1.9 stores it ("added") and then treats the default as 0; refuse it instead.
    line = "bad_default         bd         INT         <=    YES         YES        abc      0"
    assert validate_table((*VALID, _attr(line)), VALID) == [
        'Complex "bad_default" has a default value "abc" that is not a valid INT value'
    ]


def test_syntax_level_cases_are_caught_on_rows_too() -> None:
    # The file reader (gridd.formats.complex_table) reports these with GE's file messages;
    # a row built any other way must not slip through.
    assert validate_attr(_attr("bad_type bt FOO <= YES YES 0 0")) == [
        'unknown complex attribute type "FOO"'
    ]
    assert validate_attr(_attr("bad_relop2 br2 INT ~= YES NO 0 0")) == [
        'invalid relational operator "~=" for complex "bad_relop2"'
    ]
    assert validate_attr(_attr("bad_cons bc INT <= YES MAYBE 0 0")) == [
        'invalid consumable value "MAYBE" for complex "bad_cons" (YES, NO, JOB or HOST)'
    ]
    too_few = ComplexAttr("too_few", "tf", "INT", "<=", "YES", "", "", "")
    assert validate_attr(too_few) == ["Complex urgency definition is missing"]


def test_removing_a_referenced_attribute() -> None:
    without_license = tuple(a for a in VALID if a.name != "license")
    referenced = {"license": 'host "global"'}
    assert validate_table(without_license, VALID, referenced) == [
        'denied: Complex attribute "license" is still referenced in host "global".'
    ]
    assert validate_table(without_license, VALID, {"t02": 'queue "all.q"'}) == []
    assert validate_table(without_license, VALID, {"license": "scheduler configuration"}) == [
        'denied: Complex attribute "license" is still referenced in scheduler configuration.'
    ]


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("s_int si INT == YES NO 0 0", None),
        ("s_int si INT > YES NO 0 0", None),
        ("s_str ss STRING != YES NO NONE 0", None),
        (
            "s_str ss STRING <= YES NO NONE 0",
            'Complex "s_str" of type "STRING" can have only == or != as relational operator',
        ),
        (
            "s_host sh HOST > YES NO NONE 0",
            'Complex "s_host" of type "HOST" can have only == or != as relational operator',
        ),
        (
            "s_cs sc CSTRING >= YES NO NONE 0",
            'Complex "s_cs" of type "CSTRING" can have only == or != as relational operator',
        ),
        (
            "s_bool sb BOOL != YES NO 0 0",
            'Complex "s_bool" of type "BOOL" can have only == as relational operator',
        ),
        (
            "s_excl sx INT EXCL YES NO 0 0",
            'Complex "s_excl" of type "INT" can have only == or != or <= or < or >= or > as '
            "relational operator",
        ),
        ("c_time ct TIME <= YES YES 0:10:0 0", None),
        ("c_dbl cd DOUBLE <= YES YES 1.5 0", None),
        (
            "c_host ch HOST <= YES YES NONE 0",
            'Complex "c_host" of type "HOST" cannot be a consumable',
        ),
        (
            "c_hidden chd INT <= NO YES 0 0",
            'Consumable "c_hidden" is not requestable and therefore needs a (non-zero) default '
            "value",
        ),
        ("c_hidden chd INT <= NO YES 1 0", None),
        ("c_forced cf INT <= FORCED YES 0 0", None),
        ("c_excl cx BOOL EXCL YES YES 0 1000", None),  # exclusive scheduling, as on 8.1.9
        (
            "c_intx cix INT EXCL YES YES 0 0",
            'Consumable "c_intx" can have only <= as an relational operator',
        ),
        (
            "f_def fd INT <= YES NO 5 0",
            'Complex "f_def" is not a consumable and cannot have a default value ("5")',
        ),
        (
            "f_mem fm MEMORY <= YES YES 1x 0",
            'Complex "f_mem" has a default value "1x" that is not a valid MEMORY value',
        ),
        (
            "f_urg fu INT <= YES YES 0 high",
            'Complex "f_urg" has an urgency "high" that is not a number',
        ),
        (
            "f_req fr INT <= MAYBE NO 0 0",
            'invalid requestable value "MAYBE" for complex "f_req" (YES, NO or FORCED)',
        ),
    ],
)
def test_section_2_restrictions(line: str, message: str | None) -> None:
    assert validate_attr(_attr(line)) == ([message] if message else [])


def test_names_and_shortcuts_share_one_namespace() -> None:
    clash = ComplexAttr("a", "zz", "INT", "<=", "YES", "NO", "0", "0")  # "a" is arch's shortcut
    assert validate_table((*VALID, clash), VALID) == [
        "complex with name a or shortcut zz already exists"
    ]


def test_builtins_cannot_be_deleted() -> None:
    rows = tuple(a for a in VALID if a.name != "h_rt")
    assert validate_table(rows, VALID) == [
        'denied: built-in complex attribute "h_rt" cannot be deleted'
    ]


def test_builtin_type_is_fixed_except_among_strings() -> None:
    def retyped(name: str, new_type: str) -> tuple[ComplexAttr, ...]:
        return tuple(
            ComplexAttr(
                a.name,
                a.shortcut,
                new_type,
                a.relop,
                a.requestable,
                a.consumable,
                a.default,
                a.urgency,
            )
            if a.name == name
            else a
            for a in VALID
        )

    assert validate_table(retyped("arch", "CSTRING"), VALID) == []
    assert validate_table(retyped("arch", "RESTRING"), retyped("arch", "CSTRING")) == []
    assert validate_table(retyped("arch", "HOST"), VALID) == [
        'denied: type of built-in complex attribute "arch" cannot be changed from STRING to HOST'
    ]
    assert validate_table(retyped("slots", "DOUBLE"), VALID) == [
        'denied: type of built-in complex attribute "slots" cannot be changed from INT to DOUBLE'
    ]


def test_user_attributes_may_be_deleted_and_retyped() -> None:
    assert validate_table(DEFAULT_COMPLEXES, VALID) == []
    dbl = ComplexAttr("license", "lic", "DOUBLE", "<=", "YES", "YES", "0", "0")
    assert validate_table((*DEFAULT_COMPLEXES, dbl, T02), VALID) == []


def test_values_and_defaults() -> None:
    assert parse_value("MEMORY", "1G") == 1024.0**3
    assert parse_value("INT", "2k") == 2000.0
    assert parse_value("TIME", "0:10:0") == 600.0
    assert parse_value("BOOL", "TRUE") == 1.0
    assert parse_value("CSTRING", "LX-AMD64") == "lx-amd64"
    assert parse_value("STRING", "LX") == "LX"
    for bad_type, bad in (("INT", "1.5"), ("DOUBLE", "nan"), ("BOOL", "maybe"), ("INT", "abc")):
        with pytest.raises(ValueError):
            parse_value(bad_type, bad)
    assert not has_default(resolve("h_rt"))
    assert not has_default(resolve("arch"))
    assert has_default(resolve("slots"))


def test_an_infinite_int_is_a_value_not_a_crash() -> None:
    from gridd.model.complexes import parse_value

    assert parse_value("INT", "infinity") == float("inf")
    assert parse_value("INT", "4") == 4.0
    with pytest.raises(ValueError):
        parse_value("INT", "1.5")

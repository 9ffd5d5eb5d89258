"""The text formats: every Lark grammar and every small value syntax, each with the error
its callers catch.

Who catches what (read from the callers, so that is the contract fuzzed here):
- parse_object, from_pairs, userset_from_pairs, host_conf_from_pairs,
  parse_complex_table, parse_rule_sets, parse_overridable: FormatError (qconf's verbs
  in gridd/master/admin_*.py catch exactly that and print its ge_message);
- validate_table: returns its complaints, raises nothing;
- the value syntaxes (TIME, MEMORY, BOOL, DATE_TIME, complex values, RQS limits) and
  the submission lists (-l, -t, -pe, -v, -m, ...): ValueError (RqsError is one), which
  qsub, qrsub, qacct and the qconf verbs turn into their messages;
- queue references (gridd.model.queue_ref): matched as written, any text, raising nothing;
- read_swf and accounting lines, colon or JSON: ValueError (gridd sim, qacct and
  dbwriter report it);
- report files: ReportError.
A successful parse is also printed back where a printer exists: what was read must show.
"""

from __future__ import annotations

import io
from collections.abc import Callable
from pathlib import Path

import msgspec

from gridd.accounting.record import parse_line
from gridd.accounting.record_json import parse_json, to_json
from gridd.accounting.report_catalog import ReportError
from gridd.accounting.report_catalog import parse as parse_report
from gridd.formats import requests
from gridd.formats.complex_table import ComplexRow, parse_complex_table, print_complex_table
from gridd.formats.names import parse_date_time
from gridd.formats.objects import parse_object, print_configuration, print_object
from gridd.formats.overrides import parse_overridable, print_overridable
from gridd.formats.parsing import FormatError
from gridd.formats.qconf_objects import (
    KINDS,
    from_pairs,
    host_conf_from_pairs,
    show,
    show_userset,
    template,
    userset_from_pairs,
)
from gridd.formats.rqs import (
    check_limit,
    normalize_description,
    parse_enabled,
    parse_limit_list,
    parse_rule_sets,
    print_rule_sets,
)
from gridd.formats.rqs import template as rqs_template
from gridd.formats.swf import read_swf
from gridd.model.cluster import Instance
from gridd.model.complexes import (
    DEFAULT_COMPLEXES,
    TYPES,
    ComplexAttr,
    ComplexTable,
    has_default,
    parse_value,
    validate_table,
)
from gridd.model.queue_ref import queue_matches
from gridd.model.rqs import Limit
from gridd.model.values import format_time, parse_bool, parse_memory, parse_time
from gridd.resources import data_dir
from tests.fuzz.targets import Target, text_target
from tests.rqs_reference import RQS_ALL

# ---- qconf objects (grammar/object.lark and the attribute checks) -----------------------

_OBJECT_KINDS = (*KINDS, "userset")

OBJECT_SEEDS = [
    *(template(kind) for kind in _OBJECT_KINDS),
    template("queue", "all.q").replace("hostlist              NONE",
                                       "hostlist              @allhosts node1 \\\n"
                                       "                      node2")
    .replace("slots                 1", "slots                 1,[node1=3],[@linux=2]"),
    template("pe", "mpi").replace("$pe_slots", "$fill_up").replace("slots              0",
                                                                   "slots              64"),
    "group_name @linux\nhostlist node1 node2 @sub\n",
    "name    staff\ntype    ACL DEPT\nfshare  10\noticket 0\nentries a,@g,b\n",
    print_configuration("global", [("execd_spool_dir", "/var/spool"), ("mailer", "mail")]),
    print_object([("qname", "q"), ("slots", "2")], width=21, spool=True),
    "# comment\n\nqname q # not a comment\r\nslots 3\n",
]
OBJECT_TOKENS = (
    "\\\n", " \\\n   ", "\\", "#", "NONE", "TRUE", "FALSE", "INFINITY", "UNDEFINED", "[", "]",
    "=", ",", "@", "$pe_slots", "$fill_up", "$round_robin", "min", "BATCH", "INTERACTIVE",
    "ACL", "DEPT", "0:0:0", "1G", "np_load_avg=1.75", "[node1=", "global",
    *sorted({name for kind in KINDS.values() for name in kind.types}),
    "name", "type", "entries", "group_name",
)


def _object_text(text: str) -> None:
    """object.lark: the pairs, and the pairs printed back (spool and shown forms)."""
    pairs = parse_object(text, source="fuzz")
    print_object(pairs, width=21)
    print_object(pairs, width=0, spool=True)


def _every_kind(text: str) -> None:
    """The pairs read as each kind of object; what is accepted must show."""
    try:
        pairs = parse_object(text, source="fuzz")
    except FormatError:
        return
    for kind in KINDS:
        try:
            obj = from_pairs(kind, pairs, source="fuzz")
        except FormatError:
            continue
        show(kind, obj)
    try:
        show_userset(userset_from_pairs(pairs, source="fuzz"))
    except FormatError:
        pass
    try:
        host_conf_from_pairs(pairs, source="fuzz")
    except FormatError:
        pass


# ---- the complex table (grammar/complex.lark, then validation) --------------------------

COMPLEXES = [
    *DEFAULT_COMPLEXES,
    ComplexAttr("license", "lic", "INT", "<=", "YES", "YES", "0", "0"),
    ComplexAttr("vfree", "vfr", "MEMORY", "<=", "YES", "YES", "1g", "0"),
    ComplexAttr("scratch", "scr", "DOUBLE", "<=", "FORCED", "JOB", "0", "100"),
]
COMPLEX_SEEDS = [
    print_complex_table([ComplexRow(*msgspec.structs.astuple(a)) for a in COMPLEXES]),
    "a a INT <= YES YES 0 0\n",
    "# only a comment\n",
    "h_vmem h_vmem MEMORY <= YES YES 4G 0 # trailing comment\r\n",
]
COMPLEX_TOKENS = (*TYPES, "==", "!=", ">=", "<=", ">", "<", "EXCL", "YES", "NO", "FORCED", "JOB",
                  "#", " ", "\t", "0", "1G", "INFINITY", "TRUE", "NONE", "slots", "int", "yes")


def _complex_table(text: str) -> None:
    rows = parse_complex_table(text, source="fuzz")
    print_complex_table(rows)
    new = [ComplexAttr(*row) for row in rows]
    errors = validate_table(new, COMPLEXES)
    if not isinstance(errors, list):
        raise TypeError(f"validate_table gave {errors!r}")
    for attr in new:
        has_default(attr)


# ---- resource quota sets (grammar/rqs.lark, then the checks against complexes) ----------

RQS_SEEDS = [
    RQS_ALL,
    rqs_template(["a", "b"]),
    "{\n name dyn\n enabled true\n limit name r1 hosts {@linux,!vm} to slots=$num_proc*2+1,"
    "license=$num_proc*0.5\n}\n",
    "# comment\n{\n   name         wrapped\n   description  \"a long \\\n     description\"\n"
    "   enabled      FALSE\n   limit        users {roland, andre} projects !p pes * \\\n"
    "                queues all.q@node1 to license=4, h_rt=1:0:0\n}\n",
    "{\r\nname x\r\nlimit to slots=1\r\n}\r\n",
]
RQS_TOKENS = (
    "{", "}", "name", "description", "enabled", "limit", "to", "users", "projects", "pes",
    "queues", "hosts", "*", "!", "@", "@linux", ",", ", ", "=", "$", "$num_proc", "*2", "+",
    "-", "slots", "h_vmem", "h_rt", "license", "arch", "\\\n", "#", "TRUE", "FALSE", "NONE",
    "slots=", "=1", "1:0:0", "inf", "{*}", "!*",
)
_TABLE_COMPLEXES = COMPLEXES


def _rqs(text: str) -> None:
    """Syntax alone (a client), then checked against complexes (the master); printed."""
    print_rule_sets(parse_rule_sets(text, source="fuzz"))
    print_rule_sets(parse_rule_sets(text, source="fuzz", complexes=_TABLE_COMPLEXES))


# ---- queue attribute overrides (grammar/queue_value.lark) ------------------------------

OVERRIDE_SEEDS = [
    "1,[node1=3],[@linux=2]", "BATCH INTERACTIVE", "NONE,[vm=BATCH INTERACTIVE]", "0:10:0",
    "np_load_avg=1.75,[node1=np_load_avg=2]", "a , b,c, [h=x,y] , [@g=z]", "INFINITY",
]
OVERRIDE_TOKENS = ("[", "]", "=", ",", " , ", "@", "@linux", "node1", "[node1=", "NONE", " ")


def _overridable(text: str) -> None:
    print_overridable(parse_overridable(text, source="fuzz"))


# ---- small values ------------------------------------------------------------------------

VALUE_SEEDS = [
    "1:0:0", "::5", "0:90:0", "INFINITY", "infinity", "1.5", ".5", "1.5G", "100k", "2M", "TRUE",
    "false", "1", "0", "all.q", "all.q@node1", "*@@linux", "@node1", "a,b@h,,c@@g",
    "202401011230.59", "01011230", "2401011230", "slots=2,h_vmem=4g", "slots=2, h_rt=1:0:0",
    "$num_proc*2+1", "yes", "n", '"a description" \\\n  continued', "1e3", "-1",
]
VALUE_TOKENS = (":", ".", ",", "=", "@", "@@", "*", "$", "+", "-", "k", "K", "m", "M", "g", "G",
                "INFINITY", "TRUE", "FALSE", "0", "1", "59", "60", "99", "12", "31", "29", "02",
                "1970", "2038", "9999", "0000", "\\\n")
_NOW = 1_700_000_000.0
_TABLE = ComplexTable(COMPLEXES)
_INSTANCE = Instance(name="all.q@node1", queue="all.q", host="node1", slots=1)
_HOSTGROUPS = {"@linux": ["node1"], "@*": ["node2"]}
_LIMIT_NAMES = ("slots", "h_vmem", "h_rt", "arch", "license", "vfree", "scratch", "lic", "dwg")


def _values(text: str) -> None:
    """Every value syntax on the same text; each may refuse it only with ValueError."""
    parsers: list[Callable[[], object]] = [
        lambda: format_time(parse_time(text)),
        lambda: parse_memory(text),
        lambda: parse_bool(text),
        lambda: queue_matches(text, _INSTANCE, _HOSTGROUPS),
        lambda: parse_date_time(text, now=_NOW),
        lambda: parse_enabled(text),
        lambda: parse_limit_list(text),
        lambda: normalize_description(text),
        *(lambda t=t: parse_value(t, text) for t in TYPES),
        *(lambda t=t: has_default(ComplexAttr("x", "x", t, "==", default=text)) for t in TYPES),
        *(lambda n=n, h=h: check_limit(_TABLE, Limit(n, text), per_host=h)
          for n in _LIMIT_NAMES for h in (False, True)),
    ]
    for parse in parsers:
        try:
            parse()
        except ValueError:
            pass


REQUEST_SEEDS = [
    "h_rt=0:1:0,license=2", "h_vmem=1G arch", "a=", "1-10:2", "5-2", "3", "4-", "-8", "1",
    "job1,2,job3", "A=1,B,C=", "bea", "n", "abes", "all.q,b.q", "",
]
REQUEST_TOKENS = (",", " ", "=", "-", ":", "0", "1", "10", "a", "b", "e", "s", "n", "x", "A")
_ENVIRON = {"HOME": "/h", "B": "b"}


def _requests(text: str) -> None:
    parsers: list[Callable[[], object]] = [
        lambda: requests.parse_resource_list(text),
        lambda: requests.parse_task_range(text),
        lambda: requests.parse_pe_range(text),
        lambda: requests.parse_hold_list(text),
        lambda: requests.parse_variable_list(text, _ENVIRON),
        lambda: requests.parse_mail_options(text),
        lambda: requests.parse_name_list(text),
    ]
    for parse in parsers:
        try:
            parse()
        except ValueError:
            pass


# ---- traces, accounting lines, report files ----------------------------------------------

SWF_SEEDS = [
    "; MaxProcs: 128\n; Note: x\n"
    "1 0 10 100 4 -1 -1 4 200 -1 1 1 1 -1 1 -1 -1 -1\n"
    "2 5 -1 -1 -1 -1 -1 -1 -1 -1 0 1 1 -1 1 -1 -1 -1\n"
    "3 7 0 50.5 8 -1 -1 -1 -1 -1 1 1 1 -1 1 -1 -1 -1\n",
]
SWF_TOKENS = (";", "MaxProcs", ":", " ", "-1", "0", "1.5", "\n", "nan", "inf", "1e400")


def _swf(text: str) -> None:
    read_swf(io.StringIO(text, newline=None))


_ACCOUNTING = Path(__file__).resolve().parents[1] / "data" / "sge-8.1.9" / "accounting"
ACCOUNTING_SEEDS = [line for line in _ACCOUNTING.read_text().splitlines() if line[:1] != "#"][:8]
ACCOUNTING_TOKENS = (":", "-1", "0", "1.5", "NONE", "-l h_vmem=1G", "\\:", "\n", "#")


def _accounting(text: str) -> None:
    for line in text.split("\n"):
        try:
            parse_line(line)
        except ValueError:
            pass


JSONL_SEEDS = [to_json(rec) for line in ACCOUNTING_SEEDS if (rec := parse_line(line))]
JSONL_TOKENS = ("{", "}", "[", "]", '"', ":", ",", "null", "NaN", "1e400", "-1", "1.5",
                '"usage":', '"rusage":', '"start_time":', "\\u0000", "\n", "[" * 5000)


def _accounting_json(text: str) -> None:
    for line in text.split("\n"):
        try:
            parse_json(line)
        except ValueError:
            pass


REPORT_SEEDS = [path.read_text() for path in sorted(data_dir("reports").glob("*.sql"))[:4]] + [
    "-- title: t\n-- param: a = 1 -- help\nSELECT $a\n",
]
REPORT_TOKENS = ("-- title:", "-- about:", "-- param:", "$", "=", "--", "\n", "SELECT", "$a",
                 " a ", "::TIMESTAMP")


def _report(text: str) -> None:
    report = parse_report("fuzz", text)
    if report is not None:
        try:
            report.bind({"a": "1"})
        except ReportError:
            pass


def _words(n: int, word: str = "node", separator: str = " ") -> str:
    """About n characters of distinct words: node00001 node00002 ..."""
    count = max(n // (len(word) + 6), 1)
    return separator.join(f"{word}{i:05d}" for i in range(count))


TARGETS = [
    text_target("object.lark (parse_object)", _object_text, (FormatError,), OBJECT_SEEDS,
                OBJECT_TOKENS,
                scale={"a long host list": lambda n: f"hostlist {_words(n)}\n",
                       "many lines": lambda n: "slots 1\n" * (n // 8),
                       "continued lines": lambda n: "hostlist a \\\n" * (n // 12) + "b\n"}),
    text_target("qconf objects (from_pairs)", _every_kind, (), OBJECT_SEEDS, OBJECT_TOKENS,
                scale={"a long host list": lambda n: f"group_name @g\nhostlist {_words(n)}\n",
                       "many overrides": lambda n: "qname q\nslots 1" + "".join(
                           f",[n{i}=2]" for i in range(n // 9)) + "\n"}),
    text_target("complex.lark (complex table)", _complex_table, (FormatError,), COMPLEX_SEEDS,
                COMPLEX_TOKENS,
                scale={"many rows": lambda n: "".join(f"c{i} c{i} INT <= YES YES 0 0\n"
                                                      for i in range(n // 28))}),
    text_target("rqs.lark (resource quota sets)", _rqs, (FormatError,), RQS_SEEDS, RQS_TOKENS,
                scale={"a long user list": lambda n: "{\n name s\n limit users "
                       f"{_words(n, 'u', ',')} to slots=1\n}}\n",
                       "many rules": lambda n: "{\n name s\n" + " limit users * to slots=1\n"
                       * (n // 26) + "}\n"}),
    text_target("queue_value.lark (overrides)", _overridable, (FormatError,), OVERRIDE_SEEDS,
                OVERRIDE_TOKENS,
                scale={"many overrides": lambda n: "1" + "".join(f",[n{i:05d}=2]"
                                                                 for i in range(n // 12)),
                       "a long default": lambda n: _words(n, "a", ",")}),
    text_target("values (time, memory, bool, dates, queues, limits)", _values, (),
                VALUE_SEEDS, VALUE_TOKENS, max_size=300,
                scale={"a long queue list": lambda n: _words(n, "q@h", ","),
                       "a long limit list": lambda n: _words(n, "slots=", ",")}),
    text_target("requests (-l, -t, -pe, -hold_jid, -v, -m)", _requests, (), REQUEST_SEEDS,
                REQUEST_TOKENS, max_size=300,
                scale={"a long resource list": lambda n: _words(n, "r=", ",")}),
    text_target("swf trace", _swf, (ValueError,), SWF_SEEDS, SWF_TOKENS),
    text_target("accounting lines", _accounting, (), ACCOUNTING_SEEDS, ACCOUNTING_TOKENS),
    text_target("accounting JSON lines", _accounting_json, (), JSONL_SEEDS, JSONL_TOKENS),
    text_target("report files", _report, (ReportError,), REPORT_SEEDS, REPORT_TOKENS),
]

__all__ = ["TARGETS", "Target"]

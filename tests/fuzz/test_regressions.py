"""What the fuzzing found, each pinned to the input that showed it.

Every case here raised something its callers do not catch (a traceback in a q* command,
an exception out of the master's decoder or qconf verbs) or took minutes where it should
take milliseconds, before the fix next to which its comment points.
"""

from __future__ import annotations

import os
import time
from types import SimpleNamespace

import msgspec
import pytest

from gridd import protocol as p
from gridd.accounting.qacct_query import job_is_id
from gridd.cli import qacct, qconf
from gridd.cli.qsub_args import EXIT_USAGE, QsubError, alter_settings
from gridd.cli.render_qstat import qstat_job
from gridd.client import Client, GriddError
from gridd.formats.complex_table import parse_complex_table
from gridd.formats.objects import parse_object, print_object
from gridd.formats.parsing import FormatError
from gridd.formats.qconf_objects import InvalidObject, from_pairs, template
from gridd.formats.rqs import lookup_rule, parse_rule_sets, print_rule_sets
from gridd.formats.swf import read_swf
from gridd.master import ars
from gridd.master.admin import Caller, run_qconf
from gridd.model.config import Configuration
from gridd.model.rqs import Limit, Rule, RuleSet
from tests.fuzz.argv import empty_cell, run_main
from tests.fuzz.canned import JOBS, canned_master
from tests.rqs_reference import RQS_ALL

# ---- protocol.decode (gridd/protocol.py) --------------------------------------------------


def test_a_string_that_is_not_utf8_is_a_protocol_error() -> None:
    """msgspec before 0.23 let it through as UnicodeDecodeError, 0.23 as a DecodeError."""
    frame = msgspec.msgpack.encode({"t": "error", "text": "abcde"}).replace(b"abcde",
                                                                             b"ab\x80de")
    with pytest.raises(p.ProtocolError, match="UTF-8"):
        p.decode(frame)


@pytest.mark.parametrize("opener", [b"\x91", b"\x81\xa1k"])
def test_values_nested_too_deeply_are_a_protocol_error(opener: bytes) -> None:
    """DbAnswer.rows holds Any: msgspec recursed until RecursionError."""
    marker = msgspec.msgpack.encode("MARKER")
    frame = msgspec.msgpack.encode({"t": "db_answer", "rows": [["MARKER"]]}).replace(
        marker, opener * 100_000 + b"\xc0")
    with pytest.raises(p.ProtocolError, match="nested too deeply"):
        p.decode(frame)


# ---- the client's framing (gridd/client.py) -----------------------------------------------


def _framing_client() -> Client:
    client = Client.__new__(Client)
    client._rid = 0
    return client


@pytest.mark.parametrize(("msg", "says"), [
    (p.Delete(targets=["job\udcff"], user="ann"), "not UTF-8"),  # argv bytes not UTF-8
    (p.Alter(targets=["1"], user="ann", ar=2**70), "too large"),  # qalter -ar 2**70
])
def test_what_the_protocol_cannot_carry_is_a_gridd_error(msg: p.Msg, says: str) -> None:
    with pytest.raises(GriddError, match=says):
        _framing_client()._frame(msg)


# ---- digits that str.isdigit() takes and int() refuses ------------------------------------


def test_qsub_and_qalter_refuse_a_superscript_ar_id() -> None:
    with pytest.raises(QsubError) as info:
        alter_settings("-ar", ["²"], soft=False, now=0.0)
    assert info.value.exit_code == EXIT_USAGE


@pytest.mark.parametrize("argv", [["-ar", "²"], ["-slots", "①"]])
def test_qacct_refuses_a_number_that_is_not_ascii(argv: list[str]) -> None:
    with pytest.raises(qacct.UsageError, match="must be an unsigned integer"):
        qacct.parse_args(argv, now=0.0)


@pytest.mark.parametrize("group", ["²", "202401011230"])  # not a gid; beyond any gid
def test_qacct_takes_an_odd_group_as_a_name(group: str) -> None:
    assert qacct.parse_args(["-g", group], now=0.0).request.groups["g"] == group


def test_a_qacct_job_named_by_a_superscript_is_a_name() -> None:
    assert not job_is_id("²") and job_is_id("42")


def test_a_superscript_allocation_rule_is_an_invalid_pe() -> None:
    text = template("pe", "mpi").replace("$pe_slots", "2²")
    with pytest.raises(InvalidObject, match="allocation_rule"):
        from_pairs("pe", parse_object(text), source="f")


def test_a_rule_named_by_a_superscript_is_looked_up_by_name() -> None:
    rule_set = RuleSet(name="s", rules=[Rule(name="²", limits=[Limit("slots", "1")])])
    assert lookup_rule(rule_set, "²") == 0
    assert lookup_rule(rule_set, "³") is None


def test_qconf_attribute_verbs_on_a_superscript_rule_answer() -> None:
    cfg = Configuration(managers=["root"])
    who = Caller("root", "vm", {"/f": RQS_ALL})
    assert run_qconf(cfg, ["-Arqs", "/f"], who).code == 0
    answer = run_qconf(cfg, ["-mattr", "resource_quota", "limit", "slots=2", "maxujobs/²"], who)
    assert answer.code == 1 and answer.err


def test_swf_ignores_a_max_procs_that_is_not_ascii() -> None:
    assert read_swf(["; MaxProcs: ²\n"]).max_procs is None


def test_qstat_j_with_a_superscript_lists_it_as_missing() -> None:
    shown = qstat_job(JOBS, ["²", "2².1"])
    assert shown.code == 1 and "²" in shown.stderr


def test_qrstat_of_a_superscript_ar_finds_none() -> None:
    master = SimpleNamespace(s=SimpleNamespace(ars={}))
    reply = ars.query(master, p.QueryArs(ids=["²"]), now=0.0)  # type: ignore[arg-type]
    assert reply.missing == ["²"]


# ---- the complex table's error message (gridd/formats/complex_table.py) -------------------


@pytest.mark.parametrize("text", [
    "a b INT <= YES YES 0 # a comment of several words",
    "a b INT <= YES YES 0 # comment\nx",
])
def test_a_missing_column_before_a_comment_is_named(text: str) -> None:
    with pytest.raises(FormatError) as info:
        parse_complex_table(text)
    assert info.value.message == "missing urgency column"
    assert info.value.ge_message == "Complex urgency definition is missing"


# ---- qconf's editor forms (gridd/cli/qconf.py) --------------------------------------------


@pytest.mark.parametrize("name", ["{tmp}/outside", "../outside", "."])
def test_a_host_configuration_named_with_a_slash_is_refused(name: str) -> None:
    """The file named after the host was written at os.path.join(tmpdir, name): for
    `-aconf /etc/x`, at /etc/x. (canned_master refuses writes outside the temporary
    directory, so a regression fails here instead of writing there.)"""
    with empty_cell() as tmp, canned_master(qconf):
        code, _, err = run_main(qconf.main, ["-aconf", name.format(tmp=tmp)])
        assert code == 1 and "not a valid host name" in err
        assert not os.path.exists(os.path.join(tmp, "outside"))


# ---- printing long values (gridd/formats/objects.py, gridd/formats/rqs.py) ----------------


def test_a_long_host_list_prints_in_linear_time() -> None:
    """60 KB: minutes before (every break point sliced the line), milliseconds now."""
    hosts = " ".join(f"node{i:05d}" for i in range(6000))
    started = time.perf_counter()
    shown = print_object([("hostlist", hosts)], width=0)
    assert time.perf_counter() - started < 2.0
    assert all(len(line) <= 80 for line in shown.splitlines())


def test_a_long_rule_prints_in_linear_time() -> None:
    users = ",".join(f"u{i}" for i in range(4000))
    sets = parse_rule_sets("{\n name x\n limit users " + users + " to slots=1\n}\n")
    started = time.perf_counter()
    shown = print_rule_sets(sets)
    assert time.perf_counter() - started < 2.0
    assert parse_rule_sets(shown) == sets


def test_a_long_filter_reads_in_linear_time() -> None:
    """20,000 users: some ten seconds before (each checked against the list so far), a
    fifth of one now; repeated items still count once, in their first order."""
    users = ",".join(f"u{i}" for i in range(20_000))
    text = "{\n name x\n limit users " + users + ",u1,!u2,!u2 to slots=1\n}\n"
    started = time.perf_counter()
    (rule_set,) = parse_rule_sets(text)
    assert time.perf_counter() - started < 3.0
    users_filter = rule_set.rules[0].users
    assert users_filter is not None
    assert users_filter.scope[:3] == ["u0", "u1", "u2"] and len(users_filter.scope) == 20_000
    assert users_filter.xscope == ["u2"]

"""qconf on resource quota sets in the pure core: -srqsl, -srqs, -Arqs, -Mrqs, -drqs and
the attribute verbs on `resource_quota`, with Grid Engine 8.1.9's words, streams and exit
codes (from the reference transcript, or its qconf where the transcript shows nothing).
"""

from __future__ import annotations

import msgspec
import pytest

from gridd.master.admin import Caller, run_qconf
from gridd.model.complexes import DEFAULT_COMPLEXES, ComplexAttr
from gridd.model.config import Configuration
from gridd.model.rqs import Filter, Limit, Term
from tests.rqs_reference import RQS_ALL

WHO = "root@vm"
LICENSE = ComplexAttr("license", "lic", "INT", "<=", "YES", "YES", "0", "0")


BASE = """\
{
 name zzb
 description "base set"
 enabled false
 limit users a to slots=10
 limit name r2 users b to slots=5,h_vmem=1g
}
"""


def cell() -> Configuration:
    cfg = Configuration()
    cfg.complexes = [*DEFAULT_COMPLEXES, LICENSE]
    return cfg


def run(cfg: Configuration, *argv: str, files: dict[str, str] | None = None,
        user: str = "root") -> tuple[list[str], list[str], int]:
    ans = run_qconf(cfg, list(argv), Caller(user, "vm", files or {}))
    return ans.out, ans.err, ans.code


def refused(cfg: Configuration, *argv: str, files: dict[str, str] | None = None
            ) -> tuple[list[str], list[str]]:
    """(stdout, stderr) of a command that exits 1 and changes nothing."""
    before = msgspec.msgpack.encode(cfg)
    out, err, code = run(cfg, *argv, files=files)
    assert code == 1, (out, err)
    assert msgspec.msgpack.encode(cfg) == before
    return out, err


def shown(cfg: Configuration, name: str) -> list[str]:
    out, err, code = run(cfg, "-srqs", name)
    assert code == 0, err
    return out


def with_sets(text: str = RQS_ALL) -> Configuration:
    cfg = cell()
    assert run(cfg, "-Arqs", "/f", files={"/f": text})[2] == 0
    return cfg


# ---- the reference transcript, step by step ---------------------------------------------------


def test_the_reference_session():
    cfg = cell()
    files = {"/tmp/rqs_all": RQS_ALL}
    # 8.1.9 prints only the first set's line; gridd confirms each set it adds
    assert run(cfg, "-Arqs", "/tmp/rqs_all", files=files) == ([
        f'{WHO} added "maxujobs" to resource quota set list',
        f'{WHO} added "max_linux" to resource quota set list',
        f'{WHO} added "max_per_host" to resource quota set list'], [], 0)
    assert run(cfg, "-srqsl") == (["max_linux", "max_per_host", "maxujobs"], [], 0)
    assert run(cfg, "-srqs") == (RQS_ALL.splitlines(), [], 0)
    assert shown(cfg, "max_per_host") == RQS_ALL.splitlines()[12:]
    assert refused(cfg, "-srqs", "nosuch") == ([], ["No resource quota set found"])
    assert refused(cfg, "-Arqs", "/tmp/rqs_all", files=files) == (
        [], ['resource quota set "maxujobs" already exists'])

    modified = f'{WHO} modified "maxujobs" in resource quota set list'
    assert run(cfg, "-mattr", "resource_quota", "limit", "slots=10", "maxujobs/1") == (
        [modified], [], 0)
    assert shown(cfg, "maxujobs")[4] == "   limit        users * to slots=10"
    assert run(cfg, "-mattr", "resource_quota", "enabled", "FALSE", "max_linux") == (
        [f'{WHO} modified "max_linux" in resource quota set list'], [], 0)
    assert shown(cfg, "max_linux")[3] == "   enabled      FALSE"
    assert run(cfg, "-mattr", "resource_quota", "enabled", "TRUE", "max_linux")[2] == 0
    assert run(cfg, "-aattr", "resource_quota", "limit", "license=3", "maxujobs/1") == (
        [modified], [], 0)
    assert shown(cfg, "maxujobs")[4] == "   limit        users * to slots=10,license=3"
    assert run(cfg, "-dattr", "resource_quota", "limit", "license=3", "maxujobs/1") == (
        [modified], [], 0)
    assert shown(cfg, "maxujobs")[4] == "   limit        users * to slots=10"
    assert refused(cfg, "-mattr", "resource_quota", "limit", "slots=10", "maxujobs/7") == (
        [], ["no resource quota rule specified for modification"])
    assert refused(cfg, "-mattr", "resource_quota", "limit", "slots=10", "nosuch/1") == (
        [], ['denied: resource quota set "nosuch" does not exist'])
    assert run(cfg, "-mattr", "resource_quota", "description", "changed desc", "maxujobs") == (
        [modified], [], 0)
    assert refused(cfg, "-mattr", "resource_quota", "limit", "nosuchres=1", "maxujobs/1") == (
        [], ['"resource_quota" references not existing complex attribute "nosuchres"'])
    assert run(cfg, "-rattr", "resource_quota", "limit", "slots=20", "maxujobs/1") == (
        [modified], [], 0)
    assert shown(cfg, "maxujobs") == [
        "{", "   name         maxujobs", "   description  changed desc", "   enabled      TRUE",
        "   limit        users * to slots=20", "}"]

    odd = {
        "/tmp/rqs_bad10": "{\n   name         dyn10\n   enabled      TRUE\n"
                          "   limit        hosts {*} to slots=$num_proc*2\n}\n",
        "/tmp/rqs_bad12": "{\n   name         bad12\n   enabled      TRUE\n"
                          "   limit        users * hosts @nosuchgroup to slots=5\n}\n",
        "/tmp/rqs_bad13": "{\n   name         bad13\n   enabled      TRUE\n"
                          "   limit        users * to slots=5\n}\n" * 2,
        "/tmp/rqs_bad14": "{\n   name         bad14\n   enabled      TRUE\n"
                          "   limit        name r1 users * to slots=5\n"
                          "   limit        name r1 users * to slots=6\n}\n",
        "/tmp/rqs_bad15": "{\n   name         named15\n   enabled      TRUE\n"
                          "   limit        name per_user users {*} to slots=5\n"
                          "   limit        name all_users users !roland to slots=6\n}\n",
    }
    for path, name in (("/tmp/rqs_bad10", "dyn10"), ("/tmp/rqs_bad12", "bad12"),
                       ("/tmp/rqs_bad13", "bad13"), ("/tmp/rqs_bad14", "bad14"),
                       ("/tmp/rqs_bad15", "named15")):
        assert run(cfg, "-Arqs", path, files=odd) == (
            [f'{WHO} added "{name}" to resource quota set list'], [], 0)
    assert run(cfg, "-srqs", "named15", "dyn10") == (
        ["{", "   name         named15", "   description  NONE", "   enabled      TRUE",
         "   limit        name per_user users {*} to slots=5",
         "   limit        name all_users users !roland to slots=6", "}"],
        ['error: invalid option argument "dyn10"\nUsage: qconf -help'], 1)
    assert run(cfg, "-srqsl")[0] == ["bad12", "bad13", "bad14", "dyn10", "max_linux",
                                     "max_per_host", "maxujobs", "named15"]
    assert run(cfg, "-srqs", "bad13,bad14")[0] == [
        "{", "   name         bad13", "   description  NONE", "   enabled      TRUE",
        "   limit        users * to slots=5", "}",
        "{", "   name         bad14", "   description  NONE", "   enabled      TRUE",
        "   limit        name r1 users * to slots=5", "   limit        name r1 users * to slots=6",
        "}"]
    assert run(cfg, "-drqs", "bad12,bad13,bad14,dyn10,named15") == ([], [
        f'{WHO} removed "{name}" from resource quota set list'
        for name in ("bad12", "bad13", "bad14", "dyn10", "named15")], 0)
    assert refused(cfg, "-drqs", "nosuch") == (
        [], ['denied: resource quota set "nosuch" does not exist'])
    assert run(cfg, "-srqsl")[0] == ["max_linux", "max_per_host", "maxujobs"]
    # the master's order, which qquota shows: each changed set went to the end
    assert list(cfg.rqs) == ["max_per_host", "max_linux", "maxujobs"]


@pytest.mark.parametrize(("text", "message"), [
    ("{\n   name         bad1\n   enabled      TRUE\n   limit        users * slots=5\n}\n",
     'unknown attribute name "slots"'),
    ("{\n   name         bad2\n   enabled      TRUE\n   limit        users * to slots=5\n",
     'each value in the attribute value list in line 5 should end with "}"'),
    ("{\n   name         bad3\n   enabled      TRUE\n   limit        usr * to slots=5\n}\n",
     'unknown attribute name "usr"'),
    ("{\n   enabled      TRUE\n   limit        users * to slots=5\n}\n",
     "resource quota set has no name"),
    ("{\n   name         bad5\n   enabled      TRUE\n   limit        users * to slots=abc\n}\n",
     'attribute "slots" is not a integer value'),
    ("{\n   name         bad6\n   enabled      TRUE\n}\n", "resource quota set has no rules"),
    ("{\n   name         bad/7\n   enabled      TRUE\n   limit        users * to slots=5\n}\n",
     "Slash ('/') not allowed in objectname"),
    ("{\n   name         bad8\n   enabled      TRUE\n   limit        users * to nosuchres=5\n}\n",
     '"resource_quota" references not existing complex attribute "nosuchres"'),
    ("{\n   name         bad9\n   enabled      maybe\n   limit        users * to slots=5\n}\n",
     'error parsing value "maybe"'),
    ("{\n   name         bad11\n   enabled      TRUE\n"
     "   limit        users * to slots=$num_proc*2\n}\n",
     "dynamic limits are only supported for per host rules"),
    # not in the transcript: 8.1.9's words for the same files
    ("{\n   name         dyn\n   enabled      TRUE\n"
     "   limit        hosts {*} to slots=$num_proc*2*3\n}\n",
     '"dynamical_limit" may not use multiple weighting factors'),
    ("{\n   name         dyn\n   enabled      TRUE\n"
     "   limit        hosts {*} to slots=$nosuch-1\n}\n",
     '"dynamical_limit" references not existing complex attribute "nosuch"'),
])
def test_malformed_files_are_refused_with_8_1_9s_words(text: str, message: str):
    cfg = with_sets()
    assert refused(cfg, "-Arqs", "/f", files={"/f": text}) == ([], [message])
    assert refused(cfg, "-Mrqs", "/f", files={"/f": text}) == ([], [message])


# ---- -Arqs and -Mrqs -------------------------------------------------------------------------


def test_an_add_is_all_or_nothing():
    cfg = with_sets(BASE)
    mixed = "{\n name zz8\n limit to slots=8\n}\n{\n name zzb\n limit to slots=8\n}\n"
    # 8.1.9 adds zz8 and says nothing of zzb
    assert refused(cfg, "-Arqs", "/f", files={"/f": mixed}) == (
        [], ['resource quota set "zzb" already exists'])
    invalid = "{\n name zz8\n limit to slots=8\n}\n{\n name zz11\n limit to nosuchres=8\n}\n"
    assert refused(cfg, "-Arqs", "/f", files={"/f": invalid})[1] == [
        '"resource_quota" references not existing complex attribute "nosuchres"']
    assert refused(cfg, "-Arqs", "/f", files={"/f": "# nothing\n"}) == (
        [], ['file "/f" holds no resource quota set'])
    assert refused(cfg, "-Arqs")[1] == ["no file argument given"]
    assert refused(cfg, "-Mrqs")[1] == ["no file argument given"]


def test_a_file_naming_a_set_twice_adds_the_first():
    cfg = cell()
    twice = "{\n name x\n limit to slots=1\n}\n{\n name x\n limit to slots=2\n}\n"
    assert run(cfg, "-Arqs", "/f", files={"/f": twice}) == (
        [f'{WHO} added "x" to resource quota set list'], [], 0)
    assert cfg.rqs["x"].rules[0].limits == [Limit("slots", "1")]


def test_modify_from_a_file():
    cfg = with_sets(BASE + "{\n name zz4\n limit to slots=4\n}\n")
    two = ("{\n name zz4\n enabled true\n limit to slots=7\n}\n"
           "{\n name zz6\n limit users a to slots=1\n}\n")
    files = {"/two": two}
    # with a list: the named sets take the file's version and go to the end
    assert run(cfg, "-Mrqs", "/two", "zz4", files=files) == (
        [], [f'{WHO} modified "zz4" in resource quota set list'], 0)
    assert cfg.rqs["zz4"].enabled is True
    assert refused(cfg, "-Mrqs", "/two", "zzb", files=files) == (
        [], ['resource quota set "zzb" not found in file "/two"'])
    assert refused(cfg, "-Mrqs", "/two", "zz4,zz7", files=files)[1] == [
        'resource quota set "zz7" not found in file "/two"']
    assert refused(cfg, "-Mrqs", "/two", "zz6", files=files) == (
        [], ['denied: resource quota set "zz6" does not exist'])
    assert run(cfg, "-Mrqs", "/two", "zz4,zz6", files=files) == (
        [], [f'{WHO} modified "zz4" in resource quota set list',
             'denied: resource quota set "zz6" does not exist'], 1)
    assert run(cfg, "-Mrqs", "/two", "zz4", "zz6", files=files) == (
        [], [f'{WHO} modified "zz4" in resource quota set list',
             'error: invalid option argument "zz6"\nUsage: qconf -help'], 1)
    assert run(cfg, "-Mrqs", "/two", "zz4", "-srqsl", files=files)[0] == ["zz4", "zzb"]
    # without a list the file's sets replace all: 8.1.9 says each was removed and added
    assert run(cfg, "-Mrqs", "/two", files=files) == ([], [
        f'{WHO} removed "zzb" from resource quota set list',
        f'{WHO} removed "zz4" from resource quota set list',
        f'{WHO} added "zz4" to resource quota set list',
        f'{WHO} added "zz6" to resource quota set list'], 0)
    assert list(cfg.rqs) == ["zz4", "zz6"]
    # an empty file would remove every set: refused (8.1.9 does nothing and exits 0)
    assert refused(cfg, "-Mrqs", "/e", files={"/e": ""})[1] == [
        'file "/e" holds no resource quota set']


# ---- showing and deleting ---------------------------------------------------------------------


def test_show_takes_lists_and_patterns_in_the_masters_order():
    cfg = with_sets(RQS_ALL)
    names = [line.split()[1] for line in run(cfg, "-srqs", "max_per_host,maxujobs")[0]
             if line.startswith("   name")]
    assert names == ["maxujobs", "max_per_host"]
    out = run(cfg, "-srqs", "max_*")[0]
    assert [ln.split()[1] for ln in out if ln.startswith("   name")] == ["max_linux",
                                                                       "max_per_host"]
    assert run(cfg, "-srqs", "nosuch,maxujobs")[2] == 0  # a name that matches nothing is passed
    assert refused(cfg, "-srqs", "nosuch,other") == ([], ["No resource quota set found"])
    empty = cell()
    assert refused(empty, "-srqsl") == ([], ["no resource quota set list defined"])
    assert refused(empty, "-srqs") == ([], ["No resource quota set found"])


def test_delete():
    cfg = with_sets(RQS_ALL)
    assert run(cfg, "-drqs", "nosuch,maxujobs,max_*") == ([], [
        'denied: resource quota set "nosuch" does not exist',
        f'{WHO} removed "maxujobs" from resource quota set list',
        'denied: resource quota set "max_*" does not exist'], 1)
    assert list(cfg.rqs) == ["max_linux", "max_per_host"]


def test_only_managers_change_sets():
    cfg = with_sets(BASE)
    denied = ['denied: "alice" must be manager for this operation']
    for argv in (["-Arqs", "/f"], ["-Mrqs", "/f"], ["-drqs", "zzb"],
                 ["-mattr", "resource_quota", "enabled", "true", "zzb"],
                 ["-Aattr", "resource_quota", "/a", "zzb/1"]):
        before = msgspec.msgpack.encode(cfg)
        assert run(cfg, *argv, files={"/f": RQS_ALL, "/a": "limit to cpu=1\n"},
                   user="alice") == ([], denied, 1)
        assert msgspec.msgpack.encode(cfg) == before
    assert run(cfg, "-srqs", "zzb", user="alice")[2] == 0
    assert run(cfg, "-srqsl", user="alice")[0] == ["zzb"]


# ---- one attribute at a time -----------------------------------------------------------------


def limits(cfg: Configuration, index: int = 0, name: str = "zzb") -> str:
    return ",".join(f"{lim.name}={lim.value}" for lim in cfg.rqs[name].rules[index].limits)


def test_add_modify_delete_and_replace_limits():
    cfg = with_sets(BASE)
    modified = f'{WHO} modified "zzb" in resource quota set list'
    exists = 'No modification because "slots" already exists in "resource_quota_rules" of ' \
             '"resource_quota"'
    assert run(cfg, "-aattr", "resource_quota", "limit", "s=20", "zzb/1") == (
        [exists, modified], [], 0)  # 8.1.9 confirms, having changed nothing
    assert run(cfg, "-aattr", "resource_quota", "limit", "h_rt=1:0:0", "zzb/1") == (
        [modified], [], 0)
    assert limits(cfg) == "slots=10,h_rt=3600"
    assert run(cfg, "-aattr", "resource_quota", "limit", "arch=lx-amd64", "zzb/r2")[2] == 0
    assert limits(cfg, 1) == "slots=5,h_vmem=1g,arch=lx-amd64"
    # a modified element goes to the end, a missing one is added
    assert run(cfg, "-mattr", "resource_quota", "limit", "slots=4,cpu=2", "zzb/r2") == (
        ['Unable to find "cpu" in "resource_quota_rules" of "resource_quota" - Adding new '
         "element.", modified], [], 0)
    assert limits(cfg, 1) == "h_vmem=1g,arch=lx-amd64,slots=4,cpu=2"
    assert run(cfg, "-mattr", "resource_quota", "limit", "slots=1, h_rt=5", "zzb/01")[2] == 0
    assert limits(cfg) == "slots=1,h_rt=5"
    assert run(cfg, "-rattr", "resource_quota", "limit", "slots=6", "zzb/r2") == (
        [modified], [], 0)
    assert limits(cfg, 1) == "slots=6"
    # -dattr goes by the name; the value does not matter
    assert run(cfg, "-dattr", "resource_quota", "limit", "slots=99,nosuch=6", "zzb/1") == (
        ['"nosuch" does not exist in "resource_quota_rules" of "resource_quota"', modified],
        [], 0)
    assert limits(cfg) == "h_rt=5"
    # 8.1.9 leaves `to NONE`; a rule keeps at least one limit here
    assert refused(cfg, "-dattr", "resource_quota", "limit", "h_rt=5", "zzb/1") == (
        [], ['resource quota rule "zzb/1" would have no limit left'])


def test_limits_are_checked_like_a_file():
    cfg = with_sets(BASE)
    cases = [
        ("slots=abc", 'attribute "slots" is not a integer value'),
        ("slots=$num_proc", "dynamic limits are only supported for per host rules"),
        ("slots=1,s=2", 'attribute "slots" appears more than once'),
        ("slots", 'The attribute name ("limit") and/or value ("slots") is invalid'),
        ("users c to slots=1",
         'The attribute name ("limit") and/or value ("users c to slots=1") is invalid'),
    ]
    for value, message in cases:
        for verb in ("-aattr", "-mattr", "-rattr"):
            assert refused(cfg, verb, "resource_quota", "limit", value, "zzb/1") == (
                [], [message]), (verb, value)
    per_host = with_sets("{\n name d\n limit hosts {@linux} to slots=1\n}\n")
    assert refused(per_host, "-mattr", "resource_quota", "limit", "slots=$num_proc*-1",
                   "d/1") == ([], ['attribute "slots" has an invalid dynamical limit '
                                   '"$num_proc*-1"'])
    assert run(per_host, "-mattr", "resource_quota", "limit", "slots=$p*2-1", "d/1")[2] == 0
    assert per_host.rqs["d"].rules[0].limits == [
        Limit("slots", "$p*2-1", [Term(2.0, "num_proc"), Term(-1.0)])]
    assert "   limit        hosts {@linux} to slots=$p*2-1" in shown(per_host, "d")


def test_set_attributes():
    cfg = with_sets(BASE)
    modified = [f'{WHO} modified "zzb" in resource quota set list']
    assert run(cfg, "-mattr", "resource_quota", "enabled", "true", "zzb/9") == (modified, [], 0)
    assert cfg.rqs["zzb"].enabled is True  # the rule part does not matter for set attributes
    assert run(cfg, "-aattr", "resource_quota", "enabled", "false", "zzb")[2] == 0
    assert cfg.rqs["zzb"].enabled is False
    assert run(cfg, "-rattr", "resource_quota", "enabled", "yes", "zzb")[2] == 0
    assert run(cfg, "-dattr", "resource_quota", "enabled", "false", "zzb") == (modified, [], 0)
    assert cfg.rqs["zzb"].enabled is True  # -dattr confirms and leaves it
    assert refused(cfg, "-mattr", "resource_quota", "enabled", "maybe", "zzb") == (
        [], ['error parsing value "maybe"'])
    assert run(cfg, "-mattr", "resource_quota", "description", "a   b", "zzb")[2] == 0
    assert cfg.rqs["zzb"].description == "a b"
    assert run(cfg, "-mattr", "resource_quota", "description", '"x   y"', "zzb")[2] == 0
    assert cfg.rqs["zzb"].description == '"x y"'
    assert run(cfg, "-dattr", "resource_quota", "description", "c", "zzb") == (modified, [], 0)
    assert cfg.rqs["zzb"].description == '"x y"'
    assert run(cfg, "-mattr", "resource_quota", "description", "NONE", "zzb")[2] == 0
    assert refused(cfg, "-mattr", "resource_quota", "description", "", "zzb") == (
        [], ['The attribute name ("description") and/or value ("") is invalid'])
    assert refused(cfg, "-mattr", "resource_quota", "name", "zzc", "zzb") == (
        [], ["qconf: cannot change name"])
    for attr in ("users", "foo"):
        assert refused(cfg, "-mattr", "resource_quota", attr, "x", "zzb/1") == (
            [], [f'The attribute name ("{attr}") and/or value ("x") is invalid'])
    assert refused(cfg, "-mattr", "resource_quota", "limit", "slots=4")[1] == [
        "qconf: missing object list"]


def test_targets():
    cfg = with_sets(BASE + "{\n name zz4\n limit to slots=4\n}\n")
    rule = "no resource quota rule specified for modification"
    for target in ("zzb", "zzb/3", "zzb/nosuch", "zzb/0"):
        assert refused(cfg, "-aattr", "resource_quota", "limit", "cpu=2", target) == (
            [], [rule])
    for target in ("zzb/", "/1", "zzb/1/2", "zzb,zz4"):
        assert refused(cfg, "-mattr", "resource_quota", "limit", "slots=4", target) == (
            [], [f'denied: resource quota set "{target}" does not exist'])
    # each target in turn; those refused stay as they were
    assert run(cfg, "-mattr", "resource_quota", "limit", "slots=2", "zzb/1", "nosuch/3",
               "zzb/9", "zzb/r2", "zz4/1") == (
        [f'{WHO} modified "zzb" in resource quota set list',
         f'{WHO} modified "zzb" in resource quota set list',
         f'{WHO} modified "zz4" in resource quota set list'],
        ['denied: resource quota set "nosuch" does not exist', rule], 1)
    assert (limits(cfg), limits(cfg, 1), limits(cfg, 0, "zz4")) == (
        "slots=2", "h_vmem=1g,slots=2", "slots=2")
    assert list(cfg.rqs) == ["zzb", "zz4"]
    assert run(cfg, "-mattr", "resource_quota", "enabled", "1", "zzb")[2] == 0
    assert list(cfg.rqs) == ["zz4", "zzb"]  # a changed set goes to the end


def test_attribute_file_forms():
    cfg = with_sets(BASE)
    files = {
        "/b1": "limit to slots=20\n",  # as 8.1.9 reads it
        "/b1s": "limit slots=20\n",  # as the spec writes it (8.1.9: unknown attribute "slots")
        "/b2": "enabled true\ndescription hello there\n",
        "/b3": "limit to slots=1,h_rt=5\n",
        "/b4": "limit users x to cpu=1\n",
        "/b5": "enabled true\nlimit to cpu=7\n",
        "/bad": "foo bar\n",
        "/name": "name x\n",
        "/twice": "limit to cpu=1\nlimit to cpu=2\n",
    }
    modified = f'{WHO} modified "zzb" in resource quota set list'
    exists = ('No modification because "slots" already exists in "resource_quota_rules" of '
              '"resource_quota"')
    assert run(cfg, "-Aattr", "resource_quota", "/b1", "zzb/1", files=files) == (
        [exists, modified], [], 0)
    assert run(cfg, "-Aattr", "resource_quota", "/b1s", "zzb/1", files=files) == (
        [exists, modified], [], 0)
    assert run(cfg, "-Aattr", "resource_quota", "/b2", "zzb", files=files) == (
        [modified], [], 0)
    assert (cfg.rqs["zzb"].enabled, cfg.rqs["zzb"].description) == (True, "hello there")
    assert run(cfg, "-Mattr", "resource_quota", "/b3", "zzb/r2", files=files) == (
        ['Unable to find "h_rt" in "resource_quota_rules" of "resource_quota" - Adding new '
         "element.", modified], [], 0)
    assert limits(cfg, 1) == "h_vmem=1g,slots=1,h_rt=5"
    assert run(cfg, "-Dattr", "resource_quota", "/b3", "zzb/r2", files=files)[2] == 0
    assert limits(cfg, 1) == "h_vmem=1g"
    assert run(cfg, "-Rattr", "resource_quota", "/b1", "zzb/r2", files=files)[2] == 0
    assert limits(cfg, 1) == "slots=20"
    assert run(cfg, "-Mattr", "resource_quota", "/b5", "zzb/1", files=files)[2] == 0
    assert limits(cfg) == "slots=10,cpu=7"
    # 8.1.9 ignores the filters; gridd refuses them
    assert refused(cfg, "-Mattr", "resource_quota", "/b4", "zzb/r2", files=files) == (
        [], ['The attribute name ("limit") and/or value ("users x to cpu=1") is invalid'])
    assert refused(cfg, "-Mattr", "resource_quota", "/bad", "zzb/1", files=files) == ([], [
        'error: unknown attribute name "foo"\nerror: error reading file: "/bad"\n'
        'error: invalid option argument "/bad"\nUsage: qconf -help'])
    assert refused(cfg, "-Mattr", "resource_quota", "/name", "zzb/1", files=files) == (
        [], ["qconf: cannot change name"])
    assert refused(cfg, "-Mattr", "resource_quota", "/twice", "zzb/1", files=files)[1][0] \
        .startswith('error: attribute "limit" appears more than once\n')


def test_other_objects_keep_their_verbs():
    cfg = with_sets(BASE)
    assert refused(cfg, "-mattr", "queue", "slots", "4", "zzb") == (
        [], ['denied: cluster queue "zzb" does not exist'])
    assert refused(cfg, "-mattr", "nosuchobject", "slots", "4", "zzb")[1] == [
        'Modification of object "nosuchobject" not supported']


def test_a_set_keeps_its_structure_through_the_verbs():
    cfg = with_sets("{\n name s\n limit name r users {a,b} hosts !x,@g to slots=1\n}\n")
    assert run(cfg, "-mattr", "resource_quota", "limit", "slots=2", "s/r")[2] == 0
    rule = cfg.rqs["s"].rules[0]
    assert (rule.name, rule.users, rule.hosts) == (
        "r", Filter(True, ["a", "b"]), Filter(False, ["@g"], ["x"]))

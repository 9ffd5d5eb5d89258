"""qconf on managers, operators, admin/submit hosts and access lists: GE 8.1.9's words."""

from gridd.formats.overrides import queue_value
from gridd.master.admin import Caller, run_qconf
from gridd.model.complexes import ComplexAttr
from gridd.model.config import Configuration
from gridd.model.objects import ExecHostConf

ROOT = Caller("root", "vm")


def qconf(access: Configuration, line: str) -> tuple[list[str], list[str], int]:
    ans = run_qconf(access, line.split(), ROOT)
    return ans.out, ans.err, ans.code


def test_managers_and_operators():
    access = Configuration(managers=["root", "sgeadmin"])
    assert qconf(access, "-am alice") == ([], ['root@vm added "alice" to manager list'], 0)
    assert qconf(access, "-sm") == (["alice", "root", "sgeadmin"], [], 0)
    assert qconf(access, "-am root") == ([], ['manager "root" already exists'], 1)
    assert qconf(access, "-dm alice")[1] == ['root@vm removed "alice" from manager list']
    assert qconf(access, "-dm alice") == ([], ['denied: manager "alice" does not exist'], 1)
    assert qconf(access, "-ao alice") == ([], ['root@vm added "alice" to operator list'], 0)
    assert qconf(access, "-so") == (["alice"], [], 0)
    assert qconf(access, "-do root") == (
        [], ['may not remove user "root" from operator list'], 1)
    assert qconf(access, "-do bob") == ([], ['denied: operator "bob" does not exist'], 1)


def test_admin_and_submit_hosts_existing_host_is_not_an_error():
    access = Configuration(admin_hosts=["vm"], submit_hosts=["vm"])
    assert qconf(access, "-as vm") == ([], ['submithost "vm" already exists'], 0)
    assert qconf(access, "-ah vm") == ([], ['adminhost "vm" already exists'], 0)
    # as 8.1.9, which resolved VM to vm: host names compare without case and domain
    assert qconf(access, "-as VM.example.org") == ([], ['submithost "vm" already exists'], 0)
    resolved = Caller("root", "vm", resolved=frozenset({"localhost"}))
    assert run_qconf(access, ["-as", "localhost"], resolved).err == [
        "localhost added to submit host list"]
    assert qconf(access, "-ds localhost") == (
        [], ['root@vm removed "localhost" from submit host list'], 0)
    assert qconf(access, "-sh") == (["vm"], [], 0)


def test_a_new_admin_or_submit_host_must_resolve_or_be_an_exec_host():
    """8.1.9: `qconf -as nosuchhost7` says `can't resolve hostname "nosuchhost7"` on
    stderr and exits 1; qconf resolves the names (Caller.resolved), and gridd's exec
    hosts need not resolve."""
    access = Configuration(admin_hosts=["vm"], submit_hosts=["vm"])
    access.exechosts["node7"] = ExecHostConf(hostname="node7")
    for option in ("-as", "-ah"):
        assert qconf(access, f"{option} nosuchhost7") == (
            [], ['can\'t resolve hostname "nosuchhost7"'], 1)
    assert qconf(access, "-as NODE7")[1:] == (["NODE7 added to submit host list"], 0)
    assert qconf(access, "-ds node7")[1:] == (
        ['root@vm removed "NODE7" from submit host list'], 0)
    assert access.submit_hosts == ["vm"]


def test_access_lists():
    access = Configuration()
    assert qconf(access, "-sul") == (["arusers", "deadlineusers", "defaultdepartment"], [], 0)
    assert qconf(access, "-su arusers") == (
        ["name    arusers", "type    ACL", "fshare  0", "oticket 0", "entries NONE"], [], 0)
    assert qconf(access, "-au alice arusers") == (
        [], ['added "alice" to access list "arusers"'], 0)
    assert qconf(access, "-au alice arusers") == (
        [], ['"alice" is already in access list "arusers"'], 1)
    assert qconf(access, "-du alice arusers") == (
        [], ['deleted user "alice" from access list "arusers"'], 0)
    assert qconf(access, "-du alice arusers") == (
        [], ['user "alice" is not in access list "arusers"'], 1)
    assert qconf(access, "-du alice nosuchlist") == (
        [], ['access list "nosuchlist" doesn\'t exist'], 1)
    assert qconf(access, "-su nosuch") == ([], ['denied: access list "nosuch" does not exist'], 1)
    assert qconf(access, "-au bob newlist")[2] == 0  # a missing list is created
    assert qconf(access, "-su newlist")[0][-1] == "entries bob"
    assert qconf(access, "-dul newlist") == ([], ['root@vm removed "newlist" from userset list'], 0)
    assert qconf(access, "-dul nosuch") == ([], ['denied: userset "nosuch" does not exist'], 1)
    assert qconf(access, "-su defaultdepartment")[0][1] == "type    DEPT"


def test_bad_options_stop_and_change_nothing_after_them():
    access = Configuration()
    out, err, code = qconf(access, "-bogus -am alice")
    assert code == 1 and err == ['error: invalid option argument "-bogus"\nUsage: qconf -help']
    assert access.managers == ["root"]
    assert qconf(access, "-am")[2] == 1


def with_file(text: str) -> Caller:
    return Caller("root", "vm", {"/tmp/f": text})


def test_host_groups_nest_and_resolve():
    cfg = Configuration()
    run_qconf(cfg, ["-Ahgrp", "/tmp/f"], with_file("group_name @a\nhostlist n1 n2\n"))
    add = run_qconf(cfg, ["-Ahgrp", "/tmp/f"], with_file("group_name @all\nhostlist @a n3\n"))
    assert add.err == ['root@vm added "@all" to host group list'] and add.code == 0
    again = run_qconf(cfg, ["-Ahgrp", "/tmp/f"], with_file("group_name @a\nhostlist n1\n"))
    assert again.err == ['host group "@a" already exists'] and again.code == 1
    assert qconf(cfg, "-shgrp_resolved @all") == (["n1", "n2", "n3"], [], 0)
    assert qconf(cfg, "-shgrp_tree @all") == (["@all", "   @a", "      n1", "      n2",
                                               "   n3"], [], 0)
    assert qconf(cfg, "-shgrp @nosuch") == ([], ['Host group "@nosuch" does not exist'], 1)
    assert qconf(cfg, "-dhgrp @a") == (
        [], ['denied: these hostgroups still reference "@a": @all'], 1)
    assert qconf(cfg, "-dhgrp @all,@a") == (
        [], ['root@vm removed "@all" from host group entry list',
             'root@vm removed "@a" from host group entry list'], 0)
    assert qconf(cfg, "-shgrpl") == ([], ["no host group list defined"], 1)


def test_projects_and_scheduler_configuration():
    cfg = Configuration()
    assert qconf(cfg, "-sprjl") == ([], ["no project list defined"], 1)
    assert qconf(cfg, "-sprj p1") == ([], ["p1 is not known as a project"], 1)
    text = "name p1\noticket 0\nfshare 0\nacl NONE\nxacl NONE\n"
    assert run_qconf(cfg, ["-Aprj", "/tmp/f"], with_file(text)).code == 0
    assert qconf(cfg, "-sprj p1")[0][0] == "name p1"
    sched = "\n".join(qconf(cfg, "-ssconf")[0]).replace(
        "max_reservation                   0", "max_reservation                   10")
    ans = run_qconf(cfg, ["-Msconf", "/tmp/f"], with_file(sched))
    assert ans.err == ["changed scheduler configuration"] and cfg.sched.max_reservation == "10"
    ans = run_qconf(cfg, ["-Msconf", "/tmp/f"], with_file(sched))  # GE confirms it again
    assert ans.err == ["changed scheduler configuration"] and ans.code == 0
    bad = run_qconf(cfg, ["-Aprj", "/tmp/f"], with_file("name p2\nbogus 1\n"))
    assert bad.code == 1 and "p2" not in cfg.projects


def test_attribute_verbs_follow_the_reference():
    from gridd.master.bootstrap import CellConfig, initial_config
    from gridd.master.state import MasterState

    state = MasterState()
    initial_config(state, CellConfig(hosts=["vm"], slots=4))
    cfg = state.config
    cfg.complexes.append(ComplexAttr("license", "lic", "INT", "<=", "YES", "YES", "0", "0"))

    def attr(*argv: str) -> tuple[list[str], list[str], int]:
        ans = run_qconf(cfg, list(argv), ROOT)
        return ans.out, ans.err, ans.code

    assert attr("-mattr", "exechost", "complex_values", "license=5", "global") == (
        ['"complex_values" of "exechost" is empty - Adding new element(s).',
         'root@vm modified "global" in exechost list'], [], 0)
    out, err, code = attr("-mattr", "queue", "pe_list", "mpi", "smp", "all.q")
    assert out == ['root@vm modified "all.q" in cluster queue list']
    assert (err, code) == (['denied: cluster queue "smp" does not exist'], 1)
    assert attr("-mattr", "queue", "load_thresholds", "NONE", "all.q") == (
        [], ['"NONE" is not a valid list attribute value for -mattr.  '
             "Try using -rattr instead."], 1)
    assert attr("-rattr", "queue", "load_thresholds", "NONE", "all.q")[2] == 0
    assert attr("-aattr", "queue", "slots", "[vm=3]", "all.q")[2] == 0
    assert cfg.queues["all.q"].slots == "4,[vm=3]"
    assert queue_value(state.config.queues["all.q"], "slots", "vm", []) == "3"
    attr("-dattr", "queue", "slots", "[vm=3]", "all.q")  # really removed (GE 8.1.9 did not)
    assert cfg.queues["all.q"].slots == "4"
    attr("-aattr", "queue", "slots", "[vm=5]", "all.q")
    assert attr("-purge", "queue", "slots", "all.q@vm")[0] == [
        'root@vm modified "all.q" in cluster queue list']
    assert cfg.queues["all.q"].slots == "4"
    assert attr("-mattr", "queue", "slots", "2", "nosuch.q") == (
        [], ['denied: cluster queue "nosuch.q" does not exist'], 1)
    assert attr("-mattr", "queue", "slots", "abc", "all.q")[2] == 1
    assert cfg.queues["all.q"].slots == "4"
    out = attr("-mattr", "exechost", "complex_values", "license=7,slots=1", "global")[0]
    assert out[0] == ('Unable to find "slots" in "complex_values" of "exechost" - '
                      "Adding new element.")
    attr("-dattr", "exechost", "complex_values", "slots=1", "global")
    assert cfg.exechosts["global"].complex_values == "license=7"

"""qconf verbs in the pure core: access lists from files, host configurations, references
between objects, the attribute file forms, templates, and who may change what.

The expected words are Grid Engine 8.1.9's, taken from its qconf (run against a real
8.1.9 installation) where the reference transcripts do not show the case.
"""

from __future__ import annotations

import msgspec
import pytest

from gridd.formats.qconf_objects import template
from gridd.master.admin import Caller, run_qconf
from gridd.master.bootstrap import CellConfig, initial_config
from gridd.master.state import MasterState
from gridd.model.config import Configuration

ROOT = Caller("root", "vm")


def cell() -> Configuration:
    """What `gridd up --hosts 2` configures: all.q on node1 node2, PEs smp and mpi."""
    state = MasterState()
    initial_config(state, CellConfig(hosts=["node1", "node2"], slots=2))
    return state.config


def run(cfg: Configuration, *argv: str, files: dict[str, str] | None = None,
        user: str = "root") -> tuple[list[str], list[str], int]:
    ans = run_qconf(cfg, list(argv), Caller(user, "vm", files or {}))
    return ans.out, ans.err, ans.code


def snapshot(cfg: Configuration) -> bytes:
    return msgspec.msgpack.encode(cfg)


def refused(cfg: Configuration, *argv: str, files: dict[str, str] | None = None
            ) -> list[str]:
    """The stderr of a refused command, which must have changed nothing."""
    before = snapshot(cfg)
    out, err, code = run(cfg, *argv, files=files)
    assert code == 1, (out, err)
    assert snapshot(cfg) == before
    return err


# ---- access lists from files -------------------------------------------------------------

USERSET = "name    staff\ntype    ACL\nfshare  0\noticket 0\nentries a,b\n"


def test_access_list_from_a_file():
    cfg = Configuration()
    assert run(cfg, "-Au", "/f", files={"/f": USERSET}) == (
        [], ['root@vm added "staff" to userset list'], 0)
    assert refused(cfg, "-Au", "/f", files={"/f": USERSET}) == [
        'userset "staff" already exists']
    assert run(cfg, "-su", "staff")[0] == USERSET.splitlines()
    both = "name staff\ntype ACL,DEPT\nfshare 10\noticket 0\nentries a b c\n"
    assert run(cfg, "-Mu", "/f", files={"/f": both}) == (
        [], ['root@vm modified "staff" in userset list'], 0)
    assert run(cfg, "-su", "staff")[0][1:] == [
        "type    ACL DEPT", "fshare  10", "oticket 0", "entries a,b,c"]
    assert refused(cfg, "-Mu", "/f", files={"/f": "name other\n"}) == [
        'denied: userset "other" does not exist']


@pytest.mark.parametrize(("text", "lines"), [
    ("name x\ntype FOO\n", ['error: reading conf file: unknown specifier "FOO" for userset type',
                            'error: error reading file: "u"', "error reading in file"]),
    ("name x\nfshare x\n", ['error: error parsing unsigned long value from string "x"',
                            'error: error reading file: "u"', "error reading in file"]),
    ("name x\nextra 1\n", ['error: unknown attribute name "extra"',
                           'error: error reading file: "u"', "error reading in file"]),
])
def test_bad_access_list_files(text: str, lines: list[str]):
    assert refused(Configuration(), "-Au", "u", files={"u": text}) == ["\n".join(lines)]


def test_access_list_still_used_is_not_deleted():
    cfg = cell()
    run(cfg, "-au", "alice", "staff")
    run(cfg, "-mattr", "queue", "user_lists", "staff", "all.q")
    assert refused(cfg, "-dul", "staff") == [
        'denied: userset "staff" is still referenced in user list of queue "all.q"']
    run(cfg, "-rattr", "queue", "user_lists", "NONE", "all.q")
    run(cfg, "-aattr", "pe", "xuser_lists", "staff", "smp")
    assert refused(cfg, "-dul", "staff") == [
        'denied: userset "staff" is still referenced in xuser list of parallel '
        'environment "smp"']
    run(cfg, "-rattr", "pe", "xuser_lists", "NONE", "smp")
    assert run(cfg, "-dul", "staff")[2] == 0


# ---- references between objects -----------------------------------------------------------

def _queue(**changes: str) -> str:
    lines = template("queue", "new.q").splitlines()
    for key, value in {"pe_list": "smp", **changes}.items():
        lines = [f"{key:<21} {value}" if line.split()[0] == key else line for line in lines]
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize(("changes", "message"), [
    ({"hostlist": "@nosuch"}, 'denied: host group "@nosuch" does not exist'),
    ({"slots": "1,[@nosuch=2]"}, 'denied: host group "@nosuch" does not exist'),
    ({"pe_list": "make smp mpi"}, 'Parallel environment "make" does not exist'),
    ({"pe_list": "smp,[node1=nosuchpe]"}, 'Parallel environment "nosuchpe" does not exist'),
    ({"user_lists": "nosuchacl"}, 'Userset "nosuchacl" does not exist'),
    ({"xuser_lists": "nosuchacl"}, 'Userset "nosuchacl" does not exist'),
    ({"projects": "nosuchprj"}, 'Project "nosuchprj" does not exist'),
    ({"complex_values": "nosuchattr=1"}, 'Complex attribute "nosuchattr" does not exist'),
    ({"ckpt_list": "nosuchckpt"}, 'Ckpt "nosuchckpt" does not exist'),
    ({"calendar": "nosuchcal"}, 'Calendar "nosuchcal" does not exist'),
    ({"subordinate_list": "nosuch.q"},
     'Subordinated cluster queue "nosuch.q" referenced in "new.q" does not exist'),
])
def test_queue_naming_something_missing_is_refused(changes: dict[str, str], message: str):
    cfg = cell()
    assert refused(cfg, "-Aq", "q", files={"q": _queue(**changes)}) == [message]


def test_queue_references_that_exist_are_accepted():
    cfg = cell()
    run(cfg, "-au", "alice", "staff")
    run(cfg, "-Ahgrp", "g", files={"g": "group_name @all\nhostlist node1 node2\n"})
    text = _queue(hostlist="@all", user_lists="staff", complex_values="s=2,h_vmem=1G",
                  subordinate_list="all.q=1", pe_list="smp,[@all=mpi smp]")
    assert run(cfg, "-Aq", "q", files={"q": text}) == (
        [], ['root@vm added "new.q" to cluster queue list'], 0)
    assert refused(cfg, "-dq", "all.q") == [
        'Cluster queue "all.q" is referenced in cluster queue "new.q" as a subordinate. '
        "Deletion denied"]
    assert refused(cfg, "-dp", "mpi") == [
        'denied: Parallel environment "mpi" is still referenced in queue "all.q".']
    assert refused(cfg, "-dhgrp", "@all") == [
        'denied: these cluster queues still reference "@all": new.q']
    assert refused(cfg, "-de", "node1") == [
        'Host object "node1" is still referenced in cluster queue "all.q".']


def test_template_queue_name_is_reserved_and_sq_shows_the_template():
    cfg = cell()
    assert run(cfg, "-sq")[0] == template("queue").splitlines()
    text = _queue().replace("new.q", "template")
    assert refused(cfg, "-Aq", "q", files={"q": text}) == [
        'cluster queue name "template" is not valid']


def test_sq_takes_patterns_and_shows_each_queue_once():
    cfg = cell()
    run(cfg, "-Aq", "q", files={"q": _queue()})
    out, err, code = run(cfg, "-sq", "*.q,all.q")
    assert [line for line in out if line.startswith("qname")] == [
        "qname                 all.q", "qname                 new.q"]
    assert (err, code) == ([], 0)
    assert run(cfg, "-sq", "nosuch")[1:] == (
        ['No cluster queue or queue instance matches the phrase "nosuch"'], 1)


def test_exec_host_references_and_the_global_host():
    cfg = cell()
    assert run(cfg, "-sel")[0] == ["node1", "node2"]  # global is no host
    assert refused(cfg, "-mattr", "exechost", "complex_values", "nosuch=1", "node1") == [
        'denied: attribute "nosuch" is not a complex attribute']
    assert refused(cfg, "-mattr", "exechost", "xprojects", "p1", "node1") == [
        'denied: project "p1" referenced in xprojects of exechost "node1" does not exist']
    assert refused(cfg, "-mattr", "exechost", "report_variables", "nosuch", "node1") == [
        'unknown resource "nosuch"']
    assert refused(cfg, "-de", "global") == ['denied: pseudo host "global" may not be deleted']


def test_exec_host_file_keeps_reported_values():
    cfg = cell()
    cfg.exechosts["node1"] = msgspec.structs.replace(
        cfg.exechosts["node1"], load_values="arch=lx-amd64", processors="2")
    text = template("exechost", "node1").replace("complex_values        NONE",
                                                 "complex_values        slots=4")
    assert run(cfg, "-Me", "e", files={"e": text})[1] == [
        'root@vm modified "node1" in exechost list']
    node1 = cfg.exechosts["node1"]
    assert (node1.complex_values, node1.load_values, node1.processors) == (
        "slots=4", "arch=lx-amd64", "2")
    new = template("exechost", "node3")
    assert run(cfg, "-ae", "e", files={"e": new})[1] == ["added host node3 to exec host list"]
    assert run(cfg, "-de", "node3")[1] == ['root@vm removed "node3" from execution host list']


def test_an_exec_host_there_is_none_of_in_8_1_9s_words():
    """8.1.9 (run here): a name that resolves is no execution host (-se, -me) or does not
    exist (-de, -Me); one that does not resolve, it can't resolve. qconf says which
    names resolve (Caller.resolved); gridd's own hosts need not."""
    cfg = cell()
    here = Caller("root", "vm", {"/l": template("exechost", "localhost"),
                                 "/n": template("exechost", "nosuch.invalid")},
                  resolved=frozenset({"localhost"}))
    before = snapshot(cfg)

    def said(*argv: str) -> tuple[list[str], int]:
        ans = run_qconf(cfg, list(argv), here)
        assert ans.out == [] and snapshot(cfg) == before
        return ans.err, ans.code

    assert said("-se", "localhost") == (["localhost is not an execution host"], 1)
    assert said("-se", "nosuch.invalid") == (['can\'t resolve hostname "nosuch.invalid"'], 1)
    assert said("-de", "localhost,nosuch.invalid") == (
        ['denied: execution host "localhost" does not exist',
         'can\'t resolve hostname "nosuch.invalid"'], 1)
    assert said("-Me", "/l") == (['denied: exechost "localhost" does not exist'], 1)
    assert said("-Me", "/n") == (['can\'t resolve hostname "nosuch.invalid"'], 1)
    assert run_qconf(cfg, ["-se", "node1"], here).out[0] == "hostname              node1"


def test_suser_shows_each_user_of_a_list():
    """8.1.9 (run here): -suser takes a list; each user once, in the order named, a blank
    line between two, a user there is none of said on stderr. 8.1.9 then exits 0, as if
    nothing were wrong; gridd exits 1, as for any other object there is none of."""
    cfg = cell()
    run(cfg, "-Auser", "/u", files={"/u": "name root\noticket 0\nfshare 0\ndelete_time 0\n"
                                           "default_project NONE\n"})
    root = run(cfg, "-suser", "root")[0]
    assert root[0] == "name root"
    assert run(cfg, "-suser", "alice,root,root") == (
        ["", *root], ["alice is not known as a user"], 1)
    assert run(cfg, "-suser", "root,alice") == ([*root, ""], ["alice is not known as a user"], 1)
    assert run(cfg, "-suser", "alice bob") == (
        [""], ["alice is not known as a user", "bob is not known as a user"], 1)
    assert run(cfg, "-suser", "root")[2] == 0
    assert run(cfg, "-suser", ",") == ([], [], 0)


def test_host_group_cycles_and_deletion():
    cfg = cell()
    run(cfg, "-Ahgrp", "g", files={"g": "group_name @pa\nhostlist node1\n"})
    run(cfg, "-Ahgrp", "g", files={"g": "group_name @pb\nhostlist @pa\n"})
    assert refused(cfg, "-Mhgrp", "g", files={"g": "group_name @pa\nhostlist @pb\n"}) == [
        'Hostgroup "@pb" in specification of "@pa" would create a cycle']
    assert refused(cfg, "-Mhgrp", "g", files={"g": "group_name @pa\nhostlist @pa\n"}) == [
        'Hostgroup "@pa" in specification of "@pa" would create a cycle']
    assert refused(cfg, "-Ahgrp", "g", files={"g": "group_name @pc\nhostlist @pc\n"}) == [
        'denied: host group "@pc" does not exist']
    assert refused(cfg, "-dhgrp", "@pa") == [
        'denied: these hostgroups still reference "@pa": @pb']
    assert run(cfg, "-dhgrp", "@pb")[1] == ['root@vm removed "@pb" from host group entry list']


def test_project_still_used_is_not_deleted():
    cfg = cell()
    run(cfg, "-Aprj", "p", files={"p": template("project", "p1")})
    run(cfg, "-aattr", "queue", "xprojects", "p1", "all.q")
    assert refused(cfg, "-dprj", "p1") == [
        'denied: project "p1" is still referenced in xprojects of queue "all.q"']


# ---- what each -A*/-M* option adds to a bad file's complaint -------------------------------

def test_bad_file_complaints_per_option():
    cfg = cell()
    bad_queue = _queue(slots="abc")
    unsigned = ['error: error parsing unsigned long value from string "abc"',
                'error: Error during parsing of attribute value "abc"',
                'error: error reading file: "bq"']
    assert refused(cfg, "-Aq", "bq", files={"bq": bad_queue}) == ["\n".join(unsigned)]
    mq = bad_queue.replace("new.q", "all.q")
    assert refused(cfg, "-Mq", "bq", files={"bq": mq}) == [
        "\n".join([*unsigned, 'Cluster queue file "bq" is not correct'])]
    pe = template("pe", "badpe").replace("$pe_slots", "$bogus")
    assert refused(cfg, "-Ap", "/tmp/pe_bad", files={"/tmp/pe_bad": pe}) == [
        'error: parameter allocation_rule of pe "badpe": unknown variable "bogus"\n'
        "error reading in file"]  # queues_pe.txt
    pe = template("pe", "badpe").replace("slots              0", "slots              abc")
    assert refused(cfg, "-Ap", "bp", files={"bp": pe}) == [
        'error: error parsing unsigned long value from string "abc"\n'
        'error: error reading file: "bp"\nerror reading in file']
    assert refused(cfg, "-Ae", "e", files={"e": "hostname n\nbogus 1\n"}) == [
        'error: unknown attribute name "bogus"\nerror: error reading file: "e"\ninvalid format']
    # Grid Engine reports a bad -Ahgrp file with exit code 0, a bug gridd does not copy
    before = snapshot(cfg)
    assert run(cfg, "-Ahgrp", "h", files={"h": "group_name @x\nbogus 1\n"}) == (
        [], ['error: unknown attribute name "bogus"\nerror: error reading file: "h"'], 1)
    assert snapshot(cfg) == before
    assert refused(cfg, "-Mhgrp", "h", files={"h": "group_name @x\nbogus 1\n"}) == [
        'error: unknown attribute name "bogus"\nerror: error reading file: "h"\n'
        'Host group file "h" is not correct']


# ---- global and host configurations ----------------------------------------------------------

def test_host_configurations():
    cfg = cell()
    assert run(cfg, "-sconfl") == ([], ["no config defined"], 1)
    assert run(cfg, "-sconf", "node1") == ([], ["configuration node1 not defined"], 1)
    assert run(cfg, "-Mconf", "/tmp/node1", files={"/tmp/node1": "mailer /bin/true\n"}) == (
        [], ["configuration node1 does not exist"], 1)
    conf = {"/tmp/node1": "mailer /bin/true\nxterm /bin/false\n"}
    assert run(cfg, "-Aconf", "/tmp/node1", files=conf) == (
        [], ['root@vm added "node1" to configuration list'], 0)
    assert refused(cfg, "-Aconf", "/tmp/node1", files=conf) == [
        "configuration node1 already exists"]
    assert run(cfg, "-sconf", "node1")[0] == [
        "#node1:", "mailer                       /bin/true",
        "xterm                        /bin/false", ""]
    out = run(cfg, "-sconf", "node1,global")[0]
    assert out[3:6] == ["", "", "#global:"]  # one more blank line between two
    assert run(cfg, "-sconfl")[0] == ["node1"]
    assert refused(cfg, "-Mconf", "/x/node1", files={"/x/node1": "bogus 1\n"}) == [
        'error: unknown attribute name "bogus"\nerror: error reading file: "/x/node1"\n'
        "error reading configuration from file /x/node1"]
    assert refused(cfg, "-Mconf", "/x/node1", files={"/x/node1": "\n"}) == [
        'error: error reading file: "/x/node1"\nerror reading configuration from file /x/node1']
    assert run(cfg, "-Mconf", "/x/node1", files={"/x/node1": "max_u_jobs 5\n"})[1] == [
        'root@vm modified "node1" in configuration list']
    assert cfg.host_confs["node1"] == {"max_u_jobs": "5"}
    assert run(cfg, "-dconf", "node1") == (
        [], ['root@vm removed "node1" from configuration list'], 0)
    assert refused(cfg, "-dconf", "node1") == [
        'can\'t delete configuration "node1" from list: configuration does not exist']
    assert run(cfg, "-dconf", "global") == (  # Grid Engine exits 0 here; a refusal is 1
        [], ['can\'t delete configuration "global" from list'], 1)


def test_global_configuration_from_a_file_named_global():
    cfg = cell()
    shown = "\n".join(run(cfg, "-sconf")[0]).replace("max_u_jobs                   0",
                                                       "max_u_jobs                   9")
    assert run(cfg, "-Mconf", "/tmp/global", files={"/tmp/global": shown}) == (
        [], ['root@vm modified "global" in configuration list'], 0)
    assert cfg.conf.max_u_jobs == "9"
    assert run(cfg, "-Mconf", "/tmp/global", files={"/tmp/global": shown})[2] == 0
    assert refused(cfg, "-Aconf", "/tmp/global", files={"/tmp/global": shown}) == [
        "configuration global already exists"]


# ---- attribute verbs -----------------------------------------------------------------------

def test_attribute_file_forms():
    cfg = cell()
    files = {"a": "slots 3\nseq_no 7\n"}
    assert run(cfg, "-Mattr", "queue", "a", "all.q", files=files) == (
        ['root@vm modified "all.q" in cluster queue list'], [], 0)
    assert (cfg.queues["all.q"].slots, cfg.queues["all.q"].seq_no) == ("3", "7")
    files = {"a": "complex_values slots=4\n"}
    assert run(cfg, "-Aattr", "exechost", "a", "node1", files=files)[0] == [
        'root@vm modified "node1" in exechost list']
    assert run(cfg, "-Aattr", "exechost", "a", "node1", files=files) == (
        ['No modification because "slots" already exists in "complex_values" of "exechost"'],
        [], 0)
    assert run(cfg, "-Dattr", "exechost", "a", "node1", files=files)[0] == [
        'root@vm modified "node1" in exechost list']
    assert run(cfg, "-Dattr", "exechost", "a", "node1", files=files)[0] == [
        '"slots" does not exist in "complex_values" of "exechost"',
        'root@vm modified "node1" in exechost list']
    assert run(cfg, "-Rattr", "queue", "p", "all.q", files={"p": "pe_list NONE\n"})[2] == 0
    assert cfg.queues["all.q"].pe_list == "NONE"
    tail = 'error: error reading file: "b"\nerror: invalid option argument "b"\nUsage: qconf -help'
    assert refused(cfg, "-Mattr", "queue", "b", "all.q", files={"b": ""}) == [tail]
    assert refused(cfg, "-Mattr", "queue", "b", "all.q", files={"b": "bogus 1\n"}) == [
        f'error: unknown attribute name "bogus"\n{tail}']
    assert refused(cfg, "-Mattr", "queue", "b", "all.q", files={"b": "slots 1\nslots 2\n"}) == [
        f'error: attribute "slots" appears more than once\n{tail}']
    # 8.1.9's words, a file named or not (it asks for the file when the objects lack).
    assert refused(cfg, "-Mattr", "queue", "b", files={"b": "slots 1\n"}) == [
        "qconf: missing filename as option argument"]
    assert refused(cfg, "-Mattr", "queue") == [
        'error: no option argument provided to "queue"\nUsage: qconf -help']


def test_attribute_verbs_on_a_queue_instance_edit_its_override():
    """8.1.9: `-rattr queue slots 3 zz.q@vm` wrote `slots 2,[vm=3]`; an unknown host
    group is refused, an unknown host is not."""
    cfg = cell()
    assert run(cfg, "-rattr", "queue", "slots", "3", "all.q@node1") == (
        ['root@vm modified "all.q" in cluster queue list'], [], 0)
    assert cfg.queues["all.q"].slots == "2,[node1=3]"
    run(cfg, "-mattr", "queue", "slots", "1", "all.q@node1")
    run(cfg, "-rattr", "queue", "suspend_thresholds", "np_load_avg=0", "all.q@node2")
    out = run(cfg, "-mattr", "queue", "suspend_thresholds", "mem_free=1G", "all.q@node2")[0]
    assert out[0] == ('Unable to find "mem_free" in "suspend_thresholds" of "all.q" - '
                      "Adding new element.")
    assert (cfg.queues["all.q"].slots, cfg.queues["all.q"].suspend_thresholds) == (
        "2,[node1=1]", "NONE,[node2=np_load_avg=0,mem_free=1G]")
    assert refused(cfg, "-rattr", "queue", "slots", "2", "all.q@@nogroup") == [
        'Did not modify "slots" for host group "@nogroup" which does not exist.']
    assert refused(cfg, "-rattr", "queue", "slots", "2", "nosuch.q@node1") == [
        'denied: cluster queue "nosuch.q" does not exist']
    assert run(cfg, "-rattr", "queue", "slots", "2", "all.q@nohost")[2] == 0


def test_attribute_verbs_in_grid_engine_words():
    cfg = cell()
    assert refused(cfg, "-mattr", "queue", "slots", "1") == ["qconf: missing object list"]
    for short in (["queue"], ["queue", "slots"]):  # 8.1.9 names the last word given
        assert refused(cfg, "-mattr", *short) == [
            f'error: no option argument provided to "{short[-1]}"\nUsage: qconf -help']
    assert refused(cfg, "-mattr", "bogus", "slots", "1", "all.q") == [
        'Modification of object "bogus" not supported']
    assert refused(cfg, "-mattr", "queue", "qname", "x", "all.q") == [
        "qconf: cannot change qname"]
    assert refused(cfg, "-mattr", "queue", "bogus", "1", "all.q") == [
        'The attribute name ("bogus") and/or value ("1") is invalid']
    assert refused(cfg, "-mattr", "queue", "slots", "abc", "all.q") == [
        'error parsing unsigned long value from string "abc"\n'
        'Error during parsing of attribute value "abc"']
    assert refused(cfg, "-aattr", "queue", "pe_list", "nosuchpe", "all.q") == [
        'Parallel environment "nosuchpe" does not exist']
    assert refused(cfg, "-mattr", "queue", "slots", "1", "all.q,nosuch.q") == [
        'denied: cluster queue "all.q,nosuch.q" does not exist']
    assert run(cfg, "-aattr", "queue", "pe_list", "smp", "all.q")[0] == [
        'No modification because "smp" already exists in "pe_list" of "all.q"',
        'root@vm modified "all.q" in cluster queue list']
    assert run(cfg, "-dattr", "queue", "slots", "5", "all.q")[2] == 0  # a single value stays
    assert cfg.queues["all.q"].slots == "2"
    assert run(cfg, "-mattr", "queue", "priority", "-5", "all.q")[2] == 0  # not an option
    assert cfg.queues["all.q"].priority == "-5"
    run(cfg, "-aattr", "queue", "complex_values", "s=3,[node1=s=2]", "all.q")
    assert cfg.queues["all.q"].complex_values == "s=3,[node1=s=2]"
    out = run(cfg, "-aattr", "queue", "complex_values", "s=4,[node1=h_vmem=1G]", "all.q")[0]
    assert out[0] == 'No modification because "s" already exists in "complex_values" of "all.q"'
    assert cfg.queues["all.q"].complex_values == "s=3,[node1=s=2,h_vmem=1G]"


# ---- who may change the configuration --------------------------------------------------------

def test_only_managers_change_anything():
    cfg = cell()
    before = snapshot(cfg)
    assert run(cfg, "-am", "alice", user="alice") == (
        [], ['denied: "alice" must be manager for this operation'], 1)
    assert run(cfg, "-sq", "all.q", "-mattr", "queue", "slots", "9", "all.q",
               user="alice")[1:] == (['denied: "alice" must be manager for this operation'], 1)
    assert snapshot(cfg) == before
    assert run(cfg, "-sql", user="alice") == (["all.q"], [], 0)  # showing is for everyone


def test_templates_are_grid_engines():
    assert template("exechost").splitlines()[:3] == [
        "hostname              template", "load_scaling          NONE",
        "complex_values        NONE"]
    assert "load_values" not in template("exechost")
    assert template("project") == "name template\noticket 0\nfshare 0\nacl NONE\nxacl NONE\n"
    assert template("hostgroup", "@g") == "group_name @g\nhostlist NONE\n"
    assert template("pe", "x").splitlines()[1] == "slots              0"
    assert template("queue").splitlines()[12] == "pe_list               make smp mpi"


def test_what_gridd_has_none_of_is_listed_as_8_1_9_lists_nothing():
    cfg = cell()
    assert refused(cfg, "-sstree") == ["no sharetree element"]
    assert refused(cfg, "-scall") == ["no calendar defined"]
    assert refused(cfg, "-sckptl") == ["no ckpt interface definition defined"]
    ans = run_qconf(cfg, ["-sss"], Caller("alice", "node1", master_host="vm"))
    assert (ans.out, ans.code) == (["vm"], 0)

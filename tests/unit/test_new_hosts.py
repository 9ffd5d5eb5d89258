"""A host that registers becomes a full execution host (gridd.master.new_hosts, by way of
Master.register): in the exec host list, in @allhosts, in all.q, spooled and told."""

import logging

from gridd import protocol as p
from gridd.master import events
from gridd.master.admin import Caller, run_qconf
from gridd.master.bootstrap import CellConfig, initial_config
from gridd.master.core import Master
from gridd.master.state import Effects, MasterState

ROOT = Caller("root", "head")


def cell(hosts: list[str]) -> Master:
    state = MasterState()
    initial_config(state, CellConfig(hosts=hosts, slots=2, machine="head"))
    return Master(state, master_host="head")


def qconf(m: Master, *argv: str) -> tuple[list[str], list[str], int]:
    ans = run_qconf(m.s.config, list(argv), ROOT)
    return ans.out, ans.err, ans.code


def register(m: Master, host: str, now: float = 10.0) -> Effects:
    fx = Effects()
    m.register(p.Register(host=host, load={"np_load_avg": "0.1"}), now, fx)
    return fx


def test_a_new_host_registering_joins_the_exec_hosts_and_allhosts() -> None:
    m = cell([])  # gridd up --hosts 0
    fx = register(m, "newhost")
    assert qconf(m, "-sel")[0] == ["newhost"]
    assert qconf(m, "-se", "newhost")[0][0] == "hostname              newhost"
    assert qconf(m, "-shgrp", "@allhosts")[0] == ["group_name @allhosts", "hostlist newhost"]
    assert fx.config_changed  # spooled with its history, and the scheduler told
    assert [qi.name for qi in m.plan.instances] == ["all.q@newhost"]
    assert events.for_scheduler(m, fx, False).conf is m.plan
    assert (logging.INFO, "execution host newhost registered: added to the exec host list "
            "and host group @allhosts") in fx.notices  # for the master's messages log
    assert m.host_state("newhost") == "up"


def test_a_known_host_registering_changes_no_configuration() -> None:
    m = cell(["node1"])
    fx = register(m, "node1")
    assert not fx.config_changed and qconf(m, "-sel")[0] == ["node1"]
    assert qconf(m, "-shgrp", "@allhosts")[0][1] == "hostlist node1"


def test_hosts_join_the_group_one_after_the_other() -> None:
    m = cell(["node1"])
    register(m, "node2")
    register(m, "node3")
    assert qconf(m, "-shgrp", "@allhosts")[0][1] == "hostlist node1 node2 node3"
    assert [qi.name for qi in m.plan.instances] == [
        "all.q@node1", "all.q@node2", "all.q@node3"]


def test_without_allhosts_a_new_host_is_an_exec_host_in_no_queue() -> None:
    m = cell(["node1"])
    qconf(m, "-rattr", "queue", "hostlist", "node1", "all.q")
    qconf(m, "-dhgrp", "@allhosts")
    fx = register(m, "node2")
    assert fx.config_changed and qconf(m, "-sel")[0] == ["node1", "node2"]
    assert [qi.name for qi in m.plan.instances] == ["all.q@node1"]
    assert (logging.INFO, "execution host node2 registered: added to the exec host "
            "list") in fx.notices


def test_a_deleted_host_whose_execd_registers_again_comes_back() -> None:
    """As in 8.1.9: an execd left running on a host deleted with qconf -de brings it back
    when it registers; the admission is logged."""
    m = cell(["node1", "node2"])
    register(m, "node2")
    qconf(m, "-dattr", "hostgroup", "hostlist", "node2", "@allhosts")
    assert qconf(m, "-de", "node2")[2] == 0
    m.refresh_views()
    fx = register(m, "node2", now=20.0)
    assert qconf(m, "-sel")[0] == ["node1", "node2"]
    assert "all.q@node2" in [qi.name for qi in m.plan.instances]
    assert any(text.startswith("execution host node2 registered") for _, text in fx.notices)

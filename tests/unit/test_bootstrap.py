"""A new cell's configuration, as Grid Engine's installation makes it (gridd.master.bootstrap)."""

from gridd.formats.qconf_objects import show
from gridd.master.admin import Caller, run_qconf
from gridd.master.bootstrap import ALL_HOSTS, CellConfig, initial_config
from gridd.master.state import MasterState

ROOT = Caller("root", "head")


def qconf(state: MasterState, *argv: str) -> tuple[list[str], list[str], int]:
    ans = run_qconf(state.config, list(argv), ROOT)
    return ans.out, ans.err, ans.code


def test_all_q_is_over_the_host_group_of_every_host() -> None:
    state = MasterState()
    initial_config(state, CellConfig(hosts=["node1", "node2"], slots=2, machine="head"))
    # 8.1.9 prints a host group's list on one line, and all.q's host list as it is written
    assert qconf(state, "-shgrp", ALL_HOSTS) == (
        ["group_name @allhosts", "hostlist node1 node2"], [], 0)
    assert qconf(state, "-sq", "all.q")[0][:2] == [
        "qname                 all.q", "hostlist              @allhosts"]
    assert qconf(state, "-shgrp_resolved", ALL_HOSTS)[0] == ["node1", "node2"]
    assert qconf(state, "-sel")[0] == ["node1", "node2"]
    assert sorted(state.hosts) == ["node1", "node2"]
    assert (state.config.admin_hosts, state.config.submit_hosts) == (["head"], ["head"])


def test_a_cell_with_no_hosts_has_an_empty_host_group() -> None:
    """`gridd up --hosts 0`: a master with no local execd; its hosts come by registering."""
    state = MasterState()
    initial_config(state, CellConfig(hosts=[], slots=4, machine="head"))
    assert show("hostgroup", state.config.hostgroups[ALL_HOSTS]).splitlines() == [
        "group_name @allhosts", "hostlist NONE"]  # as 8.1.9's qconf -shgrp shows it
    assert qconf(state, "-sel") == ([], ["no execution host defined"], 1)
    assert state.config.queues["all.q"].hostlist == ALL_HOSTS
    assert not state.hosts


def test_an_exec_host_in_a_host_group_is_not_deleted() -> None:
    """8.1.9 names the queue that has an instance on the host first, however it got
    there, then the host group that lists it."""
    state = MasterState()
    initial_config(state, CellConfig(hosts=["node1"], slots=1))
    assert qconf(state, "-de", "node1") == (
        [], ['Host object "node1" is still referenced in cluster queue "all.q".'], 1)
    qconf(state, "-rattr", "queue", "hostlist", "NONE", "all.q")
    assert qconf(state, "-de", "node1") == (
        [], ['Host object "node1" is still referenced in host group "@allhosts".'], 1)
    qconf(state, "-dattr", "hostgroup", "hostlist", "node1", ALL_HOSTS)
    assert qconf(state, "-de", "node1")[2] == 0

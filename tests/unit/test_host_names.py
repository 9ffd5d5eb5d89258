"""Which host names name one host (gridd.model.host_names), and the rules that ask it."""

import pytest

from gridd.master import permissions
from gridd.model.config import Configuration
from gridd.model.host_names import among, find_host, host_key, same_host


@pytest.mark.parametrize(("one", "other"), [
    ("node7", "node7"), ("node7", "NODE7"), ("node7", "node7.example.org"),
    ("Node7.Example.ORG", "node7.other.net"), ("10.0.0.1", "10.0.0.1"),
    ("fe80::1", "FE80::1"),
])
def test_the_same_host(one: str, other: str) -> None:
    assert same_host(one, other) and same_host(other, one)


@pytest.mark.parametrize(("one", "other"), [
    ("node7", "node8"), ("node7", "node7x.example.org"), ("10.0.0.1", "10.0.0.2"),
    ("10.0.0.1", "10"), ("node", "node7"),
])
def test_other_hosts(one: str, other: str) -> None:
    assert not same_host(one, other) and not same_host(other, one)


def test_an_address_keeps_its_dots_a_name_drops_its_domain() -> None:
    assert host_key("10.77.0.2") == "10.77.0.2"
    assert host_key("::ffff:10.0.0.1") == "::ffff:10.0.0.1"
    assert host_key("NODE7.example.org") == "node7"


def test_a_list_names_a_host_by_its_own_name() -> None:
    hosts = ["vm", "node7.example.org"]
    assert among("NODE7", hosts) and among("vm.example.org", hosts)
    assert not among("node8", hosts)
    assert find_host("node7", {"node7.example.org": 1, "node8": 2}) == "node7.example.org"
    assert find_host("node8", ["NODE8", "node8"]) == "node8"  # the very name first
    assert find_host("node9", hosts) is None


def test_submit_and_admin_hosts_are_judged_by_the_rule() -> None:
    cfg = Configuration(admin_hosts=["vm"], submit_hosts=["node7"])
    assert permissions.submit_host_refusal(cfg, "node7.example.org") is None
    assert permissions.submit_host_refusal(cfg, "NODE7") is None
    assert permissions.submit_host_refusal(cfg, "10.77.0.2") == (
        'denied: host "10.77.0.2" is not a submit host')  # 8.1.9's words
    assert permissions.admin_host(cfg, "VM.example.org")
    assert not permissions.admin_host(cfg, "node7")

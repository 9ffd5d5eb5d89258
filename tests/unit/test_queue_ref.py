"""The queue-reference rule (gridd.model.queue_ref): which queue instances `q`, `q@host`,
`q@@group` and their patterns name. The planner (-q, -masterq, soft queues), qselect and
qstat -q, qmod and qrsub all ask it; these were the tests of formats.names' copy of it,
which had its own case rule for host names and which nothing but its tests used. Host
names match as gridd.model.host_names compares them (the property's `host.x` is `host`
in the domain x)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from gridd.model.cluster import Instance
from gridd.model.queue_ref import names_queue, queue_matches

GROUPS = {"@linux": ["vm", "node1"], "@solaris": ["sun1"]}


def instance(queue: str, host: str) -> Instance:
    return Instance(name=f"{queue}@{host}", queue=queue, host=host, slots=1)


def test_references_name_queues_hosts_and_host_groups() -> None:
    refs = "all.q, all.q@node*,*@@linux,@node1,,"
    named = [ref.strip() for ref in refs.split(",") if ref.strip()]
    assert named == ["all.q", "all.q@node*", "*@@linux", "@node1"]
    assert queue_matches("all.q", instance("all.q", "anyhost"), GROUPS)
    assert not queue_matches("all.q", instance("long.q", "anyhost"), GROUPS)
    assert queue_matches("all.q@node*", instance("all.q", "node7"), GROUPS)
    assert not queue_matches("all.q@node*", instance("long.q", "node7"), GROUPS)
    assert queue_matches("@node1", instance("long.q", "node1"), GROUPS)
    assert not queue_matches("@node1", instance("long.q", "node2"), GROUPS)
    assert not queue_matches("a?.q@node1", instance("all.q", "node1"), GROUPS)
    assert queue_matches("a?.q@node1", instance("ab.q", "node1"), GROUPS)


def test_a_second_at_names_a_host_group_by_pattern() -> None:
    assert queue_matches("*@@lin*", instance("short.q", "vm"), GROUPS)
    assert queue_matches("short.q@@linux", instance("short.q", "node1"), GROUPS)
    assert not queue_matches("*@@lin*", instance("short.q", "sun1"), GROUPS)
    assert queue_matches("*@@solaris", instance("short.q", "sun1"), GROUPS)
    assert not queue_matches("*@@windows", instance("short.q", "vm"), GROUPS)
    # One @ names a host, however it is spelled: a host called "@linux" there is none.
    assert not queue_matches("*@linux", instance("short.q", "vm"), GROUPS)


def test_empty_parts_name_every_queue_or_host() -> None:
    # What formats.names refused ("", "all.q@", "@") the planner always took this way.
    for ref in ("", "@", "all.q@"):
        assert queue_matches(ref, instance("all.q", "vm"), GROUPS), ref
    assert not queue_matches("all.q@", instance("long.q", "vm"), GROUPS)
    assert not queue_matches("all.q@@", instance("all.q", "vm"), GROUPS)  # no group "@"


def test_queue_names_match_with_regard_to_case_host_names_as_host_names_compare() -> None:
    # 8.1.9 ignores the case of host names (`qselect -q all.q@VM` lists all.q@vm), and
    # their domain by default (ignore_fqdn): gridd.model.host_names
    assert queue_matches("all.q@node*", instance("all.q", "NODE7"), GROUPS)
    assert queue_matches("all.q@VM", instance("all.q", "vm"), GROUPS)
    assert queue_matches("all.q@vm.example.org", instance("all.q", "vm"), GROUPS)
    assert queue_matches("all.q@Node?", instance("all.q", "node7.example.org"), GROUPS)
    assert not queue_matches("all.q@vm2", instance("all.q", "vm"), GROUPS)
    assert not queue_matches("ALL.q", instance("all.q", "vm"), GROUPS)


def test_the_cluster_queue_part_alone() -> None:
    assert names_queue("all.q@node9", "all.q")
    assert names_queue("@node9", "long.q")
    assert names_queue("a*@@linux", "all.q")
    assert not names_queue("b*@node9", "all.q")


_NAME = st.from_regex(r"[a-z][a-z0-9.]{0,10}", fullmatch=True)


@given(_NAME, _NAME, _NAME, st.booleans())
def test_written_names_name_their_instance(queue: str, host: str, group: str,
                                           member: bool) -> None:
    """A reference spelled out (no wildcards) names the instances of its queue on its
    host, or on its host group's members; without a host part, on every host."""
    qi = instance(queue, host)
    groups = {f"@{group}": [host] if member else []}
    assert queue_matches(queue, qi, groups)
    assert queue_matches(f"{queue}@{host}", qi, groups)
    assert queue_matches(f"@{host}", qi, groups)
    assert queue_matches(f"{queue}@@{group}", qi, groups) == member
    assert queue_matches(f"@@{group}", qi, groups) == member
    assert not queue_matches(f"{queue}x", qi, groups)
    assert not queue_matches(f"{queue}@x{host}", qi, groups)  # (host.x is host's domain)
    assert names_queue(f"{queue}@{host}x", queue)

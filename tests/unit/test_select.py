"""Choosing queue instances by what they are (gridd.sched.select): qselect and qstat's -q,
-l, -pe, -qs and -U. Each case is what 8.1.9 did, run on this machine, with the same
configuration in small (all.q with PE mpi and 4 slots, aa.q without a PE, zz.q of 2
slots open to acl1 alone, mm.q closed to acl2)."""

from __future__ import annotations

import pytest

from gridd.model.cluster import HostAccess, PlanConf, Running
from gridd.model.pe import PE_SLOTS, ParallelEnv
from gridd.model.planning import SchedJob
from gridd.model.selection import QueueSelect
from gridd.sched.select import NoneLeft, Unselectable, choose, might_run
from tests.unit.test_plan import COMPLEXES, qi

LOADS = {"vm": {"arch": "lx-amd64", "num_proc": "2", "mem_total": "24105.1M",
                "mem_free": "23757.1M", "load_avg": "1.89", "np_load_avg": "0.94",
                "m_core": "2"}}


def conf(**changes: object) -> PlanConf:
    instances = [
        qi("all.q@vm", pe_list=["mpi"], t02="2", h_rt="INFINITY"),
        qi("aa.q@vm", h_rt="INFINITY"),
        qi("mm.q@vm", pe_list=["mpi"], h_rt="INFINITY"),
        qi("zz.q@vm", slots=2, h_rt="INFINITY"),
    ]
    instances[2].xuser_lists = ["acl2"]
    instances[3].user_lists = ["acl1"]
    base = PlanConf(complexes=COMPLEXES, instances=instances,
                    pes={"mpi": ParallelEnv("mpi", 8, PE_SLOTS),
                         "smp": ParallelEnv("smp", 8, PE_SLOTS)},
                    usersets={"acl1": ["roland"], "acl2": ["alice", "@staff"]})
    for name, value in changes.items():
        setattr(base, name, value)
    return base


def names(how: QueueSelect, states: dict[str, str] | None = None,
          cell: PlanConf | None = None) -> list[str]:
    return choose(cell or conf(), LOADS, how, states or {}).names()


def test_every_instance_in_qstat_f_order_without_options():
    assert names(QueueSelect()) == ["aa.q@vm", "all.q@vm", "mm.q@vm", "zz.q@vm"]
    ordered = conf(instances=[qi("b.q@vm", seq_no=0), qi("a.q@vm", seq_no=5)])
    assert names(QueueSelect(), cell=ordered) == ["b.q@vm", "a.q@vm"]


def test_resources_count_whole_capacities_and_fixed_load_values_only():
    # A consumable is judged by what it holds in all, however much is taken now: the
    # levels are made with nothing running.
    assert names(QueueSelect(resources={"slots": "3"})) == ["aa.q@vm", "all.q@vm",
                                                             "mm.q@vm"]
    assert names(QueueSelect(resources={"slots": "5"})) == []
    assert names(QueueSelect(resources={"t02": "2"})) == ["all.q@vm"]
    assert names(QueueSelect(resources={"a": "lx-amd64", "num_proc": "2"})) == names(
        QueueSelect())
    assert names(QueueSelect(resources={"arch": "lx-*"})) == names(QueueSelect())
    assert names(QueueSelect(resources={"mem_total": "1G"})) == names(QueueSelect())
    assert names(QueueSelect(resources={"m_core": "2"})) == names(QueueSelect())
    # Load values that change are not offered at all.
    for request in ({"mem_free": "1G"}, {"load_avg": "100"}, {"np_load_avg": "10"},
                    {"num_proc": "1"}, {"mem_total": "100G"}):
        assert names(QueueSelect(resources=request)) == [], request
    assert names(QueueSelect(resources={"qname": "all.q", "h_rt": "1:0:0"})) == [
        "all.q@vm"]


def test_unknown_resources_and_values_are_refused_silently():
    for request in ({"foo": "1"}, {"slots": "abc"}, {"h_rt": "xyz"}):
        with pytest.raises(Unselectable) as refused:
            names(QueueSelect(resources=request))
        assert refused.value.text == ""


def test_queue_references_and_their_refusal():
    assert names(QueueSelect(queues=["a*", "z*"])) == ["aa.q@vm", "all.q@vm", "zz.q@vm"]
    assert names(QueueSelect(queues=["*@vm"], resources={"slots": "2"})) == names(
        QueueSelect())
    for refs in (["nope"], ["all.q@nohost"]):
        with pytest.raises(Unselectable) as refused:
            names(QueueSelect(queues=refs))
        assert refused.value.text == ""


def test_pes_name_no_wildcards_and_say_when_nothing_is_left():
    assert names(QueueSelect(pes=["mpi"])) == ["all.q@vm", "mm.q@vm"]
    assert names(QueueSelect(pes=["mpi", "nope"])) == ["all.q@vm", "mm.q@vm"]
    for pes in (["nope"], ["m*"]):
        with pytest.raises(Unselectable) as refused:
            names(QueueSelect(pes=pes))
        assert refused.value.text == "error: no such parallel environment"
        assert not isinstance(refused.value, NoneLeft)
    with pytest.raises(NoneLeft) as left:
        names(QueueSelect(pes=["nope", "smp"]))
    assert left.value.text == "error: no queues remaining after -pe queue selection"


def test_users_must_all_be_let_in():
    def users(*who: str, groups: dict[str, str] | None = None) -> list[str]:
        return names(QueueSelect(users=list(who), groups=groups or {}))

    assert users("roland") == ["aa.q@vm", "all.q@vm", "mm.q@vm", "zz.q@vm"]
    assert users("alice") == ["aa.q@vm", "all.q@vm"]
    assert users("roland", "alice") == ["aa.q@vm", "all.q@vm"]
    assert users("root") == ["aa.q@vm", "all.q@vm", "mm.q@vm"]
    assert users("bob", groups={"bob": "staff"}) == ["aa.q@vm", "all.q@vm"]
    # The hosts' access lists count too.
    closed = conf(host_access={"vm": HostAccess(user_lists=["acl1"])})
    assert names(QueueSelect(users=["root"]), cell=closed) == []


def test_states_keep_instances_showing_one_of_the_letters():
    states = {"aa.q@vm": "d", "all.q@vm": "a", "zz.q@vm": "dE"}
    assert names(QueueSelect(states="d"), states) == ["aa.q@vm", "zz.q@vm"]
    assert names(QueueSelect(states="Ea"), states) == ["all.q@vm", "zz.q@vm"]
    assert names(QueueSelect(states="s"), states) == []
    assert names(QueueSelect(states="d", queues=["aa.q"]), states) == ["aa.q@vm"]


def test_waiting_jobs_shown_are_those_whose_queue_list_and_requests_fit():
    """8.1.9 asks neither the PE nor access of them: a PE job shows under `-q aa.q` (no
    PE there), a job of root's asking for zz.q under `-q zz.q` (closed to root)."""
    jobs = [
        SchedJob(job_id=89, pending=[1], priority=0, submit_time=0.0, queues=["zz.q"],
                   owner="root"),
        SchedJob(job_id=90, pending=[1], priority=0, submit_time=0.0),
        SchedJob(job_id=93, pending=[1], priority=0, submit_time=0.0,
                   hard={"arch": "foo"}),
        SchedJob(job_id=94, pending=[1], priority=0, submit_time=0.0, pe="mpi",
                   pe_min=2, pe_max=2),
    ]
    cell = conf()

    def shown(how: QueueSelect) -> list[int]:
        return might_run(choose(cell, LOADS, how, {}), jobs, cell.hostgroups)

    assert shown(QueueSelect(queues=["aa.q"])) == [90, 94]
    assert shown(QueueSelect(queues=["zz.q"])) == [89, 90, 94]
    assert shown(QueueSelect(resources={"slots": "3"})) == [90, 94]
    assert shown(QueueSelect(users=["alice"])) == [90, 94]
    assert shown(QueueSelect(states="d")) == []


def test_what_runs_is_not_counted():
    """A consumable all taken still offers its capacity (the transcript's
    `qselect -l t02=1` while two jobs held both of all.q's t02)."""
    how = QueueSelect(resources={"t02": "1"})
    held = Running(1, 1, {"t02": "1"}, [("all.q@vm", 1)], "")
    assert held  # the levels choose() makes never see it: nothing running is passed
    assert names(how) == ["all.q@vm"]

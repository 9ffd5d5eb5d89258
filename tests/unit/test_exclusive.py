"""Exclusive scheduling: a BOOL consumable with relop EXCL, offered TRUE by a host (or a
queue, or globally). A job asking for it runs only where nothing else runs; any other job
only where no exclusive job runs. As 8.1.9 does it, run here, with its words:

    (-l exclusive=true) cannot run at host "vm" because exclusive resource (exclusive)
    is already in use
    (-l NONE) cannot run at host "vm" because for default request exclusive resource
    (exclusive) is already in use
"""

from __future__ import annotations

import msgspec

from gridd.model.cluster import Running
from gridd.model.complexes import ComplexAttr
from gridd.model.pe import PE_SLOTS, ParallelEnv
from gridd.sched.levels import build_levels
from gridd.sched.plan import Planner
from gridd.sched.resources import instance_resources
from tests.unit.test_plan import COMPLEXES, cell, job, plan, qi, where

EXCLUSIVE = ComplexAttr("exclusive", "excl", "BOOL", "EXCL", "YES", "YES", "0", "1000")
WITH_EXCL = [*COMPLEXES, EXCLUSIVE]
OWN = {"exclusive": "true"}


def two_hosts(running: list[Running] = ()) -> object:
    view = cell(qi("all.q@h1", slots=4, pe_list=["smp"], h_rt="INFINITY"),
                qi("all.q@h2", slots=4, pe_list=["smp"], h_rt="INFINITY"),
                host_values={"h1": {"exclusive": "true"}, "h2": {"exclusive": "true"}},
                pes=[ParallelEnv("smp", 8, PE_SLOTS)], complexes=WITH_EXCL,
                running=running)
    return view


def test_an_exclusive_job_takes_an_empty_host_and_keeps_it_to_itself() -> None:
    view = two_hosts([Running(9, 1, {}, [("all.q@h1", 1)], "")])
    result = plan(view, job(1, hard=OWN), job(2, hard=OWN), job(3, tasks=2))
    # Job 1 goes where nothing runs; job 2 finds no empty host; job 3's two tasks share h1
    # with job 9, as h2 is job 1's alone.
    assert where(result) == {(1, 1): [("all.q@h2", 1)], (3, 1): [("all.q@h1", 1)],
                             (3, 2): [("all.q@h1", 1)]}
    assert result.info[2] == [
        '(-l exclusive=true) cannot run at host "h1" because exclusive resource (exclusive) '
        "is already in use",
        '(-l exclusive=true) cannot run at host "h2" because exclusive resource (exclusive) '
        "is already in use"]


def test_other_jobs_keep_off_a_host_an_exclusive_job_holds() -> None:
    view = two_hosts([Running(9, 1, OWN, [("all.q@h1", 1)], ""),
                      Running(8, 1, OWN, [("all.q@h2", 1)], "")])
    result = plan(view, job(1))
    assert result.orders == []
    assert result.info[1] == [
        '(-l NONE) cannot run at host "h1" because for default request exclusive resource '
        "(exclusive) is already in use",
        '(-l NONE) cannot run at host "h2" because for default request exclusive resource '
        "(exclusive) is already in use"]


def test_an_exclusive_parallel_job_takes_its_slots_on_one_empty_host() -> None:
    view = two_hosts([Running(9, 1, {}, [("all.q@h1", 1)], "")])
    result = plan(view, job(1, hard=OWN, pe="smp", slots=(4, 4)), job(2, pe="smp",
                                                                       slots=(2, 2)))
    assert where(result) == {(1, 1): [("all.q@h2", 4)], (2, 1): [("all.q@h1", 2)]}


def test_hosts_without_the_attribute_take_no_exclusive_job() -> None:
    view = cell(qi("all.q@h1", slots=4), complexes=WITH_EXCL)
    result = plan(view, job(1, hard=OWN), job(2))
    assert where(result) == {(2, 1): [("all.q@h1", 1)]}
    assert result.info[1] == [
        '(-l exclusive=true) cannot run in queue "all.q@h1" because job requests unknown '
        "resource (exclusive)"]


def test_a_reservation_waits_for_the_host_to_empty() -> None:
    """-R y: the exclusive job reserves the host from when its last job ends; a short job
    may not start there meanwhile if it would still run then."""
    view = two_hosts([Running(9, 1, {"h_rt": "100"}, [("all.q@h1", 1)], "", start=1.0),
                      Running(8, 1, {"h_rt": "200"}, [("all.q@h2", 1)], "", start=1.0)])
    view.conf = msgspec.structs.replace(view.conf, max_reservation=5, duration_offset=0.0,
                                        job_info=False)
    own = msgspec.structs.replace(job(1, hard={**OWN, "h_rt": "50"}), reserve=True)
    long = job(2, hard={"h_rt": "500"})
    view.jobs = {1: own, 2: long}
    result = Planner().plan(view, 10.0)
    assert result.reserved == {1: (101.0, [("all.q@h1", 1)], [])}
    assert where(result) == {(2, 1): [("all.q@h2", 1)]}  # not h1: it would delay job 1


def test_qstat_f_shows_1_until_an_exclusive_job_holds_it() -> None:
    view = two_hosts([Running(9, 1, {}, [("all.q@h1", 1)], ""),
                      Running(8, 1, OWN, [("all.q@h2", 1)], "")])
    levels = build_levels(view.conf, {}, view.running.values())
    shown = {qi_.name: [r for r in instance_resources(view.conf, levels, {}, qi_)
                        if r.name == "exclusive"] for qi_ in view.conf.instances}
    assert [(r.prefix, r.text) for r in shown["all.q@h1"]] == [("hc", "1.0")]
    assert [(r.prefix, r.text) for r in shown["all.q@h2"]] == [("hc", "0.0")]


def test_only_cells_with_the_attribute_ask_it_of_every_job() -> None:
    plain = build_levels(cell(qi("all.q@h1", slots=1)).conf, {}, []).matcher.request({})
    assert [n.name for n in plain.hard] == ["slots"] and plain.label == "slots=1"
    levels = build_levels(two_hosts().conf, {}, [])
    asked = levels.matcher.request({})
    assert [n.name for n in asked.hard] == ["slots", "exclusive"]
    assert asked.label == "slots=1"  # the exclusive default is not shown


def test_the_schedule_file_shows_exclusivity_as_1_whoever_takes_it() -> None:
    """8.1.9 with MONITOR: `H:vm:exclusive:1.000000` for the plain job running and for the
    exclusive one reserving alike."""
    view = two_hosts([Running(9, 1, {"h_rt": "100"}, [("all.q@h1", 1)], "", start=1.0),
                      Running(8, 1, {"h_rt": "100"}, [("all.q@h2", 1)], "", start=1.0)])
    view.conf = msgspec.structs.replace(view.conf, max_reservation=5, duration_offset=0.0,
                                        monitor=True)
    view.jobs = {1: msgspec.structs.replace(job(1, hard={**OWN, "h_rt": "50"}),
                                            reserve=True)}
    lines = Planner().plan(view, 10.0).schedule or []
    assert "9:1:RUNNING:1:100:H:h1:exclusive:1.000000" in lines
    assert "1:1:RESERVING:101:50:H:h1:exclusive:1.000000" in lines

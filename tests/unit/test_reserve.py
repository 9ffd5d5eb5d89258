"""Resource reservation and backfilling in the planner (spec/resource-reservation-
backfilling.txt), and its schedule file lines: the spec's license example, cycle by cycle
as in reference/sge-8.1.9/transcripts/resource_reservation.txt (one host "vm")."""

from __future__ import annotations

import math
import random
from collections import Counter

import msgspec

from gridd.master.bootstrap import CellConfig, initial_config
from gridd.master.state import MasterState
from gridd.master.views import plan_conf
from gridd.model.cluster import Running
from gridd.model.pe import ParallelEnv
from gridd.model.planning import SchedJob
from gridd.sched.plan import Plan, Planner
from gridd.sched.reserve import Booking, Diagram, Schedule, Standing, Use
from gridd.sched.view import SchedView
from tests.unit.test_plan import cell, qi

NOW = 1_795_327_298.0


def license_cell(running: list[Running] = ()) -> SchedView:
    view = cell(qi("all.q@vm", slots=4, h_rt="INFINITY", s_rt="INFINITY"),
                global_values={"license": "5"},
                host_values={"vm": {"slots": "4"}}, running=running)
    view.conf = msgspec.structs.replace(view.conf, max_reservation=10, monitor=True)
    return view


def rr(job_id: int, license: int, h_rt: int, priority: int = 0, reserve: bool = True,
       submit: float | None = None) -> SchedJob:
    return SchedJob(job_id=job_id, pending=[1], priority=priority,
                    submit_time=float(submit if submit is not None else job_id),
                    hard={"h_rt": str(h_rt), "license": str(license)}, reserve=reserve)


def plan_at(view: SchedView, now: float, *jobs: SchedJob) -> Plan:
    view.jobs = {j.job_id: j for j in jobs}
    return Planner().plan(view, now)


def test_diagram_earliest_is_when_enough_has_ended() -> None:
    d = Diagram(5.0)
    d.add(0.0, 90.0, 4.0)
    assert d.earliest(0.0, 90.0, 1.0) == 0.0
    assert d.earliest(0.0, 90.0, 5.0) == 90.0
    d.add(90.0, 180.0, 5.0)
    assert d.earliest(0.0, 91.0, 1.0) == 180.0
    assert d.earliest(0.0, 80.0, 1.0) == 0.0  # ends before the 90 s reservation: backfill
    assert d.earliest(0.0, 10.0, 6.0) == math.inf


def test_taking_back_is_exact_where_bookings_meet() -> None:
    """A and B end at 50, where R begins: taking back B brings that step to nothing and
    it goes; taking back R after it still gives back R's part of it, leaving A's end."""
    d = Diagram(100.0)
    d.add(0.0, 50.0, 10.0)  # A
    d.add(0.0, 50.0, 10.0)  # B
    d.add(50.0, 60.0, 10.0)  # R
    d.take_back(0.0, 50.0, 10.0)
    d.take_back(50.0, 60.0, 10.0)
    assert (d.times, d.steps) == ([0.0, 50.0], [10.0, -10.0])
    assert d.peak(50.0, 60.0) == 0.0


def test_standing_diagrams_answer_as_diagrams_made_anew() -> None:
    """A Standing follows a changing set of running tasks by booking the new ones and
    taking back the gone ones; a schedule seeded from it must answer every question as
    one that booked the same tasks from nothing, and list them in the same order."""
    rng = random.Random(7)
    standing = Standing()
    alive: dict[int, Booking] = {}
    resources = [("Q", "q@h", "slots"), ("H", "h", "license"), ("P", "pe", "slots")]

    def capacity(use: Use) -> float:
        return 40.0

    for step in range(300):
        for key in rng.sample(sorted(alive), k=min(len(alive), rng.randint(0, 3))):
            del alive[key]
        for _ in range(rng.randint(0, 3)):
            key = rng.randint(0, 10**6)
            start = float(rng.randint(0, 50))
            duration = math.inf if rng.random() < 0.1 else float(rng.randint(0, 60))
            alive[key] = Booking(key, 1, "RUNNING", start, duration, tuple(
                Use(*resource, float(rng.randint(1, 4)))
                for resource in rng.sample(resources, k=rng.randint(1, 3))))
        assert standing.follow(alive, capacity)
        kept, fresh = Schedule(10.0, capacity, standing), Schedule(10.0, capacity)
        for booking in alive.values():
            fresh.book(booking)
        assert kept.bookings == fresh.bookings
        for resource in resources:
            for start, duration, amount in [(10.0, 5.0, 1.0), (20.0, 30.0, 4.0),
                                            (float(step % 70), 15.0, 8.0)]:
                use = Use(*resource, amount)
                assert kept.earliest((use,), duration) == fresh.earliest((use,), duration)
                assert kept.left(use, start, duration) == fresh.left(use, start, duration)
            assert kept.ends([resource]) == fresh.ends([resource])
    assert len(standing.diagrams[resources[0]].steps) <= 2 * len(alive) + 1  # no husks


def test_standing_keeps_only_whole_amounts() -> None:
    standing = Standing()
    whole = Booking(1, 1, "RUNNING", 0.0, 10.0, (Use("Q", "q@h", "mem", 2.0),))
    assert standing.follow({1: whole}, lambda use: 8.0)
    half = Booking(2, 1, "RUNNING", 0.0, 10.0, (Use("Q", "q@h", "mem", 0.5),))
    assert not standing.follow({1: whole, 2: half}, lambda use: 8.0)
    assert standing.bookings == {} and standing.diagrams == {}


def test_a_planner_carried_over_changing_loads_plans_as_a_new_one() -> None:
    """Cycle after cycle, with load reports changing (a host reporting for the first
    time too), tasks ending and the plan's orders starting: the planner that carries its
    diagrams and the rest plans what a new planner plans, schedule file included."""
    rng = random.Random(3)
    view = cell(qi("all.q@h0", slots=3, h_rt="INFINITY"), qi("all.q@h1", slots=3,
                                                            h_rt="INFINITY"),
                global_values={"license": "4"}, host_values={"h1": {"slots": "2"}})
    view.conf = msgspec.structs.replace(view.conf, max_reservation=3, monitor=True,
                                        duration_offset=0.0)
    carried = Planner()
    now = NOW
    seen: Counter[str] = Counter()
    for step in range(60):
        now += rng.choice([1.0, 30.0, 100.0])
        view.loads = {host: {"np_load_avg": f"{rng.random():.2f}"}
                      for host in ("h0", "h1", *(("h9",) if step > 20 else ()))}
        for key in [k for k, t in view.running.items() if t.start + 120 <= now]:
            del view.running[key]
        for number in range(step * 3, step * 3 + rng.randint(0, 3)):
            view.jobs[number] = rr(number, rng.randint(0, 2), rng.choice([50, 200]),
                                   submit=now)
        plan = carried.plan(view, now)
        again = Planner().plan(view, now)
        assert (plan.orders, plan.reserved, plan.schedule) == (
            again.orders, again.reserved, again.schedule), step
        seen.update(["starts"] * bool(plan.orders) + ["reservations"] * bool(plan.reserved))
        for order in plan.orders:
            job = view.jobs.pop(order.job_id)
            view.running[(order.job_id, 1)] = Running(order.job_id, 1, job.hard,
                                                      order.granted, order.pe, start=now)
    assert seen["starts"] >= 10 and seen["reservations"] >= 10, seen


def test_license_example_first_cycle_starts_l4_and_reserves_l5_then_l1() -> None:
    view = license_cell()
    plan = plan_at(view, NOW, rr(43, 4, 30, priority=100), rr(44, 5, 30), rr(45, 1, 31))
    assert [o.job_id for o in plan.orders] == [43]
    assert plan.reserved == {44: (NOW + 90, [("all.q@vm", 1)], []),
                             45: (NOW + 180, [("all.q@vm", 1)], [])}
    assert plan.schedule == [
        f"43:1:STARTING:{int(NOW)}:90:G:global:license:4.000000",
        f"43:1:STARTING:{int(NOW)}:90:H:vm:slots:1.000000",
        f"43:1:STARTING:{int(NOW)}:90:Q:all.q@vm:slots:1.000000",
        f"44:1:RESERVING:{int(NOW) + 90}:90:G:global:license:5.000000",
        f"44:1:RESERVING:{int(NOW) + 90}:90:H:vm:slots:1.000000",
        f"44:1:RESERVING:{int(NOW) + 90}:90:Q:all.q@vm:slots:1.000000",
        f"45:1:RESERVING:{int(NOW) + 180}:91:G:global:license:1.000000",
        f"45:1:RESERVING:{int(NOW) + 180}:91:H:vm:slots:1.000000",
        f"45:1:RESERVING:{int(NOW) + 180}:91:Q:all.q@vm:slots:1.000000",
    ]
    # L1_RR fits now by the license count, but would run into L5_RR's reservation.
    assert plan.info[45] == ["(-l h_rt=31,license=1) cannot run globally because it offers "
                             "only gc:license=0.000000 due to a reservation"]


def test_license_example_backfills_a_short_job_and_keeps_the_reservations() -> None:
    running = [Running(43, 1, {"license": "4", "h_rt": "30"}, [("all.q@vm", 1)], start=NOW)]
    view = license_cell(running)
    now = NOW + 6
    plan = plan_at(view, now, rr(44, 5, 30, submit=1), rr(45, 1, 31, submit=2),
                   rr(46, 1, 20, reserve=False, submit=3))
    assert [o.job_id for o in plan.orders] == [46]  # ends at +86, before L5_RR at +90
    assert plan.reserved[44][0] == NOW + 90
    assert plan.reserved[45][0] == NOW + 180
    assert plan.schedule[0] == f"43:1:RUNNING:{int(NOW)}:90:G:global:license:4.000000"
    assert f"46:1:STARTING:{int(now)}:80:G:global:license:1.000000" in plan.schedule


def test_a_job_too_long_to_backfill_waits() -> None:
    running = [Running(43, 1, {"license": "4", "h_rt": "30"}, [("all.q@vm", 1)], start=NOW)]
    plan = plan_at(license_cell(running), NOW + 6, rr(44, 5, 30, submit=1),
                   rr(47, 1, 60, reserve=False, submit=3))
    assert plan.orders == []
    assert "due to a reservation" in plan.info[47][0]


def test_no_reservation_without_max_reservation_or_minus_r() -> None:
    view = license_cell()
    view.conf = msgspec.structs.replace(view.conf, max_reservation=0)
    plan = plan_at(view, NOW, rr(43, 4, 30, priority=100), rr(44, 5, 30), rr(45, 1, 31))
    assert plan.reserved == {}
    assert [o.job_id for o in plan.orders] == [43, 45]  # without reservation L1 overtakes
    view = license_cell()
    plan = plan_at(view, NOW, rr(43, 4, 30, priority=100), rr(44, 5, 30, reserve=False),
                   rr(45, 1, 31))
    assert 44 not in plan.reserved and [o.job_id for o in plan.orders] == [43, 45]


def test_max_reservation_bounds_the_reservations_of_a_cycle() -> None:
    view = license_cell()
    view.conf = msgspec.structs.replace(view.conf, max_reservation=1)
    plan = plan_at(view, NOW, rr(43, 4, 30, priority=100), rr(44, 5, 30), rr(45, 1, 31))
    assert list(plan.reserved) == [44]
    assert [o.job_id for o in plan.orders] == [43]  # 45 would delay 44's reservation


def test_parallel_jobs_backfill_only_when_they_end_before_the_reservation() -> None:
    running = [Running(43, 1, {"license": "3", "h_rt": "30"}, [("all.q@vm", 1)], start=NOW)]
    view = license_cell(running)
    view.conf = msgspec.structs.replace(
        view.conf, pes={"smp": ParallelEnv("smp", 99)},
        instances=[msgspec.structs.replace(i, pe_list=["smp"]) for i in view.conf.instances])

    def parallel(job_id: int, h_rt: int) -> SchedJob:
        return SchedJob(job_id=job_id, pending=[1], priority=0, submit_time=float(job_id),
                        hard={"h_rt": str(h_rt), "license": "1"}, pe="smp", pe_min=2,
                        pe_max=2)

    plan = plan_at(view, NOW + 6, rr(44, 5, 30, submit=1), parallel(47, 60))
    assert plan.orders == [] and "due to a reservation" in plan.info[47][0]
    plan = plan_at(view, NOW + 6, rr(44, 5, 30, submit=1), parallel(48, 20))
    assert [(o.job_id, o.granted) for o in plan.orders] == [(48, [("all.q@vm", 2)])]


def test_immediate_jobs_never_reserve() -> None:
    view = license_cell()
    now_job = msgspec.structs.replace(rr(44, 5, 30), immediate=True)
    plan = plan_at(view, NOW, rr(43, 4, 30, priority=100), now_job)
    assert plan.reserved == {} and plan.unschedulable == [44]


def test_duration_offset_and_default_duration() -> None:
    view = license_cell()
    view.conf = msgspec.structs.replace(view.conf, duration_offset=0.0, default_duration=600.0)
    no_limit = SchedJob(job_id=44, pending=[1], priority=0, submit_time=44.0,
                        hard={"license": "5"}, reserve=True)
    plan = plan_at(view, NOW, rr(43, 4, 30, priority=100), no_limit)
    assert plan.reserved[44][0] == NOW + 30
    assert f"44:1:RESERVING:{int(NOW) + 30}:600:G:global:license:5.000000" in plan.schedule


def test_plan_conf_reads_the_reservation_settings() -> None:
    state = MasterState()
    initial_config(state, CellConfig(hosts=["vm"], slots=4))
    sched = state.config.sched
    conf = plan_conf(state.config)
    assert (conf.max_reservation, conf.default_duration, conf.duration_offset,
            conf.monitor) == (0, math.inf, 60.0, False)
    sched.max_reservation, sched.default_duration = "10", "0:10:0"
    sched.params = "monitor,DURATION_OFFSET=30"
    conf = plan_conf(state.config)
    assert (conf.max_reservation, conf.default_duration, conf.duration_offset,
            conf.monitor) == (10, 600.0, 30.0, True)
    sched.params = "MONITOR=0"
    assert not plan_conf(state.config).monitor


def two_hosts(*pes: ParallelEnv) -> SchedView:
    """Hosts h0 and h1 with four slots each, three of them busy: on h0 until +100, on
    h1 until +200 (no DURATION_OFFSET)."""
    names = [pe.name for pe in pes]
    running = [Running(100 + i, 1, {"h_rt": str(100 if host == "h0" else 200)},
                       [(f"all.q@{host}", 1)], start=NOW)
               for i, host in enumerate(["h0"] * 3 + ["h1"] * 3)]
    view = cell(*(qi(f"all.q@{h}", pe_list=names, h_rt="INFINITY") for h in ("h0", "h1")),
                pes=pes, running=running)
    view.conf = msgspec.structs.replace(view.conf, max_reservation=10, duration_offset=0.0)
    return view


def wide(job_id: int, pe: str, slots: tuple[int, int], h_rt: int = 100,
         priority: int = 0) -> SchedJob:
    return SchedJob(job_id=job_id, pending=[1], priority=priority,
                    submit_time=float(job_id), hard={"h_rt": str(h_rt)}, pe=pe,
                    pe_min=slots[0], pe_max=slots[1], reserve=True)


def test_a_wide_parallel_job_is_not_starved_and_short_jobs_backfill() -> None:
    view = two_hosts(ParallelEnv("mpi", 99, allocation_rule="$fill_up"))
    small = [rr(10 + i, 0, 300, submit=10 + i) for i in range(3)]
    short = [rr(20 + i, 0, 50, submit=20 + i) for i in range(2)]
    for j in small + short:
        del j.hard["license"]
    plan = plan_at(view, NOW, wide(1, "mpi", (8, 8), priority=100), *small, *short)
    assert plan.reserved[1] == (NOW + 200, [("all.q@h0", 4), ("all.q@h1", 4)], [])
    # The small jobs would still hold slots at +200; the short ones end before.
    assert sorted(o.job_id for o in plan.orders) == [20, 21]


def test_a_slot_range_takes_the_earliest_start_then_the_most_slots() -> None:
    view = two_hosts(ParallelEnv("mpi", 99, allocation_rule="$fill_up"))
    plan = plan_at(view, NOW, wide(1, "mpi", (4, 8)))
    assert plan.reserved[1] == (NOW + 100, [("all.q@h0", 4), ("all.q@h1", 1)], [])


def test_pe_slots_needs_one_host_and_a_wildcard_takes_the_earliest_pe() -> None:
    view = two_hosts(ParallelEnv("smp", 99, allocation_rule="$pe_slots"))
    plan = plan_at(view, NOW, wide(1, "smp", (4, 4)))
    assert plan.reserved[1] == (NOW + 100, [("all.q@h0", 4)], [])
    view = two_hosts(ParallelEnv("mpi_a", 99), ParallelEnv("mpi_b", 99))
    view.conf.instances[0].pe_list[:] = ["mpi_b"]  # h0 only in mpi_b
    view.conf.instances[1].pe_list[:] = ["mpi_a"]
    plan = plan_at(view, NOW, wide(1, "mpi_*", (4, 4)))
    assert plan.reserved[1] == (NOW + 100, [("all.q@h0", 4)], [])


def test_a_pe_slot_limit_is_a_diagram_too() -> None:
    view = two_hosts(ParallelEnv("mpi", 3, allocation_rule="$round_robin"))
    view.running = {}
    first = wide(1, "mpi", (3, 3), h_rt=1000, priority=10)
    plan = plan_at(view, NOW, first, wide(2, "mpi", (2, 2)))
    # Five slots are free, but the PE's three are the first job's until +1000.
    assert [o.job_id for o in plan.orders] == [1]
    assert plan.reserved[2][0] == NOW + 1000


def test_reservations_honour_resource_quotas() -> None:
    """roland may hold two slots (limit users {*} to slots=2) and holds one until +100.
    His license job waits for the license until +50 and reserves then, within his quota;
    a long job of his that fits now would take the quota slot the reservation needs and
    waits; a short one ending before +50 is backfilled. Another user is not held back."""
    from gridd.model.rqs import Filter, Limit, Rule, RuleSet

    running = [Running(90, 1, {"h_rt": "100"}, [("all.q@vm", 1)], owner="roland", start=NOW),
               Running(91, 1, {"h_rt": "50", "license": "1"}, [("all.q@vm", 1)],
                       owner="andre", start=NOW)]
    view = license_cell(running)
    view.conf = msgspec.structs.replace(
        view.conf, global_values={"license": "1"}, duration_offset=0.0,
        instances=[msgspec.structs.replace(i, slots=8, values={**i.values, "slots": "8"})
                   for i in view.conf.instances],
        host_values={},
        rqs=[RuleSet(name="per_user", rules=[
            Rule(users=Filter(True, ["*"], []), limits=[Limit("slots", "2")])])])

    def by(owner: str, job_id: int, h_rt: int, license: int = 0, reserve: bool = False
           ) -> SchedJob:
        hard = {"h_rt": str(h_rt), **({"license": str(license)} if license else {})}
        return SchedJob(job_id=job_id, pending=[1], priority=0, submit_time=float(job_id),
                        hard=hard, reserve=reserve, owner=owner)

    plan = plan_at(view, NOW, by("roland", 1, 100, license=1, reserve=True),
                   by("roland", 2, 200), by("roland", 3, 20), by("andre", 4, 200))
    assert plan.reserved[1][0] == NOW + 50
    assert sorted(o.job_id for o in plan.orders) == [3, 4]
    assert not any(":R:" in line for line in plan.schedule or [])


def test_a_task_running_on_a_host_gone_from_the_configuration_is_booked_globally() -> None:
    """Its instance and its host are gone (only the global level is left of it): the
    diagrams book it there instead of failing the cycle."""
    from tests.unit.test_rsmap_sched import job, view_of

    view = view_of({"h0": {}}, slots=1, max_reservation=10, duration_offset=0.0)
    view.running[(90, 1)] = Running(90, 1, {"h_rt": "100"}, [("q@h0", 1)], start=100.0)
    view.running[(91, 1)] = Running(91, 1, {"h_rt": "100"}, [("q@gone", 1)], start=100.0)
    view.jobs = {1: job(1, {"h_rt": "50"}, reserve=True)}
    assert Planner().plan(view, 100.0).reserved == {1: (200.0, [("q@h0", 1)], [])}


def test_an_array_at_max_aj_instances_does_not_reserve() -> None:
    """Array job 1 runs as many tasks as max_aj_instances allows: 8.1.9 leaves its others
    out of the run, so it reserves nothing and job 2 gets the one reservation, whether
    no slot is free (the cycle's shortcut for jobs that cannot fit) or a job of its
    category was refused before it (job 3, which does not reserve)."""
    running = [Running(1, t, {"h_rt": "30"}, [("all.q@vm", 2)], start=NOW) for t in (1, 2)]
    view = license_cell(running)
    view.conf = msgspec.structs.replace(view.conf, max_reservation=1, max_aj_instances=2)
    array = SchedJob(job_id=1, pending=[3, 4], priority=0, submit_time=1.0,
                     hard={"h_rt": "30"}, reserve=True)
    alike = SchedJob(job_id=3, pending=[1], priority=10, submit_time=3.0,
                     hard={"h_rt": "30"})
    for job_info in (False, True):
        view.conf = msgspec.structs.replace(view.conf, job_info=job_info)
        plan = plan_at(view, NOW + 1, array, rr(2, 1, 30), alike)
        assert plan.orders == [] and list(plan.reserved) == [2], job_info
    assert plan.info[1] == ["not all array tasks may be started due to 'max_aj_instances'"]

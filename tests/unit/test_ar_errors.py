"""AR error states on failed resources (spec/advance-reservation.txt 5.2.2.2.1): W before
the start, E after it, back to w or r once the resources are there again; with hard error
handling (-he y) the scheduler starts none of its jobs meanwhile, with soft it does on what
is left. The clock is the test's."""

from __future__ import annotations

from gridd import protocol as p
from gridd.master import ars
from gridd.master.core import Master
from gridd.master.state import Effects
from gridd.model.ar import ArSpec
from gridd.model.ar_lifecycle import ERROR, RUNNING, WAITING, WARNING
from gridd.sched.plan import Planner
from gridd.sched.view import SchedView
from tests.unit.test_master_core import make_master, spec

NOW = 1_795_327_142.0
HOUR = 3600.0


def qrsub(m: Master, **kw) -> int:
    m.s.config.conf.reporting_params = "accounting=true reporting=true"  # the AR records
    reply = ars.submit(m, p.ArSubmit(spec=ArSpec(owner="root", **kw)), NOW, Effects())
    assert isinstance(reply, p.Ok), reply
    return int(reply.lines[0].split()[3])


def lose_host(m: Master, host: str) -> None:
    m.host_up.discard(host)


def tick(m: Master, now: float) -> Effects:
    fx = Effects()
    m.tick(now, fx)
    return fx


def logged(fx: Effects) -> list[tuple[str, str]]:
    return [(r.state, r.event) for _, r in fx.reports if r.kind == "ar_log"]


def test_warning_before_the_start_and_back() -> None:
    m = make_master(hosts=1, slots=2)
    ar = qrsub(m, start=NOW + HOUR, duration=HOUR)
    lose_host(m, "node1")
    fx = tick(m, NOW + 1)
    assert m.s.ars[ar].state == WARNING
    assert logged(fx) == [(WARNING, "RESOURCES UNSATISFIED")]
    assert "node1" in m.s.ars[ar].message
    m.host_up.add("node1")
    fx = tick(m, NOW + 2)
    assert (m.s.ars[ar].state, m.s.ars[ar].message) == (WAITING, "")
    assert logged(fx) == [(WAITING, "RESOURCES SATISFIED")]


def test_a_warning_becomes_an_error_at_the_start() -> None:
    m = make_master(hosts=1, slots=2)
    ar = qrsub(m, start=NOW + 10, duration=HOUR)
    lose_host(m, "node1")
    tick(m, NOW + 1)
    tick(m, NOW + 10)
    assert m.s.ars[ar].state == ERROR
    m.host_up.add("node1")
    tick(m, NOW + 11)
    assert m.s.ars[ar].state == RUNNING


def test_an_error_while_running_is_mailed_with_m_a() -> None:
    m = make_master(hosts=1, slots=2)
    ar = qrsub(m, duration=HOUR, mail_options="a", mail_list=["ops@site"])
    m.s.flags["all.q@node1"] = "d"  # qmod -d
    fx = tick(m, NOW + 1)
    assert m.s.ars[ar].state == ERROR
    assert fx.mails and fx.mails[0][0] == ["ops@site"]


def started(m: Master, now: float, job_id: int) -> bool:
    view = SchedView()
    view.reset(m.sched_state())
    return any(o.job_id == job_id for o in Planner().plan(view, now).orders)


def submit_into(m: Master, ar: int) -> int:
    reply = m.submit(spec(owner="root", ar=ar, verify="n"), NOW, Effects())
    assert isinstance(reply, p.Submitted), reply
    return reply.job_id


def test_hard_error_handling_blocks_the_ars_jobs_soft_keeps_the_rest() -> None:
    m = make_master(hosts=2, slots=1)
    hard = qrsub(m, duration=HOUR, pe_name="mpi", pe_min=2, pe_max=2, hard_error=True)
    soft_m = make_master(hosts=2, slots=1)
    soft = qrsub(soft_m, duration=HOUR, pe_name="mpi", pe_min=2, pe_max=2)
    for master, ar in ((m, hard), (soft_m, soft)):
        assert sorted(n for n, _ in master.s.ars[ar].granted) == ["all.q@node1", "all.q@node2"]
        lose_host(master, "node2")
        tick(master, NOW + 1)
        assert master.s.ars[ar].state == ERROR
    assert not started(m, NOW + 2, submit_into(m, hard))
    assert started(soft_m, NOW + 2, submit_into(soft_m, soft))  # on node1, what is left

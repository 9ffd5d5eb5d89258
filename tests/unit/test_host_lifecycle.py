"""The execution host lifecycle's table, its timeout and what a host's state shows; and the
master moving its hosts by it."""

from __future__ import annotations

import pytest

from gridd import protocol as p
from gridd.master.state import Effects
from gridd.model import host_lifecycle as life
from gridd.model.cluster import ExecHost
from gridd.model.host_lifecycle import REGISTER, REPORT, TIMEOUT, UNKNOWN, UP
from tests.unit.test_master_core import make_master

TRANSITIONS = [
    (UNKNOWN, REGISTER, UP), (UNKNOWN, REPORT, UP),
    (UP, REGISTER, UP), (UP, REPORT, UP), (UP, TIMEOUT, UNKNOWN),
]


def test_the_table_is_these_transitions_and_no_other():
    assert sorted((state, event, new) for state, moves in life.TABLE.items()
                  for event, new in moves.items()) == sorted(TRANSITIONS)
    assert set(life.TABLE) == set(life.STATES) == set(life.INSTANCE_LETTERS)


@pytest.mark.parametrize("state", [*life.STATES, "nonsense"])
def test_each_event_moves_a_host_as_listed_and_others_are_refused(state: str):
    for event in (REGISTER, REPORT, TIMEOUT, "nonsense"):
        listed = [new for s, e, new in TRANSITIONS if (s, e) == (state, event)]
        assert life.after(state, event) == (listed[0] if listed else None)


@pytest.mark.parametrize(("silent", "report_time", "out"), [
    (120.0, 40.0, False), (120.5, 40.0, True),  # the master's timeout, 120 s here
    (150.0, 60.0, False), (180.5, 60.0, True),  # three report intervals when longer
])
def test_a_host_times_out_silent_past_the_timeout_and_three_report_intervals(
        silent: float, report_time: float, out: bool):
    host = ExecHost(name="n", last_report=1000.0, load_report_time=report_time)
    assert life.timed_out(host, 120.0, 1000.0 + silent) is out


def test_a_host_not_up_shows_no_last_report():
    host = ExecHost(name="n", load={"load_avg": "0.5"}, last_report=5.0)
    assert life.shown(host, UP) is host and life.shown_up(host)
    gone = life.shown(host, UNKNOWN)
    assert gone == ExecHost(name="n", load={"load_avg": "0.5"}, last_report=0.0)
    assert not life.shown_up(gone) and not life.shown_up(None) and host.last_report == 5.0


def test_the_master_moves_its_hosts_by_the_table():
    master = make_master(hosts=2)  # both registered at 0
    assert {n: master.host_state(n) for n in master.s.hosts} == {"node1": UP, "node2": UP}
    fx = Effects()
    master.load_report(p.LoadReport(host="node1", load={}), 100.0, fx)
    assert not fx.hosts_changed  # up already
    fx = Effects()
    master.check_hosts(150.0, fx)
    assert fx.hosts_changed and master.host_up == {"node1"}
    assert master.host_state("node2") == UNKNOWN
    assert master.instance_states() == {"all.q@node1": "", "all.q@node2": "u"}
    fx = Effects()
    master.check_hosts(160.0, fx)
    assert not fx.hosts_changed
    fx = Effects()
    master.register(p.Register(host="node2", load={}), 170.0, fx)
    assert fx.hosts_changed and master.host_up == {"node1", "node2"}

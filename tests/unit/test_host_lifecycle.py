"""The execution host lifecycle's table, its timeout and what a host's state shows; and the
master moving its hosts by it."""

from __future__ import annotations

import logging

import pytest

from gridd import protocol as p
from gridd.master.state import Effects
from gridd.model import host_lifecycle as life
from gridd.model import master_params
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
    (300.0, 40.0, False), (300.5, 40.0, True),  # max_unheard, 300 s here
    (300.5, 600.0, True),  # alone: 8.1.9 asks only that it be above load_report_time
])
def test_a_host_times_out_silent_past_max_unheard(silent: float, report_time: float,
                                                   out: bool):
    host = ExecHost(name="n", last_report=1000.0, load_report_time=report_time)
    assert life.timed_out(host, 300.0, 1000.0 + silent) is out


@pytest.mark.parametrize(("max_unheard", "interval"), [
    (300.0, 5.0), (20.0, 5.0), (10.0, 2.5), (1.0, 0.5), (0.0, 0.5)])
def test_hosts_are_checked_four_times_in_max_unheard_within_bounds(
        max_unheard: float, interval: float):
    assert life.check_interval(max_unheard) == interval


def test_jobs_are_rescheduled_once_a_host_was_unknown_for_reschedule_unknown():
    assert not life.reschedule_due(110.0, 50.0, 159.9)
    assert life.reschedule_due(110.0, 50.0, 160.0)
    assert not life.reschedule_due(110.0, 0.0, 1e9)  # 0: never


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
    master.check_hosts(350.0, fx)  # max_unheard's 300 s by default
    assert fx.hosts_changed and master.host_up == {"node1"}
    assert master.host_state("node2") == UNKNOWN
    assert master.instance_states() == {"all.q@node1": "", "all.q@node2": "u"}
    assert fx.notices == [(logging.WARNING, "execution host node2 not heard from for 300 s "
                           "(max_unheard): it is unknown")]
    fx = Effects()
    master.check_hosts(360.0, fx)
    assert not fx.hosts_changed
    fx = Effects()
    master.register(p.Register(host="node2", load={}), 370.0, fx)
    assert fx.hosts_changed and master.host_up == {"node1", "node2"}
    assert fx.notices == [(logging.INFO, "execution host node2 is up")]


def test_a_change_of_max_unheard_takes_effect_at_the_next_check():
    master = make_master(hosts=1)
    master.check_hosts(20.0, Effects())
    assert master.host_up == {"node1"} and master.host_check_interval() == 5.0
    master.s.config.conf.max_unheard = "0:0:10"
    assert master.host_check_interval() == 2.5
    master.check_hosts(20.0, Effects())
    assert master.host_up == set()


def test_qmaster_params_are_read_as_words_named_with_or_without_a_value():
    text = "ENABLE_RESCHEDULE_KILL=1, enable_reschedule_slave MAX_DYN_EC=10"
    assert master_params.read(text) == {"ENABLE_RESCHEDULE_KILL": "1",
                                        "ENABLE_RESCHEDULE_SLAVE": "", "MAX_DYN_EC": "10"}
    assert master_params.enabled(text, master_params.RESCHEDULE_KILL)
    assert master_params.enabled(text, master_params.RESCHEDULE_SLAVE)
    assert not master_params.enabled("ENABLE_RESCHEDULE_KILL=false",
                                     master_params.RESCHEDULE_KILL)
    assert master_params.read("none") == {} and master_params.read("NONE") == {}

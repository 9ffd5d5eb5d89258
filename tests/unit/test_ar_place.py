"""Where qrsub's -now, -ckpt and -masterq let an AR go: interactive queues only, queues
offering the checkpointing asked for, and the master task in one of the queues named."""

from __future__ import annotations

from gridd import protocol as p
from gridd.master import ars
from gridd.master.core import Master
from gridd.master.state import Effects
from gridd.model.ar import ArSpec
from gridd.model.config import Userset
from tests.unit.test_master_core import make_master

NOW = 1_795_327_142.0


def qrsub(m: Master, **kw) -> p.Msg:
    return ars.submit(m, p.ArSubmit(spec=ArSpec(owner="root", duration=600.0, **kw)), NOW,
                      Effects())


def set_queue(m: Master, **values: str) -> None:
    for name, value in values.items():
        setattr(m.s.config.queues["all.q"], name, value)
    m.refresh_views()


def test_now_wants_an_interactive_queue() -> None:
    m = make_master(hosts=1, slots=2)
    set_queue(m, qtype="BATCH")
    assert qrsub(m, immediate=True) == p.Error(text="advance_reservation: no suitable queues")
    assert isinstance(qrsub(m), p.Ok)
    set_queue(m, qtype="BATCH INTERACTIVE")
    assert isinstance(qrsub(m, immediate=True), p.Ok)


def test_ckpt_wants_a_queue_that_offers_it() -> None:
    m = make_master(hosts=1, slots=2)
    assert qrsub(m, checkpoint="blcr") == p.Error(text="advance_reservation: no suitable queues")
    set_queue(m, ckpt_list="blcr")
    assert isinstance(qrsub(m, checkpoint="blcr"), p.Ok)


def test_masterq_puts_the_master_task_there() -> None:
    m = make_master(hosts=2, slots=1)
    reply = qrsub(m, pe_name="mpi", pe_min=2, pe_max=2, master_queues=["all.q@node2"])
    assert isinstance(reply, p.Ok), reply
    (ar,) = m.s.ars.values()
    assert ar.granted[0] == ("all.q@node2", 1) and len(ar.granted) == 2
    m = make_master(hosts=2, slots=1)
    one = qrsub(m, master_queues=["all.q@node9"])
    assert one == p.Error(text="advance_reservation: no suitable queues")
    assert isinstance(qrsub(m, master_queues=["all.q@node1"]), p.Ok)


def test_malformed_requests_are_refused_not_raised() -> None:
    """Whatever a client sends, qrsub gets an answer: times that are not finite, values a
    resource's type cannot hold, an impossible slot range."""
    m = make_master(hosts=1, slots=2)
    for kw in ({"start": float("nan")}, {"duration": float("inf")},
               {"resources": {"slots": "x"}}, {"pe_name": "mpi", "pe_min": 3, "pe_max": 1}):
        reply = ars.submit(m, p.ArSubmit(spec=ArSpec(owner="root", **{"duration": 600.0, **kw})),
                           NOW, Effects())
        assert isinstance(reply, p.Error), (kw, reply)
    assert not m.s.ars


def test_the_hosts_access_lists_keep_an_ar_off_hosts_its_users_may_not_use() -> None:
    m = make_master(hosts=2, slots=1)
    m.s.config.usersets["banned"] = Userset("banned", entries=["alice"])
    m.s.config.exechosts["node1"].xuser_lists = "banned"
    m.refresh_views()
    reply = qrsub(m, users=["alice"])
    assert isinstance(reply, p.Ok), reply
    (ar,) = m.s.ars.values()
    assert ar.granted == [("all.q@node2", 1)]
    m.s.config.exechosts["global"].xuser_lists = "banned"
    m.refresh_views()
    assert qrsub(m, users=["alice"]) == p.Error(
        text="advance_reservation: no suitable queues")
    assert isinstance(qrsub(m, users=["bob"]), p.Ok)

"""The master's request path as pure functions, without sockets: which rule of the state
machine each message reaches and what it answers (gridd.master.handle), who may send what
(gridd.master.admission) and what the scheduler and accounting actors are told of a burst
(gridd.master.events)."""

from __future__ import annotations

import logging
from typing import Any

import pytest

from gridd import protocol as p
from gridd.login_token import Claim
from gridd.master import ars, events
from gridd.master.admission import Account, Door, Peer
from gridd.master.bootstrap import CellConfig, initial_config
from gridd.master.core import Master
from gridd.master.handle import ACCT, CLIENT, SCHED, TICK, TIMER, Handler, unapplied_refusal
from gridd.master.ratelimit import Limiter, QuietLog
from gridd.master.state import Effects, MasterState
from gridd.model.ar import ArSpec
from gridd.model.report import HostRecord
from tests.unit.test_master_core import spec

ID = b"\x00conn1"  # a client connection's routing id


class Outside:
    """The actor's side, recorded: a user database of one user, and a spool."""

    def __init__(self) -> None:
        self.users: dict[str, Account] = {"alice": ("staff", 1000, 100)}
        self.looked_up: list[str] = []
        self.forgotten = 0
        self.spool_actions: list[p.SpoolRequest] = []
        self.sessions = 0  # session ids made

    def account(self, user: str) -> Account:
        self.looked_up.append(user)
        return self.users.get(user, ("", None, None))

    def forget_accounts(self) -> None:
        self.forgotten += 1

    def spool_action(self, req: p.SpoolRequest) -> p.Msg:
        self.spool_actions.append(req)
        return p.Ok(lines=["spool is consistent"])

    def host_key(self, host: str) -> bytes:
        return b""

    def time_zone(self, name: str) -> None:
        return None

    def open_login(self, token: str) -> Claim | str:
        """Tokens as "USER:EXPIRES:NONCE"; anything else does not open."""
        user, expires, nonce = (token.split(":") + ["", ""])[:3]
        return Claim(user, float(expires), nonce) if nonce else "not a token"

    def new_session_id(self) -> str:
        self.sessions += 1
        return f"session{self.sessions}"


class Spy:
    """A master that records which of its rules a message reached and answers with the
    rule's name."""

    def __init__(self) -> None:
        self.s = MasterState()
        self.calls: list[str] = []

    def host_called(self, name: str) -> str:
        """No rule: the configuration's name of a host (an execd's reports go by it)."""
        return name

    def __getattr__(self, name: str) -> Any:
        def rule(*args: object) -> p.Msg:
            self.calls.append(name)
            return p.Ok(lines=[name])
        return rule


def handler(secured: bool = False, rate: float = 1000.0, burst: float = 1000.0
            ) -> tuple[Handler, Outside]:
    outside = Outside()
    quiet = QuietLog(logging.getLogger("gridd.test"), rate=1.0, burst=20.0)
    return Handler(Door(secured, Limiter(rate, burst), quiet), outside), outside


def frames(msg: p.Msg, ident: bytes = ID) -> list[bytes]:
    return [ident, p.encode(msg)]


def make_master(machine: str = "head") -> Master:
    state = MasterState()
    initial_config(state, CellConfig(hosts=["node1", "node2"], slots=2, manager="admin",
                                     machine=machine))
    return Master(state, master_host=machine)


@pytest.fixture
def spy_ars(monkeypatch: pytest.MonkeyPatch) -> None:
    """The AR rules (module functions taking the master) recorded by the Spy too."""
    for name in ("submit", "delete", "query"):
        monkeypatch.setattr(ars, name, lambda m, *args, name=name: getattr(m, f"ars.{name}")())


TASK = p.TaskReport(job_id=1, task_id=1, host="node1", start_time=1.0, end_time=2.0,
                    exit_status=0)


@pytest.mark.usefixtures("spy_ars")
@pytest.mark.parametrize(("msg", "rule"), [
    (p.Submit(spec=spec()), "submit"),
    (p.Delete(targets=["1"], user="alice"), "delete"),
    (p.Alter(targets=["1"], user="alice"), "alter"),
    (p.Hold(targets=["1"], user="alice"), "hold"),
    (p.Resubmit(targets=["1"], user="alice"), "resubmit"),
    (p.QueryJobs(), "query_jobs"),
    (p.SelectQueues(select=p.QueueSelect()), "select_queues"),
    (p.WaitJob(job_id=1), "wait_job"),
    (p.WaitScheduled(job_id=1), "wait_scheduled"),
    (p.WaitStarted(job_id=1), "wait_started"),
    (p.StartPeTask(job_id=1, task_id=0, host="n", command=["true"]), "start_pe_task"),
    (p.Qconf(argv=["-sql"], user="alice", host="head"), "qconf"),
    (p.Qmod(action="d", targets=["all.q"], user="alice", host="head"), "qmod"),
    (p.QueryQuota(), "quota"),
    (p.ArSubmit(spec=ArSpec(duration=60.0)), "ars.submit"),
    (p.ArDelete(targets=["1"], user="alice"), "ars.delete"),
    (p.QueryArs(), "ars.query"),
])
def test_each_client_request_reaches_its_rule_and_its_answer_goes_back(msg: p.Msg,
                                                                       rule: str):
    h, _ = handler()
    m, fx = Spy(), Effects()
    msg.rid = 42
    handled = h.handle(m, CLIENT, frames(msg), Peer("", "head"), 5.0, fx)
    assert m.calls == [rule]
    assert fx.replies == [(ID, p.Ok(lines=[rule], rid=42))]
    assert not handled.answered_dispatch and handled.to_accounting is None


@pytest.mark.parametrize(("msg", "rule"), [
    (p.Register(host="node1", load={}), "register"),
    (p.LoadReport(host="node1", load={}), "load_report"),
    (p.TaskStarted(host="node1", job_id=1, task_id=1, start_time=1.0), "task_started"),
    (p.TaskFinished(report=TASK), "task_finished"),
])
def test_execd_reports_reach_their_rule_unanswered_and_name_the_execds_connection(
        msg: p.Msg, rule: str):
    h, _ = handler(secured=True)
    m, fx = Spy(), Effects()
    handled = h.handle(m, CLIENT, frames(msg), Peer("host:node1", "node1"), 5.0, fx)
    assert m.calls == [rule] and fx.replies == []
    assert handled.execd == "node1"  # where node1's orders go from now on


def test_the_scheduler_and_accounting_actors_messages():
    h, _ = handler()
    m, fx = Spy(), Effects()
    handled = h.handle(m, SCHED, [p.encode(p.Dispatch())], None, 5.0, fx)
    assert m.calls == ["dispatch"] and handled.answered_dispatch and fx.replies == []
    assert not h.handle(m, SCHED, [p.encode(p.SchedHello())], None, 5.0, fx).answered_dispatch
    assert fx.sched_resync
    h.handle(m, ACCT, [p.encode(p.Accounted(seqs=[1, 2]))], None, 5.0, fx)
    assert m.calls == ["dispatch", "accounted"]
    # A database answer goes to the client that asked, without the client's id.
    h.handle(m, ACCT, [p.encode(p.DbAnswer(rows=[[1]], client=ID, rid=3))], None, 5.0, fx)
    assert fx.replies == [(ID, p.DbAnswer(rows=[[1]], rid=3))]


def test_what_only_the_scheduler_or_accounting_sends_is_unexpected_from_a_client():
    h, _ = handler()
    for msg in (p.Dispatch(rid=1), p.SchedHello(rid=1), p.Accounted(seqs=[1], rid=1),
                p.DbAnswer(rid=1)):
        m, fx = Spy(), Effects()
        handled = h.handle(m, CLIENT, frames(msg), Peer("", "head"), 5.0, fx)
        name = type(msg).__name__
        assert m.calls == [] and not handled.answered_dispatch
        assert fx.replies == [(ID, p.Error(text=f"error: unexpected request {name}", rid=1))]


def test_the_timers_check_hosts_and_ars_and_users_are_looked_up_afresh():
    h, outside = handler()
    m, fx = Spy(), Effects()
    h.handle(m, TIMER, [], None, 5.0, fx)
    assert m.calls == ["check_hosts"] and outside.forgotten == 1
    h.handle(m, TICK, [], None, 6.0, fx)
    assert m.calls == ["check_hosts", "tick"] and outside.forgotten == 1


def test_a_ping_is_answered_and_a_database_query_handed_to_accounting():
    h, _ = handler()
    m, fx = Spy(), Effects()
    h.handle(m, CLIENT, frames(p.Ping(rid=1)), Peer("", "head"), 5.0, fx)
    assert fx.replies == [(ID, p.Ok(rid=1))]
    handled = h.handle(m, CLIENT, frames(p.DbQuery(sql="select 1", rid=2)), Peer("", "head"),
                       5.0, fx)
    assert handled.to_accounting == p.DbQuery(sql="select 1", client=ID, rid=2)
    assert len(fx.replies) == 1  # the accounting actor answers


def test_selections_name_the_primary_groups_of_the_users_they_name():
    h, outside = handler()
    m, fx = Spy(), Effects()
    select = p.QueueSelect(users=["alice", "bob"])
    h.handle(m, CLIENT, frames(p.SelectQueues(select=select)), None, 5.0, fx)
    h.handle(m, CLIENT, frames(p.QueryJobs(select=select)), None, 5.0, fx)
    assert outside.looked_up == ["alice", "bob", "alice", "bob"]
    master = make_master()
    sent = p.SelectQueues(select=p.QueueSelect(users=["alice", "bob"]))
    seen: list[p.QueueSelect] = []
    master.select_queues = lambda req: seen.append(req.select) or p.Ok()  # type: ignore
    h.handle(master, CLIENT, frames(sent), None, 5.0, fx)
    assert seen[0].groups == {"alice": "staff", "bob": ""}


@pytest.mark.parametrize("msg", [p.Shutdown(rid=9), p.DbExport(directory="/tmp/x", rid=9),
                                 p.SpoolRequest(action="check", user="", rid=9)])
def test_what_only_managers_may_do_is_refused_to_others(msg: p.Msg):
    h, outside = handler(secured=True)
    m, fx = make_master(), Effects()
    handled = h.handle(m, CLIENT, frames(msg), Peer("user:alice", "head"), 5.0, fx)
    assert fx.replies == [(ID, p.Error(text='denied: "alice" must be manager for this '
                                            'operation', rid=9))]
    assert not fx.stop_master and handled.to_accounting is None
    assert outside.spool_actions == []


def test_a_manager_stops_the_master_exports_the_database_and_checks_the_spool():
    h, outside = handler(secured=True)
    m, fx = make_master(), Effects()
    admin = Peer("user:admin", "head")
    h.handle(m, CLIENT, frames(p.Shutdown(rid=1)), admin, 5.0, fx)
    assert fx.replies == [(ID, p.Ok(lines=["master shutting down"], rid=1))]
    assert fx.stop_master
    handled = h.handle(m, CLIENT, frames(p.DbExport(directory="/tmp/x", rid=2)), admin, 5.0,
                       fx)
    assert handled.to_accounting == p.DbExport(directory="/tmp/x", client=ID, rid=2)
    h.handle(m, CLIENT, frames(p.SpoolRequest(action="check", user="", rid=3)), admin, 5.0, fx)
    assert [r.user for r in outside.spool_actions] == ["admin"]  # stamped with who asked
    assert fx.replies[-1] == (ID, p.Ok(lines=["spool is consistent"], rid=3))


def test_without_security_nobody_is_known_and_anybody_may_stop_the_master():
    h, _ = handler(secured=False)
    m, fx = make_master(), Effects()
    h.handle(m, CLIENT, frames(p.Shutdown(rid=1)), Peer("", "head"), 5.0, fx)
    assert fx.stop_master and fx.replies == [(ID, p.Ok(lines=["master shutting down"], rid=1))]


def test_a_request_is_stamped_with_the_keys_user_and_the_peers_host():
    h, _ = handler(secured=True)
    m, fx = make_master(), Effects()
    sent = p.Submit(spec=spec(owner="mallory", group="wheel", submit_host="far"), rid=1)
    h.handle(m, CLIENT, frames(sent), Peer("user:alice", "head"), 5.0, fx)
    (_, reply), = fx.replies
    assert isinstance(reply, p.Submitted) and reply.rid == 1
    kept = m.s.jobs[reply.job_id].spec
    assert (kept.owner, kept.group, kept.submit_host) == ("alice", "staff", "head")
    assert (kept.uid, kept.gid) == (1000, 100)


def test_a_job_from_a_host_that_is_no_submit_host_is_refused():
    h, _ = handler(secured=True)
    m, fx = make_master(), Effects()
    h.handle(m, CLIENT, frames(p.Submit(spec=spec(), rid=1)), Peer("user:alice", "elsewhere"),
             5.0, fx)
    refusal = 'Unable to run job: denied: host "elsewhere" is not a submit host'
    assert fx.replies == [(ID, p.Error(text=refusal, rid=1))]
    assert m.s.jobs == {}


def test_qconf_changes_from_a_host_that_is_no_admin_host_are_refused():
    h, _ = handler(secured=True)
    m, fx = make_master(), Effects()
    sent = p.Qconf(argv=["-am", "bob"], user="", host="", rid=1)
    h.handle(m, CLIENT, frames(sent), Peer("user:admin", "elsewhere"), 5.0, fx)
    (_, reply), = fx.replies
    assert reply.rid == 1 and 'denied: host "elsewhere" is not an admin host' in reply.err
    assert "bob" not in m.s.config.managers


@pytest.mark.parametrize(("peer", "msg", "text"), [
    (Peer("host:node1", "node1"), p.Ping(rid=1), "error: the key of host node1 may only "
                                                 "send its reports"),
    (Peer("host:node1", "node1"), p.LoadReport(host="node2", load={}, rid=1),
     "error: the key of host node1 may only send its reports"),
    (Peer("user:alice", "head"), p.Register(host="node1", load={}, rid=1),
     "error: Register is for execution daemons only"),
    (Peer("", "head"), p.TaskFinished(report=TASK, rid=1),
     "error: TaskFinished is for execution daemons only"),
    (Peer("", "head"), p.Ping(rid=1), "error: this connection is not authenticated as a user"),
])
def test_who_may_send_what_on_a_secured_cell(peer: Peer, msg: p.Msg, text: str):
    h, _ = handler(secured=True)
    m, fx = Spy(), Effects()
    handled = h.handle(m, CLIENT, frames(msg), peer, 5.0, fx)
    assert m.calls == [] and handled.execd is None
    assert fx.replies == [(ID, p.Error(text=text, rid=1))]


def test_without_security_an_execd_is_believed_about_its_host():
    h, _ = handler(secured=False)
    m, fx = Spy(), Effects()
    handled = h.handle(m, CLIENT, frames(p.TaskFinished(report=TASK)), Peer("", "x"), 5.0, fx)
    assert m.calls == ["task_finished"] and handled.execd == "node1"


def test_over_the_rate_a_request_is_refused_and_garbage_counts_too():
    h, _ = handler(rate=1.0, burst=3.0)
    m, fx = Spy(), Effects()
    peer = Peer("", "head")
    h.handle(m, CLIENT, [ID, b"garbage"], peer, 5.0, fx)
    (_, bad), = fx.replies
    assert isinstance(bad, p.Error) and bad.text.startswith("error: ")
    for rid in (1, 2, 3):
        h.handle(m, CLIENT, frames(p.Ping(rid=rid)), peer, 5.0, fx)
    assert fx.replies[1:] == [
        (ID, p.Ok(rid=1)), (ID, p.Ok(rid=2)),
        (ID, p.Error(text="error: too many requests on this connection (more than 1 a "
                          "second): try again later", later=True, rid=3))]
    h.handle(m, CLIENT, frames(p.Ping(rid=4)), peer, 6.0, fx)  # a second later: one more
    assert fx.replies[-1] == (ID, p.Ok(rid=4))


def test_malformed_messages_are_answered_or_dropped_but_never_applied():
    h, _ = handler()
    m, fx = Spy(), Effects()
    h.handle(m, CLIENT, [ID, b"x", p.encode(p.Ping())], Peer("", "head"), 5.0, fx)
    assert fx.replies == []  # not a request of ours: no routing id to answer to
    h.handle(m, SCHED, [b"garbage"], None, 5.0, fx)
    assert fx.replies == [] and m.calls == []


def test_a_failing_rule_is_answered_with_an_internal_error_and_logged(caplog):
    h, _ = handler()
    m, fx = make_master(), Effects()
    m.quota = lambda req: 1 / 0  # type: ignore[method-assign]
    with caplog.at_level(logging.ERROR, "gridd.master"):
        h.handle(m, CLIENT, frames(p.QueryQuota(rid=5)), Peer("", "head"), 5.0, fx)
    assert fx.replies == [(ID, p.Error(text="error: internal error in master", rid=5))]
    assert "failed to handle QueryQuota from client" in caplog.text


def test_after_a_spool_failure_only_clients_changes_of_jobs_and_ars_are_refused_unapplied():
    refused = unapplied_refusal(CLIENT, frames(p.Submit(spec=spec(), rid=4)), "error: full")
    assert refused == p.Error(text="error: full", rid=4)
    assert unapplied_refusal(CLIENT, frames(p.Ping(rid=4)), "error: full") is None
    in_session = p.AsUser(session="s", request=p.encode(p.Delete(targets=["1"], user="")),
                          rid=5)
    assert unapplied_refusal(CLIENT, frames(in_session), "error: full") == p.Error(
        text="error: full", rid=5)
    asking = p.AsUser(session="s", request=p.encode(p.QueryJobs()), rid=5)
    assert unapplied_refusal(CLIENT, frames(asking), "error: full") is None
    garbled = p.AsUser(session="s", request=b"garbage")
    assert unapplied_refusal(CLIENT, frames(garbled), "error: full") is None
    assert unapplied_refusal(CLIENT, [ID, b"garbage"], "error: full") is None
    assert unapplied_refusal(SCHED, [p.encode(p.Submit(spec=spec()))], "error: full") is None


def test_the_scheduler_hears_nothing_of_a_burst_that_changed_nothing_it_plans_with():
    m = make_master()
    assert events.for_scheduler(m, Effects(), False) is None
    assert events.for_scheduler(m, Effects(dirty_jobs={1}, replies=[(ID, p.Ok())]),
                                False) is None
    assert m.sched_seq == 0


def test_the_scheduler_gets_the_whole_state_when_it_asks_and_events_numbered_after_it():
    m = make_master()
    state = events.for_scheduler(m, Effects(sched_resync=True), False)
    assert isinstance(state, p.SchedState) and state.seq == 1
    m.submit(spec(), 5.0, Effects())  # alice's first job: a new user object too
    fx = Effects()
    m.submit(spec(), 5.0, fx)
    event = events.for_scheduler(m, fx, False)
    assert isinstance(event, p.SchedEvent) and event.seq == 2
    assert [j.job_id for j in event.jobs] == [2]
    assert event.hosts_up is None and event.flags is None and event.conf is None
    assert event.ars is None and not event.answers_dispatch
    answered = events.for_scheduler(m, Effects(), True)
    assert isinstance(answered, p.SchedEvent) and answered.seq == 3
    assert answered.answers_dispatch and answered.jobs == []


def test_what_changed_is_sent_whole_hosts_up_flags_configuration_ars():
    m = make_master()
    fx = Effects()
    for host in ("node2", "node1"):
        m.register(p.Register(host=host, load={}), 0.0, fx)
    m.s.flags["all.q@node1"] = "d"
    event = events.for_scheduler(m, Effects(hosts_changed=True, flags_changed=True,
                                            config_changed=True, gone_ars={3}), False)
    assert event.hosts_up == ["node1", "node2"]
    assert event.flags == {"all.q@node1": "d"}
    assert event.conf is m.plan and event.ars == []


def test_accounting_is_told_where_records_go_the_outbox_and_the_reports_in_that_order():
    m = make_master()
    fx = Effects()
    m.submit(spec(), 5.0, fx)
    record = HostRecord(kind="host", time=5.0, host="node1")
    sent = events.for_accounting(m, Effects(config_changed=True, outbox=[(7, 1, 0), (8, 99, 0)],
                                            reports=[(9, record)]))
    where, task, report = sent
    assert isinstance(where, p.ReportingParams)
    assert isinstance(task, p.AccountTask) and (task.seq, task.job.job_id) == (7, 1)
    assert task.task is m.s.jobs[1].tasks[0]
    assert report == p.ReportRecord(seq=9, record=record)  # job 99 is gone: not sent
    assert events.for_accounting(m, Effects()) == []


def test_an_execds_reports_go_by_the_configurations_name_of_its_host():
    """A host key and execd named NODE1.example.org report about node1, as host names
    compare (gridd.model.host_names): its orders go to node1's connection."""
    h, _ = handler(secured=True)
    m, fx = make_master(), Effects()
    report = p.LoadReport(host="NODE1.example.org", load={"np_load_avg": "0.5"})
    handled = h.handle(m, CLIENT, frames(report), Peer("host:NODE1.example.org", "node1"),
                       5.0, fx)
    assert handled.execd == "node1" and fx.sched_loads == {"node1": {"np_load_avg": "0.5"}}
    assert "NODE1.example.org" not in m.s.hosts
    refused = h.handle(m, CLIENT, frames(p.LoadReport(host="node2", load={})),
                       Peer("host:node1", "node1"), 5.0, fx)
    assert refused.execd is None and "may only send its reports" in fx.replies[-1][1].text

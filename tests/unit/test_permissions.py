"""Who may do what in the master's core, with Grid Engine 8.1.9's words and exit codes.

The messages were read off a running 8.1.9 (su to a second user): qdel, qalter and qmod
of another user's job, qsub from a host that is no submit host, max_u_jobs and max_jobs
(exit code 25), a queue whose user_lists shut the submitter out (the job is taken, qsub
fails all the same), projects that do not exist or refuse the user, positive -p. The
core trusts the requests' user and host fields (the master actor sets them), so the
tests set them directly.
"""

from __future__ import annotations

import msgspec
import pytest

from gridd import protocol as p
from gridd.master import ars
from gridd.master.bootstrap import CellConfig, initial_config
from gridd.master.core import Master
from gridd.master.state import Effects, MasterState
from gridd.model.ar import ArSpec
from gridd.model.config import Userset
from gridd.model.job import JobSpec
from gridd.model.objects import Project
from gridd.model.task_lifecycle import DONE, PENDING
from tests.unit.test_master_core import schedule

HOST = "vm"  # the machine gridd up ran on: admin and submit host
NOW = 1_795_327_142.0


def make(hosts: int = 2, slots: int = 2) -> Master:
    """A cell as gridd up makes it on "vm", execds up; "opal" is an operator."""
    state = MasterState()
    initial_config(state, CellConfig(hosts=[f"node{i}" for i in range(1, hosts + 1)],
                                     slots=slots, machine=HOST))
    state.config.operators.append("opal")
    master = Master(state, master_host=HOST)
    for host in state.hosts:
        master.register(p.Register(host=host, load={}), 0.0, Effects())
    return master


def job(owner: str = "alice", **kw) -> JobSpec:
    """What qsub -b y sleep 60 sends from the submit host, for a user of group staff."""
    spec = dict(name="sleep", owner=owner, group="staff", submit_host=HOST, binary=True,
                command=["sleep", "60"])
    spec.update(kw)
    return JobSpec(**spec)


def qsub(m: Master, owner: str = "alice", now: float = 1.0, **kw) -> p.Msg:
    return m.submit(job(owner, **kw), now, Effects())


def submitted(m: Master, owner: str = "alice", **kw) -> int:
    reply = qsub(m, owner, **kw)
    assert isinstance(reply, p.Submitted), reply
    return reply.job_id


def refused(m: Master, owner: str = "alice", **kw) -> p.Error:
    """A submission refused with nothing changed."""
    before = (set(m.s.jobs), m.s.next_job_id)
    reply = qsub(m, owner, **kw)
    assert isinstance(reply, p.Error), reply
    assert (set(m.s.jobs), m.s.next_job_id) == before
    return reply


def usersets(m: Master, **lists: list[str]) -> None:
    for name, entries in lists.items():
        m.s.config.usersets[name] = Userset(name=name, entries=entries)
    m.refresh_views()


# ---- qsub ----------------------------------------------------------------------------------

def test_qsub_only_from_a_submit_host():
    m = make()
    reply = refused(m, submit_host="laptop")
    assert (reply.text, reply.code) == (
        'Unable to run job: denied: host "laptop" is not a submit host', 1)
    assert submitted(m) == 1
    m.s.config.submit_hosts.append("laptop")
    assert submitted(m, submit_host="laptop") == 2


def test_a_request_built_in_the_master_names_no_host_and_is_not_judged_by_one():
    m = make()
    assert submitted(m, submit_host="") == 1


def test_a_positive_priority_takes_an_operator():
    m = make()
    reply = refused(m, priority=1)
    assert (reply.text, reply.code) == (
        "Unable to run job: job rejected: positive submission priority requires operator "
        "privileges", 1)
    assert submitted(m, priority=0) == 1
    assert submitted(m, priority=-100) == 2
    assert submitted(m, "opal", priority=1024) == 3
    assert submitted(m, "root", priority=5) == 4


def test_a_project_must_exist_and_let_the_owner_in():
    m = make()
    assert refused(m, project="nosuch").text == (
        'Unable to run job: job rejected: the requested project "nosuch" does not exist')
    usersets(m, okusers=["bob", "@wheel"])
    m.s.config.projects["p1"] = Project(name="p1", acl="okusers")
    m.s.config.projects["p2"] = Project(name="p2", xacl="okusers")
    assert refused(m, project="p1").text == (
        'Unable to run job: job rejected: no access to project "p1" for user "alice"')
    assert submitted(m, "bob", project="p1") == 1
    assert submitted(m, "carol", group="wheel", project="p1") == 2  # by her group
    assert refused(m, "bob", project="p2").text == (
        'Unable to run job: job rejected: no access to project "p2" for user "bob"')
    assert submitted(m, project="p2") == 3


def test_max_u_jobs_counts_unfinished_jobs_an_array_as_one():
    m = make()
    m.s.config.conf.max_u_jobs = "2"
    first = submitted(m)
    submitted(m, array=(1, 100, 1))
    reply = refused(m)
    assert (reply.text, reply.code) == (
        "Unable to run job: job rejected: only 2 jobs are allowed per user (current job "
        "count: 2)", 25)
    assert submitted(m, "bob") == 3  # another user's count
    m.delete(p.Delete(targets=[str(first)], user="alice", host=HOST), 2.0, Effects())
    assert submitted(m) == 4  # a finished job counts no more
    m.s.config.conf.max_u_jobs = "0"  # no limit
    assert submitted(m) == 5


def test_max_jobs_counts_every_users_jobs_and_is_judged_first():
    m = make()
    m.s.config.conf.max_jobs = "3"
    m.s.config.conf.max_u_jobs = "1"
    submitted(m)
    submitted(m, "bob")
    assert refused(m).text == ("Unable to run job: job rejected: only 1 jobs are allowed "
                               "per user (current job count: 1)")
    submitted(m, "carol")
    for owner in ("alice", "dave"):  # over both: the cluster's limit speaks
        reply = refused(m, owner)
        assert (reply.text, reply.code) == (
            "Unable to run job: job rejected: only 3 jobs are allowed per cluster", 25)


def test_job_counts_survive_a_restart_from_the_spool():
    m = make()
    m.s.config.conf.max_u_jobs = "1"
    submitted(m)
    again = Master(m.s)
    assert isinstance(again.submit(job(), 2.0, Effects()), p.Error)
    assert again.live_total == 1


def test_a_job_no_queue_lets_in_is_taken_with_a_warning_that_fails_qsub():
    m = make()
    usersets(m, okusers=["bob"])
    m.s.config.queues["all.q"].user_lists = "okusers"
    m.refresh_views()
    reply = qsub(m)
    assert isinstance(reply, p.Error)
    assert (reply.text, reply.code) == (
        "Unable to run job: warning: alice's job is not allowed to run in any queue\n"
        'Your job 1 ("sleep") has been submitted', 1)
    assert m.s.jobs[1].tasks[0].state == PENDING  # Grid Engine keeps it
    reply = qsub(m, array=(1, 3, 1), verify="w")
    assert reply.text == (
        "Unable to run job: warning: alice's job is not allowed to run in any queue\n"
        "warning: no suitable queues\n"
        'Your job-array 2.1-3:1 ("sleep") has been submitted')
    reply = refused(m, verify="e")
    assert reply.text == ("Unable to run job: warning: alice's job is not allowed to run "
                          "in any queue\nerror: no suitable queues")
    reply = refused(m, verify="v")
    assert reply.text == (
        "Unable to run job: warning: alice's job is not allowed to run in any queue\n"
        'Job 3 has no permission for cluster queue "all.q"\n'
        "verification: no suitable queues")
    assert submitted(m, "bob") == 3


def test_one_queue_letting_the_owner_in_is_enough_and_groups_count():
    m = make()
    usersets(m, okusers=["bob"], staff=["@staff"], banned=["alice"])
    cfg = m.s.config
    cfg.queues["all.q"].user_lists = "okusers"
    cfg.queues["b.q"] = msgspec.structs.replace(cfg.queues["all.q"], qname="b.q",
                                                user_lists="staff")
    m.refresh_views()
    assert submitted(m) == 1  # her group is in b.q's list
    assert isinstance(qsub(m, "carol", group="other"), p.Error)
    cfg.queues["b.q"].xuser_lists = "banned"
    m.refresh_views()
    assert "not allowed to run in any queue" in qsub(m).text


# ---- qdel ----------------------------------------------------------------------------------

def qdel(m: Master, user: str, *targets: str, users: tuple[str, ...] = (),
         host: str = HOST) -> p.Ok:
    reply = m.delete(p.Delete(targets=list(targets), user=user, users=list(users), host=host),
                     2.0, Effects())
    assert isinstance(reply, p.Ok)
    return reply


def test_qdel_of_another_users_job_is_denied_per_job():
    m = make()
    mine, theirs = submitted(m, "bob"), submitted(m)
    reply = qdel(m, "bob", str(mine), str(theirs))
    assert (reply.lines, reply.code) == (
        ["bob has deleted job 1",
         'bob - you do not have the necessary privileges to delete the job "2"'], 1)
    assert m.s.jobs[2].tasks[0].state == PENDING
    submitted(m)
    reply = qdel(m, "bob", users=("alice",))
    assert reply.lines == [
        'bob - you do not have the necessary privileges to delete the job "2"',
        'bob - you do not have the necessary privileges to delete the job "3"']
    assert qdel(m, "bob", "2.1").lines == [
        'bob - you do not have the necessary privileges to delete the job "2"']


@pytest.mark.parametrize("user", ["alice", "opal", "root"])
def test_the_owner_an_operator_and_a_manager_may_qdel(user: str):
    m = make()
    submitted(m)
    assert qdel(m, user, "1") == p.Ok(lines=[f"{user} has deleted job 1"])
    assert 1 not in m.s.jobs  # pending, nothing to account: gone at once


def test_qdel_only_from_a_submit_host():
    m = make()
    submitted(m)
    reply = qdel(m, "root", "1", host="laptop")
    assert (reply.lines, reply.code) == (['denied: host "laptop" is not a submit host'], 1)
    assert m.s.jobs[1].tasks[0].state == PENDING


# ---- qalter --------------------------------------------------------------------------------

def qalter(m: Master, user: str, *targets: str, host: str = HOST, **kw) -> p.Ok:
    reply = m.alter(p.Alter(targets=list(targets), user=user, host=host, **kw), 2.0,
                    Effects())
    assert isinstance(reply, p.Ok)
    return reply


def test_qalter_of_another_users_job_is_denied():
    m = make()
    submitted(m)
    submitted(m, "bob")
    reply = qalter(m, "bob", "1", "2", name="x")
    assert (reply.lines, reply.code) == (
        ['denied: "bob" must be at least owner of job 1 to change job attributes',
         "modified job name of job 2"], 1)
    assert m.s.jobs[1].spec.name == "sleep"
    assert qalter(m, "opal", "1", name="y").lines == ["modified job name of job 1"]
    assert qalter(m, "alice", "1", name="z").code == 0


def test_qalter_takes_jobs_not_tasks_and_then_changes_nothing():
    m = make()
    submitted(m)
    for target, code, text in [
        ("1.1", 4, "denied: the selected option works only on jobs and not on tasks"),
        ("1.x", 2, 'ERROR! "1.x" is an invalid job-task identifier'),
    ]:
        reply = m.alter(p.Alter(targets=["1", target], user="alice", host=HOST, name="x"),
                        2.0, Effects())
        assert reply == p.Error(text=text, code=code)
    assert m.s.jobs[1].spec.name == "sleep"


def test_only_an_operator_raises_a_priority():
    m = make()
    submitted(m, priority=-5)
    reply = qalter(m, "alice", "1", priority=0)
    assert (reply.lines, reply.code) == (
        ['denied: "alice" must be operator to increase job priority'], 1)
    assert m.s.jobs[1].spec.priority == -5
    assert qalter(m, "alice", "1", priority=-10).lines == [
        "alice@vm sets scheduling priority of job 1 to -10"]
    assert qalter(m, "opal", "1", priority=3).lines == [
        "opal@vm sets scheduling priority of job 1 to 3"]


def test_qalter_only_from_a_submit_host():
    m = make()
    submitted(m)
    reply = qalter(m, "alice", "1", host="laptop", name="x")
    assert (reply.lines, reply.code) == (['denied: host "laptop" is not a submit host'], 1)


# ---- qmod ----------------------------------------------------------------------------------

def qmod(m: Master, user: str, action: str, *targets: str) -> p.Ok:
    reply = m.qmod(p.Qmod(action=action, targets=list(targets), user=user, host=HOST), 3.0,
                   Effects())
    assert isinstance(reply, p.Ok)
    return reply


def running(m: Master) -> int:
    job_id = submitted(m)
    schedule(m, 2.0)
    assert m.s.jobs[job_id].tasks[0].state not in (PENDING, DONE)
    return job_id


def test_qmod_of_another_users_job_is_denied():
    m = make()
    job_id = running(m)
    for action in ("sj", "s", "usj", "cj"):
        reply = qmod(m, "bob", action, str(job_id))
        assert (reply.lines, reply.code) == (
            [f'bob - you have no permission to modify job "{job_id}"'], 1)
    assert not m.s.jobs[job_id].tasks[0].suspended
    assert qmod(m, "alice", "sj", str(job_id)).lines == [f"alice - suspended job {job_id}"]
    assert qmod(m, "opal", "usj", str(job_id)).lines == [f"opal - unsuspended job {job_id}"]


def test_queue_states_are_for_operators_managers_and_the_queues_owners():
    m = make()
    reply = qmod(m, "bob", "d", "all.q")
    assert (reply.lines, reply.code) == (
        ['bob - you have no permission to modify queue "all.q@node1"',
         'bob - you have no permission to modify queue "all.q@node2"'], 1)
    assert m.s.flags == {}
    assert qmod(m, "opal", "d", "all.q@node1").lines == [
        'opal@vm changed state of "all.q@node1" (disabled)']
    m.s.config.queues["all.q"].owner_list = "NONE,[node2=bob]"
    m.refresh_views()  # as a qconf change does
    reply = qmod(m, "bob", "e", "all.q")
    assert reply.lines == ['bob - you have no permission to modify queue "all.q@node1"',
                           'Queue instance "all.q@node2" is already in the specified '
                           "state: enabled"]
    assert qmod(m, "bob", "d", "all.q@node2").code == 0


# ---- qconf ---------------------------------------------------------------------------------

def qconf(m: Master, user: str, *argv: str, host: str = HOST) -> p.QconfReply:
    return m.qconf(p.Qconf(argv=list(argv), user=user, host=host), Effects())


def test_qconf_changes_are_for_managers():
    m = make()
    reply = qconf(m, "alice", "-am", "alice")
    assert (reply.err, reply.code) == (['denied: "alice" must be manager for this operation'], 1)
    assert qconf(m, "opal", "-am", "alice").err == [
        'denied: "opal" must be manager for this operation']
    assert m.s.config.managers == ["root"]
    assert qconf(m, "alice", "-sql").out == ["all.q"]  # looking is for everyone


def test_access_lists_are_for_operators_too():
    m = make()
    reply = qconf(m, "alice", "-au", "alice", "okusers")
    assert (reply.err, reply.code) == (['denied: "alice" must be operator for this operation'],
                                       1)
    reply = qconf(m, "opal", "-au", "alice", "okusers")
    assert (reply.err, reply.code) == (['added "alice" to access list "okusers"'], 0)
    assert qconf(m, "opal", "-dul", "okusers").code == 0


def test_qconf_changes_only_from_an_admin_host_judged_after_the_user():
    m = make()
    reply = qconf(m, "root", "-am", "alice", host="laptop")
    assert (reply.err, reply.code) == (['denied: host "laptop" is not an admin host'], 1)
    assert m.s.config.managers == ["root"]
    assert qconf(m, "alice", "-am", "x", host="laptop").err == [
        'denied: "alice" must be manager for this operation']
    assert qconf(m, "root", "-sm", host="laptop").out == ["root"]
    assert qconf(m, "root", "-am", "alice").code == 0


def test_the_master_host_never_leaves_the_admin_hosts():
    m = make()
    m.s.config.admin_hosts.append("laptop")
    reply = qconf(m, "root", "-dh", f"{HOST},laptop")
    assert (reply.err, reply.code) == (
        [f'denied: can\'t delete master host "{HOST}" from admin host list',
         f'root@{HOST} removed "laptop" from administrative host list'], 1)
    assert m.s.config.admin_hosts == [HOST]


# ---- advance reservations ------------------------------------------------------------------

def qrsub(m: Master, owner: str, host: str = "") -> p.Msg:
    spec = ArSpec(owner=owner, group="staff", duration=3600.0)
    return ars.submit(m, p.ArSubmit(spec=spec, host=host), NOW, Effects())


def qrdel(m: Master, user: str, *targets: str, host: str = HOST) -> p.Msg:
    return ars.delete(m, p.ArDelete(targets=list(targets), user=user, host=host), NOW,
                      Effects())


def test_qrsub_for_managers_and_arusers_from_a_submit_host():
    m = make()
    assert qrsub(m, "alice") == p.Error(
        text='denied: "alice" must be manager or in userset "arusers"')
    m.s.config.usersets["arusers"].entries.append("alice")
    assert qrsub(m, "alice", host="laptop") == p.Error(
        text='denied: host "laptop" is not a submit host')
    assert qrsub(m, "alice", host=HOST) == p.Ok(
        lines=["Your advance reservation 1 has been granted"])


def test_qrdel_for_managers_and_arusers_and_of_ones_own_ars():
    m = make()
    m.s.config.usersets["arusers"].entries += ["alice", "bob"]
    assert isinstance(qrsub(m, "alice"), p.Ok)
    reply = qrdel(m, "bob", "1")
    assert reply == p.Ok(lines=['bob - you do not have the necessary privileges to delete '
                                'the advance_reservation "1"'], code=1)
    assert qrdel(m, "root", "1", host="laptop") == p.Error(
        text='denied: host "laptop" is not a submit host')
    m.s.config.usersets["arusers"].entries.remove("alice")
    assert qrdel(m, "alice", "1") == p.Error(
        text='denied: "alice" must be manager or in userset "arusers"')
    assert 1 in m.s.ars
    m.s.config.usersets["arusers"].entries.append("opal")
    assert qrdel(m, "opal", "1") == p.Ok(lines=["opal has deleted advance_reservation 1"])


def test_qsub_ar_for_the_ars_users_and_their_groups():
    m = make()
    usersets(m, team=["@staff"])
    m.s.config.usersets["arusers"] = Userset(name="arusers", entries=["bob"])
    spec = ArSpec(owner="bob", group="other", duration=3600.0, users=["bob", "@team"])
    assert isinstance(ars.submit(m, p.ArSubmit(spec=spec), NOW, Effects()), p.Ok)
    assert submitted(m, "bob", ar=1, now=NOW) == 1
    assert submitted(m, "alice", ar=1, now=NOW) == 2  # her group is on @team
    assert refused(m, "carol", group="other", ar=1).text == (
        'Unable to run job: the user "carol" has no access to the advance reservation id 1')


def test_a_job_refused_access_at_dispatch_never_starts_where_it_may_not():
    m = make()
    usersets(m, okusers=["bob"])
    cfg = m.s.config
    cfg.queues["all.q"].user_lists = "NONE,[node2=okusers]"
    m.refresh_views()
    alice = [submitted(m) for _ in range(3)]
    schedule(m, 2.0)
    hosts = {m.s.jobs[j].tasks[0].host for j in alice
             if m.s.jobs[j].tasks[0].state != PENDING}
    assert hosts == {"node1"}
    assert [m.s.jobs[j].tasks[0].state for j in alice].count(PENDING) == 1
    assert 'has no permission for cluster queue "all.q"' in m.job_info(m.s.jobs[alice[2]], 0.0)

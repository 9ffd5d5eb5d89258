"""stamp: every field of a request naming its sender gets the master's idea of it."""

from __future__ import annotations

import msgspec

from gridd import protocol as p
from gridd.master.identity import stamp
from gridd.model.ar import ArSpec
from gridd.model.job import JobSpec


def test_a_submission_is_owned_by_the_sender_from_its_host():
    msg = p.Submit(spec=JobSpec(name="x", owner="root", uid=0, group="wheel", gid=0,
                                submit_host="elsewhere", o_logname="root"))
    stamp(msg, "roland", "users", "node7", uid=1001, gid=100)
    spec = msg.spec
    assert (spec.owner, spec.group, spec.submit_host, spec.uid, spec.gid) == (
        "roland", "users", "node7", 1001, 100)
    assert spec.o_logname == "root"  # what the client's environment said stays as it was


def test_ids_unknown_to_the_master_are_left_alone():
    msg = p.Submit(spec=JobSpec(owner="root", uid=5, gid=6))
    stamp(msg, "ghost", "", "node1")
    assert (msg.spec.owner, msg.spec.uid, msg.spec.gid) == ("ghost", 5, 6)


def test_a_reservation_and_every_request_naming_a_user_or_host():
    ar = p.ArSubmit(spec=ArSpec(owner="root", group="root"), host="elsewhere")
    stamp(ar, "andre", "staff", "login1")
    assert (ar.spec.owner, ar.spec.group, ar.host) == ("andre", "staff", "login1")
    requests = [p.Delete(targets=["1"], user="root"), p.ArDelete(targets=["1"], user="root"),
                p.Alter(targets=["1"], user="root", host="x"),
                p.Qmod(action="d", targets=["all.q"], user="root", host="x"),
                p.Qconf(argv=["-am", "me"], user="root", host="x"),
                p.SpoolRequest(action="check", user="root")]
    for msg in requests:
        stamp(msg, "user1", "users", "login1")
        assert msg.user == "user1", msg
        assert getattr(msg, "host", "login1") == "login1", msg


def test_requests_naming_nobody_are_unchanged():
    for msg in (p.Ping(), p.QueryJobs(ids=["1"]), p.QueryArs(users=["root"]),
                p.QueryQuota(users=["root"]), p.DbQuery(sql="select 1")):
        before = p.encode(msg)
        stamp(msg, "user1", "users", "login1")
        assert p.encode(msg) == before, msg


def test_a_message_gaining_such_fields_is_stamped_without_a_change_to_stamp():
    class Later(msgspec.Struct, kw_only=True):
        user: str
        host: str = ""
        spec: JobSpec

    msg = Later(user="root", spec=JobSpec(owner="root"))
    stamp(msg, "andre", "staff", "login1")
    assert (msg.user, msg.host, msg.spec.owner, msg.spec.submit_host) == (
        "andre", "login1", "andre", "login1")


def test_the_host_a_pe_task_is_to_run_on_is_the_users_choice_not_the_sender():
    msg = p.StartPeTask(job_id=1, task_id=0, host="node2", command=["true"], user="mallory")
    stamp(msg, "alice", "staff", "node1")
    assert (msg.user, msg.host) == ("alice", "node2")

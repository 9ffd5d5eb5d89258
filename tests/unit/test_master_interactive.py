"""qrsh's and qlogin's wait for their task, and qrsh -inherit's PE tasks, in the master's
core: messages in, replies and effects out (no sockets, no clock)."""

from __future__ import annotations

from gridd import protocol as p
from gridd.accounting.record import record_for
from gridd.master.bootstrap import CellConfig, initial_config
from gridd.master.core import Master
from gridd.master.events import for_accounting
from gridd.master.state import Effects, MasterState
from gridd.model.job import JobSpec, Usage
from gridd.model.objects import ParallelEnvConf
from gridd.model.task_lifecycle import DONE, RUNNING
from gridd.sched.info import Told
from gridd.sched.plan import Planner
from gridd.sched.view import SchedView

KEYS = {"node1": b"1" * 32, "node2": b"2" * 32}
WHO = b"qrsh"


def key_of(host: str) -> bytes:
    return KEYS[host]


def make_master(hosts: int = 2, slots: int = 2, **pe: str) -> Master:
    state = MasterState()
    initial_config(state, CellConfig(hosts=[f"node{i}" for i in range(1, hosts + 1)],
                                     slots=slots))
    state.config.pes["tight"] = ParallelEnvConf(
        pe_name="tight", slots="99", allocation_rule="$round_robin",
        control_slaves=pe.get("control_slaves", "TRUE"),
        job_is_first_task=pe.get("job_is_first_task", "TRUE"),
        accounting_summary=pe.get("accounting_summary", "FALSE"))
    state.config.queues["all.q"].pe_list = "make smp mpi tight"
    master = Master(state)
    master.refresh_views()
    for host in state.hosts:
        master.register(p.Register(host=host, load={}, session_endpoint=f"tcp://{host}:7"),
                        0.0, Effects())
    return master


def spec(**kw) -> JobSpec:
    base = dict(name="sleep", owner="alice", binary=True, command=["sleep", "1"])
    base.update(kw)
    return JobSpec(**base)


def schedule(master: Master, now: float) -> Effects:
    view = SchedView()
    view.reset(master.sched_state())
    fx = Effects()
    master.dispatch(Told().dispatch(Planner().plan(view, now)), now, fx)
    return fx


def started(master: Master, job_id: int, host: str, now: float, pe_task: str = "") -> Effects:
    fx = Effects()
    master.task_started(p.TaskStarted(host=host, job_id=job_id, task_id=0, start_time=now,
                                      pe_task=pe_task), now, fx, key_of)
    return fx


def finished(master: Master, job_id: int, host: str, now: float, pe_task: str = "",
             status: int = 0, usage: Usage | None = None) -> Effects:
    fx = Effects()
    master.task_finished(p.TaskReport(job_id=job_id, task_id=0, host=host, start_time=1.0,
                                      end_time=now, exit_status=status, pe_task=pe_task,
                                      usage=usage or Usage()), now, fx)
    return fx


def running_pe_job(master: Master, slots: int = 4) -> int:
    """A job of the tight PE over both hosts, its master task running on node1."""
    job_id = master.submit(spec(pe_name="tight", pe_min=slots, pe_max=slots), 1.0,
                           Effects()).job_id
    schedule(master, 2.0)
    task = master.s.jobs[job_id].tasks[0]
    started(master, job_id, task.host, 3.0)
    assert task.state == RUNNING
    return job_id


def inherit(master: Master, job_id: int, host: str, now: float = 5.0,
            user: str = "alice") -> tuple[p.Msg | None, Effects]:
    fx = Effects()
    answer = master.start_pe_task(WHO, p.StartPeTask(
        job_id=job_id, task_id=0, host=host, command=["orted", "-x"], env={"A": "1"},
        cwd="/w", session_key=b"k" * 32, nostdin=True, user=user, rid=9), now, fx)
    return answer, fx


# ---- qrsh and qlogin: WaitStarted -------------------------------------------------


def test_a_waiting_qrsh_learns_where_its_session_is_once_its_task_runs():
    master = make_master()
    job_id = master.submit(spec(interactive="qrsh", session_key=b"k" * 32), 1.0,
                           Effects()).job_id
    assert master.wait_started(WHO, p.WaitStarted(job_id=job_id, rid=4), key_of) is None
    (start,) = [m for _, m in schedule(master, 2.0).to_execd]
    assert (start.session_key, start.pty) == (b"k" * 32, False)  # execd holds its session
    host = master.s.jobs[job_id].tasks[0].host
    fx = started(master, job_id, host, 3.0)
    assert fx.replies == [(WHO, p.Started(job_id=job_id, task_id=0, host=host,
                                          endpoint=f"tcp://{host}:7", server_key=KEYS[host],
                                          rid=4))]
    # asked again (or late): answered at once
    again = master.wait_started(WHO, p.WaitStarted(job_id=job_id), key_of)
    assert isinstance(again, p.Started) and again.endpoint == f"tcp://{host}:7"


def test_now_y_with_no_place_is_refused_in_grid_engines_words_for_qrsh_and_qlogin():
    for kind in ("qrsh", "qlogin"):
        master = make_master(hosts=1, slots=1)
        master.submit(spec(), 1.0, Effects())
        schedule(master, 2.0)  # the only slot taken
        job_id = master.submit(spec(interactive=kind, immediate=True,
                                               session_key=b"k" * 32), 3.0,
                               Effects()).job_id
        assert master.wait_started(WHO, p.WaitStarted(job_id=job_id, rid=2), key_of) is None
        fx = schedule(master, 4.0)
        assert fx.replies == [(WHO, p.Error(
            text=f'Your "{kind}" request could not be scheduled, try again later.',
            code=1, rid=2))]
        late = master.wait_started(WHO, p.WaitStarted(job_id=job_id), key_of)
        assert isinstance(late, p.Error) and "could not be scheduled" in late.text


def test_a_task_that_cannot_start_or_is_deleted_ends_the_wait_with_an_error():
    master = make_master()
    job_id = master.submit(spec(interactive="qrsh", session_key=b"k" * 32), 1.0,
                           Effects()).job_id
    master.wait_started(WHO, p.WaitStarted(job_id=job_id, rid=1), key_of)
    schedule(master, 2.0)
    host = master.s.jobs[job_id].tasks[0].host
    fx = Effects()
    master.task_finished(p.TaskReport(job_id=job_id, task_id=0, host=host, failed=26,
                                      start_time=0.0, end_time=3.0, exit_status=0,
                                      failed_reason="error: can't chdir to /nope"), 3.0, fx)
    (reply,) = [m for _, m in fx.replies if isinstance(m, p.Error)]
    assert reply.text == f"error: job {job_id} could not start: error: can't chdir to /nope"

    other = master.submit(spec(interactive="qlogin", hold=True, session_key=b"k" * 32), 4.0,
                          Effects()).job_id
    master.wait_started(WHO, p.WaitStarted(job_id=other, rid=3), key_of)
    fx = Effects()
    master.delete(p.Delete(targets=[str(other)], user="alice"), 5.0, fx)
    assert [(w, m.rid) for w, m in fx.replies if isinstance(m, p.Error)] == [(WHO, 3)]
    unknown = master.wait_started(WHO, p.WaitStarted(job_id=77), key_of)
    assert unknown == p.Error(text='denied: job "77" does not exist')


# ---- qrsh -inherit: StartPeTask ---------------------------------------------------


def test_a_pe_task_starts_on_a_granted_host_and_is_answered_once_it_runs():
    master = make_master()
    job_id = running_pe_job(master)
    answer, fx = inherit(master, job_id, "NODE2")  # host names compare as GE's do
    assert answer is None
    ((host, start),) = fx.to_execd
    assert host == "node2" and isinstance(start, p.StartTask)
    assert (start.pe_task, start.queue, start.command, start.env, start.cwd) == (
        "1.node2", "all.q@node2", ["orted", "-x"], {"A": "1"}, "/w")
    assert start.session_key == b"k" * 32 and start.nostdin and not start.pty
    task = master.s.jobs[job_id].tasks[0]
    assert task.pe_tasks["1.node2"].queue == "all.q@node2"
    assert (job_id, 0) in fx.dirty_tasks
    fx = started(master, job_id, "node2", 6.0, pe_task="1.node2")
    assert fx.replies == [(WHO, p.Started(job_id=job_id, task_id=0, host="node2",
                                          endpoint="tcp://node2:7", server_key=KEYS["node2"],
                                          pe_task="1.node2", rid=9))]
    assert task.pe_tasks["1.node2"].start_time == 6.0
    assert inherit(master, job_id, "node1")[0] is None  # numbered on
    assert "2.node1" in task.pe_tasks


def test_pe_tasks_are_refused_in_grid_engines_words_and_change_nothing():
    master = make_master(control_slaves="FALSE")
    job_id = running_pe_job(master)
    refused = 'error: executing task of job {} failed: execution daemon on host "{}" ' \
              "didn't accept task"
    answer, fx = inherit(master, job_id, "node2")
    assert answer == p.Error(text=refused.format(job_id, "node2"))
    assert not fx.to_execd and not fx.dirty_tasks
    assert not master.s.jobs[job_id].tasks[0].pe_tasks

    master = make_master(hosts=3)
    job_id = running_pe_job(master, slots=2)  # $round_robin: node1 and node2
    granted = {qi.partition("@")[2] for qi, _ in master.s.jobs[job_id].tasks[0].granted}
    (outside,) = {"node1", "node2", "node3"} - granted
    assert inherit(master, job_id, outside)[0] == p.Error(
        text=refused.format(job_id, outside))
    assert inherit(master, job_id, "nosuch")[0] == p.Error(
        text=f"error: executing task of job {job_id} failed: failed sending task to "
             "execd@nosuch: can't resolve host name")
    assert isinstance(inherit(master, job_id, "node2", user="mallory")[0], p.Error)
    assert isinstance(inherit(master, 99, "node2")[0], p.Error)
    empty = master.start_pe_task(WHO, p.StartPeTask(job_id=job_id, task_id=0, host="node1",
                                                    command=[]), 5.0, Effects())
    assert empty == p.Error(text=f"error: executing task of job {job_id} failed: no command "
                                 "to run")
    assert not master.s.jobs[job_id].tasks[0].pe_tasks


def test_pe_tasks_take_the_job_s_slots_on_a_host_less_the_master_task_s():
    master = make_master()
    job_id = running_pe_job(master)  # 2 slots on each host; the master task on one
    task = master.s.jobs[job_id].tasks[0]
    own, other = task.host, ({"node1", "node2"} - {task.host}).pop()
    assert inherit(master, job_id, own)[0] is None
    assert isinstance(inherit(master, job_id, own)[0], p.Error)  # job_is_first_task
    assert inherit(master, job_id, other)[0] is None
    assert inherit(master, job_id, other)[0] is None
    assert isinstance(inherit(master, job_id, other)[0], p.Error)
    first = next(pe.pe_task_id for pe in task.pe_tasks.values() if pe.host == other)
    finished(master, job_id, other, 7.0, pe_task=first)
    assert inherit(master, job_id, other)[0] is None  # its slot is free again

    master = make_master(job_is_first_task="FALSE")
    job_id = running_pe_job(master)
    host = master.s.jobs[job_id].tasks[0].host
    assert inherit(master, job_id, host)[0] is None
    assert inherit(master, job_id, host)[0] is None
    assert isinstance(inherit(master, job_id, host)[0], p.Error)


def test_a_pe_task_has_its_own_accounting_record_with_its_id_host_and_queue():
    master = make_master()
    job_id = running_pe_job(master)
    inherit(master, job_id, "node2", now=5.0)
    started(master, job_id, "node2", 6.0, pe_task="1.node2")
    fx = finished(master, job_id, "node2", 8.0, pe_task="1.node2", status=5,
                  usage=Usage(utime=1.5))
    assert fx.to_execd == [("node2", p.Ack(job_id=job_id, task_id=0, pe_task="1.node2"))]
    assert len(fx.outbox) == 1
    (msg,) = for_accounting(master, fx)
    assert isinstance(msg, p.AccountTask) and msg.pe_task == "1.node2"
    rec = record_for(msg.job, msg.task, pe_task=msg.pe_task)
    assert (rec.pe_taskid, rec.hostname, rec.qname, rec.exit_status, rec.ru_utime) == (
        "1.node2", "node2", "all.q", 5, 1.5)
    assert (rec.job_number, rec.task_number, rec.slots, rec.granted_pe) == (
        job_id, 0, 4, "tight")
    assert (rec.submission_time, rec.start_time, rec.end_time) == (5, 6, 8)
    assert finished(master, job_id, "node2", 8.5, pe_task="1.node2").outbox == []  # resent
    # the master task's record keeps pe_taskid NONE and its own usage
    host = master.s.jobs[job_id].tasks[0].host
    fx = finished(master, job_id, host, 9.0, usage=Usage(utime=1.0))
    (own,) = [m for m in for_accounting(master, fx) if isinstance(m, p.AccountTask)]
    rec = record_for(own.job, own.task, pe_task=own.pe_task)
    assert (rec.pe_taskid, rec.ru_utime) == ("NONE", 1.0)
    # accounting the PE task's record does not settle the job; both do
    fx = Effects()
    master.accounted(sorted(master.s.outbox)[:1], fx)
    assert job_id in master.s.jobs
    master.accounted(sorted(master.s.outbox), fx)
    assert job_id not in master.s.jobs and fx.gone_jobs == {job_id}


def test_the_end_of_the_master_task_kills_its_pe_tasks_and_waits_for_them_to_account():
    master = make_master(accounting_summary="TRUE")
    job_id = running_pe_job(master)
    task = master.s.jobs[job_id].tasks[0]
    for host in ("node1", "node2"):
        inherit(master, job_id, host)
    ids = sorted(task.pe_tasks)
    fx = finished(master, job_id, task.host, 9.0, usage=Usage(utime=1.0, maxvmem=10.0))
    kills = [(h, m.pe_task) for h, m in fx.to_execd if isinstance(m, p.KillTask)]
    assert sorted(kills) == sorted((task.pe_tasks[i].host, i) for i in ids)
    assert task.state == DONE and not fx.outbox  # accounted once they have ended
    assert master.s.finished[job_id].exit_status == 0  # -sync waiters need not wait
    fx = finished(master, job_id, task.pe_tasks[ids[0]].host, 10.0, pe_task=ids[0],
                  usage=Usage(utime=2.0, maxvmem=30.0))
    assert not fx.outbox and job_id in master.s.jobs  # a summary: no record of its own
    fx = finished(master, job_id, task.pe_tasks[ids[1]].host, 11.0, pe_task=ids[1],
                  usage=Usage(utime=4.0, maxvmem=20.0))
    (msg,) = [m for m in for_accounting(master, fx) if isinstance(m, p.AccountTask)]
    assert msg.pe_task == ""
    rec = record_for(msg.job, msg.task)
    assert (rec.pe_taskid, rec.ru_utime, rec.maxvmem) == ("NONE", 7.0, 30.0)
    master.accounted(sorted(master.s.outbox), fx := Effects())
    assert job_id not in master.s.jobs


def test_a_registering_execd_ends_the_pe_tasks_it_lost_and_kills_those_unknown():
    master = make_master()
    job_id = running_pe_job(master)
    inherit(master, job_id, "node2")
    started(master, job_id, "node2", 6.0, pe_task="1.node2")
    task = master.s.jobs[job_id].tasks[0]
    running = [(job_id, 0)] if task.host == "node2" else []
    fx = Effects()
    master.register(p.Register(host="node2", load={}, running=running,
                               running_pe=[(job_id, 0, "7.node2")],
                               session_endpoint="ipc:///s"), 20.0, fx)
    assert ("node2", p.KillTask(job_id=job_id, task_id=0, pe_task="7.node2")) in fx.to_execd
    pe = task.pe_tasks["1.node2"]
    assert pe.done and (pe.exit_status, pe.failed) == (137, 100)
    assert len(fx.outbox) == 1  # its record
    assert master.session_endpoints["node2"] == "ipc:///s"


def test_qdel_f_ends_the_pe_tasks_at_once_and_accounts_the_job():
    master = make_master()
    job_id = running_pe_job(master)
    inherit(master, job_id, "node2")
    fx = Effects()
    master.delete(p.Delete(targets=[str(job_id)], user="alice", force=True), 8.0, fx)
    assert ("node2", p.KillTask(job_id=job_id, task_id=0, pe_task="1.node2")) in fx.to_execd
    task = master.s.jobs[job_id].tasks[0]
    assert task.pe_tasks["1.node2"].done and len(fx.outbox) == 2  # its record, the job's
    master.accounted(sorted(master.s.outbox), Effects())
    assert job_id not in master.s.jobs


def test_pe_task_ids_count_on_past_the_ones_a_rerun_keeps():
    master = make_master()
    job_id = running_pe_job(master)
    task = master.s.jobs[job_id].tasks[0]
    inherit(master, job_id, "node2")
    finished(master, job_id, "node2", 7.0, pe_task="1.node2")
    inherit(master, job_id, "node2")
    assert sorted(task.pe_tasks) == ["1.node2", "2.node2"]
    del task.pe_tasks["1.node2"]
    inherit(master, job_id, "node1")
    assert sorted(task.pe_tasks) == ["2.node2", "3.node1"]


def test_a_task_a_load_report_finds_running_answers_its_waiting_qrsh():
    master = make_master()
    job_id = master.submit(spec(interactive="qrsh", session_key=b"k" * 32), 1.0,
                           Effects()).job_id
    master.wait_started(WHO, p.WaitStarted(job_id=job_id, rid=5), key_of)
    schedule(master, 2.0)
    host = master.s.jobs[job_id].tasks[0].host
    fx = Effects()
    master.load_report(p.LoadReport(host=host, load={}, running=[(job_id, 0)]), 3.0, fx,
                       key_of)
    assert [(w, type(m), m.rid) for w, m in fx.replies] == [(WHO, p.Started, 5)]


def test_qdel_kills_the_pe_tasks_on_every_host_at_once():
    master = make_master()
    job_id = running_pe_job(master)
    task = master.s.jobs[job_id].tasks[0]
    other = ({"node1", "node2"} - {task.host}).pop()
    inherit(master, job_id, other)
    fx = Effects()
    master.delete(p.Delete(targets=[str(job_id)], user="alice"), 8.0, fx)
    assert (other, p.KillTask(job_id=job_id, task_id=0, pe_task=f"1.{other}")) in fx.to_execd
    assert (task.host, p.KillTask(job_id=job_id, task_id=0, reason="deleted")) in fx.to_execd


def test_a_registering_execd_running_a_pe_task_whose_start_was_missed_starts_it():
    master = make_master()
    job_id = running_pe_job(master)
    inherit(master, job_id, "node2")
    task = master.s.jobs[job_id].tasks[0]
    fx = Effects()
    master.register(p.Register(host="node2", load={},
                               running=[(job_id, 0)] if task.host == "node2" else [],
                               running_pe=[(job_id, 0, "1.node2")],
                               session_endpoint="tcp://node2:7"), 20.0, fx, key_of)
    assert [(type(m), m.pe_task) for _, m in fx.replies] == [(p.Started, "1.node2")]
    assert task.pe_tasks["1.node2"].start_time == 20.0 and not fx.outbox


def test_a_task_waiting_for_a_pe_task_its_host_lost_is_accounted_when_that_host_registers():
    master = make_master()
    job_id = running_pe_job(master)
    task = master.s.jobs[job_id].tasks[0]
    other = ({"node1", "node2"} - {task.host}).pop()
    pe_task_id = f"1.{other}"
    inherit(master, job_id, other)
    started(master, job_id, other, 6.0, pe_task=pe_task_id)
    assert not finished(master, job_id, task.host, 9.0).outbox  # waits for its PE task
    assert master.awaiting_pe_tasks == {(job_id, 0)}
    assert Master(master.s).awaiting_pe_tasks == {(job_id, 0)}  # after a restart too
    fx = Effects()
    master.register(p.Register(host=other, load={}), 20.0, fx)
    assert task.pe_tasks[pe_task_id].failed == 100 and len(fx.outbox) == 2
    assert not master.awaiting_pe_tasks
    master.accounted(sorted(master.s.outbox), Effects())
    assert job_id not in master.s.jobs


def test_an_interactive_job_s_kind_and_session_key_are_checked_at_submission():
    master = make_master()
    for bad, why in [
        (spec(interactive="qsh", session_key=b"k" * 32), 'unknown interactive job type "qsh"'),
        (spec(interactive="qrsh", session_key=b"k"),
         "an interactive job needs its session's public key of 32 bytes, not 1"),
        (spec(pty=True), "a batch job has no session and no pseudo-terminal"),
    ]:
        assert master.submit(bad, 1.0, fx := Effects()) == p.Error(
            text=f"Unable to run job: job rejected: {why}")
        assert not fx.dirty_jobs and not master.s.jobs

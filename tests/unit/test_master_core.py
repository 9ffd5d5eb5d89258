"""The master state machine and the planner, driven without sockets or clocks."""

from __future__ import annotations

import pytest

from gridd import protocol as p
from gridd.master.bootstrap import CellConfig, initial_config
from gridd.master.core import Master
from gridd.master.state import Effects, MasterState
from gridd.model.job import JobSpec, Usage
from gridd.model.objects import ParallelEnvConf
from gridd.model.task_lifecycle import DONE, RUNNING, TRANSFERRING
from gridd.sched.info import Told
from gridd.sched.plan import Planner
from gridd.sched.view import SchedView


def make_master(hosts: int = 2, slots: int = 2) -> Master:
    state = MasterState()
    initial_config(state, CellConfig(hosts=[f"node{i}" for i in range(1, hosts + 1)],
                                     slots=slots))
    master = Master(state)
    fx = Effects()
    for host in state.hosts:
        master.register(p.Register(host=host, load={}), 0.0, fx)
    return master


def spec(**kw) -> JobSpec:
    base = dict(name="sleep", owner="alice", binary=True, command=["sleep", "1"])
    base.update(kw)
    return JobSpec(**base)


def schedule(master: Master, now: float) -> Effects:
    view = SchedView()
    view.reset(master.sched_state())
    plan = Planner().plan(view, now)
    fx = Effects()
    master.dispatch(Told().dispatch(plan), now, fx)
    return fx


def test_submit_assigns_increasing_ids_and_spools_them():
    master = make_master()
    fx = Effects()
    replies = [master.submit(spec(), 10.0, fx) for _ in range(3)]
    assert [r.job_id for r in replies] == [1, 2, 3]
    assert fx.dirty_jobs == {1, 2, 3} and fx.counters_changed
    assert [j.job_id for j in fx.sched] == [1, 2, 3]


def test_rejections_change_nothing():
    master = make_master()
    fx = Effects()
    for bad in (spec(name="1abc"), spec(hard_resources={"nosuch": "1"}),
                spec(hard_queues=["nosuch.q"]), spec(pe_name="nosuch", pe_min=2, pe_max=2),
                # task ranges qsub never sends, and more tasks than max_aj_tasks (75000)
                spec(array=(0, 3, 1)), spec(array=(1, 5, 0)), spec(array=(5, 1, 1)),
                spec(array=(1, 75_001, 1)), spec(array=(1, 2**62, 1))):
        assert isinstance(master.submit(bad, 1.0, fx), p.Error)
    assert master.s.jobs == {} and master.s.next_job_id == 1 and not fx.dirty_jobs


@pytest.mark.parametrize(("name", "text"), [
    ("", "job rejected cause there is no job_name in the request"),
    ("1a b", 'denied: "1a b" is not a valid object name (cannot start with a digit)'),
    ("a\tb\nc", "Return not allowed in objectname"),
    ("a\rb\tc", "Tab not allowed in objectname"),
    ("a\rb", "Carriage return not allowed in objectname"),
    ("a@b:c", "Colon (':') not allowed in objectname"),
    ("a\\b@c", "At ('@') not allowed in objectname"),
    ("a*b\\c", "Backslash ('\\') not allowed in objectname"),
    ("a?b*c", "Asterisk ('*') not allowed in objectname"),
    ("a b?c", "Questionmark ('?') not allowed in objectname"),
    # 8.1.9 fails to say this one ("Error reading answer list from qmaster")
    ("echo hi", 'denied: job name "echo hi" contains whitespace (a job is named after its '
                "command or script unless -N names it)"),
])
def test_unusable_job_names_are_refused_in_8_1_9s_words_and_order(name: str, text: str):
    """What 8.1.9 refuses of a job name, checked there with qsub -N (a -b y job is named
    after its command word): the first character it finds of those, in its order."""
    master = make_master()
    fx = Effects()
    assert master.submit(spec(name=name), 1.0, fx) == p.Error(
        text=f"Unable to run job: {text}", code=1)
    assert master.s.jobs == {} and master.s.next_job_id == 1 and not fx.dirty_jobs


def test_job_names_8_1_9_takes():
    master = make_master()
    names = ["a,b", "a(b", "a'b", "a%b", "a|b", 'a"b', "a{b", "a[b", "my-job_1", "a.b", "STDIN"]
    replies = [master.submit(spec(name=name), 1.0, Effects()) for name in names]
    assert [master.s.jobs[reply.job_id].spec.name for reply in replies] == names


def test_qalter_refuses_a_job_name_as_qsub_does():
    """8.1.9's qalter -N (run here) refuses what its qsub -N refuses, in the same words,
    for each job named, on standard output, exit 1: it took any name before."""
    master = make_master()
    jobs = [master.submit(spec(name="first", hold=True), 1.0, Effects()).job_id
            for _ in range(2)]

    def rename(name: str) -> p.Ok:
        return master.alter(p.Alter(targets=[str(j) for j in jobs], user="root", name=name),
                            2.0, Effects())

    for name, text in [("1x", 'denied: "1x" is not a valid object name (cannot start with '
                                "a digit)"),
                       ("a:b", "Colon (':') not allowed in objectname"),
                       ("a@b", "At ('@') not allowed in objectname")]:
        assert rename(name) == p.Ok(lines=[text, text], code=1)
    assert rename("a b").code == 1
    assert [master.s.jobs[j].spec.name for j in jobs] == ["first", "first"]
    assert rename("second").lines == [f"modified job name of job {j}" for j in jobs]


def test_first_fit_never_overbooks_slots():
    master = make_master(hosts=2, slots=2)
    fx = Effects()
    for _ in range(7):
        master.submit(spec(), 1.0, fx)
    fx = schedule(master, 2.0)
    started = [m for _, m in fx.to_execd if isinstance(m, p.StartTask)]
    assert len(started) == 4
    assert all(v <= 2 for v in master.used().values())
    # a second cycle finds no room
    assert not [m for _, m in schedule(master, 3.0).to_execd if isinstance(m, p.StartTask)]


def test_priority_orders_dispatch():
    """-p counts as far as weight_priority says: not at all by Grid Engine's defaults
    (the job waiting longer is the more urgent), first with the weights of the spec's
    example (weight_priority 1, weight_urgency 0.1) when the -p values are far enough
    apart: the urgency of the longer wait still adds 0.1."""
    for weight, first in (("0.000000", "low"), ("1.000000", "high")):
        master = make_master(hosts=1, slots=1)
        master.s.config.sched.weight_priority = weight
        master.s.config.sched.weight_urgency = "0.100000"
        master.s.config.operators.append("alice")  # a positive priority takes an operator
        master.refresh_views()
        fx = Effects()
        master.submit(spec(name="low", priority=-500), 1.0, fx)
        master.submit(spec(name="high", priority=500), 2.0, fx)
        fx = schedule(master, 3.0)
        (host, start), = [(h, m) for h, m in fx.to_execd if isinstance(m, p.StartTask)]
        assert start.job.spec.name == first and host == "node1"


def test_finish_is_accounted_once_and_job_leaves_after_accounting():
    master = make_master(hosts=1, slots=1)
    master.submit(spec(), 1.0, Effects())
    schedule(master, 2.0)
    task = master.s.jobs[1].tasks[0]
    assert task.state == TRANSFERRING
    master.task_started(p.TaskStarted(host="node1", job_id=1, task_id=0, start_time=2.5),
                        3.0, Effects())
    assert task.state == RUNNING
    report = p.TaskReport(job_id=1, task_id=0, host="node1", start_time=2.5, end_time=4.0,
                          exit_status=0)
    fx = Effects()
    master.task_finished(report, 4.0, fx)
    master.task_finished(report, 4.1, fx)  # execd resends after a reconnect
    assert len(fx.outbox) == 1 and task.state == DONE
    assert 1 in master.s.jobs  # kept until the accounting actor confirms
    fx = Effects()
    master.accounted([fx_seq for fx_seq in list(master.s.outbox)], fx)
    assert 1 not in master.s.jobs and fx.gone_jobs == {1}
    assert master.s.finished[1].exit_status == 0


def test_the_last_finished_jobs_are_kept_for_qstat_s_z():
    master = make_master(hosts=1, slots=1)
    master.s.config.conf.finished_jobs = "2"
    for name in ("a", "b", "c"):
        master.submit(spec(name=name), 1.0, Effects())
    master.delete(p.Delete(targets=["1", "2", "3"], user="alice"), 2.0, Effects())
    assert [j.spec.name for j in master.query_jobs(p.QueryJobs(finished=True), 3.0).finished
            ] == ["b", "c"]
    assert master.query_jobs(p.QueryJobs(), 3.0).finished == []
    master.s.config.conf.finished_jobs = "0"
    master.submit(spec(name="d"), 4.0, Effects())
    master.delete(p.Delete(targets=["4"], user="alice"), 5.0, Effects())
    assert master.query_jobs(p.QueryJobs(finished=True), 6.0).finished == []


def test_the_usage_of_running_tasks_is_shown_as_their_execd_last_reported_it():
    """Online usage lives in memory only: the task's record (spooled) keeps none of it,
    a report from another host is not taken, and the task's end forgets it."""
    master = make_master(hosts=2, slots=1)
    master.submit(spec(), 1.0, Effects())
    schedule(master, 2.0)
    master.task_started(p.TaskStarted(host="node1", job_id=1, task_id=0, start_time=2.5),
                        3.0, Effects())
    now = Usage(wallclock=4.0, utime=3.0, mem=0.25, io=1024.0, vmem=2e6, maxvmem=3e6)
    fx = Effects()
    master.load_report(p.LoadReport(host="node2", load={}, usage=[(1, 0, Usage(utime=9.0))]),
                       6.0, fx)
    master.load_report(p.LoadReport(host="node1", load={}, running=[(1, 0)],
                                    usage=[(1, 0, now), (7, 0, now)]), 6.5, fx)
    shown = master.query_jobs(p.QueryJobs(), 7.0)
    assert shown.jobs[0].tasks[0].usage == now
    assert master.s.jobs[1].tasks[0].usage == Usage() and not fx.dirty_tasks
    report = p.TaskReport(job_id=1, task_id=0, host="node1", start_time=2.5, end_time=8.0,
                          exit_status=0, usage=Usage(utime=5.0, mem=0.5))
    master.task_finished(report, 8.0, Effects())
    assert master.online == {}


def test_delete_pending_and_running():
    master = make_master(hosts=1, slots=1)
    fx = Effects()
    master.submit(spec(), 1.0, fx)
    master.submit(spec(), 1.0, fx)
    schedule(master, 2.0)
    fx = Effects()
    reply = master.delete(p.Delete(targets=["1", "2", "9999"], user="alice"), 3.0, fx)
    assert reply.lines == ["alice has registered the job 1 for deletion",
                           "alice has deleted job 2", 'denied: job "9999" does not exist']
    assert reply.code == 1
    assert any(isinstance(m, p.KillTask) for _, m in fx.to_execd)


def test_array_tasks_spread_over_slots():
    master = make_master(hosts=2, slots=1)
    master.submit(spec(array=(1, 6, 2)), 1.0, Effects())
    fx = schedule(master, 2.0)
    starts = sorted((m.task_id, h) for h, m in fx.to_execd if isinstance(m, p.StartTask))
    assert starts == [(1, "node1"), (3, "node2")]


def test_pe_fill_up_spans_hosts_and_pe_slots_stays_on_one():
    master = make_master(hosts=2, slots=2)
    master.submit(spec(pe_name="mpi", pe_min=3, pe_max=3), 1.0, Effects())
    master.submit(spec(pe_name="smp", pe_min=3, pe_max=3), 1.0, Effects())
    fx = schedule(master, 2.0)
    (start,) = [m for _, m in fx.to_execd if isinstance(m, p.StartTask)]
    assert start.job.job_id == 1
    assert sum(n for _, n in start.granted) == 3 and len(start.granted) == 2


def test_hold_jid_waits_for_predecessor():
    master = make_master(hosts=1, slots=2)
    master.submit(spec(name="first"), 1.0, Effects())
    master.submit(spec(name="after", hold_jid=["first"]), 1.0, Effects())
    fx = schedule(master, 2.0)
    assert [m.job.job_id for _, m in fx.to_execd if isinstance(m, p.StartTask)] == [1]
    assert master.display_state(master.s.jobs[2], master.s.jobs[2].tasks[0]) == "hqw"


def test_register_resends_lost_start_and_fails_vanished_task():
    master = make_master(hosts=1, slots=2)
    master.submit(spec(), 1.0, Effects())
    master.submit(spec(), 1.0, Effects())
    schedule(master, 2.0)
    master.task_started(p.TaskStarted(host="node1", job_id=2, task_id=0, start_time=2.0),
                        2.0, Effects())
    fx = Effects()
    master.register(p.Register(host="node1", load={}, running=[]), 5.0, fx)
    assert [m.job.job_id for _, m in fx.to_execd if isinstance(m, p.StartTask)] == [1]
    assert master.s.jobs[2].tasks[0].state == DONE and master.s.jobs[2].tasks[0].failed == 100


def with_license(master: Master, amount: str = "5") -> None:
    from gridd.model.complexes import ComplexAttr

    cfg = master.s.config
    cfg.complexes.append(ComplexAttr("license", "lic", "INT", "<=", "YES", "YES", "0", "0"))
    cfg.exechosts["global"].complex_values = f"license={amount}"
    master.refresh_views()


def test_verification_modes_answer_like_grid_engine():
    master = make_master(hosts=1, slots=2)
    with_license(master)
    fx = Effects()
    reply = master.submit(spec(hard_resources={"license": "10"}, verify="v"), 1.0, fx)
    # jobs.txt: qsub -w v -l license=10
    assert reply.text == (
        "Unable to run job: Job 1 (-l license=10) cannot run globally because it offers only "
        "gc:license=5.000000\nverification: no suitable queues")
    assert master.submit(spec(verify="v"), 1.0, fx).lines == [
        "verification: found suitable queue(s)"]
    reply = master.submit(spec(hard_resources={"license": "10"}, verify="e"), 1.0, fx)
    assert reply.text == "Unable to run job: error: no suitable queues"
    assert master.s.jobs == {} and master.s.next_job_id == 1  # nothing submitted, no id used
    reply = master.submit(spec(hard_resources={"license": "10"}, verify="w"), 1.0, fx)
    assert reply.job_id == 1 and reply.warnings == ["warning: no suitable queues"]


def test_poke_verification_sees_what_runs_now():
    master = make_master(hosts=1, slots=2)
    with_license(master, "2")
    master.submit(spec(hard_resources={"license": "2"}), 1.0, Effects())
    schedule(master, 2.0)
    fx = Effects()
    empty = master.submit(spec(hard_resources={"license": "1"}, verify="v"), 3.0, fx)
    now = master.submit(spec(hard_resources={"license": "1"}, verify="p"), 3.0, fx)
    assert isinstance(empty, p.Ok)
    assert isinstance(now, p.Error) and "offers only gc:license=0.000000" in now.text


def test_dispatch_carries_each_reason_list_once_and_only_changes():
    from gridd.sched.plan import Plan
    from gridd.sched.reasons import Why

    told = Told()
    why = ["cannot run globally because it offers only gc:license=0.000000"]
    first = told.dispatch(Plan(why={1: Why.of(why), 2: Why.of(list(why)),
                                    3: Why.of(["other"])}))
    assert len(first.reasons) == 2 and first.info[1] == first.info[2] != first.info[3]
    again = told.dispatch(Plan(why={1: Why.of(why), 2: Why.of(why), 3: Why.of(["other"])}))
    assert again.info == {} and again.reasons == {} and again.global_info is None
    cleared = told.dispatch(Plan(why={1: Why.of(why)}, global_info=["dropped"]))
    assert cleared.info == {2: 0, 3: 0} and cleared.global_info == ["dropped"]


def test_queue_views_resolve_host_and_hostgroup_overrides():
    from gridd.model.objects import HostGroup

    master = make_master(hosts=3, slots=2)
    cfg = master.s.config
    cfg.hostgroups["@big"] = HostGroup(group_name="@big", hostlist="@bigger node2")
    cfg.hostgroups["@bigger"] = HostGroup(group_name="@bigger", hostlist="node3")
    cq = next(iter(cfg.queues.values()))
    cq.slots = "2,[@big=5],[node3=7]"
    master.refresh_views()
    queue = master.s.queues[cq.qname]
    assert queue.hostlist == ["node1", "node2", "node3"]
    assert (queue.slots, queue.slots_per_host) == (2, {"node2": 5, "node3": 7})
    assert [qi.slots for qi in master.plan.instances] == [2, 5, 7]


def test_hard_queue_references_name_instances_as_the_scheduler_reads_them():
    from gridd.model.objects import HostGroup

    master = make_master(hosts=2)
    master.s.config.hostgroups["@linux"] = HostGroup(group_name="@linux", hostlist="node2")
    master.refresh_views()
    for ref in ("all.q", "all.q@node1", "*@node*", "all.q@@linux", "@@lin*"):
        reply = master.submit(spec(hard_queues=[ref]), 1.0, Effects())
        assert isinstance(reply, p.Submitted), (ref, reply)
    for ref in ("other.q", "all.q@node9", "all.q@@windows"):
        reply = master.submit(spec(hard_queues=[ref]), 1.0, Effects())
        assert "job requests unknown queue" in reply.text, ref


def test_qstat_priorities_follow_urgency_with_the_default_weights():
    """The transcript's case: three waiting jobs, 3, 2 and 1 slots (slots urgency 1000):
    prior 0.75, 0.5 and 0.25 (weight_urgency and weight_ticket 0.5, tickets all 0)."""
    master = make_master(hosts=1, slots=1)
    master.s.config.pes["smp"] = ParallelEnvConf(pe_name="smp", slots="99")
    master.refresh_views()
    fx = Effects()
    for slots in (3, 2, 1):
        master.submit(spec(pe_name="smp", pe_min=slots, pe_max=slots), 10.0, fx)
    reply = master.query_jobs(p.QueryJobs(), 18.0)
    assert isinstance(reply, p.JobsReply)
    assert {j: round(v, 5) for j, v in reply.priorities.items()} == {1: 0.75, 2: 0.5, 3: 0.25}


def test_held_jobs_are_left_out_of_the_priorities_and_running_jobs_go_on_waiting():
    """As 8.1.9's qstat -pri and -urg show: a held job (-h, or a -hold_jid predecessor
    still there) has every part 0 but its -p, and the others are normalised without it; a
    running job's waiting time counts from its submission to now, not to its start."""
    master = make_master(hosts=1, slots=1)
    fx = Effects()
    master.submit(spec(name="runs"), 10.0, fx)
    schedule(master, 11.0)
    master.submit(spec(name="waits"), 20.0, fx)
    master.submit(spec(name="held", hold=True, priority=-5), 20.0, fx)
    master.submit(spec(name="after", hold_jid=["runs"]), 20.0, fx)
    reply = master.query_jobs(p.QueryJobs(parts=True), 30.0)
    assert isinstance(reply, p.JobsReply)
    runs, waits, held, after = (reply.parts[n] for n in (1, 2, 3, 4))
    assert runs.wtcontr == pytest.approx(20 * 0.278) and runs.nurg == 1.0
    assert waits.wtcontr == pytest.approx(10 * 0.278) and waits.nurg == 0.0
    assert waits.requests == {} and runs.rrcontr == 1000.0
    assert held == p.PriorityParts(0, 0, 0, 0, 0, 0, 0, -5, {})
    assert after.ppri == 0 and after.urg == 0.0
    assert reply.priorities[3] == reply.priorities[4] == 0.0
    assert reply.priorities[1] == 0.75 and reply.priorities[2] == 0.25
    assert master.query_jobs(p.QueryJobs(), 30.0).parts == {}  # only when asked
    assert master.job_info(master.s.jobs[3], 30.0)[-1] == "Job is in hold state"  # as 8.1.9


def test_a_deadline_takes_a_deadline_user_and_an_a_time_keeps_a_job_out_until_then():
    """qsub -dl is refused outside deadlineusers, in 8.1.9's words; a job with a later -a
    time is pending with "execution time not reached" and no priority worked out."""
    master = make_master(hosts=1, slots=1)
    fx = Effects()
    refused = master.submit(spec(deadline=500.0), 10.0, fx)
    assert isinstance(refused, p.Error) and refused.text == (
        'Unable to run job: job rejected: the user "alice" is not a deadline initiation user')
    master.s.config.usersets["deadlineusers"].entries.append("alice")
    assert isinstance(master.submit(spec(deadline=500.0), 10.0, fx), p.Submitted)
    assert isinstance(master.submit(spec(start_time=60.0), 10.0, fx), p.Submitted)
    reply = master.query_jobs(p.QueryJobs(parts=True), 20.0)
    assert isinstance(reply, p.JobsReply)
    assert reply.parts[1].dlcontr == pytest.approx(3_600_000 / 480)
    assert reply.parts[2] == p.PriorityParts(0, 0, 0, 0, 0, 0, 0, 0, {})
    assert master.job_info(master.s.jobs[2], 20.0)[-1] == "execution time not reached"
    assert "execution time not reached" not in master.job_info(master.s.jobs[2], 60.0)


def test_a_superscript_job_reference_is_a_name_pattern_not_a_number():
    """"²" is a digit to str.isdigit() but not to int(): as -hold_jid, qdel or qstat -j
    it names no job, and the master (and its scheduler mirror) go on."""
    master = make_master(hosts=1, slots=1)
    master.submit(spec(name="waits", hold_jid=["²"]), 1.0, Effects())
    master.sched_state()  # the dependency is looked up here
    reply = master.delete(p.Delete(targets=["²"], user="alice"), 2.0, Effects())
    assert reply.lines == ['denied: job "²" does not exist'] and reply.code == 1


def test_an_array_job_leaves_once_its_last_task_ends_in_whatever_order():
    """The master keeps how many of a job's first tasks are done (Master.all_done): tasks
    ending out of order must not make it think the job done early."""
    master = make_master(hosts=1, slots=4)
    master.submit(spec(array=(1, 4, 1)), 1.0, Effects())
    schedule(master, 2.0)
    job = master.s.jobs[1]
    assert all(t.state == TRANSFERRING for t in job.tasks.values())
    seqs = []
    for task_id in (3, 1, 4, 2):
        assert not master.all_done(job)
        fx = Effects()
        master.task_finished(p.TaskReport(job_id=1, task_id=task_id, host="node1",
                                          start_time=2.0, end_time=3.0, exit_status=0),
                             3.0, fx)
        seqs += [seq for seq, _, _ in fx.outbox]
        master.accounted(seqs[-1:], Effects())
        assert (1 in master.s.jobs) == (task_id != 2), task_id
    assert master.all_done(job) and len(seqs) == 4


def test_task_concurrency_needs_an_array_and_goes_to_the_scheduler():
    """8.1.9: -tc without -t is refused in these words; qalter -tc says so."""
    master = make_master(hosts=1, slots=4)
    fx = Effects()
    assert master.submit(spec(task_concurrency=2), 1.0, fx).text == (
        'Unable to run job: invalid "task concurrency" value in job request')
    number = master.submit(spec(array=(1, 4, 1), task_concurrency=2), 1.0, fx).job_id
    sj = master.sched_job(master.s.jobs[number])
    assert sj is not None and sj.task_concurrency == 2
    reply = master.alter(p.Alter(targets=[str(number)], user="root", task_concurrency=3),
                         2.0, Effects())
    assert reply.lines == [f"modified task concurrency of job {number}"]
    assert master.s.jobs[number].spec.task_concurrency == 3


def test_qresub_submits_a_copy_with_the_holds_asked_for():
    """8.1.9: the new job copies no hold of the old one, -h sets one; a job that does not
    exist, or another user's, is refused with exit code 4, in its words."""
    master = make_master(hosts=1, slots=4)
    fx = Effects()
    old = master.submit(spec(hold=True, name="r1", owner="ann"), 1.0, fx).job_id

    def resubmit(user: str = "ann", holds: str = "", target: str = str(old)) -> p.Ok:
        return master.resubmit(p.Resubmit(targets=[target], user=user, host="vm",
                                          holds=holds), 2.0, Effects())

    again = resubmit()
    assert (again.lines, again.code) == ([f'Your job {old + 1} ("r1") has been submitted'], 0)
    assert master.display_state(master.s.jobs[old + 1],
                                master.s.jobs[old + 1].tasks[0]) == "qw"
    held = resubmit(holds="u")
    assert master.display_state(master.s.jobs[old + 2], master.s.jobs[old + 2].tasks[0]) == "hqw"
    assert held.code == 0
    assert (resubmit(target="999").lines, resubmit(target="999").code) == (
        ['job "999" does not exist'], 4)
    assert resubmit(user="bob").lines == [
        "job rejected: bob@vm is not allowed to resubmit jobs of user ann"]


def test_enforce_user_makes_or_asks_for_a_user_object():
    """8.1.9: auto makes the object at a user's first job; true refuses a user without
    one (before -w v too), in these words."""
    master = make_master(hosts=1, slots=1)
    assert master.s.config.conf.enforce_user == "auto"
    master.submit(spec(owner="ann", hold=True), 1000.0, Effects())
    made = master.s.config.users["ann"]
    assert (made.name, made.delete_time, made.default_project) == ("ann", "87400", "NONE")
    master.s.config.conf.enforce_user = "true"
    for verify in ("", "v"):
        assert master.submit(spec(owner="bob", verify=verify), 2.0, Effects()).text == (
            'Unable to run job: job rejected: the user "bob" does not exist')
    assert isinstance(master.submit(spec(owner="ann", hold=True), 2.0, Effects()),
                      p.Submitted)


def test_hold_jid_ad_lets_each_task_go_once_the_same_task_of_its_predecessor_is_done():
    """8.1.9's rules (run here): only an array may ask, and only for arrays of the same
    range; task N waits (hqw, "Job is in hold state") until task N of the other is done."""
    master = make_master(hosts=1, slots=4)
    fx = Effects()
    assert master.submit(spec(array=(1, 3, 1), hold=True), 1.0, fx).job_id == 1
    assert master.submit(spec(hold_jid_ad=["1"]), 1.0, fx).text == (
        'Unable to run job: Can only specify "-hold_jid_ad" option with an array job '
        '(using "-t" option)')
    assert master.submit(spec(array=(1, 4, 1), hold_jid_ad=["1"]), 1.0, fx).text == (
        "Unable to run job: This array job must have the same range of sub-tasks as the "
        "dependent array job specified with -hold_jid_ad")
    after = master.submit(spec(array=(1, 3, 1), hold_jid_ad=["1"]), 1.0, fx).job_id
    first, second = master.s.jobs[1], master.s.jobs[after]
    assert master.sched_job(second) is None
    assert {master.display_state(second, t) for t in second.tasks.values()} == {"hqw"}
    assert "Job is in hold state" in master.job_info(second, 2.0)
    first.tasks[2].state = DONE
    sj = master.sched_job(second)
    assert sj is not None and sj.pending == [2]
    assert master.display_state(second, second.tasks[2]) == "qw"


def test_checkpointing_and_master_queues_are_refused_in_8_1_9s_words():
    """gridd has no checkpointing environments, so -ckpt is refused as 8.1.9 refuses an
    unknown one, and -c other than n as 8.1.9 refuses it without one; -masterq is refused
    for a sequential job, and when it names no queue, as 8.1.9 refuses them."""
    master = make_master()
    fx = Effects()
    assert master.submit(spec(checkpoint="x"), 1.0, fx).text == (
        'Unable to run job: job rejected: the requested checkpointing environment "x" does '
        "not exist")
    assert master.submit(spec(checkpoint_when="5"), 1.0, fx).text == (
        "Unable to run job: checkpointing denied")
    assert master.submit(spec(master_queues=["all.q"]), 1.0, fx).text == (
        "Unable to run job: job rejected: specification of master queue is not allowed for "
        "non-parallel jobs")
    master.s.config.pes["smp"] = ParallelEnvConf(pe_name="smp", slots="99")
    master.refresh_views()
    refused = master.submit(spec(pe_name="smp", pe_min=2, pe_max=2,
                                 master_queues=["nosuch.q"]), 1.0, fx)
    assert refused.text == ('Unable to run job: Job was rejected because job requests '
                            'unknown queue "nosuch.q"')
    assert isinstance(master.submit(spec(checkpoint_when="n"), 1.0, fx), p.Submitted)
    assert list(master.s.jobs) == [1]


def test_hold_is_for_the_owner_operators_and_managers():
    master = make_master()
    master.submit(spec(array=(1, 4, 1)), 1.0, Effects())
    other = master.hold(p.Hold(targets=["1"], user="bob"), Effects())
    assert (other.lines, other.code) == (
        ['denied: "bob" must be at least owner of job 1 to change job attributes'], 18)
    fx = Effects()
    held = master.hold(p.Hold(targets=["1.2-3"], user="root"), fx)
    assert (held.lines, held.code) == (["modified hold of job-array task 1.2",
                                        "modified hold of job-array task 1.3"], 0)
    assert fx.dirty_tasks == {(1, 2), (1, 3)} and fx.sched[0].pending == [1, 4]
    mine = master.hold(p.Hold(targets=["1"], user="alice", hold=False), Effects())
    assert mine.lines == ["modified hold of job-array task 1.2",
                          "modified hold of job-array task 1.3"]
    operator = master.hold(p.Hold(targets=["1"], user="alice", kinds="o"), Effects())
    assert (operator.lines, operator.code) == (
        ['denied: "alice" must be operator for this operation'], 18)
    system = master.hold(p.Hold(targets=["1.1"], user="root", kinds="us"), Effects())
    assert system.lines == ["modified hold of job-array task 1.1"]
    assert master.s.jobs[1].tasks[1].holds == "us"
    master.hold(p.Hold(targets=["1.1"], user="alice", hold=False), Effects())
    assert (master.s.jobs[1].tasks[1].state, master.s.jobs[1].tasks[1].holds) == ("hqw", "s")
    refused = master.hold(p.Hold(targets=["1.1"], user="alice", hold=False, kinds="s"),
                          Effects())
    assert (refused.lines, refused.code) == (
        ['denied: "alice" must be manager for this operation'], 18)


def test_a_task_range_on_a_job_that_is_not_an_array():
    """8.1.9 (run here): qhold or qrls of several task ids of a job that is no array
    refuses it ("N is not a job array", exit 4) and goes on with the rest of the line;
    one task id names the job's only task if it is 1 (1-2:5 too), nothing otherwise.
    The exit code is the first failure's."""
    master = make_master()
    master.submit(spec(hold=True), 1.0, Effects())

    def release(*targets: str) -> tuple[list[str], int]:
        fx = Effects()
        done = master.hold(p.Hold(targets=list(targets), user="root", hold=False), fx)
        assert bool(fx.dirty_tasks) == ("modified hold of job 1" in done.lines)
        return done.lines, done.code

    assert release("1.1-3") == (["1 is not a job array"], 4)
    assert release("1.2", "1.3-3:1") == ([], 0)
    assert release("1.2-1", "9", "1.1-2:5") == (
        ["1 is not a job array", 'denied: job "9" does not exist', "modified hold of job 1"], 4)
    assert master.s.jobs[1].tasks[0].holds == ""
    held = master.hold(p.Hold(targets=["9", "1.1-3", "1.1"], user="root"), Effects())
    assert (held.lines, held.code) == (['denied: job "9" does not exist', "1 is not a job array",
                                        "modified hold of job 1"], 3)
    other = master.hold(p.Hold(targets=["1.1-3"], user="bob"), Effects())
    assert (other.lines, other.code) == (
        ['denied: "bob" must be at least owner of job 1 to change job attributes'], 18)


def test_qalter_takes_the_rest_of_qsubs_options_in_8_1_9s_words():
    """Output paths, shell, environment, mail, working directory, notify, project and
    -hold_jid_ad change with 8.1.9's lines; -w checks the job as it is and changes
    nothing (v, p), or refuses (e) or warns (w) when it fits nowhere."""
    master = make_master(hosts=1, slots=2)
    fx = Effects()
    held = master.submit(spec(hold=True), 1.0, fx).job_id
    nowhere = master.submit(spec(hard_resources={"arch": "nowhere"}), 1.0, fx).job_id

    def alter(job: int, **changes: object) -> p.Ok:
        return master.alter(p.Alter(targets=[str(job)], user="alice", host="",
                                    **changes), 2.0, Effects())

    reply = alter(held, stdout_path=["/tmp/x"], merge=True, shell="/bin/sh", env={"A": "1"},
                  mail_list=["a@b"], mail_options="e", cwd="/tmp", stdin_path="/dev/null",
                  notify=True)
    assert reply.lines == [f"modified {what} of job {held}" for what in (
        "stdout path list", "output merge behaviour", "shell list", "environment",
        "mail list", "mail options", "working directory", "stdin path list",
        "notify behaviour")]
    changed = master.s.jobs[held].spec
    assert (changed.stdout_path, changed.merge, changed.env, changed.notify) == (
        ["/tmp/x"], True, {"A": "1"}, True)
    assert (alter(held, project="p").lines, alter(held, project="p").code) == (
        ['job rejected: the requested project "p" does not exist'], 1)
    assert alter(held, checkpoint="x").lines == [
        'denied: checkpointing environment "x" does not exist']
    assert alter(held, hold_jid_ad=[str(nowhere)]).lines == [
        'Can only specify "-hold_jid_ad" option with an array job (using "-t" option)']
    assert alter(held, verify="v").lines == ["verification: job is already running or is held"]
    checked = alter(nowhere, verify="v")
    assert checked.code == 1 and checked.lines[-1] == "verification: no suitable queues"
    assert checked.lines[0].startswith(f"Job {nowhere} (-l arch=nowhere) cannot run ")
    assert (alter(nowhere, verify="e").lines, alter(nowhere, verify="w").lines) == (
        ["error: no suitable queues"], ["warning: no suitable queues"])

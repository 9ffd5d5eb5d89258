"""qstat's compact path: the rows the master builds (Master.query_rows) printed by
render_qstat_rows are byte for byte what the whole jobs (Master.query_jobs) print through
render_qstat, whose layout the reference transcripts fix, for every option the compact
path takes (-u, -s, -g d, -xml) and jobs in every state."""

from __future__ import annotations

import pytest

from gridd import protocol as p
from gridd.cli import render_qstat as rq
from gridd.formats import qstat_rows as rows
from gridd.formats.qstat_rows import Extra
from gridd.master.queries import compact
from gridd.master.state import Effects
from gridd.model import job_rows
from gridd.model.job import Job, Task
from gridd.model.job_rows import JobRows, ShownRow
from gridd.model.selection import QueueSelect
from gridd.model.task_lifecycle import ERROR, PENDING, RUNNING
from tests.unit.test_master_core import make_master, schedule, spec
from tests.unit.test_render_qstat import ARRAY_PRIOS, array_scene, patch_priorities, reply

pytestmark = pytest.mark.usefixtures("utc")


def busy_master():
    """Two users' jobs on 2 hosts x 2 slots: running, waiting, held (by the user and by a
    dependency), arrays part running, part waiting and part held, a finished one, and a
    job whose start time is to come (qsub -a)."""
    master = make_master(hosts=2, slots=2)
    master.s.config.conf.finished_jobs = "5"
    fx = Effects()
    master.submit(spec(name="gone"), 0.5, fx)
    master.delete(p.Delete(targets=["1"], user="alice"), 0.7, fx)
    for n in range(3):
        master.submit(spec(name=f"a{n}", priority=-n * 10), 1.0 + n, fx)
    master.submit(spec(name="arr", array=(1, 9, 2)), 4.0, fx)
    master.submit(spec(name="bob_job_with_a_long_name", owner="bob"), 5.0, fx)
    master.submit(spec(name="held", hold=True), 6.0, fx)
    master.submit(spec(name="after", hold_jid=["a0"]), 7.0, fx)
    master.submit(spec(name="later", start_time=10_000.0), 8.0, fx)
    schedule(master, 9.0)
    started = master.s.jobs[2].tasks[0]
    master.task_started(p.TaskStarted(host=started.host, job_id=2, task_id=0,
                                      start_time=9.2), 9.2, fx)
    assert master.hold(p.Hold(targets=["5.7-9"], user="alice"), fx).code == 0
    assert master.submit(spec(name="pe<&>", pe_name="smp", pe_min=1, pe_max=2), 9.5,
                         fx).job_id == 10
    return master


CASES = [
    ("alice", None, False), ("*", None, False), ("bob", None, False), ("nobody", None, False),
    ("*", "p", False), ("*", "r", False), ("*", "hu", False), ("*", "hj", False),
    ("*", "ha", False), ("*", "h", False), ("*", "z", False), ("*", "prsz", False),
    ("alice", None, True), ("a*,bob", "pr", True),
]


def assert_rows_print_as_whole_jobs(master, users: str, states: str | None,
                                    apart: bool) -> None:
    """The master's rows of a plain listing print as its whole jobs do, text and XML."""
    patterns = users.split(",")
    compact = master.query_rows(p.QueryRows(users=None if users == "*" else patterns,
                                            states=states or "", tasks_apart=apart), 20.0)
    whole = master.query_jobs(p.QueryJobs(finished="z" in (states or "")), 20.0)
    extra = Extra(tasks_apart=apart)
    assert rows.qstat_rows(compact) == rq.qstat_default(whole, users=patterns,
                                                        states=states, extra=extra)
    assert rows.qstat_rows_xml(compact) == rq.qstat_xml(whole, users=patterns, states=states,
                                                        extra=extra)


@pytest.mark.parametrize(("users", "states", "apart"), CASES)
def test_the_masters_rows_print_as_the_whole_jobs_do(users, states, apart):
    assert_rows_print_as_whole_jobs(busy_master(), users, states, apart)


def waiting_master(draining: bool = False):
    """Jobs of one task that wait, each in another way: most alone (Master.live_jobs_split:
    plain, with -p, -a to come or past, -dl, a PE, bob's), the others not (rerun, in
    error state, cleared with its failed run unaccounted, held, held by a dependency, an
    array of one task); with `draining`, a run given up that an execd still runs, which
    leaves no job alone. Nothing runs: every host's slots are disabled."""
    master = make_master(hosts=2, slots=2)
    fx = Effects()
    assert master.qmod(p.Qmod(action="d", targets=["all.q"], user="root", host="node1"),
                       0.5, fx).code == 0
    for n, kw in enumerate([
            {}, {"name": "urgent"}, {"priority": -100}, {"start_time": 10_000.0},
            {"start_time": 5.0}, {"name": "deadline"}, {"pe_name": "smp", "pe_min": 2,
                                                      "pe_max": 2},
            {"owner": "bob"}, {"name": "rerun"}, {"name": "error"}, {"name": "cleared"},
            {"hold": True}, {"hold_jid": ["1"]}, {"array": (3, 3, 1)}, {}]):
        assert master.submit(spec(**kw), 1.0 + n, fx).job_id == n + 1
    master.s.jobs[2].spec.priority = 100  # (only an operator may submit it so)
    master.s.jobs[6].spec.deadline = 60.0  # (alice is no deadline user to submit it)
    master.s.jobs[9].tasks[0].rerun = True
    master.s.jobs[10].tasks[0].state = ERROR
    cleared = master.s.jobs[11].tasks[0]
    cleared.failed = 26  # a job error, whose record waits in the outbox
    master.s.outbox[1] = (11, 0)
    master.unaccounted[11] = 1
    if draining:
        master.draining["node1"] = {(99, 0)}
    return master


@pytest.mark.parametrize("draining", [False, True])
@pytest.mark.parametrize(("users", "states", "apart"), CASES)
def test_jobs_that_wait_alone_print_as_the_whole_jobs_do(users, states, apart, draining):
    assert_rows_print_as_whole_jobs(waiting_master(draining), users, states, apart)


def test_a_job_waits_alone_where_the_rules_take_it_as_it_is():
    """Of a job that waits alone, the scheduler plans its task and qstat shows it as it
    is; the other jobs of the scene are each held back or shown otherwise."""
    master = waiting_master()
    alone, others = master.live_jobs_split()
    assert [j.job_id for j in alone] == [1, 2, 3, 4, 5, 6, 7, 8, 15]
    assert [j.job_id for j in others] == [9, 10, 11, 12, 13, 14]
    for job in alone:
        assert master._schedulable(job) == [0]
        assert master._shown(job) is job
        assert master.display_state(job, job.tasks[0]) == PENDING
    assert all(master._schedulable(j) == [] or master._shown(j) is not j or j.is_array
               for j in others)
    assert waiting_master(draining=True).live_jobs_split()[0] == []


def test_a_change_shows_at_once_in_the_next_rows():
    """Nothing is carried from one query to the next: a qalter, a hold, a release and a
    new job show in the very next rows, as the whole jobs show them."""
    master = waiting_master()
    fx = Effects()

    def pending() -> list[tuple[int, float, str]]:
        reply = master.query_rows(p.QueryRows(), 20.0)
        assert rows.qstat_rows(reply) == rq.qstat_default(
            master.query_jobs(p.QueryJobs(), 20.0))
        return [(r.job_id, r.prior, r.state) for r in reply.pending]

    before = pending()
    assert [n for n, _, _ in before[:2]] == [6, 7]  # -dl, then the PE job's two slots
    assert master.alter(p.Alter(targets=["15"], user="alice", pe_name="smp", pe_min=2,
                                pe_max=2), 20.0, fx).code == 0
    after = pending()
    assert [n for n, _, _ in after[:3]] == [6, 7, 15]
    assert after[2][1] > dict((n, prior) for n, prior, _ in before)[15]
    assert master.hold(p.Hold(targets=["15"], user="alice"), fx).code == 0
    assert (15, 0.0, "hqw") in pending()
    assert master.hold(p.Hold(targets=["15"], user="alice", hold=False), fx).code == 0
    assert pending() == after
    assert master.submit(spec(pe_name="smp", pe_min=4, pe_max=4), 20.0, fx).job_id == 16
    assert [n for n, _, _ in pending()[:2]] == [6, 16]


def test_a_busy_queue_lists_every_kind_of_row():
    """The scene above is worth comparing: it has each kind of line."""
    text = rows.qstat_rows(busy_master().query_rows(p.QueryRows(), 20.0))
    states = [line.split()[4] for line in text.splitlines()[2:]]
    assert {"r", "t", "qw", "hqw"} <= set(states)
    assert " 1\n" in text and " 3,5\n" in text and " 7,9\n" in text  # arr's, by state
    assert "bob_job_wi bob" in text and "&amp;" in rows.qstat_rows_xml(
        busy_master().query_rows(p.QueryRows(), 20.0))


def test_queue_selection_chooses_the_rows_as_for_whole_jobs():
    master = busy_master()
    select = QueueSelect(queues=["all.q@node2"])
    compact = master.query_rows(p.QueryRows(select=select), 20.0)
    whole = master.query_jobs(p.QueryJobs(select=select), 20.0)
    assert rows.qstat_rows(compact) == rq.qstat_default(whole)
    assert {r.queue for r in compact.running} == {"all.q@node2"}


def test_a_selection_that_chooses_nothing_says_so_as_for_whole_jobs():
    master = busy_master()
    select = QueueSelect(queues=["nosuch.q"])
    assert master.query_rows(p.QueryRows(select=select), 20.0) == master.query_jobs(
        p.QueryJobs(select=select), 20.0)


def test_states_qstat_does_not_know_are_refused_and_change_nothing():
    master = busy_master()
    before = master.query_rows(p.QueryRows(), 20.0)
    refused = master.query_rows(p.QueryRows(states="px"), 20.0)
    assert isinstance(refused, p.Error) and refused.code == 1
    assert refused.text == "ERROR! wrong argument to -s option: 'px'"
    assert master.query_rows(p.QueryRows(), 20.0) == before


def test_rows_of_a_reply_print_as_the_reply(monkeypatch):
    """The transcripts' array scene, through the model's rows and the compact renderer."""
    patch_priorities(monkeypatch, ARRAY_PRIOS)
    whole = reply(array_scene())
    running, pending = job_rows.job_rows(whole.jobs, whole.priorities, users=None, states=None,
                                         queues=whole.queues)
    compact = JobRows(running=[shown(r) for r in running],
                        pending=[shown(r) for r in pending])
    assert rows.qstat_rows(compact) == rq.qstat_default(whole)
    assert rows.qstat_rows_xml(compact) == rq.qstat_xml(whole)


def test_no_rows_print_nothing_but_the_xml_frame():
    assert rows.qstat_rows(JobRows()) == ""
    assert rows.qstat_rows_xml(JobRows()) == rq.qstat_xml(reply([]))


def test_a_job_that_is_no_array_folds_to_one_row():
    job = Job(job_id=3, spec=spec(), submit_time=1.0, tasks={0: Task(task_id=0, state=PENDING)})
    running, pending = job_rows.job_rows([job], {3: 0.7}, users=["alice"], states=None)
    assert running == [] and [(r.job_id, r.state, r.tasks, r.prior) for r in pending] == [
        (3, PENDING, "", 0.7)]


def test_running_rows_come_in_queue_order_then_by_job():
    def started(job_id: int, queue: str) -> Job:
        task = Task(task_id=0, state=RUNNING, start_time=2.0, queue=queue, host="vm",
                    granted=[(queue, 1)])
        return Job(job_id=job_id, spec=spec(), submit_time=1.0, tasks={0: task})

    queues = reply([]).queues  # all.q, then short.q, then long.q by seq_no
    running, _ = job_rows.job_rows([started(1, "long.q@vm"), started(2, "all.q@vm"),
                                    started(3, "all.q@vm")], {}, users=None, states=None,
                                   queues=queues)
    assert [(r.job_id, r.queue) for r in running] == [
        (2, "all.q@vm"), (3, "all.q@vm"), (1, "long.q@vm")]
    assert {r.prior for r in running} == {job_rows.UNRANKED}


def shown(row: job_rows.Row) -> ShownRow:
    return compact(row)

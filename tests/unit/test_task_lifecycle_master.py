"""The master's tasks follow the task lifecycle's table: over random sequences of what
clients, the scheduler and execds send (submit, qhold/qrls, dispatch, starts, load
reports, re-registrations, ends, qdel, qmod -sj/-usj/-cj/-rj/-sq/-usq/-rq, accounting,
hosts lost with reschedule_unknown or without), every state a task takes is one step of
gridd.model.task_lifecycle.TABLE from the one it had, and a task holds slots exactly
while its state says it does."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from gridd import protocol as p
from gridd.master.core import Master
from gridd.master.state import Effects
from gridd.model.task_lifecycle import ACTIVE, DONE, NEW, TABLE
from tests.unit.test_master_core import make_master, schedule, spec

STEPS = {(state, new) for state, moves in TABLE.items() for new in moves.values()}
HOSTS = ("node1", "node2")
# (what moves tasks on comes more often)
OPS = ("submit", "submit", "hold", "schedule", "schedule", "started", "started", "load",
       "register", "finished", "finished", "qdel", "qmod job", "qmod job", "qmod queue",
       "accounted", "accounted", "error", "lost hosts")


def _pick(items: list, n: int):
    return items[n % len(items)] if items else None


def _likely(items: list, n: int, fits) -> object:
    """Mostly one of the items that fit, now and then any (to be refused)."""
    return _pick([i for i in items if fits(i)] if n % 5 else items, n // 5)


def _tasks(master: Master) -> dict[tuple[int, int], str]:
    return {(job.job_id, task.task_id): task.state
            for job in master.s.jobs.values() for task in job.tasks.values()}


def _report(job_id: int, task_id: int, host: str, now: float, n: int,
            failed: int = 0) -> p.TaskReport:
    return p.TaskReport(job_id=job_id, task_id=task_id, host=host, start_time=now - 1,
                        end_time=now, exit_status=n % 3, failed=failed)


def _apply(master: Master, op: str, n: int, now: float) -> None:
    """One message to the master ("error": an execd's report of a job that could not
    start for a fault of its own: its owner, working directory, files or shell)."""
    fx = Effects()
    tasks = [(j.job_id, t) for j in master.s.jobs.values() for t in j.tasks.values()]
    job = _likely(sorted(master.s.jobs), n, lambda j: any(
        t.state != DONE for t in master.s.jobs[j].tasks.values()))
    active = _likely(tasks, n, lambda jt: jt[1].state in ACTIVE)
    host = HOSTS[n % 2]
    on_host = [(j, t.task_id) for j, t in tasks if t.host == host]
    if op == "submit":
        master.submit(spec(hold=n % 4 == 1, array=(1, 3, 1) if n % 3 == 0 else None,
                           restart="y" if n % 2 else "", immediate=n % 7 == 6), now, fx)
    elif op == "hold" and job:
        master.hold(p.Hold(targets=[str(job)], user="root", hold=n % 2 == 0,
                           kinds="uo"[n // 2 % 2]), fx)
    elif op == "schedule":
        schedule(master, now)
    elif op == "started" and active:
        master.task_started(p.TaskStarted(host=active[1].host or host, job_id=active[0],
                                          task_id=active[1].task_id, start_time=now), now, fx)
    elif op == "load":
        running = [key for i, key in enumerate(on_host) if n >> i & 1]
        master.load_report(p.LoadReport(host=host, load={}, running=running), now, fx)
    elif op == "register":
        running = [key for i, key in enumerate(on_host) if n >> i & 1]
        ended = [_report(*key, host, now, n) for key in on_host if key not in running][:1]
        master.register(p.Register(host=host, load={}, running=running, finished=ended),
                        now, fx)
    elif op == "finished" and active:
        master.task_finished(_report(active[0], active[1].task_id, active[1].host or host,
                                     now, n), now, fx)
    elif op == "qdel" and job:
        master.delete(p.Delete(targets=[str(job)], user="root", force=n % 3 == 0), now, fx)
    elif op == "qmod job" and job:
        master.qmod(p.Qmod(action=("sj", "usj", "cj", "rj")[n % 4], targets=[str(job)],
                           user="root", host="vm", force=n // 4 % 2 == 1), now, fx)
    elif op == "qmod queue":
        master.qmod(p.Qmod(action=("sq", "usq", "rq")[n % 3], targets=[f"all.q@{host}"],
                           user="root", host="vm", force=True), now, fx)
    elif op == "accounted":
        seqs = sorted(master.s.outbox)
        master.accounted([s for i, s in enumerate(seqs) if n >> i & 1], fx)
    elif op == "error" and active:
        master.task_finished(_report(active[0], active[1].task_id, active[1].host or host,
                                     now, n, failed=(1, 26, 27, 28)[n % 4]), now, fx)
    elif op == "lost hosts":  # silent past max_unheard, rerunnable jobs rescheduled or not
        master.s.config.conf.reschedule_unknown = "0:0:1" if n % 2 else "0"
        master.check_hosts(now + 1000, fx)


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(OPS), st.integers(0, 2**16)), min_size=20,
                max_size=60))
def test_the_masters_task_states_follow_the_table(ops: list[tuple[str, int]]):
    master = make_master(hosts=2, slots=2)
    before = _tasks(master)
    for now, (op, n) in enumerate(ops, start=1):
        _apply(master, op, n, float(now))
        after = _tasks(master)
        for key, state in after.items():
            old = before.get(key)
            if old is None:
                assert state in TABLE[NEW].values(), (op, key, state)
            elif old != state:
                assert (old, state) in STEPS, (op, key, old, state)
        for key, old in before.items():
            if key not in after:  # the job is over: done, this time or before
                assert old == DONE or (old, DONE) in STEPS, (op, key, old)
        assert set(master.running) == {key for key, state in after.items()
                                       if state in ACTIVE}, op
        before = after

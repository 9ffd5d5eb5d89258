"""execd's spool across its own restart: shepherds, take-over and reports of lost tasks.

An execd "dies" here by cancelling ``run_task``, which abandons the task the way a killed
execd does (its shepherd and job run on); a second ``TaskRunner`` on the same spool is
the restarted execd. Jobs wait for a file the test creates, so the test decides when they
end; waits are on conditions, never fixed.
"""

from __future__ import annotations

import fcntl
import getpass
import json
import os
import signal
import subprocess
from collections.abc import Callable
from pathlib import Path

import msgspec
import pytest
import trio

from gridd.actors import execd
from gridd.actors.clock import SYSTEM
from gridd.execd import shepherd
from gridd.execd.runner import (
    CONFIG,
    ENDED,
    ENVIRONMENT,
    FAILED_AFTER_JOB,
    FAILED_BEFORE_JOB,
    FAILED_LIMIT,
    FAILED_NO_EXIT_STATUS,
    LOCK,
    STARTED,
    STATE,
    ActiveTask,
    JobEnded,
    ShepherdConfig,
    TaskRunner,
    list_active,
    load_pending_reports,
    shepherd_alive,
    task_dir,
)
from gridd.model.job import Job, JobSpec, Task, Usage
from gridd.pidfile import alive
from gridd.protocol import StartTask, TaskReport
from tests.actors.test_runner import unstamped

HOST = "node1"


@pytest.fixture
def work(tmp_path: Path) -> Path:
    for name in ("work", "home", "spool"):
        (tmp_path / name).mkdir()
    return tmp_path


def make_runner(work: Path) -> TaskRunner:
    """One execd's runner; a second one on the same spool is that execd restarted."""
    return TaskRunner(HOST, work / "spool", "/opt/gridd", vmem_interval=0.05)


def start_of(work: Path, text: str, *, job_id: int = 5, task_id: int = 0,
             h_rt: float = 0.0) -> StartTask:
    spec = JobSpec(name="job", owner=getpass.getuser(), o_home=str(work / "home"),
                   cwd=str(work / "work"), script=text, script_name="job.sh")
    job = Job(job_id=job_id, spec=spec, submit_time=0.0, tasks={task_id: Task(task_id)})
    return StartTask(job=job, task_id=task_id, queue=f"all.q@{HOST}",
                     granted=[(f"all.q@{HOST}", 1)], tmpdir=str(work / "tmp"), h_rt=h_rt)


def until_go(work: Path, code: int) -> str:
    """A job that runs until the test creates ``go``, then exits with ``code``."""
    return f"while [ ! -e {work / 'go'} ]; do sleep 0.02; done\nexit {code}\n"


async def wait_until(condition: Callable[[], object], timeout: float = 10.0) -> None:
    with trio.fail_after(timeout):
        while not condition():
            await trio.sleep(0.01)


def write_record(path: Path, record: dict[str, object]) -> None:
    """As the shepherd writes one: aside, then renamed."""
    path.with_name(path.name + ".new").write_text(json.dumps(record))
    path.with_name(path.name + ".new").replace(path)


def started_record(directory: Path) -> dict[str, float]:
    return json.loads((directory / STARTED).read_text())


async def abandon(work: Path, runner: TaskRunner, start: StartTask) -> Path:
    """Start a task, then drop it as a killed execd would once its job runs."""
    directory = task_dir(work / "spool", start.job.job_id, start.task_id)
    with trio.CancelScope() as scope:
        async def on_started(when: float) -> None:
            scope.cancel()

        await runner.run_task(start, on_started)
    assert (directory / STARTED).exists() and not (directory / "report.json").exists()
    return directory


# ---- taking over a task that still runs ---------------------------------------------


async def test_running_task_is_taken_over_and_reported_once(work: Path) -> None:
    directory = await abandon(work, make_runner(work), start_of(work, until_go(work, 7)))
    first = started_record(directory)
    assert alive(first["job_pid"]) and shepherd_alive(directory)

    restarted = make_runner(work)
    [state] = restarted.recover()
    assert (state.job_id, state.task_id, state.queue) == (5, 0, f"all.q@{HOST}")
    assert load_pending_reports(work / "spool") == []
    announced: list[float] = []
    reports: list[TaskReport] = []

    async def resume() -> None:
        reports.append(await restarted.resume(state, announced_at))

    async def announced_at(when: float) -> None:
        announced.append(when)

    async with trio.open_nursery() as nursery:
        nursery.start_soon(resume)
        await wait_until(lambda: announced)
        assert restarted.running() == [(5, 0, "")]
        await wait_until(lambda: restarted._running[(5, 0, "")].maxvmem > 0)  # sampled anew
        (work / "go").touch()
    [report] = reports
    assert (report.exit_status, report.failed, report.signal) == (7, 0, "")
    assert announced == [report.start_time] == [first["start_time"]]
    assert report.usage.wallclock == pytest.approx(report.end_time - report.start_time)
    assert report.usage.maxvmem > 0
    assert load_pending_reports(work / "spool") == [report]
    assert list_active(work / "spool") == []
    assert not (work / "spool" / "job_scripts" / "5").exists()
    assert not (work / "tmp" / "5.1.all.q").exists()
    # A third start finds the report, not a task to follow: nothing is reported twice.
    assert make_runner(work).recover() == []
    assert load_pending_reports(work / "spool") == [report]


async def test_task_that_ended_meanwhile_is_reported_at_recovery(work: Path) -> None:
    directory = await abandon(work, make_runner(work), start_of(work, until_go(work, 3)))
    start_time = started_record(directory)["start_time"]
    (work / "go").touch()
    await wait_until(lambda: not shepherd_alive(directory))  # the shepherd recorded it

    assert make_runner(work).recover() == []
    [report] = load_pending_reports(work / "spool")
    assert (report.exit_status, report.failed, report.start_time) == (3, 0, start_time)
    assert report.end_time >= start_time and report.usage.utime + report.usage.stime > 0
    assert not (work / "spool" / "job_scripts" / "5").exists()


async def test_kill_cause_survives_the_restart(work: Path) -> None:
    runner = make_runner(work)
    directory = await abandon(work, runner, start_of(work, until_go(work, 0)))
    job_pid = int(started_record(directory)["job_pid"])
    # qdel reached the first execd just before it died
    os.killpg(job_pid, signal.SIGKILL)
    (directory / "killed").write_text(f"{FAILED_AFTER_JOB}\n")
    await wait_until(lambda: not shepherd_alive(directory))

    assert make_runner(work).recover() == []
    [report] = load_pending_reports(work / "spool")
    assert (report.exit_status, report.signal, report.failed) == (137, "SIGKILL",
                                                                  FAILED_AFTER_JOB)


async def test_h_rt_counts_from_the_job_start_across_a_restart(work: Path) -> None:
    start = start_of(work, "sleep 30\n", h_rt=1.0)
    directory = await abandon(work, make_runner(work), start)
    restarted = make_runner(work)
    [state] = restarted.recover()
    with trio.fail_after(10):
        report = await restarted.resume(state)
    assert (report.failed, report.exit_status, report.signal) == (FAILED_LIMIT, 137, "SIGKILL")
    assert 1.0 <= report.end_time - started_record(directory)["start_time"] < 5.0


async def test_kill_reaches_a_task_taken_over(work: Path) -> None:
    await abandon(work, make_runner(work), start_of(work, "sleep 30\n"))
    restarted = make_runner(work)
    [state] = restarted.recover()
    reports: list[TaskReport] = []

    async def resume() -> None:
        reports.append(await restarted.resume(state))

    async with trio.open_nursery() as nursery:
        nursery.start_soon(resume)
        await wait_until(restarted.running)
        assert restarted.kill(5, 0) is True
    [report] = reports
    assert (report.failed, report.exit_status) == (FAILED_AFTER_JOB, 137)


async def test_shepherd_still_starting_is_waited_for(work: Path) -> None:
    """Taken over before its job.json exists: execd looks again until it does."""
    directory = task_dir(work / "spool", 9, 0)
    directory.mkdir(parents=True)
    (directory / STATE).write_bytes(b'{"job_id": 9, "task_id": 0, "queue": "all.q@node1"}')
    lock = os.open(directory / LOCK, os.O_RDWR | os.O_CREAT)
    fcntl.flock(lock, fcntl.LOCK_EX)  # the test plays the shepherd
    fake = subprocess.Popen(["sleep", "60"])
    try:
        runner = make_runner(work)
        [state] = runner.recover()
        announced: list[float] = []
        reports: list[TaskReport] = []

        async def resume() -> None:
            reports.append(await runner.resume(state, announce))

        async def announce(when: float) -> None:
            announced.append(when)

        async with trio.open_nursery() as nursery:
            nursery.start_soon(resume)
            await trio.sleep(0)
            write_record(directory / STARTED, {
                "shepherd_pid": fake.pid, "job_pid": fake.pid, "start_time": 1000.0})
            await wait_until(lambda: announced)
            write_record(directory / ENDED, {
                "status": 5 << 8, "start_time": 1000.0, "end_time": 1002.5,
                "usage": {"utime": 0.5}})
            os.close(lock)
            lock = -1
            fake.kill()
    finally:
        if lock >= 0:
            os.close(lock)
        fake.kill()
        fake.wait()
    [report] = reports
    assert announced == [1000.0]
    assert (report.exit_status, report.start_time, report.end_time) == (5, 1000.0, 1002.5)
    assert (report.usage.wallclock, report.usage.utime) == (2.5, 0.5)


# ---- shepherds that died without a record -----------------------------------------------


def leftover(work: Path, job_id: int, files: dict[str, dict[str, object]]) -> Path:
    """A task directory as a dead execd and shepherd left it."""
    directory = task_dir(work / "spool", job_id, 0)
    directory.mkdir(parents=True)
    state = ActiveTask(job_id=job_id, task_id=0, queue=f"all.q@{HOST}")
    (directory / STATE).write_bytes(msgspec.json.encode(state))
    (directory / LOCK).touch()
    for name, record in files.items():
        write_record(directory / name, record)
    return directory


def test_task_whose_job_never_started_is_dropped_for_the_master_to_resend(
    work: Path,
) -> None:
    directory = leftover(work, 1, {})
    assert make_runner(work).recover() == []
    assert load_pending_reports(work / "spool") == []
    assert not directory.exists()


async def test_shepherd_that_dies_before_the_job_under_resume_is_reported(
    work: Path,
) -> None:
    """Once followed, a task must end in a report: the master may count it as running."""
    directory = leftover(work, 6, {})
    lock = os.open(directory / LOCK, os.O_RDWR)
    fcntl.flock(lock, fcntl.LOCK_EX)  # the test plays a shepherd that is starting
    try:
        runner = make_runner(work)
        [state] = runner.recover()
    finally:
        os.close(lock)  # ... and dies before it started the job
    with trio.fail_after(10):
        report = await runner.resume(state)
    assert (report.job_id, report.failed, report.start_time) == (6, FAILED_BEFORE_JOB, 0.0)
    assert report.failed_reason == "before job: the shepherd ended before starting the job"


def test_job_that_lost_its_shepherd_is_killed_and_reported_failed(work: Path) -> None:
    directory = task_dir(work / "spool", 2, 0)
    env = dict(os.environ, SGE_JOB_SPOOL_DIR=str(directory))
    orphan = subprocess.Popen(["sleep", "60"], env=env, start_new_session=True)
    stranger = subprocess.Popen(["sleep", "60"], start_new_session=True)
    try:
        leftover(work, 2, {STARTED: {"shepherd_pid": 1, "job_pid": orphan.pid,
                                     "start_time": 1000.0}})
        leftover(work, 3, {STARTED: {"shepherd_pid": 1, "job_pid": stranger.pid,
                                     "start_time": 1000.0}})
        assert make_runner(work).recover() == []
        assert orphan.wait(timeout=10) == -signal.SIGKILL
        assert stranger.poll() is None  # not the job's: left alone
    finally:
        for process in (orphan, stranger):
            process.kill()
            process.wait()
    reports = sorted(load_pending_reports(work / "spool"), key=lambda r: r.job_id)
    assert [(r.job_id, r.failed, r.exit_status, r.start_time) for r in reports] == [
        (2, FAILED_NO_EXIT_STATUS, 137, 1000.0), (3, FAILED_NO_EXIT_STATUS, 0, 1000.0)]
    assert reports[0].failed_reason.startswith("before writing exit_status: ")


async def test_shepherd_killed_under_a_running_execd(work: Path) -> None:
    runner = make_runner(work)
    directory = task_dir(work / "spool", 5, 0)
    reports: list[TaskReport] = []

    async def run() -> None:
        reports.append(await runner.run_task(start_of(work, "sleep 60\n")))

    async with trio.open_nursery() as nursery:
        nursery.start_soon(run)
        await wait_until(lambda: (directory / STARTED).exists())
        record = started_record(directory)
        os.kill(int(record["shepherd_pid"]), signal.SIGKILL)
    [report] = reports
    assert (report.failed, report.exit_status, report.signal) == (FAILED_NO_EXIT_STATUS, 137,
                                                                 "SIGKILL")
    await wait_until(lambda: not alive(int(record["job_pid"])))


def test_directory_without_state_is_dropped_and_reports_are_kept(work: Path) -> None:
    stale = task_dir(work / "spool", 4, 0)
    stale.mkdir(parents=True)
    (stale / "pe_hostfile").write_text("node1 1 all.q@node1 UNDEFINED\n")
    kept = task_dir(work / "spool", 8, 0)
    kept.mkdir(parents=True)
    report = TaskReport(job_id=8, task_id=0, host=HOST, start_time=1.0, end_time=2.0,
                        exit_status=0)
    (kept / "report.json").write_text(json.dumps(
        {"job_id": 8, "task_id": 0, "host": HOST, "start_time": 1.0, "end_time": 2.0,
         "exit_status": 0}))
    assert make_runner(work).recover() == []
    assert not stale.exists()
    assert load_pending_reports(work / "spool") == [report]


# ---- the shepherd on its own --------------------------------------------------------------


def run_shepherd(task: Path, *command: str, **config: object) -> tuple[int, dict[str, object]]:
    """The shepherd as execd runs it, for a job of the current user (`config` over the
    usual entries); its exit code and exit.json, read as execd reads it."""
    uid, gid = os.geteuid(), os.getegid()
    (task / CONFIG).write_bytes(shepherd.config_entries({
        "user": getpass.getuser(), "uid": uid, "gid": gid, "groups": os.getgroups(),
        "cwd": str(task), "stdin": "/dev/null", "stdout": str(task / "out"),
        "stderr": str(task / "err"), "merge": False, **config}))
    notify_read, notify_write = os.pipe()
    lock = os.open(task / LOCK, os.O_RDWR | os.O_CREAT)
    try:
        process = subprocess.Popen(
            [str(shepherd.PROGRAM), str(task), str(lock), str(notify_write), "--", *command],
            pass_fds=(lock, notify_write), env={})
        os.close(notify_write)
        assert os.read(notify_read, 10) == b""  # closed: execd stops waiting
        code = process.wait(timeout=30)
    finally:
        os.close(notify_read)
        os.close(lock)
    return code, msgspec.json.decode((task / ENDED).read_bytes())


def test_shepherd_records_a_job_it_cannot_start(tmp_path: Path) -> None:
    (tmp_path / "environment").write_bytes(b"PATH=/nonexistent\0")
    code, record = run_shepherd(tmp_path, "no-such-program")  # not found on PATH
    assert code == 1
    assert unstamped(str(record["error"]))[1].startswith("error: can't start job: ")
    assert record["failed"] == FAILED_BEFORE_JOB
    assert not (tmp_path / STARTED).exists()
    code, record = run_shepherd(tmp_path, "/no-such-shell")
    assert (code, record["failed"]) == (1, shepherd.FAILED_NO_SHELL)
    assert unstamped(str(record["error"])) == (os.geteuid(),
                                               'unable to find shell "/no-such-shell"')


def test_shepherd_records_status_and_usage(tmp_path: Path) -> None:
    (tmp_path / "environment").write_bytes(b"PATH=/usr/bin:/bin\0X=42\0")
    code, record = run_shepherd(tmp_path, "sh", "-c", 'test "$X" = 42 && kill -TERM $$')
    started = started_record(tmp_path)
    assert code == 0
    assert os.WTERMSIG(int(record["status"])) == signal.SIGTERM
    assert record["start_time"] == started["start_time"] <= record["end_time"]
    # every rusage name the shepherd records is a Usage field: none is lost on the way
    assert set(record["usage"]) == set(shepherd.RUSAGE) <= set(Usage.__struct_fields__)
    assert msgspec.json.decode((tmp_path / ENDED).read_bytes(), type=JobEnded).status


def test_shepherd_environment_is_passed_byte_for_byte(tmp_path: Path) -> None:
    (tmp_path / "environment").write_bytes(b"A=1\0B=x=y\xff\0\0C=\0junk\0=v\0")
    code, record = run_shepherd(tmp_path, "/usr/bin/env", "-0")
    assert (code, record["status"]) == (0, 0)
    assert (tmp_path / "out").read_bytes() == b"A=1\0B=x=y\xff\0C=\0"


def test_shepherd_takes_paths_byte_for_byte(tmp_path: Path) -> None:
    """Paths need not be UTF-8; in the error line a byte that is not becomes U+FFFD, so
    that the record stays JSON that execd reads."""
    (tmp_path / "environment").write_bytes(b"PATH=/usr/bin:/bin\0")
    odd = os.fsdecode(b"out\xff,\xed\xa0\x80\xc3\xa9\n")
    code, _ = run_shepherd(tmp_path, "echo", "hi", stdout=str(tmp_path / odd))
    assert (code, (tmp_path / odd).read_text()) == (0, "hi\n")
    code, record = run_shepherd(tmp_path, "true", cwd=str(tmp_path / odd / "x"))
    assert (code, record["failed"]) == (1, shepherd.FAILED_NO_CWD)
    assert unstamped(str(record["error"]))[1] == (
        f"error: can't chdir to {tmp_path}/out\ufffd,\ufffd\ufffd\ufffd\u00e9\n/x: Not a directory")


def test_shepherd_refuses_a_config_it_cannot_read(tmp_path: Path) -> None:
    (tmp_path / "environment").write_bytes(b"PATH=/usr/bin:/bin\0")
    for bad in ({"uid": "x"}, {"uid": -1}, {"fds": [1, 2]}):
        code, record = run_shepherd(tmp_path, "true", **bad)
        assert (code, record["failed"]) == (1, FAILED_BEFORE_JOB)
        assert unstamped(str(record["error"]))[1] == (
            f"error: can't start job: {tmp_path}/config: an entry is not a valid number")
    (tmp_path / CONFIG).write_bytes(b"user=x\0")
    lock = os.open(tmp_path / LOCK, os.O_RDWR | os.O_CREAT)
    try:
        code = subprocess.run([str(shepherd.PROGRAM), str(tmp_path), str(lock), "1", "--",
                               "true"], pass_fds=(lock,), env={}).returncode
    finally:
        os.close(lock)
    assert code == 1
    assert unstamped(json.loads((tmp_path / ENDED).read_text())["error"])[1] == (
        f"error: can't start job: {tmp_path}/config: no uid")


def test_shepherd_config_names_are_execds() -> None:
    """config_entries writes only the entries the program knows: execd's are all of them."""
    assert ShepherdConfig.__struct_fields__ == shepherd.CONFIG


def test_execd_will_not_start_without_its_shepherd_program(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(shepherd, "PROGRAM", tmp_path / "gridd-shepherd")
    with pytest.raises(SystemExit, match=f"its shepherd program {tmp_path}/gridd-shepherd "
                       "is missing; installing gridd"):
        execd.serve(tmp_path, HOST, "ipc://nowhere", 1.0, SYSTEM)
    assert not (tmp_path / "spool").exists()


async def test_job_environment_is_exactly_execds(work: Path) -> None:
    """The job sees what execd gave it and nothing else: nothing of the shepherd's own
    environment (LC_CTYPE, which a Python interpreter adds under the C locale, once came
    from a shepherd in Python)."""
    report = await make_runner(work).run_task(start_of(work, "env > env.out\n"))
    assert report.exit_status == 0
    names = {line.split("=", 1)[0] for line in
             (work / "work" / "env.out").read_text().splitlines() if "=" in line}
    written = (task_dir(work / "spool", 5, 0) / ENVIRONMENT).read_bytes().split(b"\0")
    given = {entry.split(b"=", 1)[0] for entry in written if entry}
    assert "LC_CTYPE" not in names
    assert names - {"PWD", "SHLVL", "_"} == {os.fsdecode(name) for name in given}

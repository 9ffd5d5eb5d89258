"""The execd task runner against real processes; waits are on conditions, never fixed."""

from __future__ import annotations

import getpass
import os
import pwd
import re
from pathlib import Path

import pytest
import trio

from gridd.execd.runner import (
    DEFAULT_PATH,
    FAILED_AFTER_JOB,
    FAILED_LIMIT,
    Owner,
    TaskRunner,
    binary_command_line,
    cpu_ticks,
    forget,
    list_active,
    load_pending_reports,
    output_path,
    parse_io,
    parse_vm,
    plan_task,
    task_dir,
)
from gridd.execd.shepherd import FAILED_NO_CWD, FAILED_NO_SHELL, FAILED_OPEN_OUTPUT
from gridd.model.job import Job, JobSpec, Task
from gridd.protocol import StartTask
from gridd.sge_root import arch_name

HOST = "node1"
# 8.1.9's stamp before a start failure's words: local time, [uid:pid] of who met it.
_STAMP = re.compile(r"\d\d/\d\d/\d{4} \d\d:\d\d:\d\d \[(\d+):(\d+)\]: ")
ROOT = "/opt/gridd"


@pytest.fixture
def work(tmp_path: Path) -> Path:
    (tmp_path / "work").mkdir()
    (tmp_path / "home").mkdir()
    return tmp_path


@pytest.fixture
def runner(work: Path) -> TaskRunner:
    return TaskRunner(HOST, work / "spool", ROOT, vmem_interval=0.05)


def start_of(
    work: Path,
    *,
    job_id: int = 17,
    task_id: int = 0,
    granted: list[tuple[str, int]] | None = None,
    h_rt: float = 0.0,
    s_rt: float = 0.0,
    **spec_fields: object,
) -> StartTask:
    fields: dict[str, object] = {
        "name": "job", "owner": getpass.getuser(), "o_home": str(work / "home"),
        "cwd": str(work / "work"), "o_workdir": str(work / "work"), "submit_host": "subhost",
        "o_path": "/usr/bin:/bin", "o_shell": "/bin/bash",
    }
    fields.update(spec_fields)
    spec = JobSpec(**fields)  # type: ignore[arg-type]
    job = Job(job_id=job_id, spec=spec, submit_time=0.0, tasks={task_id: Task(task_id)})
    return StartTask(job=job, task_id=task_id, queue=f"all.q@{HOST}",
                     granted=granted or [(f"all.q@{HOST}", 1)], tmpdir=str(work / "tmp"),
                     h_rt=h_rt, s_rt=s_rt)


def binary(work: Path, *argv: str, **kw: object) -> StartTask:
    kw.setdefault("name", Path(argv[0]).name)
    return start_of(work, binary=True, command=list(argv), **kw)


def script(work: Path, text: str, **kw: object) -> StartTask:
    return start_of(work, script=text, script_name="job.sh", **kw)


def unstamped(reason: str) -> tuple[int, str]:
    """The uid in a start failure's stamp (as shepherd.py describes it) and the words after it."""
    stamp = _STAMP.match(reason)
    assert stamp is not None, reason
    return int(stamp.group(1)), reason[stamp.end():]


def read_env(path: Path) -> dict[str, str]:
    lines = path.read_text().splitlines()
    return dict(line.split("=", 1) for line in lines if "=" in line)


# ---- pure helpers ----------------------------------------------------------------------


def test_binary_command_line_joins_the_words_with_blanks() -> None:
    """As 8.1.9 does: the words are shell text, so sh -c 'exit 7' loses its quoting."""
    assert binary_command_line(["sh", "-c", "exit 7"]) == "sh -c exit 7"
    assert binary_command_line(["exit 7"]) == "exit 7"
    assert binary_command_line(["echo", "$HOME", "a  b", ";", "echo"]) == "echo $HOME a  b ; echo"


def test_output_path_rules(tmp_path: Path) -> None:
    pseudo = {"HOME": "/h", "USER": "u", "JOB_ID": "5", "JOB_NAME": "n", "HOSTNAME": HOST,
              "TASK_ID": "undefined"}
    wd = str(tmp_path)
    assert output_path([], HOST, wd, "n.o5", pseudo) == f"{wd}/n.o5"
    assert output_path(["out"], HOST, wd, "n.o5", pseudo) == f"{wd}/out"
    assert output_path([wd], HOST, "/", "n.o5", pseudo) == f"{wd}/n.o5"
    assert output_path(["/x/$JOB_NAME.$JOB_ID.$TASK_ID"], HOST, wd, "d", pseudo) == (
        "/x/n.5.undefined")
    assert output_path(["$HOME/$USER@$HOSTNAME"], HOST, wd, "d", pseudo) == "/h/u@node1"
    entries = ["other:/o", "/plain", f"{HOST}:/mine"]
    assert output_path(entries, HOST, wd, "d", pseudo) == "/mine"
    assert output_path(entries[:2], HOST, wd, "d", pseudo) == "/plain"
    assert output_path(entries[:1], HOST, wd, "d", pseudo) == "/o"


def test_paths_are_resolved_for_the_execution_host(work: Path) -> None:
    """The same job's paths on two hosts: each takes its own host: entry, its own host
    name and the owner's home there (the working directory without -cwd or -wd)."""
    start = binary(work, "true", cwd="", stderr_path=["node2:/n2/$HOSTNAME.err", "/e/$HOSTNAME"],
                   stdout_path=["/all/$HOSTNAME.$JOB_ID.$USER"])
    owner = Owner(name="alice", uid=1, gid=1, groups=(1,), home="/home/alice")
    plans = {host: plan_task(start, host=host, spool_dir=work / "spool", root=ROOT,
                             owner=owner) for host in ("node1", "node2")}
    user = start.job.spec.owner
    assert [(p.workdir, p.stdout, p.stderr) for p in plans.values()] == [
        ("/home/alice", f"/all/node1.17.{user}", "/e/node1"),
        ("/home/alice", f"/all/node2.17.{user}", "/n2/node2.err")]
    assert plans["node2"].env["SGE_STDERR_PATH"] == "/n2/node2.err"


def test_parse_vm() -> None:
    text = "Name:\tsleep\nVmPeak:\t    8000 kB\nVmSize:\t    6000 kB\nVmRSS:\t 100 kB\n"
    assert parse_vm(text) == (6000 * 1024, 8000 * 1024)
    assert parse_vm("Name:\tzombie\nState:\tZ (zombie)\n") == (0, 0)


def test_cpu_ticks_and_io() -> None:
    """utime, stime, cutime and cstime (fields 14-17) after a command that holds a space
    and a parenthesis; rchar and wchar."""
    stat = "4242 (a (b) c) S 1 4242 4242 0 -1 4194304 90 0 0 0 7 3 20 10 20 0 1 0 5 0\n"
    assert cpu_ticks(stat) == 7 + 3 + 20 + 10
    io = "rchar: 1000\nwchar: 24\nsyscr: 5\nsyscw: 1\nread_bytes: 4096\nwrite_bytes: 0\n"
    assert parse_io(io) == 1024


# ---- exit codes --------------------------------------------------------------------------


async def test_binary_exit_code_propagates(work: Path, runner: TaskRunner) -> None:
    report = await runner.run_task(binary(work, "sh", "-c", "exit 7", noshell=True))
    assert (report.exit_status, report.failed, report.signal) == (7, 0, "")
    assert report.host == HOST
    assert report.start_time > 0 and report.end_time >= report.start_time


async def test_binary_single_command_string_runs_in_shell(
    work: Path, runner: TaskRunner
) -> None:
    report = await runner.run_task(binary(work, "exit 7", name="ex7"))
    assert report.exit_status == 7


async def test_binary_words_are_run_by_the_shell(work: Path, runner: TaskRunner) -> None:
    """-b y with -shell y (the default), as 8.1.9 runs it: the words joined with blanks
    are the shell's text, so variables expand on the execution host, blanks collapse,
    ';' separates commands and sh -c 'exit 7' runs `sh -c exit 7`, which exits 0."""
    home = pwd.getpwuid(os.geteuid()).pw_dir
    await runner.run_task(binary(work, "echo", "$HOME", "a  b", job_id=1))
    assert (work / "work" / "echo.o1").read_text() == f"{home} a b\n"
    await runner.run_task(binary(work, "echo", "a", ";", "echo", "b", job_id=2))
    assert (work / "work" / "echo.o2").read_text() == "a\nb\n"
    report = await runner.run_task(binary(work, "sh", "-c", "exit 7", job_id=3))
    assert (report.exit_status, report.failed) == (0, 0)


async def test_shell_n_passes_the_words_untouched(work: Path, runner: TaskRunner) -> None:
    """-shell n: the command gets its arguments as given, blanks kept, nothing expanded."""
    await runner.run_task(binary(work, "echo", "$HOME", "a  b", ";", noshell=True))
    assert (work / "work" / "echo.o17").read_text() == "$HOME a  b ;\n"


async def test_missing_binary_exits_127(work: Path, runner: TaskRunner) -> None:
    report = await runner.run_task(binary(work, "/nonexistent/program"))
    assert (report.exit_status, report.failed) == (127, 0)


async def test_death_by_signal_is_128_plus_n(work: Path, runner: TaskRunner) -> None:
    report = await runner.run_task(binary(work, "kill -TERM $$", name="selfkill"))
    assert (report.exit_status, report.signal, report.failed) == (143, "SIGTERM", 0)


# ---- script jobs, environment, files ----------------------------------------------------


SCRIPT = """\
#!/bin/sh
#$ -N ignored_name
#$ -o /nonexistent/never
echo "args=$*"
test -d "$TMPDIR" && echo "tmpdir-exists"
env
echo "to-stderr" >&2
exit 3
"""


async def test_script_job_environment_and_default_output(
    work: Path, runner: TaskRunner
) -> None:
    started: list[float] = []

    async def on_started(when: float) -> None:
        started.append(when)

    # -V may bring the submitter's cell variables: the job's name the cell it runs in
    start = script(work, SCRIPT, name="scripted", args=["a b", "c"],
                   env={"MYVAR": "x y", "GRIDD_ROOT": "/elsewhere", "SGE_CELL": "other"})
    report = await runner.run_task(start, on_started)
    assert report.exit_status == 3
    assert started == [report.start_time]

    out = work / "work" / "scripted.o17"
    err = work / "work" / "scripted.e17"
    text = out.read_text()
    assert "args=a b c" in text
    assert "tmpdir-exists" in text
    assert err.read_text() == "to-stderr\n"
    env = read_env(out)
    spool = work / "spool"
    tmpdir = work / "tmp" / "17.1.all.q"
    expected = {
        "JOB_ID": "17", "JOB_NAME": "scripted", "REQUEST": "scripted",
        "JOB_SCRIPT": str(spool / "job_scripts" / "17"), "NSLOTS": "1", "NHOSTS": "1",
        "NQUEUES": "1", "QUEUE": "all.q", "HOSTNAME": HOST, "RESTARTED": "0",
        "ENVIRONMENT": "BATCH", "HOME": pwd.getpwuid(os.geteuid()).pw_dir,
        "USER": getpass.getuser(), "LOGNAME": getpass.getuser(), "SHELL": "/bin/sh",
        "MYVAR": "x y",
        "SGE_TASK_ID": "undefined", "SGE_TASK_FIRST": "undefined",
        "SGE_TASK_LAST": "undefined", "SGE_TASK_STEPSIZE": "undefined",
        "TMPDIR": str(tmpdir), "TMP": str(tmpdir), "SGE_ROOT": f"{ROOT}/sge",
        "SGE_CELL": "default", "GRIDD_ROOT": ROOT, "ARC": arch_name(), "SGE_ARCH": arch_name(),
        "SGE_ACCOUNT": "sge", "SGE_JOB_SPOOL_DIR": str(spool / "active_jobs" / "17.1"),
        "SGE_O_HOME": str(work / "home"), "SGE_O_HOST": "subhost",
        "SGE_O_PATH": "/usr/bin:/bin", "SGE_O_SHELL": "/bin/bash",
        "SGE_O_WORKDIR": str(work / "work"), "SGE_CWD_PATH": str(work / "work"),
        "SGE_STDOUT_PATH": str(out), "SGE_STDERR_PATH": str(err),
        "SGE_STDIN_PATH": "/dev/null",
        "PATH": f"{tmpdir}:{ROOT}/sge/bin/{arch_name()}:{DEFAULT_PATH}",
    }
    assert {key: env.get(key) for key in expected} == expected
    assert env["SGE_ARCH"].startswith("lx-")
    assert "QRSH_COMMAND" not in env
    assert "PE" not in env and "PE_HOSTFILE" not in env
    assert not tmpdir.exists()
    assert not (spool / "job_scripts" / "17").exists()


async def test_output_appends_across_runs(work: Path, runner: TaskRunner) -> None:
    start = binary(work, "echo", "hello", stdout_path=["log"])
    await runner.run_task(start)
    forget(work / "spool", 17, 0)
    await runner.run_task(start)
    assert (work / "work" / "log").read_text() == "hello\nhello\n"


async def test_workdir_defaults_to_the_owners_home(work: Path, runner: TaskRunner) -> None:
    """The owner's home on the execution host, as Grid Engine has it; not the
    submitter's HOME (SGE_O_HOME)."""
    out = work / "pwd.out"
    await runner.run_task(binary(work, "pwd", cwd="", stdout_path=[str(out)]))
    assert out.read_text() == f"{pwd.getpwuid(os.geteuid()).pw_dir}\n"


async def test_merge_sends_stderr_to_stdout_file(work: Path, runner: TaskRunner) -> None:
    start = binary(work, "echo", "out;", "echo", "err", ">&2", merge=True)
    await runner.run_task(start)
    assert (work / "work" / "echo.o17").read_text() == "out\nerr\n"
    assert not (work / "work" / "echo.e17").exists()


async def test_output_directory_gets_default_name(work: Path, runner: TaskRunner) -> None:
    logs = work / "logs"
    logs.mkdir()
    start = binary(work, "echo", "o;", "echo", "e", ">&2", stdout_path=[f"{HOST}:{logs}"],
                   stderr_path=[str(logs / "$JOB_NAME.err.$JOB_ID")])
    await runner.run_task(start)
    assert (logs / "echo.o17").read_text() == "o\n"
    assert (logs / "echo.err.17").read_text() == "e\n"


async def test_array_task_names_and_variables(work: Path, runner: TaskRunner) -> None:
    start = binary(work, "env", task_id=3, array=(1, 7, 2))
    await runner.run_task(start)
    out = work / "work" / "env.o17.3"
    env = read_env(out)
    assert (env["SGE_TASK_ID"], env["SGE_TASK_FIRST"], env["SGE_TASK_LAST"],
            env["SGE_TASK_STEPSIZE"]) == ("3", "1", "7", "2")
    assert env["TMPDIR"] == str(work / "tmp" / "17.3.all.q")
    assert env["SGE_JOB_SPOOL_DIR"].endswith("active_jobs/17.3")


async def test_array_tasks_share_the_job_script(work: Path, runner: TaskRunner) -> None:
    text = "#!/bin/sh\nsleep 0.2\necho $SGE_TASK_ID\n"
    async with trio.open_nursery() as nursery:
        for task_id in (1, 2, 3):
            start = script(work, text, task_id=task_id, array=(1, 3, 1), name="arr")
            nursery.start_soon(runner.run_task, start)
    for task_id in (1, 2, 3):
        assert (work / "work" / f"arr.o17.{task_id}").read_text() == f"{task_id}\n"
    assert not (work / "spool" / "job_scripts" / "17").exists()


async def test_pe_hostfile_and_slot_counts(work: Path, runner: TaskRunner) -> None:
    granted = [(f"all.q@{HOST}", 2), ("all.q@node2", 1), ("short.q@node2", 1)]
    start = binary(work, "cat", "$PE_HOSTFILE;", "env", pe_name="mpi", pe_min=4, pe_max=4,
                   granted=granted)
    await runner.run_task(start)
    out = work / "work" / "cat.o17"
    lines = out.read_text().splitlines()
    assert lines[:3] == [f"{HOST} 2 all.q@{HOST} UNDEFINED", "node2 1 all.q@node2 UNDEFINED",
                         "node2 1 short.q@node2 UNDEFINED"]
    env = read_env(out)
    assert (env["PE"], env["NSLOTS"], env["NHOSTS"], env["NQUEUES"]) == ("mpi", "4", "2", "3")
    assert env["PE_HOSTFILE"] == str(task_dir(work / "spool", 17, 0) / "pe_hostfile")


# ---- failures before the job runs -----------------------------------------------------


async def test_unwritable_output_fails_26(work: Path, runner: TaskRunner) -> None:
    started: list[float] = []

    async def on_started(when: float) -> None:
        started.append(when)

    start = binary(work, "true", stdout_path=["/nonexistent/dir/out"])
    report = await runner.run_task(start, on_started)
    assert report.failed == FAILED_OPEN_OUTPUT
    assert unstamped(report.failed_reason) == (os.geteuid(), (
        "error: can't open output file \"/nonexistent/dir/out\": No such file or directory"))
    assert (report.start_time, report.exit_status) == (0.0, 0)
    assert started == []
    assert load_pending_reports(work / "spool") == [report]
    assert not (work / "tmp" / "17.1.all.q").exists()


async def test_missing_workdir_fails_28(work: Path, runner: TaskRunner) -> None:
    report = await runner.run_task(binary(work, "true", cwd=str(work / "gone")))
    assert report.failed == FAILED_NO_CWD
    assert unstamped(report.failed_reason)[1] == (
        f"error: can't chdir to {work / 'gone'}: No such file or directory")


async def test_missing_input_fails_26(work: Path, runner: TaskRunner) -> None:
    report = await runner.run_task(binary(work, "true", stdin_path="/nonexistent/in"))
    assert report.failed == FAILED_OPEN_OUTPUT
    assert unstamped(report.failed_reason)[1] == (
        "error: can't open /nonexistent/in as dummy input file")


async def test_unwritable_error_file_fails_26(work: Path, runner: TaskRunner) -> None:
    report = await runner.run_task(binary(work, "true", stderr_path=["/nonexistent/err"]))
    assert report.failed == FAILED_OPEN_OUTPUT
    assert unstamped(report.failed_reason)[1] == (
        "error: can't open output file \"/nonexistent/err\": No such file or directory")


async def test_missing_shell_fails_27(work: Path, runner: TaskRunner) -> None:
    report = await runner.run_task(script(work, "exit 0\n", shell="/nonexistent/sh"))
    assert report.failed == FAILED_NO_SHELL
    assert unstamped(report.failed_reason)[1] == 'unable to find shell "/nonexistent/sh"'
    assert not (work / "spool" / "job_scripts" / "17").exists()


# ---- limits and kills ------------------------------------------------------------------


async def test_h_rt_kills_the_job(work: Path, runner: TaskRunner) -> None:
    with trio.fail_after(10):
        report = await runner.run_task(binary(work, "sleep", "30", h_rt=1.0))
    assert (report.failed, report.exit_status, report.signal) == (FAILED_LIMIT, 137, "SIGKILL")
    assert report.failed_reason == "qmaster enforced h_rt, h_cpu, or h_vmem limit"
    assert 1.0 <= report.usage.wallclock < 5.0


async def test_s_rt_sends_a_warning_signal(work: Path, runner: TaskRunner) -> None:
    text = "trap 'echo warned; exit 5' USR1\nsleep 30 &\nwait\n"
    with trio.fail_after(10):
        report = await runner.run_task(script(work, text, s_rt=0.3, h_rt=20.0))
    assert (report.exit_status, report.failed) == (5, 0)
    assert (work / "work" / "job.o17").read_text() == "warned\n"


def _gone(pid: int) -> bool:
    """Dead, or a zombie waiting for an init that may never reap it in a container."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except FileNotFoundError:
        return True
    return "\nState:\tZ" in status


async def test_kill_hits_the_whole_process_group(work: Path, runner: TaskRunner) -> None:
    pidfile = work / "child.pid"
    text = f"sleep 300 &\necho $! > {pidfile}\nwait\n"
    started = trio.Event()

    async def on_started(when: float) -> None:
        started.set()

    assert runner.kill(17, 0) is False
    async with trio.open_nursery() as nursery:
        reports = []

        async def run() -> None:
            reports.append(await runner.run_task(script(work, text), on_started))

        nursery.start_soon(run)
        await started.wait()
        with trio.fail_after(10):
            while not pidfile.exists() or not pidfile.read_text().strip():
                await trio.sleep(0.01)
        assert runner.running() == [(17, 0, "")]
        [active] = list_active(work / "spool")
        assert (active.job_id, active.task_id, active.queue) == (17, 0, f"all.q@{HOST}")
        assert runner.kill(17, 0) is True
    [report] = reports
    assert (report.failed, report.exit_status, report.signal) == (FAILED_AFTER_JOB, 137,
                                                                 "SIGKILL")
    assert report.failed_reason == "assumedly after job"
    assert runner.running() == []
    # SIGKILL reached the whole group at once; each member ends when it is next scheduled,
    # which on a loaded machine may be after the job's own end is reported.
    child = int(pidfile.read_text())
    with trio.fail_after(10):
        while not _gone(child):
            await trio.sleep(0.01)


async def test_background_leftovers_are_killed_at_exit(work: Path, runner: TaskRunner) -> None:
    pidfile = work / "child.pid"
    report = await runner.run_task(script(work, f"sleep 300 &\necho $! > {pidfile}\nexit 0\n"))
    assert report.exit_status == 0
    with trio.fail_after(5):
        while not _gone(int(pidfile.read_text())):
            await trio.sleep(0.01)


# ---- usage and persistence ------------------------------------------------------------


async def test_usage_is_measured(work: Path, runner: TaskRunner) -> None:
    text = "i=0\nwhile [ $i -lt 100000 ]; do i=$((i+1)); done\nsleep 0.3\n"
    report = await runner.run_task(script(work, text))
    usage = report.usage
    assert usage.utime + usage.stime > 0
    assert usage.maxrss > 0 and usage.minflt > 0
    assert usage.maxvmem > 1024 * 1024
    assert usage.wallclock == pytest.approx(report.end_time - report.start_time)


async def test_usage_is_reported_while_the_job_runs(work: Path,
                                                   runner: TaskRunner) -> None:
    """The samples of a running job's tree (qstat's online usage), and what of them the
    final report keeps: the memory integral and the bytes read and written."""
    text = ("head -c 3000000 /dev/zero > /dev/null\n"
            "i=0\nwhile [ $i -lt 400000 ]; do i=$((i+1)); done\n")
    reports = []
    async with trio.open_nursery() as nursery:
        async def run() -> None:
            reports.append(await runner.run_task(script(work, text)))

        nursery.start_soon(run)
        with trio.fail_after(30):
            while not any(u.utime > 0 and u.mem > 0 for *_, u in runner.usage()):
                await trio.sleep(0.02)
        (job_id, task_id, usage), = runner.usage()
        assert (job_id, task_id) == (17, 0)
        assert usage.vmem > 1024 * 1024 and usage.maxvmem >= usage.vmem
        assert usage.io >= 3_000_000 and usage.wallclock > 0
    final = reports[0].usage
    assert final.mem >= usage.mem and final.io >= 3_000_000


async def test_reports_persist_until_forgotten(work: Path, runner: TaskRunner) -> None:
    spool = work / "spool"
    first = await runner.run_task(binary(work, "true", job_id=1))
    second = await runner.run_task(binary(work, "false", job_id=2, task_id=4, array=(4, 4, 1)))
    assert sorted(load_pending_reports(spool), key=lambda r: r.job_id) == [first, second]
    assert list_active(spool) == []
    forget(spool, 1, 0)
    assert load_pending_reports(spool) == [second]
    forget(spool, 2, 4)
    assert load_pending_reports(spool) == []
    assert not task_dir(spool, 2, 4).exists()


async def test_damaged_report_is_skipped(work: Path, runner: TaskRunner) -> None:
    spool = work / "spool"
    report = await runner.run_task(binary(work, "true"))
    broken = task_dir(spool, 99, 0)
    broken.mkdir(parents=True)
    (broken / "report.json").write_text("{not json")
    assert load_pending_reports(spool) == [report]

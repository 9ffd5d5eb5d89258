"""Whom execd runs a job as, with what, and that no shell reads a path or name as code.

A root execd runs each job as its owner (uid, gid, supplementary groups, umask 022, the
owner's HOME) with only the environment gridd defines; the files the job uses are the
owner's doing, execd's records stay execd's. An execd of a normal user runs only that
user's jobs. The second users come from tests/users.py (root and useradd, else skipped
saying why); everything lives in a directory under /tmp that they may enter.
"""

from __future__ import annotations

import grp
import os
import pwd
import shutil
import stat
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import msgspec
import pytest

from gridd.execd.runner import (
    CONFIG,
    DEFAULT_PATH,
    ENDED,
    ENVIRONMENT,
    FAILED_BEFORE_JOB,
    FAILED_NO_OWNER,
    STARTED,
    STATE,
    TaskRunner,
    load_pending_reports,
    task_dir,
)
from gridd.execd.shepherd import FAILED_NO_CWD, FAILED_OPEN_OUTPUT
from gridd.model.job import Job, JobSpec, Task
from gridd.protocol import StartTask, TaskReport
from gridd.sge_root import arch_name
from tests.actors.test_runner import unstamped
from tests.users import interpreter, people, python_path

__all__ = ["people"]  # the module fixture that makes the users

HOST = "node1"
ROOT = "/opt/gridd"
JOB_ID = 17
# Every character a shell would act on, and a newline; no "/" (it cannot be in a file
# name, and qsub refuses it in a job name). The touches would leave files named pwned*.
HOSTILE = "a b;touch pwned1;$(touch pwned2)`touch pwned3`'\"|&>pwned4\n*\\"
# As a job name: $HOME in it must not be expanded again where -o expands $JOB_NAME (a
# $HOME written in -o itself is Grid Engine's pseudo variable, expanded on purpose).
NAME = HOSTILE + "$HOME"
ABSOLUTE_MARK = f"/tmp/gridd-pwned-{os.getpid()}"


@pytest.fixture
def base() -> Iterator[Path]:
    """A directory the test users may enter (pytest's tmp_path is root's alone)."""
    path = Path(tempfile.mkdtemp(prefix="gridd-identity-", dir="/tmp"))
    path.chmod(0o755)
    for name in ("spool", "tmp"):
        (path / name).mkdir()
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)


@pytest.fixture
def work(people: tuple[str, ...], base: Path) -> Path:
    """roland's working directory."""
    path = base / "work"
    path.mkdir()
    entry = pwd.getpwnam("roland")
    os.chown(path, entry.pw_uid, entry.pw_gid)
    return path


@pytest.fixture
def extra_group(people: tuple[str, ...]) -> Iterator[str]:
    """A supplementary group of roland's, made for the test."""
    if shutil.which("groupadd") is None:
        pytest.skip("needs groupadd to give roland a supplementary group")
    name = f"gsup{os.getpid()}"
    subprocess.run(["groupadd", "-U", "roland", name], check=True)
    try:
        yield name
    finally:
        subprocess.run(["groupdel", name], check=False)


@pytest.fixture
def runner(base: Path, monkeypatch: pytest.MonkeyPatch) -> TaskRunner:
    """A root execd's runner, whose own environment carries something no job may see."""
    monkeypatch.setenv("GRIDD_EXECD_ONLY", "secret")
    monkeypatch.setenv("LD_LIBRARY_PATH", "/execd/lib")
    return TaskRunner(HOST, base / "spool", ROOT, vmem_interval=0.05)


def start_of(base: Path, owner: str, *, job_id: int = JOB_ID, **spec_fields: object
             ) -> StartTask:
    fields: dict[str, object] = {"name": "job", "owner": owner, "cwd": str(base / "work"),
                                 "o_home": "/submitter/home", "submit_host": "subhost"}
    fields.update(spec_fields)
    spec = JobSpec(**fields)  # type: ignore[arg-type]
    job = Job(job_id=job_id, spec=spec, submit_time=0.0, tasks={0: Task(0)})
    return StartTask(job=job, task_id=0, queue=f"all.q@{HOST}", granted=[(f"all.q@{HOST}", 1)],
                     tmpdir=str(base / "tmp"))


def script(base: Path, owner: str, text: str, **kw: object) -> StartTask:
    return start_of(base, owner, script=f"#!/bin/sh\n{text}", script_name="job.sh", **kw)


def binary(base: Path, owner: str, *argv: str, **kw: object) -> StartTask:
    return start_of(base, owner, binary=True, command=list(argv), **kw)


def read_env(path: Path) -> dict[str, str]:
    lines = path.read_text().splitlines()
    return dict(line.split("=", 1) for line in lines if "=" in line)


def assert_no_marks(*places: Path) -> None:
    """No command hidden in a name ran: it would have left a pwned* file."""
    for place in places:
        assert not list(place.rglob("pwned*")), place
    assert not list(Path("/tmp").glob("pwned*"))
    assert not Path(ABSOLUTE_MARK).exists()


# ---- a root execd runs the job as its owner ---------------------------------------------


IDENTITY = """\
echo "uid=$(id -u) gid=$(id -g)"
echo "groups=$(id -G)"
echo "umask=$(umask)"
echo "script=$(stat -c '%u %a' "$JOB_SCRIPT")"
echo "tmpdir=$(stat -c '%u %a' "$TMPDIR")"
touch "$TMPDIR/mine" && echo "tmpdir-writable"
env > env.out
"""


async def test_root_runs_the_job_as_its_owner(
    base: Path, work: Path, extra_group: str, runner: TaskRunner
) -> None:
    entry = pwd.getpwnam("roland")
    start = script(base, "roland", IDENTITY, name="who", env={"MINE": "from -v"})
    report = await runner.run_task(start)
    assert (report.exit_status, report.failed) == (0, 0)

    out = work / f"who.o{JOB_ID}"
    text = out.read_text()
    lines = dict(line.split("=", 1) for line in text.splitlines()[:5])
    assert lines["uid"] == f"{entry.pw_uid} gid={entry.pw_gid}"
    groups = {int(gid) for gid in lines["groups"].split()}
    assert groups == set(os.getgrouplist("roland", entry.pw_gid))
    assert grp.getgrnam(extra_group).gr_gid in groups and 0 not in groups
    assert lines["umask"] == "0022"
    assert lines["script"] == f"{entry.pw_uid} 700"  # the spooled copy: the owner's alone
    assert lines["tmpdir"] == f"{entry.pw_uid} 755"
    assert "tmpdir-writable" in text

    # the output files are the owner's, made under umask 022
    for path in (out, work / f"who.e{JOB_ID}"):
        info = path.stat()
        assert (info.st_uid, info.st_gid, stat.S_IMODE(info.st_mode)) == (
            entry.pw_uid, entry.pw_gid, 0o644)

    # the environment is the job's: nothing of execd's own
    env = read_env(work / "env.out")
    tmpdir = base / "tmp" / f"{JOB_ID}.1.all.q"
    assert {key: env.get(key) for key in ("HOME", "USER", "LOGNAME", "PATH", "MINE")} == {
        "HOME": entry.pw_dir, "USER": "roland", "LOGNAME": "roland",
        "PATH": f"{tmpdir}:{ROOT}/sge/bin/{arch_name()}:{DEFAULT_PATH}", "MINE": "from -v"}
    assert env["SGE_O_HOME"] == "/submitter/home"
    assert "GRIDD_EXECD_ONLY" not in env and "LD_LIBRARY_PATH" not in env
    given = {os.fsdecode(name) for name in _environment_names(base)}
    assert set(env) - {"PWD", "SHLVL", "_", "OLDPWD"} == given

    # execd's records stay execd's; the environment (-v values) is for nobody else
    directory = task_dir(base / "spool", JOB_ID, 0)
    for name in (STATE, CONFIG, ENVIRONMENT, STARTED, ENDED, "report.json"):
        assert (directory / name).stat().st_uid == 0, name
    assert stat.S_IMODE((directory / ENVIRONMENT).stat().st_mode) == 0o600
    assert not tmpdir.exists()


def _environment_names(base: Path) -> list[bytes]:
    data = (task_dir(base / "spool", JOB_ID, 0) / ENVIRONMENT).read_bytes()
    return [entry.partition(b"=")[0] for entry in data.split(b"\0") if entry]


async def test_binary_job_runs_as_its_owner_in_the_owners_home(
    base: Path, people: tuple[str, ...], runner: TaskRunner
) -> None:
    """Without -cwd the job starts in the owner's home on this host (not the submitter's)."""
    entry = pwd.getpwnam("andre")
    home = Path(entry.pw_dir)
    out = base / "andre.out"
    out.touch()
    os.chown(out, entry.pw_uid, entry.pw_gid)
    start = binary(base, "andre", "echo", "$(id -un)", "$(pwd)", cwd="",
                   stdout_path=[str(out)], merge=True)
    report = await runner.run_task(start)
    assert (report.exit_status, report.failed) == (0, 0)
    assert out.read_text() == f"andre {home}\n"


async def test_output_is_opened_as_the_owner(
    base: Path, work: Path, runner: TaskRunner
) -> None:
    """A file only root could write (-o) or read (-i) is refused, as it would be to the
    owner."""
    closed = base / "root-only"
    closed.mkdir(mode=0o755)
    report = await runner.run_task(binary(base, "roland", "true", stdout_path=[str(closed)]))
    assert report.failed == FAILED_OPEN_OUTPUT
    assert unstamped(report.failed_reason) == (pwd.getpwnam("roland").pw_uid, (
        f"error: can't open output file \"{closed}/job.o{JOB_ID}\": Permission denied"))
    assert list(closed.iterdir()) == []
    assert not (base / "tmp" / f"{JOB_ID}.1.all.q").exists()

    secret = base / "root-secret"
    secret.write_text("root's\n")
    secret.chmod(0o600)
    report = await runner.run_task(binary(base, "roland", "cat", stdin_path=str(secret),
                                          stdout_path=[str(work / "stolen")],
                                          job_id=JOB_ID + 1))
    assert report.failed == FAILED_OPEN_OUTPUT
    assert unstamped(report.failed_reason)[1] == (
        f"error: can't open {secret} as dummy input file")
    assert not (work / "stolen").exists()


async def test_working_directory_is_entered_as_the_owner(
    base: Path, work: Path, runner: TaskRunner
) -> None:
    closed = base / "root-only"
    closed.mkdir(mode=0o700)
    report = await runner.run_task(binary(base, "roland", "true", cwd=str(closed),
                                          stdout_path=[str(work / "out")]))
    assert report.failed == FAILED_NO_CWD
    assert unstamped(report.failed_reason) == (
        pwd.getpwnam("roland").pw_uid, f"error: can't chdir to {closed}: Permission denied")


async def test_unknown_owner_fails_before_the_job(base: Path, runner: TaskRunner) -> None:
    """As 8.1.9 fails it (its failed code 1, its words in qstat -j's error reason)."""
    mark = base / "ran"
    report = await runner.run_task(binary(base, "nobody-gridd-test", "touch", str(mark)))
    assert (report.failed, report.start_time, report.exit_status) == (FAILED_NO_OWNER, 0.0,
                                                                      0)
    assert report.failed_reason == (
        'can\'t get password entry for user "nobody-gridd-test". '
        "Either user does not exist or error with NIS/LDAP etc.")
    assert load_pending_reports(base / "spool") == [report]
    assert not mark.exists()


async def test_planted_tmpdir_is_not_the_jobs(
    base: Path, work: Path, runner: TaskRunner
) -> None:
    """Whatever someone left at TMPDIR's path is replaced by a fresh directory."""
    andre = pwd.getpwnam("andre")
    planted = base / "tmp" / f"{JOB_ID}.1.all.q"
    planted.mkdir()
    (planted / "ls").write_text("#!/bin/sh\ntouch pwned-by-andre\n")
    (planted / "ls").chmod(0o755)
    os.chown(planted, andre.pw_uid, andre.pw_gid)
    text = 'ls -A "$TMPDIR"; stat -c %U "$TMPDIR"\n'
    report = await runner.run_task(script(base, "roland", text, name="tmp"))
    assert report.exit_status == 0
    assert (work / f"tmp.o{JOB_ID}").read_text() == "roland\n"

    linked = base / "tmp" / f"{JOB_ID + 1}.1.all.q"
    target = base / "elsewhere"
    target.mkdir()
    linked.symlink_to(target)
    report = await runner.run_task(script(base, "roland", text, name="tmp",
                                          job_id=JOB_ID + 1))
    assert report.exit_status == 0
    assert (work / f"tmp.o{JOB_ID + 1}").read_text() == "roland\n"
    assert target.stat().st_uid == 0  # never handed to the job's owner
    assert_no_marks(base)


async def test_variable_that_would_smuggle_another_is_refused(
    base: Path, work: Path, runner: TaskRunner
) -> None:
    report = await runner.run_task(binary(base, "roland", "true",
                                          env={"A": "x\0LD_PRELOAD=/tmp/evil.so"}))
    assert report.failed == FAILED_BEFORE_JOB
    assert report.failed_reason == "before job: can't pass environment variable 'A' to the job"


# ---- an execd of a normal user runs only that user's jobs -------------------------------


RUN_AS_EXECD = """\
import sys
from pathlib import Path

import msgspec
import trio

from gridd.execd.runner import TaskRunner
from gridd.protocol import StartTask, TaskReport

starts = msgspec.json.decode(sys.stdin.buffer.read(), type=list[StartTask])
runner = TaskRunner("node1", Path(sys.argv[1]), "/opt/gridd", vmem_interval=0.05)


async def main() -> list[TaskReport]:
    return [await runner.run_task(start) for start in starts]


sys.stdout.buffer.write(msgspec.json.encode(trio.run(main)))
"""


def test_execd_of_a_normal_user_refuses_other_users_jobs(
    base: Path, work: Path
) -> None:
    """The runner of an execd started by andre: andre's job runs, roland's is reported
    failed with the reason, and the execd goes on."""
    andre = pwd.getpwnam("andre")
    spool = base / "andre-spool"
    spool.mkdir()
    andre_work = base / "andre-work"
    andre_work.mkdir()
    for path in (spool, andre_work, base / "tmp"):
        os.chown(path, andre.pw_uid, andre.pw_gid)
    mark = work / "roland-ran"
    starts = [script(base, "roland", f"touch {mark}\n", job_id=1),
              script(base, "andre", "id -un\n", job_id=2, name="mine", cwd=str(andre_work)),
              script(base, "root", f"touch {mark}\n", job_id=3)]
    done = subprocess.run(
        [interpreter("andre"), "-c", RUN_AS_EXECD, str(spool)],
        input=msgspec.json.encode(starts), env={"PYTHONPATH": python_path()},
        capture_output=True, user=andre.pw_uid, group=andre.pw_gid, extra_groups=[],
        timeout=60)
    assert done.returncode == 0, done.stderr.decode()
    refused, ran, root = msgspec.json.decode(done.stdout, type=list[TaskReport])
    assert (refused.job_id, refused.failed, refused.start_time) == (1, FAILED_BEFORE_JOB, 0.0)
    assert refused.failed_reason == (
        'before job: execd runs as "andre" and cannot run jobs of "roland"')
    assert root.failed_reason == 'before job: execd runs as "andre" and cannot run jobs of "root"'
    assert (ran.job_id, ran.exit_status, ran.failed) == (2, 0, 0)
    assert (andre_work / "mine.o2").read_text() == "andre\n"
    assert not mark.exists()


# ---- no shell reads a name, path or argument as code ------------------------------------


async def test_hostile_names_paths_and_arguments_stay_text(
    base: Path, work: Path, runner: TaskRunner
) -> None:
    """A job name, arguments, -o/-e paths, a working directory and a -v value made of
    shell syntax reach the job as the very same text, and none of it runs."""
    entry = pwd.getpwnam("roland")
    cwd = work / f"cwd {HOSTILE}"
    logs = work / f"logs {HOSTILE}"
    for path in (cwd, logs):
        path.mkdir()
        os.chown(path, entry.pw_uid, entry.pw_gid)
    args = [HOSTILE, f"$(touch {ABSOLUTE_MARK})", "`touch pwned5`", "; touch pwned6", ""]
    text = ('printf "%s\\n" "$#" > count\nfor a in "$@"; do printf "[%s]" "$a"; done > args\n'
            'printf "%s" "$JOB_NAME" > name\nprintf "%s" "$HOSTILE" > value\n'
            'printf "%s" "$SGE_STDERR_PATH" > stderr-path\npwd > where\n')
    start = script(base, "roland", text, name=NAME, args=args, cwd=str(cwd),
                   stdout_path=[f"{logs}/out.$JOB_NAME"], stderr_path=[str(logs)],
                   env={"HOSTILE": HOSTILE})
    report = await runner.run_task(start)
    assert (report.exit_status, report.failed) == (0, 0), report.failed_reason
    assert (cwd / "count").read_text() == f"{len(args)}\n"
    assert (cwd / "args").read_text() == "".join(f"[{arg}]" for arg in args)
    assert (cwd / "name").read_text() == NAME
    assert (cwd / "value").read_text() == HOSTILE
    assert (cwd / "where").read_text() == f"{cwd}\n"
    assert (logs / f"out.{NAME}").exists()  # $JOB_NAME expanded as text, once
    assert (cwd / "stderr-path").read_text() == f"{logs}/{NAME}.e{JOB_ID}"
    assert (logs / f"{NAME}.e{JOB_ID}").exists()

    # a -b y -shell n job: every argument reaches the program as given (with -shell y
    # they are the shell's text, as in 8.1.9: the owner's own, run as the owner)
    out = work / "binary.out"
    report = await runner.run_task(binary(
        base, "roland", "printf", "[%s]", *args, name=NAME, cwd=str(cwd),
        stdout_path=[str(out)], job_id=JOB_ID + 1, noshell=True))
    assert (report.exit_status, report.failed) == (0, 0), report.failed_reason
    assert out.read_text() == "".join(f"[{arg}]" for arg in args)
    assert_no_marks(base, Path(entry.pw_dir))

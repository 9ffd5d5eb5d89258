"""Runs job tasks on an execution host the way Grid Engine's execd and shepherd do, under trio.

One ``TaskRunner`` serves one execd. ``run_task`` prepares a task (environment, working
directory, output files, job script, TMPDIR), has it started, enforces its run-time
limits, measures what it used and returns its ``TaskReport``; ``kill`` is the qdel path.

Surviving an execd restart
--------------------------
Jobs must outlive their execd: a crashed or restarted execd must neither lose a job nor
report it twice. Only a parent learns how its child ended, so execd does not start jobs
itself: each task gets a shepherd (``gridd/execd/shepherd.py`` says what it does; it is
the small C program built from ``shepherd.c``, one per task, as in Grid Engine), which
starts the job in a session and process group of its own, waits for it and writes how it
ended (wait status and rusage) to the task's spool directory
``<spool>/active_jobs/<job>.<task>/`` (a PE task's: ``<job>.<task>.<PE task id>/``, see
below) before it exits. The files:

``state.json``   written by execd *before* the shepherd starts: what a restarted execd
                 needs to take the task over (queue, limits, TMPDIR, job script).
``environment``  the job's environment, for the shepherd (mode 0600: -v values may be secret).
``config``       who the job runs as, its working directory and standard streams.
``lock``         locked (flock) by execd before the shepherd starts and handed to it; it
                 is free again exactly when no shepherd runs for the task any more, which
                 unlike a pid cannot be mistaken for another process.
``job.json``     written by the shepherd when the job runs (its pid, the start time).
``exit.json``    written by the shepherd when the job ended, before it exits.
``killed``       why execd killed the task (qdel, h_rt), so that the reason survives too.
``report.json``  the final report, kept until the master acknowledges it (``forget``).

A new execd calls ``recover`` before anything else (and registers with the master only
after it). For every directory without a report:

- no ``state.json``, or a free lock and neither ``job.json`` nor ``exit.json``: the job
  never started, so the directory is dropped as if the task had never arrived. The
  registration does not list it, so the master sends it again (or, if it believed it
  running, accounts it as lost by the host): it is neither run twice nor forgotten.
- a held lock: the shepherd still waits for its job, and ``resume`` follows it to its end
  like a task started here (limits count from the job's real start).
- a free lock and ``exit.json``: the job ended while no execd ran; its real end is
  reported.
- a free lock, ``job.json`` but no ``exit.json``: the shepherd died before recording the
  end. What is left of the job is killed and the task is reported as failed "before
  writing exit_status" (Grid Engine's code 19), with that reason spelled out.

A shepherd that dies before starting its job while an execd follows it (one started
here, or taken over by ``resume``) yields a report failed "before job": the master may
already count that task as running, and only a report settles it.

The report is written to ``report.json`` before it is sent, and later starts look for
that file first, so each task yields one report, resent until acknowledged; the master
counts a report it has seen already as a duplicate and only acknowledges it again.

Cancelling ``run_task`` abandons the task (the job and its shepherd keep running for a
restarted execd to take over). The shepherd costs one small process per running task
(under 2 MB resident); vmem, maxvmem, cpu, io and the memory integral (mem) are sampled by
execd (each interval, over the job's process tree) for the master's load reports and the
final report, so samples an execd that died would have taken are lost, and an s_rt
warning that fell due while no execd ran is not sent late.

Interactive tasks and PE tasks
------------------------------
A task is known by (job, task, PE task id), the id "" for the job's own task. A PE task
(``StartTask.pe_task``: a task of a parallel job started by ``qrsh -inherit``) runs its
``command`` as 8.1.9 does, its words joined with blanks into the text of ``SHELL -c``
(Open MPI's words rely on it: a leading blank, quoted values), in qrsh's directory
(``cwd``), with
the job's environment on this host over qrsh's own (``env``, from -V: execd's values of
the job's variables win) and the job's TMPDIR here, which the job's tasks on this host
share (the first makes it, the last to end removes it); it has a spool directory of its
own, so that it is taken over, reported, acknowledged and forgotten alone, and its
report carries its id.
``kill`` without a PE task id kills the task and its PE tasks here, as the master's
KillTask says; a suspension stops them all.

An interactive task (``session_key``: qrsh, qlogin, qrsh -inherit) gets ``streams``
(``gridd.execd.streams``): pipes, or a pseudo-terminal given to the owner, whose job ends
go to the shepherd (``ShepherdConfig.fds``, ``tty``) and are closed here once it has
them; execd's ends belong to the task's session (``gridd.execd.sessions``). The task is
marked ``interactive`` in ``state.json``: those ends die with execd, so a restarted execd
that takes such a task over kills it (``resume``), reported as killed (failed 100).

Whose identity a job runs with
------------------------------
An execd started as root runs each job as its owner: the uid, primary gid and
supplementary groups of the owner's passwd entry on this host, umask 022. The switch is
made in the job's own process between fork and exec (see the shepherd), never in execd,
whose files (everything above, under its spool) stay its own. What execd itself creates
for the job is handed to the owner: the spooled copy of the job script (mode 0700) and
TMPDIR, made anew (anything already at its path is removed first, so nobody can plant
files in it); output files and the working directory are opened by the job's process
as the owner, so a path the owner may not use fails as it would for them. Every path
is resolved here, on the execution host (``plan_task``, ``output_path``): a directory
that is not there, or that the owner may not use, fails the task with Grid Engine's
code and 8.1.9's words (the shepherd's), and the master then keeps the job in error
state (``task_lifecycle.JOB_ERRORS``) rather than ending it. An execd started as
another user runs only that user's jobs and refuses the rest, failing them "before job"
with the reason. An owner unknown on this host fails the task as 8.1.9 fails it (code 1,
its words) and the job waits in error state too; execd logs either.

The job's environment is what gridd defines for it (``plan_task``): the job's -v/-V
variables, then Grid Engine's, HOME and SHELL from the owner's passwd entry and queue, and
PATH as Grid Engine sets it (TMPDIR, then the job's PATH or a default). SGE_ROOT and
SGE_CELL (with GRIDD_ROOT) name the cell the job runs in, so that a q* command in the job
reaches it. Nothing of execd's own environment reaches the job.

No shell sees a path, a name or a script argument as text: the shepherd and the job are
started with argument vectors, and a script job runs as ``SHELL SCRIPT ARGS...``. A
``-b y`` job's words are the one exception, as in Grid Engine 8.1.9: with -shell y (the
default) they are joined with blanks into the text of ``SHELL -c`` (``binary_command_line``),
so that variables such as ``'$SGE_TASK_ID'`` or ``'$TMPDIR/x'`` expand on the execution
host; with -shell n the command is started with its words as its argument vector. That
text is the owner's own, run as the owner: it can do nothing the owner could not do anyway.
"""

from __future__ import annotations

import contextlib
import fcntl
import logging
import os
import pwd
import re
import shutil
import signal
import subprocess
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple, TypeVar

import msgspec
import trio

from gridd.accounting.render import FAILED_REASONS
from gridd.actors.clock import SYSTEM, Wall
from gridd.execd import shepherd as shepherd_program
from gridd.execd.shepherd import FAILED_BEFORE_JOB, LOCK, shepherd_alive
from gridd.execd.streams import TaskStreams
from gridd.model.job import Usage
from gridd.model.rsmap import GLOBAL
from gridd.paths import cell_variables
from gridd.protocol import StartTask, TaskReport
from gridd.sge_root import arch_name, bin_dir

# Told the job's start time once it runs (execd tells the master the task started).
OnStarted = Callable[[float], Awaitable[None]]
# A task here: job, array task and, for a task of qrsh -inherit, its PE task id ("").
Key = tuple[int, int, str]

# Grid Engine's codes for the accounting "failed" field that execd sets (their words:
# render.FAILED_REASONS); those of the steps of a job's start are the shepherd's.
FAILED_NO_OWNER = 1  # "assumedly before job": 8.1.9's code for an owner unknown here
FAILED_NO_EXIT_STATUS = 19
FAILED_LIMIT = 37
FAILED_AFTER_JOB = 100

log = logging.getLogger("gridd.execd")

ADOPT_POLL = 0.05  # seconds between looks for job.json of a shepherd found still starting
_GIB = float(1 << 30)
_CLOCK_TICKS = os.sysconf("SC_CLK_TCK")  # /proc/<pid>/stat counts cpu time in these
_S = TypeVar("_S", bound=msgspec.Struct)
_PE_TASK_ID = re.compile(r"[0-9]+\.[A-Za-z0-9][A-Za-z0-9._-]*")
_PSEUDO_VARIABLE = re.compile(r"\$(HOME|USER|JOB_ID|JOB_NAME|HOSTNAME|TASK_ID)")
# A job's PATH when it brings none (-v PATH, -V), after its TMPDIR: Grid Engine's.
DEFAULT_PATH = "/usr/local/bin:/bin:/usr/bin"
PE_TASK_NAME = "petask"  # JOB_NAME and REQUEST of a task of qrsh -inherit, as 8.1.9's
# Between the words of QRSH_COMMAND 8.1.9 puts the byte 0xff (the job gets bytes: it is
# the surrogate os.fsencode turns back into that byte).
QRSH_WORD_SEPARATOR = os.fsdecode(b"\xff")

# Names of the files in a task's spool directory (see the module docstring; the lock's is
# the shepherd's LOCK).
STATE, ENVIRONMENT, CONFIG = "state.json", "environment", "config"
STARTED, ENDED, KILLED, REPORT = "job.json", "exit.json", "killed", "report.json"


class ActiveTask(msgspec.Struct, kw_only=True):
    """What a restarted execd needs to take over a task started earlier."""

    job_id: int
    task_id: int
    queue: str
    h_rt: float = 0.0
    s_rt: float = 0.0
    tmpdir: str = ""
    script: str = ""  # the job script it runs; "" for a binary job
    pe_task: str = ""  # a task of qrsh -inherit: its PE task id
    interactive: bool = False  # its streams went to a qrsh, with the execd that started it


class JobStarted(msgspec.Struct):
    """The shepherd's job.json."""

    shepherd_pid: int
    job_pid: int
    start_time: float


class JobEnded(msgspec.Struct):
    """The shepherd's exit.json: a raw wait status and rusage (wallclock and maxvmem left
    for execd to fill in), or why nothing started and Grid Engine's code for that step."""

    status: int = 0
    start_time: float = 0.0
    end_time: float = 0.0
    usage: Usage = msgspec.field(default_factory=Usage)
    error: str = ""
    failed: int = FAILED_BEFORE_JOB


class Owner(msgspec.Struct, frozen=True):
    """A job owner's passwd entry on this host: whom the job runs as, and its HOME."""

    name: str
    uid: int
    gid: int
    groups: tuple[int, ...]  # supplementary, the primary gid among them (getgrouplist)
    home: str
    shell: str = "/bin/sh"  # the login shell, which qlogin and qrsh without a command run


class ShepherdConfig(msgspec.Struct, kw_only=True):
    """The shepherd's config: whom it starts the job as and with which files (written by
    shepherd.config_entries, by these names: shepherd.CONFIG)."""

    user: str
    uid: int
    gid: int
    groups: tuple[int, ...]
    cwd: str
    stdin: str
    stdout: str
    stderr: str
    merge: bool
    fds: list[int] = []  # an interactive task's 0, 1, 2 passed to the shepherd (-1: a file)
    tty: bool = False  # the first of them is a pseudo-terminal


class SetupError(Exception):
    """The task could not be started; ``failed`` is Grid Engine's code for the step, and
    ``reason`` the report's failed_reason: the step's words, then the detail, unless
    8.1.9 words it otherwise."""

    def __init__(self, failed: int, detail: str, reason: str = "") -> None:
        super().__init__(detail)
        self.failed = failed
        self.reason = reason or f"{FAILED_REASONS[failed]}: {detail}"


# ---- spool files ------------------------------------------------------------------


def task_dir(spool_dir: Path, job_id: int, task_id: int, pe_task: str = "") -> Path:
    """Grid Engine names a non-array task 1 (``23.1``); gridd's task 0 follows suit. A PE
    task's directory is its own beside the task's (``23.1.1.node2``), so that each is
    taken over, reported and forgotten alone."""
    name = f"{job_id}.{task_id or 1}"
    return spool_dir / "active_jobs" / (f"{name}.{pe_task}" if pe_task else name)


def valid_pe_task(pe_task: str) -> bool:
    """A PE task id names a directory: a number and a host name ("1.node2")."""
    return bool(_PE_TASK_ID.fullmatch(pe_task))


def list_active(spool_dir: Path) -> list[ActiveTask]:
    """Tasks that were handed to a shepherd here and have no final report yet."""
    found = []
    for directory in _task_dirs(spool_dir):
        if not (directory / REPORT).exists():
            state = _read_json(directory / STATE, ActiveTask)
            if state is not None:
                found.append(state)
    return found


def load_pending_reports(spool_dir: Path) -> list[TaskReport]:
    """Reports of ended tasks that the master has not acknowledged yet."""
    reports = (_read_json(d / REPORT, TaskReport) for d in _task_dirs(spool_dir))
    return [report for report in reports if report is not None]


def forget(spool_dir: Path, job_id: int, task_id: int, pe_task: str = "") -> None:
    """Drop everything kept for a task once the master holds its report durably."""
    shutil.rmtree(task_dir(spool_dir, job_id, task_id, pe_task), ignore_errors=True)


def _task_dirs(spool_dir: Path) -> list[Path]:
    active = spool_dir / "active_jobs"
    return sorted(active.iterdir()) if active.is_dir() else []


def _read_json(path: Path, kind: type[_S]) -> _S | None:
    """Missing or damaged files count as absent: one bad file must not stop an execd."""
    try:
        return msgspec.json.decode(path.read_bytes(), type=kind)
    except (OSError, msgspec.DecodeError, msgspec.ValidationError):
        return None


def _write_json(path: Path, value: msgspec.Struct) -> None:
    """Written aside and renamed, so a crash leaves the old file or the new, never half."""
    _write_file(path, msgspec.json.encode(value), 0o644)


def _write_file(path: Path, data: bytes, mode: int, owner: Owner | None = None) -> None:
    """Written aside and renamed; made anew with at most ``mode``, whatever execd's umask:
    execd acts on its records as root, and a job able to edit them could steer it. Given
    an owner, the file is handed to it before it appears under its name."""
    scratch = path.with_name(path.name + ".new")
    scratch.unlink(missing_ok=True)
    fd = os.open(scratch, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, mode)
    with open(fd, "wb") as f:
        f.write(data)
        if owner is not None:
            os.fchown(f.fileno(), owner.uid, owner.gid)
    os.replace(scratch, path)


def _read_killed(directory: Path) -> int:
    try:
        return int((directory / KILLED).read_text())
    except (OSError, ValueError):
        return 0


def environment_file(env: Mapping[str, str]) -> bytes:
    """NUL-separated ``NAME=value`` entries, in the bytes the job is to get.

    A NUL inside an entry, or a ``=`` or nothing as a name, would change what the job
    gets (a value could smuggle in another variable): such a variable is refused.
    """
    for name, value in env.items():
        if not name or "=" in name or "\0" in name or "\0" in value:
            raise SetupError(FAILED_BEFORE_JOB,
                             f"can't pass environment variable {name!r} to the job")
    return b"".join(os.fsencode(f"{name}={value}") + b"\0" for name, value in env.items())


# ---- planning: what to run, where, with which environment ---------------------------


@dataclass
class TaskPlan:
    """Everything needed to start one task, worked out before anything is written."""

    job_id: int
    task_id: int
    queue: str
    owner: Owner
    argv: list[str]
    env: dict[str, str]
    workdir: str
    shell: str
    stdin: str
    stdout: str
    stderr: str
    merge: bool
    spool: Path
    tmpdir: Path
    script_path: Path | None
    script: str
    pe_hostfile: str
    h_rt: float
    s_rt: float
    pe_task: str = ""
    interactive: bool = False


def plan_task(
    start: StartTask, *, host: str, spool_dir: Path, root: str, owner: Owner
) -> TaskPlan:
    """Decide paths, command line and environment of a task from its StartTask.

    HOME, and the working directory without -cwd/-wd, are the owner's home on this host
    as Grid Engine has them (the submitter's is SGE_O_HOME). A PE task (qrsh -inherit)
    runs its command words as a -b y job's, joined into the text of ``SHELL -c``, in the
    directory qrsh ran in, with the job's TMPDIR on this host; qlogin and qrsh without a command
    run the owner's login shell.
    """
    job, spec, task_id = start.job, start.job.spec, start.task_id
    home = owner.home
    workdir = spec.cwd or home
    cluster_queue = start.queue.partition("@")[0]
    pseudo = {"HOME": home, "USER": spec.owner, "JOB_ID": str(job.job_id),
              "JOB_NAME": spec.name, "HOSTNAME": host,
              "TASK_ID": str(task_id) if job.is_array else "undefined"}
    suffix = f"{job.job_id}.{task_id}" if job.is_array else str(job.job_id)
    stdout = output_path(spec.stdout_path, host, workdir, f"{spec.name}.o{suffix}", pseudo)
    stderr = stdout if spec.merge else output_path(
        spec.stderr_path, host, workdir, f"{spec.name}.e{suffix}", pseudo)
    shell = spec.shell or start.shell
    script_path = None if spec.binary else spool_dir / "job_scripts" / str(job.job_id)
    if script_path is None and spec.noshell:  # -shell n: the command itself, found on PATH
        argv = list(spec.command)
    elif script_path is None:
        argv = [shell, "-c", binary_command_line(spec.command)]
    else:
        argv = [shell, str(script_path), *spec.args]
    tmpdir = Path(start.tmpdir) / f"{job.job_id}.{task_id or 1}.{cluster_queue}"
    if start.pe_task:
        argv, script_path = [shell, "-c", binary_command_line(start.command)], None
        workdir = start.cwd or workdir
    elif spec.interactive and not spec.command:
        argv, script_path = [owner.shell, "-l"], None
    interactive = bool(session_key(start))
    plan = TaskPlan(
        job_id=job.job_id, task_id=task_id, queue=start.queue, owner=owner, argv=argv, env={},
        workdir=workdir, shell=shell,
        stdin="/dev/null" if interactive or start.pe_task else spec.stdin_path or "/dev/null",
        stdout=stdout, stderr=stderr, merge=spec.merge and not interactive,
        spool=task_dir(spool_dir, job.job_id, task_id, start.pe_task), tmpdir=tmpdir,
        script_path=script_path, script=spec.script if script_path else "",
        pe_hostfile=_pe_hostfile(start), h_rt=start.h_rt, s_rt=start.s_rt,
        pe_task=start.pe_task, interactive=interactive)
    plan.env = _environment(start, plan, host=host, root=root, home=home)
    return plan


def _environment(
    start: StartTask, plan: TaskPlan, *, host: str, root: str, home: str
) -> dict[str, str]:
    """The job's -v/-V variables (a PE task's qrsh -V ones over them), then Grid Engine's;
    nothing of execd's own environment, which is not the owner's to see (nor to be
    steered by: LD_PRELOAD, PYTHONPATH...). PATH has the cell's $SGE_ROOT/bin/$ARC after
    TMPDIR, so that the job's q* commands are the cell's: Open MPI looks for qrsh on PATH
    before $SGE_ROOT/bin/$ARC, and another qrsh there (an installed Grid Engine) would win."""
    job, spec = start.job, start.job.spec
    env = {**spec.env, **start.env}  # a PE task's qrsh -V environment over the job's
    arc = arch_name()
    job_script = str(plan.script_path) if plan.script_path else (spec.command or [""])[0]
    name = PE_TASK_NAME if start.pe_task else spec.name
    env.update({
        "HOME": home, "USER": spec.owner, "LOGNAME": spec.owner, "SHELL": plan.shell,
        "JOB_ID": str(job.job_id), "JOB_NAME": name, "JOB_SCRIPT": job_script,
        "REQUEST": name, "QUEUE": start.queue.partition("@")[0], "HOSTNAME": host,
        "NSLOTS": str(sum(slots for _, slots in start.granted)),
        "NHOSTS": str(len({instance.partition("@")[2] for instance, _ in start.granted})),
        "NQUEUES": str(len(start.granted)), "RESTARTED": "0", "ENVIRONMENT": "BATCH",
        "TMPDIR": str(plan.tmpdir), "TMP": str(plan.tmpdir),
        "SGE_ACCOUNT": spec.account, "ARC": arc, "SGE_ARCH": arc, **cell_variables(root),
        "SGE_JOB_SPOOL_DIR": str(plan.spool), "SGE_CWD_PATH": plan.workdir,
        "SGE_STDOUT_PATH": plan.stdout, "SGE_STDERR_PATH": plan.stderr,
        "SGE_STDIN_PATH": plan.stdin,
        "PATH": f"{plan.tmpdir}:{bin_dir(root, arc)}:{env.get('PATH') or DEFAULT_PATH}",
    })
    env.update(_task_range_env(spec.array, start.task_id))
    env.update(_submit_env(start))
    env.update(_interactive_env(start))
    env.update(_resource_map_env(start))
    if spec.pe_name:
        task = start.job.tasks.get(start.task_id)
        pe = (task.pe if task else "") or spec.pe_name
        env.update({"PE": pe, "PE_HOSTFILE": str(plan.spool / "pe_hostfile")})
    return env


def _resource_map_env(start: StartTask) -> dict[str, str]:
    """The RSMAP ids the task holds where it runs (its host's, then the global host's),
    as Open Cluster Scheduler names them, `SGE_HGR_gpu=0 1`; a complex named gpu also
    in CUDA_VISIBLE_DEVICES (`0,1`), which CUDA programs read to see only those."""
    task = start.job.tasks.get(start.task_id)
    if task is None or not task.resource_map:
        return {}
    host = start.queue.partition("@")[2]
    granted: dict[str, list[str]] = {}
    for where in (host, GLOBAL):
        for name, on, ids in task.resource_map:
            if on == where:
                granted.setdefault(name, []).extend(ids)
    env = {f"SGE_HGR_{name}": " ".join(ids) for name, ids in granted.items()}
    if "gpu" in granted:
        env["CUDA_VISIBLE_DEVICES"] = ",".join(granted["gpu"])
    return env


def session_key(start: StartTask) -> bytes:
    """The key of the qrsh a task's streams go to; b"" for a batch task. The master may
    name it in the StartTask or leave it in the job's spec (the job's own task)."""
    return start.session_key or (b"" if start.pe_task else start.job.spec.session_key)


def wants_pty(start: StartTask) -> bool:
    """Whether an interactive task runs on a pseudo-terminal (never a PE task)."""
    return not start.pe_task and (start.pty or start.job.spec.pty)


def _interactive_env(start: StartTask) -> dict[str, str]:
    """What 8.1.9 sets for a task whose streams go to a qrsh (qrsh, qlogin, qrsh
    -inherit): JOB_SCRIPT is QRSH (QLOGIN for qlogin), QRSH_COMMAND its command words
    (byte 0xff between them), and no stream paths (/dev/null)."""
    if start.pe_task:
        script, command = "QRSH", start.command
    elif start.job.spec.interactive:
        script, command = start.job.spec.interactive.upper(), start.job.spec.command
    else:
        return {}
    env = {"JOB_SCRIPT": script, "SGE_STDIN_PATH": "/dev/null",
           "SGE_STDOUT_PATH": "/dev/null", "SGE_STDERR_PATH": "/dev/null"}
    if command:
        env["QRSH_COMMAND"] = QRSH_WORD_SEPARATOR.join(command)
    return env


def _pe_hostfile(start: StartTask) -> str:
    """One ``host slots queue processors`` line per granted queue instance; "" without PE."""
    if not start.job.spec.pe_name:
        return ""
    return "".join(f"{instance.partition('@')[2]} {slots} {instance} UNDEFINED\n"
                   for instance, slots in start.granted)


def binary_command_line(argv: list[str]) -> str:
    """The ``SHELL -c`` text of a ``-b y`` job run by a shell: its words joined with
    blanks, as 8.1.9 joins them. Scripts pass words such as ``'$SGE_TASK_ID'`` to be
    expanded where the job runs; the price is that quoting is lost (``sh -c 'exit 7'``
    runs ``sh -c exit 7``, which exits 0): -shell n keeps the words as they are."""
    return " ".join(argv)


def output_path(
    entries: list[str], host: str, workdir: str, default_name: str, pseudo: Mapping[str, str]
) -> str:
    """Where -o or -e sends a stream on this host.

    Entries are ``[host:]path``: one naming this host wins, then one with no host, then
    the first. Pseudo variables are expanded, relative paths start at the working
    directory, and a directory gets the default file name inside it.
    """
    path = _path_for_host(entries, host)
    if not path:
        return os.path.join(workdir, default_name)
    path = os.path.join(workdir, _PSEUDO_VARIABLE.sub(lambda m: pseudo[m.group(1)], path))
    return os.path.join(path, default_name) if os.path.isdir(path) else path


def _path_for_host(entries: list[str], host: str) -> str:
    split = [_split_host(entry) for entry in entries]
    for wanted in (host, ""):
        for entry_host, path in split:
            if entry_host == wanted:
                return path
    return split[0][1] if split else ""


def _split_host(entry: str) -> tuple[str, str]:
    prefix, sep, path = entry.partition(":")
    if not sep or "/" in prefix:
        return "", entry
    return prefix, path


def _task_range_env(array: tuple[int, int, int] | None, task_id: int) -> dict[str, str]:
    names = ("SGE_TASK_ID", "SGE_TASK_FIRST", "SGE_TASK_LAST", "SGE_TASK_STEPSIZE")
    values = ("undefined",) * 4 if array is None else (task_id, *array)
    return {name: str(value) for name, value in zip(names, values, strict=True)}


def _submit_env(start: StartTask) -> dict[str, str]:
    """The SGE_O_* variables: the submitter's side, only those qsub recorded."""
    spec = start.job.spec
    submitted = {"HOME": spec.o_home, "HOST": spec.submit_host, "PATH": spec.o_path,
                 "SHELL": spec.o_shell, "WORKDIR": spec.o_workdir, "LOGNAME": spec.o_logname,
                 "MAIL": spec.o_mail, "TZ": spec.o_tz}
    return {f"SGE_O_{name}": value for name, value in submitted.items() if value}


# ---- running -------------------------------------------------------------------------


@dataclass(eq=False)
class RunningTask:
    """A task under a shepherd: what execd knows of it and what ended or measured it."""

    state: ActiveTask
    directory: Path  # the task's spool directory
    # Set when the shepherd is this execd's child (reaped here), not one taken over; kept
    # so that Popen never reaps it.
    process: subprocess.Popen[bytes] | None = None
    pidfd: int = -1  # the shepherd's, once known
    notify: int = -1  # read end of the pipe the shepherd closes once job.json is written
    job_pid: int = 0  # leader of the job's session and process group, once it runs
    start_time: float = 0.0  # wall clock, from the shepherd
    failed: int = 0
    # Sampled from the job's process tree (see tree_sample).
    maxvmem: int = 0
    vmem: int = 0
    cpu: float = 0.0
    io: int = 0
    mem: float = 0.0  # GiB seconds: vmem integrated over the samples

    @property
    def key(self) -> Key:
        return self.state.job_id, self.state.task_id, self.state.pe_task

    def sample(self, now: TreeSample, elapsed: float) -> None:
        """Take in a sample of the tree, `elapsed` seconds after the last. Processes that
        leave the tree take their cpu and io along: the counts never go back."""
        self.vmem = now.vmem
        self.maxvmem = max(self.maxvmem, now.vmem, now.peak)
        self.cpu = max(self.cpu, now.cpu)
        self.io = max(self.io, now.io)
        self.mem += now.vmem / _GIB * elapsed

    def usage(self, now: float) -> Usage:
        """What the task has used until `now` (the wall clock), as the samples tell
        (qstat's online usage)."""
        return Usage(wallclock=max(0.0, now - self.start_time), utime=self.cpu,
                     mem=self.mem, io=float(self.io), vmem=float(self.vmem),
                     maxvmem=float(self.maxvmem))

    def kill(self, failed: int = FAILED_AFTER_JOB) -> None:
        """SIGKILL the job's process group; the first cause recorded is the one reported.

        The cause is written down first, so that an execd that dies right after still
        reports it. A kill before the job runs is carried out once it does.
        """
        if not self.failed:
            self.failed = failed
            with contextlib.suppress(OSError):
                (self.directory / KILLED).write_text(f"{failed}\n")
        self.signal(signal.SIGKILL)

    def signal(self, signum: int) -> None:
        """The group id stays the job's until the shepherd reaps the leader, and the
        shepherd exits right after: execd stops signalling when it sees that exit."""
        if not self.job_pid:
            return
        try:
            os.killpg(self.job_pid, signum)
        except ProcessLookupError:
            pass

    def close(self) -> None:
        for fd in (self.pidfd, self.notify):
            if fd >= 0:
                trio.lowlevel.notify_closing(fd)  # trio must forget the fd before reuse
                os.close(fd)
        self.pidfd = self.notify = -1


class TaskRunner:
    """Runs the tasks of one execd host and lets qdel reach them while they run."""

    def __init__(
        self,
        host: str,
        spool_dir: Path,
        root: str,
        *,
        vmem_interval: float = 1.0,
        shepherd: Sequence[str] | None = None,
        wall: Wall = SYSTEM,
    ) -> None:
        """`wall`: the clock of the reports' times and of the limits, which count from
        the job's start as its shepherd wrote it (see gridd.actors.clock)."""
        self.host = host
        self.spool_dir = spool_dir
        self.root = root
        self.uid = os.geteuid()  # root runs jobs as their owners; anyone else only its own
        self.user = _user_name(self.uid)
        self.vmem_interval = vmem_interval
        self.wall = wall
        self.shepherd = list(shepherd or [str(shepherd_program.PROGRAM)])
        self._running: dict[Key, RunningTask] = {}
        self._script_users: dict[int, int] = {}
        self._tmpdir_users: dict[str, int] = {}  # a job's TMPDIR here: tasks using it
        # (job, task) to keep stopped (suspended), its PE tasks here with it
        self._stopped: set[tuple[int, int]] = set()

    def running(self) -> list[Key]:
        """The tasks with a live shepherd followed here."""
        return list(self._running)

    def usage(self) -> list[tuple[int, int, Usage]]:
        """What each task whose job runs has used so far (a PE task's is in its report)."""
        now = self.wall()
        return [(job_id, task_id, task.usage(now))
                for (job_id, task_id, pe_task), task in self._running.items()
                if task.job_pid and not pe_task]

    def kill(self, job_id: int, task_id: int, pe_task: str = "") -> bool:
        """qdel: kill a PE task, or a task and its PE tasks here; False when none of them
        runs here."""
        killed = False
        for key, task in list(self._running.items()):
            if key[:2] == (job_id, task_id) and (not pe_task or key[2] == pe_task):
                task.kill(FAILED_AFTER_JOB)
                killed = True
        return killed

    def signal(self, key: Key, signum: int) -> None:
        """A signal from a task's qrsh, for the task's process group."""
        task = self._running.get(key)
        if task is not None:
            task.signal(signum)

    def suspend(self, job_id: int, task_id: int, stop: bool) -> None:
        """Stop or continue a task's process groups (its PE tasks' too); a wish for a
        task not spawned yet is kept for when it is (the master may suspend a job that is
        still being sent)."""
        if stop:
            self._stopped.add((job_id, task_id))
        else:
            self._stopped.discard((job_id, task_id))
        for key, task in list(self._running.items()):
            if key[:2] == (job_id, task_id):
                task.signal(signal.SIGSTOP if stop else signal.SIGCONT)

    async def run_task(
        self,
        start: StartTask,
        on_started: OnStarted | None = None,
        streams: TaskStreams | None = None,
    ) -> TaskReport:
        """Run one task to its end; on_started gets the start time once the job runs.
        An interactive task's `streams` are execd's ends of its standard streams (see
        gridd.execd.streams): the job gets the others."""
        job_id, task_id, pe_task = key = (start.job.job_id, start.task_id, start.pe_task)
        if key in self._running:
            raise RuntimeError(f"task {_named(key)} is already running")
        try:
            if pe_task and not valid_pe_task(pe_task):
                raise SetupError(FAILED_BEFORE_JOB, f"not a PE task id: {pe_task!r}")
            if pe_task and not start.command:
                raise SetupError(FAILED_BEFORE_JOB, f"PE task {pe_task} has no command")
            owner = self.owner(start.job.spec.owner)
        except SetupError as exc:
            if streams is not None:
                streams.close_child()
            if not pe_task:
                self._stopped.discard(key[:2])
            report = self._setup_report(key, exc.failed, exc.reason)
            if pe_task and not valid_pe_task(pe_task):
                return report  # no directory to keep it in; the master hears it all the same
            return self._finish(task_dir(self.spool_dir, *key), None, None, report)
        plan = plan_task(start, host=self.host, spool_dir=self.spool_dir, root=self.root,
                         owner=owner)
        try:
            task = self._launch(plan, streams)
        except SetupError as exc:
            if not pe_task:
                self._stopped.discard(key[:2])
            report = self._setup_report(key, exc.failed, exc.reason)
            return self._finish(plan.spool, plan.tmpdir, plan.script_path, report)
        finally:
            if streams is not None:
                streams.close_child()
        return await self._follow(task, on_started)

    def owner(self, name: str) -> Owner:
        """Whom a job of ``name`` runs as here: that user's passwd entry on this host, which
        only a root execd may take on; any other execd runs jobs of its own user only."""
        try:
            entry = pwd.getpwnam(name)
        except (KeyError, ValueError):  # unknown; a NUL in the name is a ValueError
            entry = None
        if self.uid != 0 and (entry is None or entry.pw_uid != self.uid):
            raise SetupError(FAILED_BEFORE_JOB,
                             f'execd runs as "{self.user}" and cannot run jobs of "{name}"')
        if entry is None:  # in 8.1.9's words, which qstat -j shows of the job in error
            text = (f'can\'t get password entry for user "{name}". Either user does not '
                    "exist or error with NIS/LDAP etc.")
            raise SetupError(FAILED_NO_OWNER, text, reason=text)
        return Owner(name=entry.pw_name, uid=entry.pw_uid, gid=entry.pw_gid,
                     groups=tuple(os.getgrouplist(entry.pw_name, entry.pw_gid)),
                     home=entry.pw_dir, shell=entry.pw_shell or "/bin/sh")

    # -- taking over after a restart

    def recover(self) -> list[ActiveTask]:
        """Sort out what an earlier execd left in the spool; return the tasks to resume.

        Call once, before any task is started here. Tasks that ended meanwhile (or whose
        shepherd died) get their report written now, for ``load_pending_reports``; tasks
        whose shepherd still runs are returned, to be followed with ``resume``.
        """
        alive, ended = [], []
        for directory in _task_dirs(self.spool_dir):
            if (directory / REPORT).exists():
                continue
            state = _read_json(directory / STATE, ActiveTask)
            if state is None:  # written before any shepherd starts: none ever ran
                shutil.rmtree(directory, ignore_errors=True)
            elif shepherd_alive(directory):
                alive.append(state)
            else:
                ended.append((directory, state))
        for state in [*alive, *(state for _, state in ended)]:
            self._count_users(state)
        for directory, state in ended:
            started = _read_json(directory / STARTED, JobStarted)
            if started is None and not (directory / ENDED).exists():
                self._drop(directory, state)  # never started: the master sends it again
                continue
            task = RunningTask(state=state, directory=directory,
                               failed=_read_killed(directory))
            if started is not None:
                task.job_pid, task.start_time = started.job_pid, started.start_time
            self._conclude(task)
        return alive

    def _drop(self, directory: Path, state: ActiveTask) -> None:
        log.info("task %s never started; left for the master to send again",
                 _named((state.job_id, state.task_id, state.pe_task)))
        shutil.rmtree(directory, ignore_errors=True)
        self._release_tmpdir(Path(state.tmpdir) if state.tmpdir else None)
        self._release_script(state.job_id, Path(state.script) if state.script else None)

    async def resume(
        self,
        state: ActiveTask,
        on_started: OnStarted | None = None,
    ) -> TaskReport:
        """Follow a task that ``recover`` found running to its end, as ``run_task`` would.

        An interactive task is killed: its streams went with the execd that started it,
        and nobody could reach it any more."""
        directory = task_dir(self.spool_dir, state.job_id, state.task_id, state.pe_task)
        task = RunningTask(state=state, directory=directory,
                           failed=_read_killed(directory))
        if state.interactive:
            log.info("task %s was interactive: its session is gone, it is killed",
                     _named(task.key))
            task.kill(FAILED_AFTER_JOB)  # carried out as soon as its pid is known
        return await self._follow(task, on_started)

    # -- start

    def _launch(self, plan: TaskPlan, streams: TaskStreams | None) -> RunningTask:
        """Start the task's shepherd; every file a restarted execd needs comes first."""
        self._prepare_files(plan)
        if streams is not None and self.uid == 0:
            try:
                streams.give_terminal(plan.owner.uid, plan.owner.gid)
            except OSError as exc:
                raise SetupError(FAILED_BEFORE_JOB, f"can't prepare terminal: {exc}") from None
        environment = environment_file(plan.env)
        owner = plan.owner
        child = streams.child if streams is not None else []
        config = ShepherdConfig(user=owner.name, uid=owner.uid, gid=owner.gid,
                                groups=owner.groups, cwd=plan.workdir, stdin=plan.stdin,
                                stdout=plan.stdout, stderr=plan.stderr, merge=plan.merge,
                                fds=child, tty=streams is not None and streams.pty)
        state = ActiveTask(job_id=plan.job_id, task_id=plan.task_id, queue=plan.queue,
                           h_rt=plan.h_rt, s_rt=plan.s_rt, tmpdir=str(plan.tmpdir),
                           script=str(plan.script_path or ""), pe_task=plan.pe_task,
                           interactive=streams is not None)
        lock = notify_read = notify_write = -1
        try:
            for stale in (STARTED, ENDED, KILLED, REPORT):
                (plan.spool / stale).unlink(missing_ok=True)
            _write_file(plan.spool / ENVIRONMENT, environment, 0o600)
            _write_file(plan.spool / CONFIG, shepherd_program.config_entries(
                msgspec.structs.asdict(config)), 0o644)
            lock = os.open(plan.spool / LOCK, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
            _write_json(plan.spool / STATE, state)
            notify_read, notify_write = os.pipe()
            # The shepherd's own environment stays empty: the job's is in ENVIRONMENT. Its
            # stderr is execd's, for a traceback; the job's streams it opens as the owner.
            process = subprocess.Popen(
                [*self.shepherd, str(plan.spool), str(lock), str(notify_write), "--",
                 *plan.argv],
                stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, cwd=plan.spool,
                env={}, start_new_session=True,
                pass_fds=(lock, notify_write, *sorted(set(child) - {-1})))
        except (OSError, ValueError) as exc:  # ValueError: a NUL byte in an argument
            if notify_read >= 0:
                os.close(notify_read)
            (plan.spool / STATE).unlink(missing_ok=True)
            raise SetupError(FAILED_BEFORE_JOB, f"can't start shepherd: {exc}") from None
        finally:
            for fd in {lock, notify_write} - {-1}:
                os.close(fd)
        return RunningTask(state=state, directory=plan.spool, process=process,
                           pidfd=os.pidfd_open(process.pid), notify=notify_read)

    def _prepare_files(self, plan: TaskPlan) -> None:
        """What execd makes for a task before its shepherd starts. The shell, working
        directory and standard streams are checked and opened by the job's own process,
        as its owner (see the shepherd)."""
        self._acquire_script(plan)
        try:
            plan.spool.mkdir(mode=0o755, parents=True, exist_ok=True)
            if plan.pe_hostfile:
                _write_file(plan.spool / "pe_hostfile", plan.pe_hostfile.encode(), 0o644)
            self._acquire_tmpdir(plan)
        except OSError as exc:
            raise SetupError(FAILED_BEFORE_JOB, f"can't prepare job: {exc}") from None

    def _acquire_tmpdir(self, plan: TaskPlan) -> None:
        """A job's tasks on this host share its TMPDIR, as in Grid Engine (the task and
        its PE tasks): the first makes it, the last to end removes it."""
        users = self._tmpdir_users.get(str(plan.tmpdir), 0)
        if not users:
            self._make_tmpdir(plan.tmpdir, plan.owner)
        self._tmpdir_users[str(plan.tmpdir)] = users + 1

    def _release_tmpdir(self, tmpdir: Path | None) -> None:
        if tmpdir is None:
            return
        users = self._tmpdir_users.pop(str(tmpdir), 1) - 1
        if users > 0:
            self._tmpdir_users[str(tmpdir)] = users
        else:
            shutil.rmtree(tmpdir, ignore_errors=True)

    def _make_tmpdir(self, path: Path, owner: Owner) -> None:
        """TMPDIR, made anew for the owner. Whatever is at its path already is removed
        first: in a directory all may write to (/tmp) someone else may have put it there,
        and it must not become the job's with its contents (TMPDIR leads the job's PATH)."""
        path.parent.mkdir(parents=True, exist_ok=True)
        try:
            os.mkdir(path, 0o755)
        except FileExistsError:
            if path.is_dir() and not path.is_symlink():
                shutil.rmtree(path)
            else:
                path.unlink()
            os.mkdir(path, 0o755)
        if self.uid == 0:
            os.chown(path, owner.uid, owner.gid, follow_symlinks=False)

    def _acquire_script(self, plan: TaskPlan) -> None:
        """Tasks of one array job share its script; the last one to end removes it. The
        copy is the owner's alone (mode 0700): others may not read it."""
        if plan.script_path is None:
            return
        self._script_users[plan.job_id] = self._script_users.get(plan.job_id, 0) + 1
        try:
            plan.script_path.parent.mkdir(mode=0o755, parents=True, exist_ok=True)
            _write_file(plan.script_path, plan.script.encode(errors="surrogateescape"), 0o700,
                        owner=plan.owner if self.uid == 0 else None)
        except OSError as exc:
            raise SetupError(FAILED_BEFORE_JOB, f"can't write job script: {exc}") from None

    def _count_users(self, state: ActiveTask) -> None:
        """A task taken over uses its job's script and TMPDIR, as one started here."""
        if state.script:
            self._script_users[state.job_id] = self._script_users.get(state.job_id, 0) + 1
        if state.tmpdir:
            self._tmpdir_users[state.tmpdir] = self._tmpdir_users.get(state.tmpdir, 0) + 1

    def _release_script(self, job_id: int, script_path: Path | None) -> None:
        if script_path is None:
            return
        users = self._script_users.pop(job_id, 1) - 1
        if users > 0:
            self._script_users[job_id] = users
        else:
            script_path.unlink(missing_ok=True)

    # -- while it runs

    async def _follow(
        self, task: RunningTask, on_started: OnStarted | None
    ) -> TaskReport:
        """Wait for the job to start and end, then report it (a task of either origin)."""
        key = task.key
        self._running[key] = task
        try:
            if await self._job_started(task):
                if on_started is not None:
                    await on_started(task.start_time)
                await self._supervise(task)
            else:
                await self._shepherd_exit(task)
        finally:
            del self._running[key]
            if not key[2]:  # the task's end ends the wish; a PE task's does not
                self._stopped.discard(key[:2])
            task.close()
        return self._conclude(task)

    async def _job_started(self, task: RunningTask) -> bool:
        """Learn the job's pid and start time from job.json; False if it never started.

        An own shepherd closes the notification pipe once job.json is written (or dies);
        one taken over writes it within moments of its start, so a short poll will do.
        """
        directory = task.directory
        if task.notify >= 0:
            while True:
                await trio.lowlevel.wait_readable(task.notify)
                if not os.read(task.notify, 64):
                    break
            started = _read_json(directory / STARTED, JobStarted)
        else:
            while (started := _read_json(directory / STARTED, JobStarted)) is None:
                if not shepherd_alive(directory):
                    break
                await trio.sleep(ADOPT_POLL)
            if started is not None and task.pidfd < 0:
                task.pidfd = _follow_shepherd(started.shepherd_pid, directory)
        if started is None:
            return False
        task.job_pid, task.start_time = started.job_pid, started.start_time
        if task.failed:
            task.signal(signal.SIGKILL)
        elif task.key[:2] in self._stopped:
            task.signal(signal.SIGSTOP)
        return True

    async def _supervise(self, task: RunningTask) -> None:
        """Wait for the shepherd to exit while limits and memory sampling run beside it.

        Limits count from the job's start on the wall clock, so that they hold across
        an execd restart; a warning that fell due while no execd ran is not sent late.
        """
        state = task.state
        # The wall clock read first: the trio clock read after it is as late or later, so
        # a limit converted from wall to trio time never falls due early.
        wall = self.wall()
        now = trio.current_time()

        def due(after: float) -> float:
            return now + task.start_time + after - wall

        async with trio.open_nursery() as nursery:
            if state.h_rt:
                nursery.start_soon(_at, due(state.h_rt), task.kill, FAILED_LIMIT)
            if (state.s_rt and not (state.h_rt and state.s_rt >= state.h_rt)
                    and (task.process is not None or due(state.s_rt) > now)):
                # s_rt only warns; the job decides whether to stop.
                nursery.start_soon(_at, due(state.s_rt), task.signal, signal.SIGUSR1)
            nursery.start_soon(self._sample_usage, task)
            await self._shepherd_exit(task)
            nursery.cancel_scope.cancel()

    async def _shepherd_exit(self, task: RunningTask) -> None:
        if task.pidfd >= 0:
            await trio.lowlevel.wait_readable(task.pidfd)
        if task.process is not None:
            _, status = os.waitpid(task.process.pid, 0)
            task.process.returncode = os.waitstatus_to_exitcode(status)

    async def _sample_usage(self, task: RunningTask) -> None:
        last = trio.current_time()
        while True:
            await trio.sleep(self.vmem_interval)
            now = trio.current_time()
            task.sample(tree_sample(task.job_pid), now - last)
            last = now

    # -- end

    def _conclude(self, task: RunningTask) -> TaskReport:
        """The report of a task whose shepherd is gone, from what it recorded."""
        state = task.state
        ended = _read_json(task.directory / ENDED, JobEnded)
        if ended is not None and ended.error:  # the shepherd's words, stamped as 8.1.9's
            report = self._setup_report(task.key, ended.failed, ended.error)
        elif ended is not None:
            report = self._exit_report(task, ended)
        elif not task.job_pid:
            report = self._setup_report(task.key, FAILED_BEFORE_JOB,
                                        f"{FAILED_REASONS[FAILED_BEFORE_JOB]}: the shepherd "
                                        "ended before starting the job")
        else:
            report = self._lost_report(task)
        script = Path(state.script) if state.script else None
        return self._finish(task.directory, Path(state.tmpdir) if state.tmpdir else None,
                            script, report)

    def _lost_report(self, task: RunningTask) -> TaskReport:
        """The job ran, but its shepherd died without recording how it ended."""
        killed = _kill_orphan(task.directory, task.job_pid)
        log.warning("task %s: its shepherd died without recording the job's end%s",
                    _named(task.key), "; the job was killed" if killed else "")
        now = self.wall()
        reason = (f"{FAILED_REASONS[FAILED_NO_EXIT_STATUS]}: the shepherd ended without "
                  "recording how the job ended")
        return TaskReport(
            job_id=task.state.job_id, task_id=task.state.task_id, host=self.host,
            start_time=task.start_time, end_time=now, exit_status=137 if killed else 0,
            failed=FAILED_NO_EXIT_STATUS, failed_reason=reason,
            signal="SIGKILL" if killed else "", pe_task=task.state.pe_task,
            usage=Usage(wallclock=max(0.0, now - task.start_time), utime=task.cpu,
                        mem=task.mem, io=float(task.io), maxvmem=float(task.maxvmem)))

    def _exit_report(self, task: RunningTask, ended: JobEnded) -> TaskReport:
        exit_status, signal_name = _exit_status(ended.status)
        usage = msgspec.structs.replace(ended.usage, wallclock=ended.end_time - ended.start_time,
                                        maxvmem=float(task.maxvmem), mem=task.mem,
                                        io=float(task.io))
        return TaskReport(
            job_id=task.state.job_id, task_id=task.state.task_id, host=self.host,
            start_time=ended.start_time, end_time=ended.end_time, exit_status=exit_status,
            failed=task.failed, failed_reason=FAILED_REASONS.get(task.failed, ""),
            signal=signal_name, usage=usage, pe_task=task.state.pe_task)

    def _setup_report(self, key: Key, failed: int, reason: str) -> TaskReport:
        """A task that never started: start time 0, as qacct then prints ``-/-``. The
        reason goes to the master with the report (qstat -j shows it of a job it put in
        error state) and to execd's log."""
        log.warning("task %s failed before its job started: %s", _named(key), reason)
        job_id, task_id, pe_task = key
        return TaskReport(
            job_id=job_id, task_id=task_id, host=self.host, start_time=0.0,
            end_time=self.wall(), exit_status=0, failed=failed, failed_reason=reason,
            pe_task=pe_task)

    def _finish(
        self, directory: Path, tmpdir: Path | None, script: Path | None, report: TaskReport
    ) -> TaskReport:
        """Persist the report before anything else so that a crash cannot lose it.

        If it cannot be written the report is still returned: the master hearing of the
        task matters more than surviving a crash that may never come.
        """
        with contextlib.suppress(OSError):
            directory.mkdir(parents=True, exist_ok=True)
            _write_json(directory / REPORT, report)
        self._release_tmpdir(tmpdir)
        self._release_script(report.job_id, script)
        return report


def _named(key: Key) -> str:
    """A task as the log names it: 23.1, or 23.1 PE task 1.node2."""
    job_id, task_id, pe_task = key
    return f"{job_id}.{task_id}" + (f" PE task {pe_task}" if pe_task else "")


def _user_name(uid: int) -> str:
    """execd's own user as refusals name it; a uid without a passwd entry by its number."""
    try:
        return pwd.getpwuid(uid).pw_name
    except KeyError:
        return str(uid)


def _follow_shepherd(pid: int, directory: Path) -> int:
    """A pidfd of a shepherd taken over, or -1 when it is gone.

    The lock checked after the pidfd is open proves the pid was still the shepherd's:
    a process that holds the lock then was alive when the pidfd was made.
    """
    try:
        pidfd = os.pidfd_open(pid)
    except OSError:
        return -1
    if shepherd_alive(directory):
        return pidfd
    os.close(pidfd)
    return -1


def _kill_orphan(directory: Path, job_pid: int) -> bool:
    """Kill a job that outlived its shepherd, if that pid is still the job's.

    The job's environment names its spool directory: a process with that pid which
    does not carry it is someone else's, and is left alone.
    """
    marker = b"\0SGE_JOB_SPOOL_DIR=" + os.fsencode(directory) + b"\0"
    try:
        environ = Path(f"/proc/{job_pid}/environ").read_bytes()
    except OSError:
        return False
    if marker not in b"\0" + environ:
        return False
    try:
        os.killpg(job_pid, signal.SIGKILL)
    except ProcessLookupError:
        return False
    return True


async def _at(deadline: float, action: Callable[[int], None], arg: int) -> None:
    await trio.sleep_until(deadline)
    action(arg)


def _exit_status(status: int) -> tuple[int, str]:
    """Shell convention: a death by signal N is exit status 128 + N."""
    if os.WIFSIGNALED(status):
        number = os.WTERMSIG(status)
        return 128 + number, signal.Signals(number).name
    return os.waitstatus_to_exitcode(status), ""


# ---- memory sampling -------------------------------------------------------------------


def parse_vm(status_text: str) -> tuple[int, int]:
    """(VmSize, VmPeak) in bytes from a /proc/<pid>/status text; zombies have neither."""
    values = {"VmSize": 0, "VmPeak": 0}
    for line in status_text.splitlines():
        key, _, rest = line.partition(":")
        if key in values:
            values[key] = int(rest.split()[0]) * 1024
    return values["VmSize"], values["VmPeak"]


class TreeSample(NamedTuple):
    vmem: int  # bytes, the tree's now
    peak: int  # bytes, the largest VmPeak of a process in it
    cpu: float  # seconds of user and system time, the reaped children's included
    io: int  # bytes read and written (rchar + wchar)


def tree_sample(pid: int) -> TreeSample:
    """What the process tree under pid uses now.

    Best effort: processes that left the tree (daemonised) are not seen, and a process
    that ends between two reads simply counts as nothing.
    """
    total = peak = io = 0
    ticks = 0
    pending = [pid]
    while pending:
        current = pending.pop()
        try:
            size, own_peak = parse_vm(Path(f"/proc/{current}/status").read_text())
            stat = Path(f"/proc/{current}/stat").read_text()
            children = Path(f"/proc/{current}/task/{current}/children").read_text()
        except OSError:
            continue
        total += size
        peak = max(peak, own_peak)
        ticks += cpu_ticks(stat)
        with contextlib.suppress(OSError):
            io += parse_io(Path(f"/proc/{current}/io").read_text())
        pending.extend(int(child) for child in children.split())
    return TreeSample(total, peak, ticks / _CLOCK_TICKS, io)


def cpu_ticks(stat_text: str) -> int:
    """utime + stime + cutime + cstime, in clock ticks, from a /proc/<pid>/stat text (the
    fields after the command, which may hold spaces and parentheses)."""
    fields = stat_text.rpartition(")")[2].split()
    return sum(int(value) for value in fields[11:15])


def parse_io(io_text: str) -> int:
    """rchar + wchar from a /proc/<pid>/io text."""
    total = 0
    for line in io_text.splitlines():
        key, _, value = line.partition(":")
        if key in ("rchar", "wchar"):
            total += int(value)
    return total

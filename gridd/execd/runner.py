"""Runs job tasks on an execution host the way Grid Engine's shepherd does, under trio.

One ``TaskRunner`` serves one execd. ``run_task`` prepares a task (environment, working
directory, output files, job script, TMPDIR), spawns it in a session and process group of
its own, enforces its run-time limits, measures what it used and returns its
``TaskReport``; ``kill`` is the qdel path.

Exits are awaited through a pidfd and reaped with ``os.wait4`` for the rusage, which is
both cheaper than ``trio.run_process`` and the only way to get the job's resource usage.

Every task has a directory ``<spool>/active_jobs/<job>.<task>/`` holding ``state.json``
while it runs and ``report.json`` once it ended, so a report outlives an execd crash
until the master acknowledges it (``forget``). Cancelling ``run_task`` abandons the task:
the job keeps running, as Grid Engine jobs survive an execd shutdown, and its state file
stays for a restarted execd to find with ``list_active``.

Jobs run as the execd's own user: there is no switch to the job owner's uid.
"""

from __future__ import annotations

import contextlib
import os
import re
import shlex
import shutil
import signal
import subprocess
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

import msgspec
import trio

from gridd.accounting.render import FAILED_REASONS
from gridd.execd.load import arch_name
from gridd.model.job import Usage
from gridd.protocol import StartTask, TaskReport

# Grid Engine's codes for the accounting "failed" field that execd sets (their words:
# render.FAILED_REASONS).
FAILED_BEFORE_JOB = 11
FAILED_OPEN_OUTPUT = 26
FAILED_NO_SHELL = 27
FAILED_NO_CWD = 28
FAILED_LIMIT = 37
FAILED_AFTER_JOB = 100

CELL = "default"
_S = TypeVar("_S", bound=msgspec.Struct)
_PSEUDO_VARIABLE = re.compile(r"\$(HOME|USER|JOB_ID|JOB_NAME|HOSTNAME|TASK_ID)")


class ActiveTask(msgspec.Struct, kw_only=True):
    """What a restarted execd needs to recognise a task it started earlier."""

    job_id: int
    task_id: int
    queue: str
    pid: int
    start_time: float
    h_rt: float = 0.0
    tmpdir: str = ""


class SetupError(Exception):
    """The task could not be started; ``failed`` is Grid Engine's code for the step."""

    def __init__(self, failed: int, detail: str) -> None:
        super().__init__(detail)
        self.failed = failed


# ---- spool files ------------------------------------------------------------------


def task_dir(spool_dir: Path, job_id: int, task_id: int) -> Path:
    """Grid Engine names a non-array task 1 (``23.1``); gridd's task 0 follows suit."""
    return spool_dir / "active_jobs" / f"{job_id}.{task_id or 1}"


def list_active(spool_dir: Path) -> list[ActiveTask]:
    """Tasks that were started here and have no final report yet."""
    found = []
    for directory in _task_dirs(spool_dir):
        if not (directory / "report.json").exists():
            state = _read_json(directory / "state.json", ActiveTask)
            if state is not None:
                found.append(state)
    return found


def load_pending_reports(spool_dir: Path) -> list[TaskReport]:
    """Reports of ended tasks that the master has not acknowledged yet."""
    reports = (_read_json(d / "report.json", TaskReport) for d in _task_dirs(spool_dir))
    return [report for report in reports if report is not None]


def forget(spool_dir: Path, job_id: int, task_id: int) -> None:
    """Drop everything kept for a task once the master holds its report durably."""
    shutil.rmtree(task_dir(spool_dir, job_id, task_id), ignore_errors=True)


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
    scratch = path.with_name(path.name + ".new")
    scratch.write_bytes(msgspec.json.encode(value))
    os.replace(scratch, path)


# ---- planning: what to run, where, with which environment ---------------------------


@dataclass
class TaskPlan:
    """Everything needed to start one task, worked out before anything is written."""

    job_id: int
    task_id: int
    queue: str
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


def plan_task(
    start: StartTask, *, host: str, spool_dir: Path, root: str, base_env: Mapping[str, str]
) -> TaskPlan:
    """Decide paths, command line and environment of a task from its StartTask."""
    job, spec, task_id = start.job, start.job.spec, start.task_id
    home = spec.o_home or base_env.get("HOME", "/")
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
    if script_path is None:
        argv = [shell, "-c", binary_command_line(spec.command)]
    else:
        argv = [shell, str(script_path), *spec.args]
    plan = TaskPlan(
        job_id=job.job_id, task_id=task_id, queue=start.queue, argv=argv, env={},
        workdir=workdir, shell=shell, stdin=spec.stdin_path or "/dev/null", stdout=stdout,
        stderr=stderr, merge=spec.merge, spool=task_dir(spool_dir, job.job_id, task_id),
        tmpdir=Path(start.tmpdir) / f"{job.job_id}.{task_id or 1}.{cluster_queue}",
        script_path=script_path, script=spec.script, pe_hostfile=_pe_hostfile(start),
        h_rt=start.h_rt, s_rt=start.s_rt)
    plan.env = _environment(start, plan, host=host, root=root, home=home, base_env=base_env)
    return plan


def _environment(
    start: StartTask, plan: TaskPlan, *, host: str, root: str, home: str,
    base_env: Mapping[str, str],
) -> dict[str, str]:
    """execd's own environment, then the job's -v/-V variables, then Grid Engine's."""
    job, spec = start.job, start.job.spec
    env = dict(base_env)
    env.update(spec.env)
    job_script = str(plan.script_path) if plan.script_path else (spec.command or [""])[0]
    env.update({
        "HOME": home, "USER": spec.owner, "LOGNAME": spec.owner, "SHELL": plan.shell,
        "JOB_ID": str(job.job_id), "JOB_NAME": spec.name, "JOB_SCRIPT": job_script,
        "REQUEST": spec.name, "QUEUE": start.queue.partition("@")[0], "HOSTNAME": host,
        "NSLOTS": str(sum(slots for _, slots in start.granted)),
        "NHOSTS": str(len({instance.partition("@")[2] for instance, _ in start.granted})),
        "NQUEUES": str(len(start.granted)), "RESTARTED": "0", "ENVIRONMENT": "BATCH",
        "TMPDIR": str(plan.tmpdir), "TMP": str(plan.tmpdir),
        "SGE_ACCOUNT": spec.account, "SGE_ARCH": arch_name(), "SGE_CELL": CELL,
        "SGE_ROOT": root, "SGE_JOB_SPOOL_DIR": str(plan.spool), "SGE_CWD_PATH": plan.workdir,
        "SGE_STDOUT_PATH": plan.stdout, "SGE_STDERR_PATH": plan.stderr,
        "SGE_STDIN_PATH": plan.stdin,
    })
    env.update(_task_range_env(spec.array, start.task_id))
    env.update(_submit_env(start))
    if spec.pe_name:
        task = start.job.tasks.get(start.task_id)
        pe = (task.pe if task else "") or spec.pe_name
        env.update({"PE": pe, "PE_HOSTFILE": str(plan.spool / "pe_hostfile")})
    return env


def _pe_hostfile(start: StartTask) -> str:
    """One ``host slots queue processors`` line per granted queue instance; "" without PE."""
    if not start.job.spec.pe_name:
        return ""
    return "".join(f"{instance.partition('@')[2]} {slots} {instance} UNDEFINED\n"
                   for instance, slots in start.granted)


def binary_command_line(argv: list[str]) -> str:
    """The ``sh -c`` text for a ``-b y`` job.

    Grid Engine joins argv with spaces, so ``sh -c 'exit 7'`` loses its quoting and exits 0.
    The arguments are quoted here; the command word stays as given, which keeps Grid
    Engine's behaviour for a single command string such as ``-b y 'exit 7'``.
    """
    if not argv:
        return ""
    return " ".join([argv[0], *(shlex.quote(arg) for arg in argv[1:])])


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
    """A spawned task: its process group and what ended or measured it so far."""

    plan: TaskPlan
    process: subprocess.Popen[bytes]
    pidfd: int
    start_time: float  # wall clock, for reports
    started_at: float  # trio clock, for limits
    failed: int = 0
    maxvmem: int = 0

    @property
    def pid(self) -> int:
        return self.process.pid

    def kill(self, failed: int = FAILED_AFTER_JOB) -> None:
        """SIGKILL the whole process group; the first cause recorded is the one reported."""
        self.failed = self.failed or failed
        self.signal(signal.SIGKILL)

    def signal(self, signum: int) -> None:
        """Safe until the leader is reaped: its zombie keeps the group id from being reused."""
        try:
            os.killpg(self.pid, signum)
        except ProcessLookupError:
            pass


class TaskRunner:
    """Runs the tasks of one execd host and lets qdel reach them while they run."""

    def __init__(
        self,
        host: str,
        spool_dir: Path,
        root: str,
        *,
        base_env: Mapping[str, str] | None = None,
        vmem_interval: float = 1.0,
    ) -> None:
        self.host = host
        self.spool_dir = spool_dir
        self.root = root
        self.base_env = dict(os.environ if base_env is None else base_env)
        self.vmem_interval = vmem_interval
        self._running: dict[tuple[int, int], RunningTask] = {}
        self._script_users: dict[int, int] = {}
        self._stopped: set[tuple[int, int]] = set()  # tasks to keep stopped (suspended)

    def running(self) -> list[tuple[int, int]]:
        """(job, task) pairs with a live process on this host."""
        return list(self._running)

    def kill(self, job_id: int, task_id: int) -> bool:
        """qdel: kill the task's process group; False when it is not running here."""
        task = self._running.get((job_id, task_id))
        if task is None:
            return False
        task.kill(FAILED_AFTER_JOB)
        return True

    def suspend(self, job_id: int, task_id: int, stop: bool) -> None:
        """Stop or continue a task's process group; a wish for a task not spawned yet is
        kept for when it is (the master may suspend a job that is still being sent)."""
        key = (job_id, task_id)
        if stop:
            self._stopped.add(key)
        else:
            self._stopped.discard(key)
        task = self._running.get(key)
        if task is not None:
            task.signal(signal.SIGSTOP if stop else signal.SIGCONT)

    async def run_task(
        self,
        start: StartTask,
        on_started: Callable[[float], Awaitable[None]] | None = None,
    ) -> TaskReport:
        """Run one task to its end; on_started gets the start time once it is spawned."""
        plan = plan_task(start, host=self.host, spool_dir=self.spool_dir, root=self.root,
                         base_env=self.base_env)
        key = (plan.job_id, plan.task_id)
        if key in self._running:
            raise RuntimeError(f"task {plan.job_id}.{plan.task_id} is already running")
        try:
            task = self._launch(plan)
        except SetupError as exc:
            self._stopped.discard(key)
            return self._finish(plan, self._setup_report(plan, exc))
        self._running[key] = task
        if key in self._stopped:
            task.signal(signal.SIGSTOP)
        try:
            if on_started is not None:
                await on_started(task.start_time)
            status, rusage = await self._supervise(task)
        finally:
            del self._running[key]
            self._stopped.discard(key)
            trio.lowlevel.notify_closing(task.pidfd)  # trio must forget the fd before reuse
            os.close(task.pidfd)
        return self._finish(plan, self._exit_report(task, status, rusage))

    # -- start

    def _launch(self, plan: TaskPlan) -> RunningTask:
        self._prepare_files(plan)
        streams = _open_streams(plan)
        try:
            process = subprocess.Popen(
                plan.argv, stdin=streams[0], stdout=streams[1], stderr=streams[2],
                cwd=plan.workdir, env=plan.env, start_new_session=True)
        except OSError as exc:
            raise SetupError(FAILED_BEFORE_JOB, f"can't start job: {exc}") from None
        finally:
            for fd in set(streams):
                os.close(fd)
        task = RunningTask(plan=plan, process=process, pidfd=os.pidfd_open(process.pid),
                           start_time=time.time(), started_at=trio.current_time())
        state = ActiveTask(job_id=plan.job_id, task_id=plan.task_id, queue=plan.queue,
                           pid=process.pid, start_time=task.start_time, h_rt=plan.h_rt,
                           tmpdir=str(plan.tmpdir))
        # Only a restarted execd needs the state file; a job that is running anyway must
        # not be orphaned because it could not be written.
        with contextlib.suppress(OSError):
            _write_json(plan.spool / "state.json", state)
        return task

    def _prepare_files(self, plan: TaskPlan) -> None:
        """Checks in the order Grid Engine's shepherd makes them, so failures match."""
        self._acquire_script(plan)
        try:
            plan.spool.mkdir(parents=True, exist_ok=True)
            if plan.pe_hostfile:
                (plan.spool / "pe_hostfile").write_text(plan.pe_hostfile)
            plan.tmpdir.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise SetupError(FAILED_BEFORE_JOB, f"can't prepare job: {exc}") from None
        if not os.access(plan.shell, os.X_OK):
            raise SetupError(FAILED_NO_SHELL, f"can't find shell {plan.shell!r}")
        if not os.path.isdir(plan.workdir):
            raise SetupError(FAILED_NO_CWD, f"can't chdir to {plan.workdir}")

    def _acquire_script(self, plan: TaskPlan) -> None:
        """Tasks of one array job share its script; the last one to end removes it."""
        if plan.script_path is None:
            return
        self._script_users[plan.job_id] = self._script_users.get(plan.job_id, 0) + 1
        scratch = plan.script_path.with_name(f"{plan.job_id}.{plan.task_id}.new")
        try:
            scratch.parent.mkdir(parents=True, exist_ok=True)
            scratch.write_text(plan.script, errors="surrogateescape")
            scratch.chmod(0o755)
            os.replace(scratch, plan.script_path)
        except OSError as exc:
            raise SetupError(FAILED_BEFORE_JOB, f"can't write job script: {exc}") from None

    def _release_script(self, plan: TaskPlan) -> None:
        if plan.script_path is None:
            return
        users = self._script_users.pop(plan.job_id) - 1
        if users:
            self._script_users[plan.job_id] = users
        else:
            plan.script_path.unlink(missing_ok=True)

    # -- while it runs

    async def _supervise(self, task: RunningTask) -> tuple[int, os.struct_rusage]:
        """Wait for the leader to exit while limits and memory sampling run beside it."""
        plan = task.plan
        async with trio.open_nursery() as nursery:
            if plan.h_rt:
                nursery.start_soon(_at, task.started_at + plan.h_rt, task.kill, FAILED_LIMIT)
            if plan.s_rt and not (plan.h_rt and plan.s_rt >= plan.h_rt):
                # s_rt only warns; the job decides whether to stop.
                nursery.start_soon(_at, task.started_at + plan.s_rt, task.signal, signal.SIGUSR1)
            nursery.start_soon(self._sample_vmem, task)
            await trio.lowlevel.wait_readable(task.pidfd)
            nursery.cancel_scope.cancel()
        task.signal(signal.SIGKILL)  # leftovers in the job's group, as Grid Engine kills them
        _, status, rusage = os.wait4(task.pid, 0)
        task.process.returncode = os.waitstatus_to_exitcode(status)  # so Popen never reaps
        return status, rusage

    async def _sample_vmem(self, task: RunningTask) -> None:
        while True:
            await trio.sleep(self.vmem_interval)
            task.maxvmem = max(task.maxvmem, tree_vmem(task.pid))

    # -- end

    def _exit_report(
        self, task: RunningTask, status: int, rusage: os.struct_rusage
    ) -> TaskReport:
        end_time = time.time()
        exit_status, signal_name = _exit_status(status)
        usage = Usage(
            wallclock=end_time - task.start_time, utime=rusage.ru_utime,
            stime=rusage.ru_stime, maxrss=float(rusage.ru_maxrss), minflt=rusage.ru_minflt,
            majflt=rusage.ru_majflt, inblock=rusage.ru_inblock, oublock=rusage.ru_oublock,
            nvcsw=rusage.ru_nvcsw, nivcsw=rusage.ru_nivcsw, maxvmem=float(task.maxvmem))
        return TaskReport(
            job_id=task.plan.job_id, task_id=task.plan.task_id, host=self.host,
            start_time=task.start_time, end_time=end_time, exit_status=exit_status,
            failed=task.failed, failed_reason=FAILED_REASONS.get(task.failed, ""),
            signal=signal_name, usage=usage)

    def _setup_report(self, plan: TaskPlan, exc: SetupError) -> TaskReport:
        """A task that never started: start time 0, as qacct then prints ``-/-``."""
        return TaskReport(
            job_id=plan.job_id, task_id=plan.task_id, host=self.host, start_time=0.0,
            end_time=time.time(), exit_status=0, failed=exc.failed,
            failed_reason=FAILED_REASONS[exc.failed])

    def _finish(self, plan: TaskPlan, report: TaskReport) -> TaskReport:
        """Persist the report before anything else so that a crash cannot lose it.

        If it cannot be written the report is still returned: the master hearing of the
        task matters more than surviving a crash that may never come.
        """
        with contextlib.suppress(OSError):
            plan.spool.mkdir(parents=True, exist_ok=True)
            _write_json(plan.spool / "report.json", report)
        shutil.rmtree(plan.tmpdir, ignore_errors=True)
        self._release_script(plan)
        return report


async def _at(deadline: float, action: Callable[[int], None], arg: int) -> None:
    await trio.sleep_until(deadline)
    action(arg)


def _open_streams(plan: TaskPlan) -> tuple[int, int, int]:
    """Opened by execd rather than the child, so a bad path fails before anything runs."""
    opened: list[int] = []
    try:
        opened.append(os.open(plan.stdin, os.O_RDONLY | os.O_CLOEXEC))
        for path in (plan.stdout,) if plan.merge else (plan.stdout, plan.stderr):
            flags = os.O_WRONLY | os.O_CREAT | os.O_APPEND | os.O_CLOEXEC
            opened.append(os.open(path, flags, 0o644))
    except OSError as exc:
        for fd in opened:
            os.close(fd)
        raise SetupError(FAILED_OPEN_OUTPUT, f"can't open {exc.filename}: {exc}") from None
    if plan.merge:
        opened.append(opened[1])
    return opened[0], opened[1], opened[2]


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


def tree_vmem(pid: int) -> int:
    """Virtual memory of the process tree under pid now, or the largest single peak.

    Best effort: processes that left the tree (daemonised) are not seen, and a process
    that ends between two reads simply counts as nothing.
    """
    total = peak = 0
    pending = [pid]
    while pending:
        current = pending.pop()
        try:
            size, own_peak = parse_vm(Path(f"/proc/{current}/status").read_text())
            children = Path(f"/proc/{current}/task/{current}/children").read_text()
        except OSError:
            continue
        total += size
        peak = max(peak, own_peak)
        pending.extend(int(child) for child in children.split())
    return max(total, peak)

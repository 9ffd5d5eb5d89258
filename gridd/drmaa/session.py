"""A DRMAA session over gridd's client: the state drmaa_init opens, and every call on jobs.

One session per process, as DRMAA has it. Calls may come from many threads: a blocking
wait holds a connection of its own from a small pool, so that another thread's
drmaa_control is not held up behind it.
"""

from __future__ import annotations

import os
import signal
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

from gridd import protocol as p
from gridd.client import REPLY_TIMEOUT, Client, GriddError, NoAnswer, Refused, current_user
from gridd.drmaa import codes as c
from gridd.drmaa.codes import DrmaaError
from gridd.drmaa.template import Template, qsub_words, with_environment
from gridd.formats.submitted import submitted_line
from gridd.model.job import JobSpec

DRM_SYSTEM = "SGE 8.1.9 (gridd)"  # programs take a system whose name starts with SGE as it
IMPLEMENTATION = "gridd DRMAA 1.0"
VERSION = (1, 0)

# drmaa_wait's stat, laid out as Grid Engine's: flags in the low bits, the exit status
# above them, the signal above that.
_EXITED, _SIGNALED, _CORE, _ABORTED = 1, 2, 4, 8
_CONTROL = {c.CONTROL_SUSPEND: "suspend", c.CONTROL_RESUME: "resume",
            c.CONTROL_HOLD: "hold", c.CONTROL_RELEASE: "release",
            c.CONTROL_TERMINATE: "delete"}  # -> Client.job_action
_INCONSISTENT = {c.CONTROL_SUSPEND: c.SUSPEND_INCONSISTENT_STATE,
                 c.CONTROL_RESUME: c.RESUME_INCONSISTENT_STATE,
                 c.CONTROL_HOLD: c.HOLD_INCONSISTENT_STATE,
                 c.CONTROL_RELEASE: c.RELEASE_INCONSISTENT_STATE,
                 c.CONTROL_TERMINATE: c.INTERNAL_ERROR}


def parse_job_id(job_id: str) -> tuple[int, int]:
    """(job, task) of a DRMAA job id: "12" (task 0: no array) or "12.3"."""
    job, _, task = job_id.partition(".")
    if job.isdigit() and (not task or task.isdigit()) and int(job) > 0:
        return int(job), int(task or 0)
    raise DrmaaError(c.INVALID_ARGUMENT, f'Job id, "{job_id}", is not a valid job id')


def job_id_text(key: tuple[int, int]) -> str:
    return f"{key[0]}.{key[1]}" if key[1] else str(key[0])


def aborted_run(ended: p.TaskEnded) -> bool:
    """Whether the task ended without its job running to its end: it never started, or
    failed to, or was deleted (qdel, drmaa_control's terminate), as Grid Engine counts it."""
    return not ended.ran or ended.deleted or ended.failed not in (0, 37, 100)


def stat_of(ended: p.TaskEnded) -> int:
    """drmaa_wait's stat: aborted, signaled (and the signal) or exited (and its status)."""
    if aborted_run(ended):
        return _ABORTED
    if ended.signal:
        return _SIGNALED | _signal_number(ended.signal) << 12
    return _EXITED | (ended.exit_status & 0xFF) << 4


def exited(stat: int) -> bool:
    return bool(stat & _EXITED)


def exit_status(stat: int) -> int:
    return stat >> 4 & 0xFF if stat & _EXITED else 0


def signaled(stat: int) -> bool:
    return bool(stat & _SIGNALED)


def term_signal(stat: int) -> str:
    if not stat & _SIGNALED:
        return ""
    try:
        return signal.Signals(stat >> 12).name
    except ValueError:
        return f"SIG{stat >> 12}"


def core_dumped(stat: int) -> bool:
    return bool(stat & _CORE)


def aborted(stat: int) -> bool:
    return bool(stat & _ABORTED)


def rusage(ended: p.TaskEnded) -> list[str] | None:
    """drmaa_wait's resource usage as name=value, Grid Engine's names in its order: a
    task that failed to start has the first eight, one that never started none."""
    u = ended.usage
    cpu = u.utime + u.stime
    values: dict[str, float] = {
        "io": u.io, "iow": 0.0, "mem": u.mem, "cpu": cpu, "vmem": u.vmem,
        "maxvmem": u.maxvmem, "submission_time": ended.submit_time,
        "priority": ended.priority,
    }
    if not ended.ran:
        return [_entry(k, v) for k, v in values.items()] if ended.failed else None
    values.update({
        "exit_status": ended.exit_status, "signal": _signal_number(ended.signal),
        "start_time": ended.start_time, "end_time": ended.end_time,
        "ru_wallclock": u.wallclock, "ru_utime": u.utime, "ru_stime": u.stime,
        "ru_maxrss": u.maxrss, "ru_ixrss": 0, "ru_ismrss": 0, "ru_idrss": 0, "ru_isrss": 0,
        "ru_minflt": u.minflt, "ru_majflt": u.majflt, "ru_nswap": 0,
        "ru_inblock": u.inblock, "ru_oublock": u.oublock, "ru_msgsnd": 0, "ru_msgrcv": 0,
        "ru_nsignals": 0, "ru_nvcsw": u.nvcsw, "ru_nivcsw": u.nivcsw, "acct_cpu": cpu,
        "acct_mem": u.mem, "acct_io": u.io, "acct_iow": 0.0, "acct_maxvmem": u.maxvmem,
    })
    return [_entry(k, v) for k, v in values.items()]


def _entry(name: str, value: float) -> str:
    return f"{name}={float(value):.4f}"


def _signal_number(name: str) -> int:
    try:
        return signal.Signals[name].value if name else 0
    except KeyError:
        return 0


class Session:
    """The process's DRMAA session: closed until init, closed again by exit."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.active = False
        self.contact = ""  # "session=HOST.PID.N", as Grid Engine names its sessions
        self.root = ""  # the cell's directory; "" the default one
        self.jobs: set[tuple[int, int]] = set()  # submitted here, not yet reaped by wait
        # Reaped by wait (or a disposing synchronize): to wait or job_ps they no longer
        # exist, as in Grid Engine, though the master still remembers how they ended.
        self.reaped: set[tuple[int, int]] = set()
        self._idle: list[Client] = []
        self._busy: set[Client] = set()  # in a call now: exit interrupts them
        self._sessions = 0

    # ---- the session ---------------------------------------------------------------

    def init(self, contact: str | None) -> None:
        """Open the session. `contact`: none for the default cell, a contact this
        library gave ("session=..."), or the directory of a cell."""
        with self._lock:
            if self.active:
                raise DrmaaError(c.ALREADY_ACTIVE_SESSION)
            root = ""
            if contact and not contact.startswith("session="):
                if not os.path.isfile(os.path.join(contact, "common", "master_endpoint")):
                    raise DrmaaError(c.INVALID_ARGUMENT,
                                     f'"{contact}" is neither a DRMAA session ("session=...") '
                                     "nor the directory of a running gridd cell")
                root = contact
            self.root = root
            try:
                client = Client(root or None)
                client.ping()
            except GriddError as exc:
                raise DrmaaError(c.DRM_COMMUNICATION_FAILURE if root else
                                 c.DEFAULT_CONTACT_STRING_ERROR, exc.text) from None
            self._sessions += 1
            self.contact = (contact if contact and not root else
                            f"session={os.uname().nodename}.{os.getpid()}.{self._sessions}")
            self._idle.append(client)
            self.active = True
            self.jobs = set()
            self.reaped = set()

    def exit(self) -> None:
        with self._lock:
            if not self.active:
                raise DrmaaError(c.NO_ACTIVE_SESSION, "")
            self.active = False
            idle, self._idle = self._idle, []
            busy = list(self._busy)
        for client in idle:
            client.close()
        for client in busy:  # their calls end with DRMAA_ERRNO_NO_ACTIVE_SESSION
            client.interrupt()

    def get_contact(self) -> str:
        """The session's contact, "" when none is open."""
        return self.contact if self.active else ""

    # ---- connections -----------------------------------------------------------------

    @contextmanager
    def _client(self) -> Iterator[Client]:
        """A connection of the pool for one call; one that failed is dropped."""
        with self._lock:
            if not self.active:
                raise DrmaaError(c.NO_ACTIVE_SESSION)
            client = self._idle.pop() if self._idle else None
        try:
            if client is None:
                client = Client(self.root or None)
            with self._lock:
                if not self.active:
                    raise DrmaaError(c.NO_ACTIVE_SESSION)
                self._busy.add(client)
            try:
                yield client
            finally:
                with self._lock:
                    self._busy.discard(client)
        except (Refused, DrmaaError):
            self._give_back(client)
            raise
        except NoAnswer:  # its answer may still come: the connection is not reused
            if client is not None:
                client.close()
            raise
        except GriddError as exc:
            if client is not None:
                client.close()
            if not self.active:  # drmaa_exit ended the session meanwhile
                raise DrmaaError(c.NO_ACTIVE_SESSION) from None
            raise DrmaaError(c.DRM_COMMUNICATION_FAILURE, exc.text) from None
        else:
            self._give_back(client)

    def _give_back(self, client: Client | None) -> None:
        if client is None:
            return
        with self._lock:
            if self.active and len(self._idle) < 8:
                self._idle.append(client)
                return
        client.close()

    def _session_jobs(self) -> list[tuple[int, int]]:
        with self._lock:
            if not self.active:
                raise DrmaaError(c.NO_ACTIVE_SESSION)
            return sorted(self.jobs)

    # ---- submitting ------------------------------------------------------------------

    def run_job(self, template: Template) -> tuple[str, str]:
        """The job's id, and the master's words ("Your job N ... has been submitted")."""
        (key,), reply = self._submit(template, None)
        return job_id_text(key), submitted_line(reply.job_id, reply.name, None)

    def run_bulk_jobs(self, template: Template, start: int, end: int, incr: int
                      ) -> tuple[list[str], str]:
        if start < 1 or end < start or incr < 1:
            raise DrmaaError(c.INVALID_ARGUMENT)
        keys, reply = self._submit(template, (start, end, incr))
        return ([job_id_text(key) for key in keys],
                submitted_line(reply.job_id, reply.name, reply.array))

    def _submit(self, template: Template, bulk: tuple[int, int, int] | None
                ) -> tuple[list[tuple[int, int]], p.Submitted]:
        self._session_jobs()  # an open session first
        spec = job_spec(template, bulk, self.root)
        try:
            with self._client() as client:
                reply = client.submit(spec)
        except Refused as exc:
            raise DrmaaError(c.DENIED_BY_DRM, exc.text) from None
        except NoAnswer as exc:
            raise DrmaaError(c.TRY_LATER, exc.text) from None
        if not isinstance(reply, p.Submitted):  # -w v in the native specification
            raise DrmaaError(c.DENIED_BY_DRM, "\n".join(getattr(reply, "lines", [])))
        if reply.array is None:
            keys = [(reply.job_id, 0)]
        else:
            first, last, step = reply.array
            keys = [(reply.job_id, t) for t in range(first, last + 1, step)]
        with self._lock:
            self.jobs.update(keys)
        return keys, reply

    # ---- waiting ---------------------------------------------------------------------

    def wait(self, job_id: str, timeout: float) -> tuple[str, int, list[str] | None]:
        """drmaa_wait: (the job id, stat, rusage) of the task that ended, which is
        reaped; rusage None when it never started."""
        keys = self._session_jobs()
        if job_id != c.JOB_IDS_SESSION_ANY:
            keys = [parse_job_id(job_id)]
            self._not_reaped(keys[0])
        elif not keys:
            raise DrmaaError(c.INVALID_JOB)
        ended = self._wait_one(keys, timeout)
        key = (ended.job_id, ended.task_id)
        self._reap(key)
        return job_id_text(key), stat_of(ended), rusage(ended)

    def _wait_one(self, keys: list[tuple[int, int]], timeout: float) -> p.TaskEnded:
        block = timeout != c.TIMEOUT_NO_WAIT
        # without blocking the master answers at once: the client's usual patience
        limit = None if timeout < 0 else float(timeout) if block else REPLY_TIMEOUT
        try:
            with self._client() as client:
                try:
                    ended = client.wait_tasks(keys, limit, block=block)
                except NoAnswer:  # the connection's next wait replaces this one
                    ended = p.NotEnded()
        except Refused:
            raise DrmaaError(c.INVALID_JOB) from None
        if isinstance(ended, p.NotEnded):
            raise DrmaaError(c.EXIT_TIMEOUT)
        return ended

    def synchronize(self, job_ids: list[str], timeout: float, dispose: bool) -> None:
        """Wait until every job named (or every job of the session) has ended; a job not
        known counts as ended, as in Grid Engine."""
        left = set(self._session_jobs())
        if c.JOB_IDS_SESSION_ALL not in job_ids:
            left = {parse_job_id(j) for j in job_ids}
        deadline = None if timeout < 0 else time.monotonic() + timeout
        while left:
            remaining = (c.TIMEOUT_WAIT_FOREVER if deadline is None
                         else max(0.0, deadline - time.monotonic()))
            try:
                ended = self._wait_one(sorted(left), remaining)
            except DrmaaError as exc:
                if exc.code != c.INVALID_JOB:
                    raise
                left -= set(self._unknown(sorted(left)))
                continue
            key = (ended.job_id, ended.task_id)
            left.discard(key)
            if dispose:
                self._reap(key)

    def _reap(self, key: tuple[int, int]) -> None:
        with self._lock:
            self.jobs.discard(key)
            self.reaped.add(key)

    def _not_reaped(self, key: tuple[int, int]) -> None:
        with self._lock:
            if key in self.reaped:
                raise DrmaaError(c.INVALID_JOB)

    def _unknown(self, keys: list[tuple[int, int]]) -> list[tuple[int, int]]:
        """Those of `keys` the master neither has nor remembers."""
        unknown = []
        with self._client() as client:
            for key in keys:
                try:
                    client.wait_tasks([key], None, block=False)
                except Refused:
                    unknown.append(key)
        return unknown

    # ---- looking and controlling -----------------------------------------------------

    def job_ps(self, job_id: str) -> int:
        self._session_jobs()
        key = parse_job_id(job_id)
        self._not_reaped(key)
        try:
            with self._client() as client:
                reply = client.jobs(ids=[str(key[0])])
                task = next((t for job in reply.jobs if job.job_id == key[0]
                             for t in job.tasks.values() if t.task_id == key[1]), None)
                if task is not None:
                    return _state(task.state, task.hold_letters(), task.suspended)
                ended = client.wait_tasks([key], None, block=False)
        except Refused:
            raise DrmaaError(c.INVALID_JOB) from None
        except NoAnswer as exc:
            raise DrmaaError(c.DRM_COMMUNICATION_FAILURE, exc.text) from None
        if isinstance(ended, p.NotEnded):  # between its end and the master's record of it
            return c.PS_UNDETERMINED
        return c.PS_FAILED if aborted_run(ended) else c.PS_DONE

    def control(self, job_id: str, action: int) -> None:
        if action not in _CONTROL:
            raise DrmaaError(c.INVALID_ARGUMENT)
        keys = self._session_jobs()
        if job_id != c.JOB_IDS_SESSION_ALL:
            keys = [parse_job_id(job_id)]
        if not keys:
            return
        user, host = current_user(), os.uname().nodename
        targets = [job_id_text(k) for k in keys]
        try:
            with self._client() as client:
                reply = client.job_action(_CONTROL[action], targets, user, host)
        except Refused as exc:
            raise DrmaaError(_refusal_code(exc.text, action), exc.text) from None
        except NoAnswer as exc:
            raise DrmaaError(c.DRM_COMMUNICATION_FAILURE, exc.text) from None
        if reply.code:
            text = "\n".join(reply.lines)
            raise DrmaaError(_refusal_code(text, action), text)


def job_spec(template: Template, bulk: tuple[int, int, int] | None, root: str) -> JobSpec:
    """The job a template makes, through qsub's parser as this process's user would
    submit it with qsub."""
    from gridd import paths
    from gridd.cli.common import current_group, home_dir, read_text
    from gridd.cli.qsub_args import QsubError, parse_qsub

    uid, gid, home = os.getuid(), os.getgid(), home_dir()
    now = time.time()
    root = root or paths.root_dir()
    words = qsub_words(template, home, now, bulk, categories(root, home))
    try:
        request = parse_qsub(
            words, environ=dict(os.environ), cwd=os.getcwd(), read_file=read_text, home=home,
            root=root, user=current_user(), uid=uid, group=current_group(), gid=gid,
            host=os.uname().nodename, stdin_text=lambda: "", now=now)
    except QsubError as exc:
        raise DrmaaError(c.DENIED_BY_DRM, exc.message.rstrip("\n")) from None
    return with_environment(request.spec, template)


def categories(root: str, home: str) -> dict[str, str]:
    """Job categories: the qtask files' lines "CATEGORY qsub-options", the cell's
    (common/qtask) before the user's (~/.qtask), which may name the same again."""
    from gridd.cli.common import read_text

    found: dict[str, str] = {}
    for path in (os.path.join(root, "common", "qtask"), os.path.join(home, ".qtask")):
        for line in (read_text(path) or "").splitlines():
            name, _, options = line.strip().partition(" ")
            name = name.lstrip("!")
            if name and not name.startswith("#"):
                found[name] = options.strip()
    return found


def _refusal_code(text: str, action: int) -> int:
    if "does not exist" in text or "invalid queue or job" in text:
        return c.INVALID_JOB
    if "privilege" in text or "not allowed" in text:
        return c.AUTH_FAILURE
    return _INCONSISTENT[action]


def _state(letters: str, holds: str, suspended: bool = False) -> int:
    """drmaa_job_ps's state of a task qstat shows with these letters and holds: a hold
    comes first, even on a running task, as in Grid Engine. `suspended` (qmod -sj's
    mark) counts while the task is still being sent ("t"): Grid Engine's job_ps says
    USER_SUSPENDED at once after a suspend that returned 0."""
    user, system = "u" in holds, bool(set(holds) & set("os"))
    if letters == "Eqw" or (letters == "hqw" and not holds):  # an error or a dependency
        system = True
    if user or system:
        if user and system:
            return c.PS_USER_SYSTEM_ON_HOLD
        return c.PS_USER_ON_HOLD if user else c.PS_SYSTEM_ON_HOLD
    if letters in ("qw", "Rq"):
        return c.PS_QUEUED_ACTIVE
    by_user, by_system = "s" in letters or suspended, bool(set(letters) & set("ST"))
    if by_user and by_system:
        return c.PS_USER_SYSTEM_SUSPENDED
    if by_user:
        return c.PS_USER_SUSPENDED
    if by_system:
        return c.PS_SYSTEM_SUSPENDED
    return c.PS_RUNNING

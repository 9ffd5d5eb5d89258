"""A master killed with SIGKILL while four clients submit loses no acknowledged job.

The master answers a submission only once the spool has committed it, so whatever moment
the master dies at, a job id a client was told exists after the restart, under the name
it was submitted with (so no later submission got the id of a job the crash lost), and the
spool reads back whole. A client whose request failed with the master retries it; the
retry may create a second job only when the first attempt was never acknowledged (the
master committed it, then died before the answer left), and never more jobs than
attempts.

The harness here is shared with bench/spool_crash.py, the long form (5,000 jobs, 20
kills); the suite runs a short form per spooling method.
"""

from __future__ import annotations

import getpass
import os
import random
import signal
import subprocess
import sys
import threading
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from gridd import protocol as p
from gridd.client import Client, GriddError, Refused
from gridd.model.job import JobSpec
from gridd.pidfile import alive, read_pid
from gridd.spool.methods import METHODS, method_of, open_spool
from gridd.spool.records import restore

BIN = Path(sys.executable).parent  # the venv's own commands, never whatever is on PATH
CLIENTS = 4
REQUEST_TIMEOUT = 20.0  # a master that neither answers nor dies within this is a bug


@dataclass
class Submission:
    """One job a client wants; `name` tells it apart from every other submission."""

    name: str
    attempts: int = 0
    job_id: int = 0  # the id the master acknowledged; 0 until then
    failures: list[str] = field(default_factory=list)  # why earlier attempts failed


@dataclass
class Kill:
    """One SIGKILL: how many submissions were acknowledged at that moment, and whether it
    hit a master serving clients or one still reading its spool."""

    acknowledged: int
    phase: str  # "serving" or "starting"
    # `gridd up` restarting the master until it answered (set on the episode's last kill)
    restart_s: float = 0.0


@dataclass
class CrashResult:
    method: str
    submissions: list[Submission]
    kills: list[Kill]
    seconds: float
    shown: dict[int, str]  # job id -> name, as the restarted master shows them (qstat)
    spooled: list[tuple[int, str]]  # (job id, name) of every job object in the spool
    check_running: subprocess.CompletedProcess[str]  # gridd spool check through the master
    check_stopped: subprocess.CompletedProcess[str]  # gridd spool check on the files
    client_errors: list[str]
    connect_failures: Counter[str]

    def problems(self) -> list[str]:
        """Every way the run broke the promise; empty when it held."""
        found = list(self.client_errors)
        unacked = [s.name for s in self.submissions if not s.job_id]
        if unacked:
            found.append(f"{len(unacked)} submissions never acknowledged: {unacked[:5]}")
        ids = Counter(s.job_id for s in self.submissions if s.job_id)
        reused = sorted(i for i, n in ids.items() if n > 1)
        if reused:
            found.append(f"job ids acknowledged to two submissions: {reused[:10]}")
        for name, view in (("qstat", self.shown), ("spool", dict(self.spooled))):
            lost = [s for s in self.submissions if s.job_id and s.job_id not in view]
            if lost:
                found.append(f"{name}: {len(lost)} acknowledged jobs missing, e.g. "
                             f"{[(s.job_id, s.name) for s in lost[:5]]}")
            wrong = [(s.job_id, s.name, view[s.job_id]) for s in self.submissions
                     if s.job_id in view and view[s.job_id] != s.name]
            if wrong:
                found.append(f"{name}: acknowledged ids now name another submission "
                             f"(id, acknowledged, found): {wrong[:5]}")
        twice = [k for k, n in Counter(i for i, _ in self.spooled).items() if n > 1]
        if twice:
            found.append(f"spool: job objects read twice: {twice[:10]}")
        if sorted(self.shown.items()) != sorted(set(self.spooled)):
            found.append("the spool after gridd down holds other jobs than qstat showed")
        by_name = {s.name: s for s in self.submissions}
        copies = Counter(self.shown.values())
        for name, n in copies.items():
            sub = by_name.get(name)
            if sub is None:
                found.append(f"a job nobody submitted: {name}")
            elif n > sub.attempts:
                found.append(f"{name}: {n} jobs from {sub.attempts} attempts")
            elif n > 1 and sub.attempts == 1:
                found.append(f"{name}: {n} jobs from one acknowledged attempt")
        for what, check in (("running", self.check_running), ("stopped", self.check_stopped)):
            if check.returncode != 0:
                found.append(f"gridd spool check ({what} master) exited {check.returncode}: "
                             f"{check.stdout}{check.stderr}")
        return found

    def summary(self) -> str:
        retried = sum(s.attempts - 1 for s in self.submissions)
        duplicates = sum(n - 1 for n in Counter(self.shown.values()).values() if n > 1)
        restarts = sorted(k.restart_s for k in self.kills if k.restart_s) or [0.0]
        return (f"{self.method}: {len(self.submissions)} jobs acknowledged by "
                f"{CLIENTS} clients in {self.seconds:.1f} s, {len(self.kills)} SIGKILLs "
                f"({sum(k.phase == 'starting' for k in self.kills)} while the master started"
                f"); {retried} attempts failed with the master and were retried, "
                f"{duplicates} of them had been committed unacknowledged (a second job); "
                f"gridd up restarting the master until it answered: median "
                f"{restarts[len(restarts) // 2]:.2f} s, max {restarts[-1]:.2f} s")


class CrashCell:
    """A one-host cell under `root`, started with `gridd up --spooling-method`. It knows
    every daemon it started and kills by PID whichever still runs at the end."""

    def __init__(self, root: Path, method: str) -> None:
        self.root = root
        self.method = method
        self.env = dict(os.environ, GRIDD_ROOT=str(root), GRIDD_CONNECT_TIMEOUT="2")
        self.env["PATH"] = f"{BIN}{os.pathsep}{self.env.get('PATH', '')}"
        self.live: set[int] = set()  # daemons started and not yet seen dead

    def gridd(self, *args: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
        return subprocess.run([str(BIN / "gridd"), *args], env=self.env, capture_output=True,
                              text=True, timeout=timeout)

    def _note_daemons(self) -> None:
        files = [self.root / "spool" / "qmaster" / "qmaster.pid",
                 *(self.root / "spool").glob("*/execd.pid")]
        self.live.update(pid for pid in map(read_pid, files) if alive(pid))

    def master_pid(self) -> int:
        return read_pid(self.root / "spool" / "qmaster" / "qmaster.pid")

    def up(self) -> None:
        """Start what does not run: the whole cell at first, the master alone after a
        kill (gridd up starts only the daemons whose pid file names no live process)."""
        res = self.gridd("up", "--hosts", "1", "--slots", "1", "--load-report-time", "1",
                         "--spooling-method", self.method)
        self._note_daemons()
        if res.returncode != 0:
            raise RuntimeError(f"gridd up failed: {res.stdout}{res.stderr}")

    def kill_master(self) -> None:
        pid = self.master_pid()
        if not alive(pid):
            raise RuntimeError(f"the master (pid {pid}) is not running")
        os.kill(pid, signal.SIGKILL)
        _wait(lambda: not alive(pid), 10, f"master {pid} gone after SIGKILL")
        self.live.discard(pid)

    def kill_while_starting(self, delay: float) -> None:
        """Start `gridd master` and SIGKILL it `delay` seconds later: while it starts
        (imports, reads and for classic replays its spool) or has just begun serving."""
        log = self.root / "spool" / "qmaster" / "killed-starting.out"
        with open(log, "ab") as out:
            proc = subprocess.Popen([str(BIN / "gridd"), "master"], env=self.env,
                                    stdout=out, stderr=subprocess.STDOUT,
                                    start_new_session=True)
        try:
            time.sleep(delay)  # the moment of the kill, chosen at random: not a wait
        finally:
            proc.kill()
            proc.wait()

    def down(self) -> None:
        self._note_daemons()
        self.gridd("down")
        for pid in self.live:
            if alive(pid):
                os.kill(pid, signal.SIGKILL)
        self.live.clear()


def _wait(condition: Callable[[], object], timeout: float, what: str) -> None:
    """Poll a condition until it holds: waiting on conditions, never on fixed sleeps."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise TimeoutError(f"timed out waiting for {what}")
        time.sleep(0.01)


def held_job(root: Path, name: str) -> JobSpec:
    """A held binary job (qsub -b y -h true): spooled like any job, never run."""
    return JobSpec(name=name, owner=getpass.getuser(), uid=os.getuid(), gid=os.getgid(),
                   binary=True, command=["true"], hold=True, cwd=str(root),
                   o_home=str(root), o_workdir=str(root))


class _Progress:
    """Acknowledged submissions so far, and the gate clients pass before each attempt:
    closed from a kill until `gridd up` has returned, so that clients do not race ahead
    while gridd up polls a master that already serves (then the kills, placed by counts
    of acknowledged jobs, would bunch up at the end of a run of fast submissions)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.acknowledged = 0
        self.gate = threading.Event()
        self.gate.set()
        self.stopped = False  # the run failed: clients give up
        # why connecting failed, by exception type: an OSError here is one that
        # gridd.client.Client let through instead of a GriddError
        self.connect_failures: Counter[str] = Counter()

    def stop(self) -> None:
        self.stopped = True
        self.gate.set()

    def add(self) -> None:
        with self.lock:
            self.acknowledged += 1


def _submit_all(root: Path, subs: list[Submission], progress: _Progress, deadline: float,
                errors: list[str]) -> None:
    """One client: its submissions one after the other, each retried on a new connection
    until the master acknowledges it. A refusal is an error: nothing here is invalid."""
    client: Client | None = None
    try:
        for sub in subs:
            while not sub.job_id:
                progress.gate.wait(max(0.0, deadline - time.monotonic()))
                if progress.stopped:
                    return
                if time.monotonic() > deadline:
                    errors.append(f"{sub.name}: not acknowledged before the deadline")
                    return
                if client is None:
                    try:
                        client = Client(root)
                    except (GriddError, OSError) as exc:  # the master is down: try again
                        with progress.lock:
                            progress.connect_failures[type(exc).__name__] += 1
                        time.sleep(0.01)
                        continue
                sub.attempts += 1
                try:
                    reply = client.request(p.Submit(spec=held_job(root, sub.name)),
                                           timeout=REQUEST_TIMEOUT)
                except Refused as exc:
                    errors.append(f"{sub.name}: refused: {exc.text}")
                    return
                except (GriddError, OSError) as exc:  # the master died under the request
                    sub.failures.append(f"{type(exc).__name__}: {exc}")
                    client.close()
                    client = None
                    continue
                assert isinstance(reply, p.Submitted)
                sub.job_id = reply.job_id
                progress.add()
    finally:
        if client is not None:
            client.close()


def crash_run(root: Path, method: str, jobs: int, kills: int, starting_kills: int = 0,
              seed: int | None = None, limit: float = 600.0,
              log: Callable[[str], None] = lambda _: None) -> CrashResult:
    """Submit `jobs` held jobs from CLIENTS threads while the master is SIGKILLed `kills`
    times at random moments and restarted; `starting_kills` of the restarts are first
    killed once more while starting. Then gather what the master and the spool hold."""
    rng = random.Random(seed)
    cell = CrashCell(root, method)
    subs = [Submission(name=f"c{n % CLIENTS}j{n}") for n in range(jobs)]
    progress = _Progress()
    errors: list[str] = []
    kill_log: list[Kill] = []
    try:
        cell.up()
        if method_of(root / "spool" / "qmaster") != method:
            raise RuntimeError(f"the cell does not spool with {method}")
        deadline = time.monotonic() + limit
        threads = [threading.Thread(target=_submit_all, daemon=True,
                                    args=(root, subs[c::CLIENTS], progress, deadline, errors))
                   for c in range(CLIENTS)]
        # kill at random points spread over the run (a tenth to nine tenths of the jobs)
        at = sorted(rng.sample(range(jobs // 10, jobs * 9 // 10), kills))
        while_starting = set(rng.sample(range(kills), starting_kills))
        t0 = time.monotonic()
        for thread in threads:
            thread.start()
        for index, threshold in enumerate(at):
            _wait(lambda t=threshold: progress.acknowledged >= t or errors,
                  deadline - time.monotonic(), f"{threshold} acknowledged submissions")
            if errors:
                break
            time.sleep(rng.uniform(0, 0.05))  # a random moment within the burst
            kill_log.append(Kill(acknowledged=progress.acknowledged, phase="serving"))
            cell.kill_master()
            progress.gate.clear()
            if index in while_starting:
                cell.kill_while_starting(rng.uniform(0.05, 0.6))
                kill_log.append(Kill(acknowledged=progress.acknowledged, phase="starting"))
            started = time.monotonic()
            cell.up()  # the master alone: the execd still runs
            kill_log[-1].restart_s = time.monotonic() - started
            progress.gate.set()
            log(f"SIGKILL at {kill_log[-1].acknowledged} acknowledged"
                + (", again while starting" if index in while_starting else "")
                + f"; gridd up: master answering after {kill_log[-1].restart_s:.2f} s")
        for thread in threads:
            thread.join(max(0.0, deadline - time.monotonic()))
        seconds = time.monotonic() - t0
        if any(thread.is_alive() for thread in threads):
            errors.append("clients still submitting at the deadline")
        with Client(root) as client:
            shown = {job.job_id: job.spec.name for job in client.jobs().jobs}
        check_running = cell.gridd("spool", "check")
        cell.down()
        spool = open_spool(root / "spool" / "qmaster")
        try:
            objects = list(spool.read_all())
        finally:
            spool.close()
        spooled = [(int(key), obj.spec.name) for kind, key, obj in objects  # type: ignore
                   if kind == "job"]
        restore(objects)  # the objects make a state
        check_stopped = cell.gridd("spool", "check")
    finally:
        progress.stop()
        cell.down()
    return CrashResult(method=method, submissions=subs, kills=kill_log, seconds=seconds,
                       shown=shown, spooled=spooled, check_running=check_running,
                       check_stopped=check_stopped, client_errors=errors,
                       connect_failures=progress.connect_failures)


@pytest.mark.parametrize("method", METHODS)
def test_sigkill_during_submissions_loses_no_acknowledged_job(tmp_path: Path,
                                                              method: str) -> None:
    result = crash_run(tmp_path / "cell", method, jobs=400, kills=3, starting_kills=1,
                       limit=120)
    print(result.summary())
    assert result.problems() == []
    assert len(result.kills) == 4
    # every kill broke requests in flight: the retries were exercised
    assert sum(s.attempts - 1 for s in result.submissions) >= 3
    assert f"; {len(result.shown)} jobs" in result.check_stopped.stdout

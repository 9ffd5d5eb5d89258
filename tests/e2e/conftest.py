"""End-to-end fixtures: a real cell started with `gridd up` in a temporary root.

Commands are the venv's own (next to the running interpreter), never whatever `qsub`
comes first on PATH. Every process the cell starts, its jobs' too, is stopped by PID
afterwards.
"""

from __future__ import annotations

import contextlib
import os
import pwd
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
import zmq

from gridd import keys
from gridd.cli.common import current_user
from gridd.pidfile import alive
from tests.processes import processes
from tests.users import interpreter, python_path

BIN = Path(sys.executable).parent


@dataclass
class Cell:
    root: Path
    env: dict[str, str]

    def run(self, *args: str, input: str | None = None, cwd: Path | None = None,
            env: dict[str, str] | None = None, timeout: float = 60) -> subprocess.CompletedProcess:
        cmd = [str(BIN / args[0]), *args[1:]]
        return subprocess.run(cmd, input=input, capture_output=True, text=True,
                              env=env or self.env, cwd=cwd or self.root, timeout=timeout)

    def ok(self, *args: str, **kw) -> str:
        res = self.run(*args, **kw)
        assert res.returncode == 0, f"{args}: rc={res.returncode}\n{res.stdout}\n{res.stderr}"
        return res.stdout

    def pids(self) -> list[int]:
        files = [self.root / "spool" / "qmaster" / "qmaster.pid"]
        files += list((self.root / "spool").glob("*/execd.pid"))
        out = []
        for f in files:
            try:
                out.append(int(f.read_text().split()[0]))
            except (OSError, ValueError, IndexError):
                pass
        return out

    def master_pid(self) -> int:
        return int((self.root / "spool" / "qmaster" / "qmaster.pid").read_text().split()[0])

    def start_master(self) -> subprocess.Popen:
        """`gridd master` again, in the background, as an administrator would."""
        log = open(self.root / "spool" / "qmaster" / "restart.out", "ab")  # noqa: SIM115
        return subprocess.Popen([str(BIN / "gridd"), "master"], env=self.env, stdout=log,
                                stderr=subprocess.STDOUT, start_new_session=True)

    def accounting_lines(self) -> list[str]:
        path = self.root / "common" / "accounting"
        if not path.exists():
            return []
        return [ln for ln in path.read_text().splitlines() if ln and not ln.startswith("#")]


def as_user(cell: Cell, user: str, *args: str,
            env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    """One of the venv's commands (its own script) run as `user` (a test user of
    tests/users.py), with the key pair the administrator makes for them the first time;
    `env` adds to the cell's environment."""
    if not Path(keys.secret_file(cell.root, keys.USERS, user)).exists():
        cell.ok("gridd", "keys", "user", user)
    entry = pwd.getpwnam(user)
    env = dict(cell.env, HOME=str(cell.root), USER=user, LOGNAME=user,
               PYTHONPATH=python_path(), **(env or {}))
    return subprocess.run([interpreter(user), str(BIN / args[0]), *args[1:]],
                          capture_output=True, text=True, env=env, cwd=cell.root,
                          user=entry.pw_uid, group=entry.pw_gid, extra_groups=[], timeout=60)


def dealer(ctx: zmq.Context, cell: Cell, secret: str | None = None) -> zmq.Socket:
    """A pyzmq DEALER on the cell's master, with CURVE as the running user or with the
    key pair in the secret key file `secret`: what a hand-made client can do."""
    pair = keys.read_secret(secret or keys.secret_file(cell.root, keys.USERS, current_user()))
    sock = ctx.socket(zmq.DEALER)
    sock.setsockopt(zmq.LINGER, 0)
    sock.curve_serverkey = keys.read_public(keys.key_file(cell.root, keys.MASTER))
    sock.curve_publickey = pair.public
    sock.curve_secretkey = pair.secret
    sock.connect((cell.root / "common" / "master_endpoint").read_text().strip())
    return sock


def wait_for(condition: Callable[[], object], timeout: float = 30.0, what: str = "") -> object:
    """Poll a condition until it holds: tests wait on conditions, never on fixed sleeps."""
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what or condition}")
        time.sleep(0.05)


def cell_processes(root: Path) -> list[int]:
    """Live processes of the cell under `root`: daemons and jobs (by their environment),
    shepherds (by their command line, which names the task's spool directory)."""
    marks = [f"GRIDD_ROOT={root}\0".encode()]  # a job's too, beside SGE_ROOT (above root)
    spool = f"{root}/".encode()
    return [pid for pid in processes(
        lambda cmdline, environ: spool in cmdline or any(m in environ for m in marks))
        if alive(pid)]


def make_cell(tmp_path: Path, hosts: int, slots: int, spooling_method: str | None = None,
              up_args: tuple[str, ...] = ()) -> Iterator[Cell]:
    """A cell for a test; at its end `gridd down --kill-jobs` (its execds end the jobs
    and remove what each made, such as its TMPDIR under the real /tmp) and every process
    left of the cell (daemons, shepherds, jobs) killed by PID."""
    root = tmp_path / "cell"
    root.mkdir()
    env = dict(os.environ, GRIDD_ROOT=str(root), GRIDD_CONNECT_TIMEOUT="2")
    env["PATH"] = f"{BIN}{os.pathsep}{env.get('PATH', '')}"
    cell = Cell(root=root, env=env)
    started: set[int] = set()
    try:
        method = ["--spooling-method", spooling_method] if spooling_method else []
        cell.ok("gridd", "up", "--hosts", str(hosts), "--slots", str(slots),
                "--load-report-time", "1", *method, *up_args)
        started.update(cell.pids())
        yield cell
    finally:
        started.update(cell.pids())
        cell.run("gridd", "down", "--kill-jobs")
        left = [pid for pid in started.union(cell_processes(root)) if alive(pid)]
        for pid in left:
            with contextlib.suppress(ProcessLookupError):  # it ended meanwhile
                os.kill(pid, signal.SIGKILL)
        wait_for(lambda: not any(map(alive, left)), timeout=10,
                 what="the cell's processes to end")


@pytest.fixture
def cell(tmp_path: Path) -> Iterator[Cell]:
    yield from make_cell(tmp_path, hosts=2, slots=2)


@pytest.fixture
def big_cell(tmp_path: Path) -> Iterator[Cell]:
    yield from make_cell(tmp_path, hosts=4, slots=4)

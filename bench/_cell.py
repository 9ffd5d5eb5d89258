"""What the benchmarks share: a throw-away gridd cell, job specs, and simple statistics.

A cell lives in a fresh temporary GRIDD_ROOT under /tmp; on leaving the context it is
stopped with `gridd down --kill-jobs` (plain `gridd down` would leave its jobs running),
any of its daemons still alive are killed by PID, and the root is removed.
"""

from __future__ import annotations

import contextlib
import getpass
import itertools
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from gridd.model.job import JobSpec

BIN = Path(sys.executable).parent  # the venv's own commands, never whatever is on PATH
# `python bench/x.py --smoke`: the bench's short form (tiny sizes, no Grid Engine, a second
# or two), which tests/e2e/test_bench_smoke.py runs so that a bench that breaks fails a test
SMOKE = "--smoke" in sys.argv[1:]


@dataclass
class Cell:
    root: Path
    env: dict[str, str]

    def pids(self) -> list[int]:
        files = [self.root / "spool" / "qmaster" / "qmaster.pid"]
        files += list((self.root / "spool").glob("*/execd.pid"))
        out = []
        for f in files:
            with contextlib.suppress(OSError, ValueError, IndexError):
                out.append(int(f.read_text().split()[0]))
        return out

    def accounted(self) -> int:
        """Records in the accounting file (lines not starting with '#')."""
        try:
            with open(self.root / "common" / "accounting", "rb") as f:
                return sum(1 for ln in f if ln.strip() and not ln.startswith(b"#"))
        except FileNotFoundError:
            return 0

    def submit_many(self, specs: Iterable[JobSpec]) -> None:
        """Submit through the API, a fresh connection for each burst the master lets one
        connection send at once (REQUEST_BURST): after it, 2,000 a second, which a
        pipelined submission outruns (and the client then waits for)."""
        from gridd.actors.master import REQUEST_BURST
        from gridd.client import Client

        specs = iter(specs)
        while chunk := list(itertools.islice(specs, int(REQUEST_BURST))):
            with Client(self.root) as client:
                client.submit_many(chunk)

    def master_child(self, name: str) -> int:
        """The pid of the master's child process of actor `name` (gridd.actors.
        child_process: "scheduler", "accounting")."""
        master = self.pids()[0]
        children = [child for tasks in Path(f"/proc/{master}/task").glob("*/children")
                    for child in tasks.read_text().split()]  # trio starts them from a thread
        for child in children:
            if f"gridd.actors.{name}".encode() in Path(f"/proc/{child}/cmdline").read_bytes():
                return int(child)
        raise RuntimeError(f"the master has no {name} process")

    def spec(self, *command: str, hold: bool = False) -> JobSpec:
        """A binary job run in the cell's root, so its output files go away with it."""
        return JobSpec(name=os.path.basename(command[0]), owner=getpass.getuser(),
                       uid=os.getuid(), gid=os.getgid(), binary=True, command=list(command),
                       o_home=str(self.root), o_workdir=str(self.root), cwd=str(self.root),
                       hold=hold)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


@contextlib.contextmanager
def cell(hosts: int = 1, slots: int = 1, load_report_time: float = 1.0,
         root: Path | None = None, up_args: tuple[str, ...] = ()) -> Iterator[Cell]:
    """A running cell; `root`, when given, is used instead of a fresh one (so that files
    can be put in place first), and removed at the end all the same; `up_args` go to
    `gridd up` (e.g. --security none)."""
    root = root or Path(tempfile.mkdtemp(prefix="gridd-bench-", dir="/tmp"))
    env = dict(os.environ, GRIDD_ROOT=str(root), HOME=str(root))
    c = Cell(root=root, env=env)
    started: set[int] = set()
    old_handler = signal.signal(signal.SIGTERM, _terminate)  # so that `finally` runs
    try:
        up = subprocess.run([str(BIN / "gridd"), "up", "--hosts", str(hosts), "--slots",
                             str(slots), "--load-report-time", str(load_report_time),
                             *up_args],
                            env=env, capture_output=True, text=True, timeout=60)
        started.update(c.pids())
        if up.returncode != 0:
            raise RuntimeError(f"gridd up failed: {up.stdout}{up.stderr}")
        yield c
    finally:
        started.update(c.pids())
        subprocess.run([str(BIN / "gridd"), "down", "--kill-jobs"], env=env,
                       capture_output=True, timeout=60)
        for pid in started:
            if _alive(pid):
                os.kill(pid, signal.SIGKILL)
        shutil.rmtree(root, ignore_errors=True)
        signal.signal(signal.SIGTERM, old_handler)


def _terminate(signum: int, frame: object) -> None:
    raise SystemExit(128 + signum)


def median_p90(values: list[float]) -> tuple[float, float]:
    ordered = sorted(values)
    return statistics.median(ordered), ordered[min(len(ordered) - 1, int(0.9 * len(ordered)))]

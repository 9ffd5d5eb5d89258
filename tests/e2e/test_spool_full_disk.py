"""When the spool's disk is full, the master refuses what it cannot spool and keeps
answering everything else; once space returns it works again, and nothing it
acknowledged before is lost.

The disk is really full: the method's spool directory ($GRIDD_ROOT/spool/qmaster/<method>)
is a small tmpfs, filled with a file until the kernel says ENOSPC. No hook in the master
fakes the error. Mounting needs root (CAP_SYS_ADMIN); elsewhere the test is skipped.
RLIMIT_FSIZE, the other honest way, does not do here: SQLite reuses its WAL file from the
start after a checkpoint, and writes below the limit succeed.
"""

from __future__ import annotations

import errno
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from gridd.client import Client, Refused
from gridd.pidfile import alive, read_pid
from gridd.spool.methods import METHODS, open_spool
from gridd.spool.records import restore
from tests.e2e.test_spool_crash import held_job

BIN = Path(sys.executable).parent  # the venv's own commands, never whatever is on PATH
SIZE = "8m"
# What the spool says when its disk is full, by method.
FULL = {"sqlite": "database or disk is full", "classic": "No space left on device"}


@dataclass
class FullCell:
    root: Path
    method: str
    mount: Path  # the tmpfs holding the method's spool directory
    env: dict[str, str]
    live: set[int] = field(default_factory=set)  # daemons started, killed by PID at the end

    def run(self, *args: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
        return subprocess.run([str(BIN / args[0]), *args[1:]], env=self.env, cwd=self.root,
                              capture_output=True, text=True, timeout=timeout)

    def ok(self, *args: str) -> str:
        res = self.run(*args)
        assert res.returncode == 0, f"{args}: rc={res.returncode}\n{res.stdout}{res.stderr}"
        return res.stdout

    def note_daemons(self) -> None:
        files = [self.root / "spool" / "qmaster" / "qmaster.pid",
                 *(self.root / "spool").glob("*/execd.pid")]
        self.live.update(pid for pid in map(read_pid, files) if alive(pid))

    def master_pid(self) -> int:
        return read_pid(self.root / "spool" / "qmaster" / "qmaster.pid")

    def qsub(self, name: str) -> subprocess.CompletedProcess[str]:
        """qsub -b y -h true: a held job, spooled like any, never run."""
        return self.run("qsub", "-terse", "-N", name, "-b", "y", "-h", "true")

    def jobs(self) -> dict[int, str]:
        """Job id -> name, as qstat lists them (every name here fits qstat's column)."""
        out = self.ok("qstat", "-u", "*")
        return {int(words[0]): words[2] for words in map(str.split, out.splitlines())
                if words and words[0].isdigit()}


def _mount_tmpfs(where: Path) -> str | None:
    """Mount a small tmpfs; None when done, else why it cannot be."""
    if os.geteuid() != 0:
        return "mounting a tmpfs needs root"
    res = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={SIZE}", "tmpfs", str(where)],
                         capture_output=True, text=True)
    return None if res.returncode == 0 else f"cannot mount a tmpfs: {res.stderr.strip()}"


def _unmount(where: Path) -> None:
    if subprocess.run(["umount", str(where)], capture_output=True).returncode != 0:
        subprocess.run(["umount", "-l", str(where)], capture_output=True)


@pytest.fixture(params=METHODS)
def cell(tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[FullCell]:
    method = str(request.param)
    root = tmp_path / "cell"
    mount = root / "spool" / "qmaster" / method
    mount.mkdir(parents=True)
    why = _mount_tmpfs(mount)
    if why:
        pytest.skip(why)
    env = dict(os.environ, GRIDD_ROOT=str(root), GRIDD_CONNECT_TIMEOUT="2")
    env["PATH"] = f"{BIN}{os.pathsep}{env.get('PATH', '')}"
    c = FullCell(root=root, method=method, mount=mount, env=env)
    try:
        res = c.run("gridd", "up", "--hosts", "1", "--slots", "1", "--load-report-time", "1",
                    "--spooling-method", method)
        c.note_daemons()
        assert res.returncode == 0, res.stdout + res.stderr
        yield c
    finally:
        c.note_daemons()
        c.run("gridd", "down")
        for pid in c.live:
            if alive(pid):
                os.kill(pid, signal.SIGKILL)
        _unmount(mount)


def fill(directory: Path) -> Path:
    """Write a file until the file system has no byte left (ENOSPC at every size)."""
    filler = directory / "filler"
    with open(filler, "wb", buffering=0) as out:
        for size in (1 << 20, 1 << 12, 1):
            chunk = bytes(size)
            while True:
                try:
                    out.write(chunk)
                except OSError as exc:
                    if exc.errno != errno.ENOSPC:
                        raise
                    break
    assert os.statvfs(directory).f_bavail == 0
    return filler


def test_a_full_disk_refuses_submissions_and_loses_nothing(cell: FullCell) -> None:
    acknowledged: dict[int, str] = {}
    for n in range(20):
        res = cell.qsub(f"before{n}")
        assert res.returncode == 0, res.stderr
        acknowledged[int(res.stdout.split(".")[0])] = f"before{n}"
    master = cell.master_pid()
    filler = fill(cell.mount)

    for n in range(3):
        res = cell.qsub(f"refused{n}")
        assert res.returncode != 0, f"acknowledged on a full disk: {res.stdout}"
        assert FULL[cell.method] in res.stderr and "spool" in res.stderr, res.stderr
        assert "Traceback" not in res.stderr
    # a pipelined burst (one transaction) is undone whole and refused request by request
    specs = [held_job(cell.root, f"burst{n}") for n in range(50)]
    with Client(cell.root) as client, pytest.raises(Refused, match=FULL[cell.method]):
        client.submit_many(specs)
    # the master stays up and answers what needs no spooling
    assert cell.master_pid() == master and alive(master)
    assert cell.jobs() == acknowledged
    assert "all.q" in cell.ok("qconf", "-sql")
    assert "before0" in cell.ok("qstat", "-j", str(min(acknowledged)))
    check = cell.run("gridd", "spool", "check")
    assert check.returncode == 0, check.stderr
    # a change to an existing job is refused the same way, and changes nothing
    res = cell.run("qdel", str(min(acknowledged)))
    assert res.returncode != 0 and FULL[cell.method] in res.stdout + res.stderr
    assert cell.jobs() == acknowledged

    filler.unlink()  # space returns
    for n in range(3):
        res = cell.qsub(f"after{n}")
        assert res.returncode == 0, res.stderr
        acknowledged[int(res.stdout.split(".")[0])] = f"after{n}"
    assert cell.jobs() == acknowledged

    # and from the spool alone: restart the master
    cell.ok("gridd", "down")
    spool = open_spool(cell.root / "spool" / "qmaster")
    try:
        state = restore(spool.read_all())
    finally:
        spool.close()
    assert {i: j.spec.name for i, j in state.jobs.items()} == acknowledged
    cell.ok("gridd", "spool", "check")
    cell.ok("gridd", "up")
    cell.note_daemons()
    assert cell.jobs() == acknowledged
    shown = set(cell.jobs().values())
    assert not {n for n in shown if n.startswith(("refused", "burst"))}

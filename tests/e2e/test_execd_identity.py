"""Jobs run as their owners, through the real commands.

A job that roland submits runs with roland's uid on a root execd, and its output file is
roland's. An execd started by andre runs andre's jobs and refuses roland's: the job is
accounted as failed "before job", the reason is in that execd's log, and the execd goes
on. The users come from tests/users.py (root and useradd, else skipped saying why); the
cell lives in a directory they can read.
"""

from __future__ import annotations

import os
import pwd
import re
import signal
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from gridd import keys
from gridd.pidfile import alive, read_pid
from tests.e2e.conftest import BIN, Cell, as_user, wait_for
from tests.e2e.test_ar_users import readable_cell
from tests.users import interpreter, people, python_path

__all__ = ["people"]  # the module fixture that makes the users

SUBMITTED = re.compile(r'^Your job (\d+) \("(.*)"\) has been submitted$')


@pytest.fixture
def cell(people: tuple[str, ...]) -> Iterator[Cell]:
    """A cell the users can read (as_user makes each user's key as it is first used)."""
    yield from readable_cell(hosts=2, slots=2)


def qsub(cell: Cell, user: str, *args: str) -> int:
    res = as_user(cell, user, "qsub", *args)
    match = SUBMITTED.match(res.stdout.strip())
    assert res.returncode == 0 and match, res
    return int(match.group(1))


def accounted(cell: Cell, job: int) -> str:
    """qacct's block of a job, once it is accounted."""
    return str(wait_for(lambda: (res := cell.run("qacct", "-j", str(job))).returncode == 0
                        and res.stdout, what=f"job {job} accounted"))


def field(block: str, name: str) -> str:
    match = re.search(rf"^{name}\s+(.*?)\s*$", block, re.M)
    assert match, (name, block)
    return match.group(1)


def owned_dir(cell: Cell, user: str, name: str) -> Path:
    entry = pwd.getpwnam(user)
    path = cell.root.parent / name
    path.mkdir()
    os.chown(path, entry.pw_uid, entry.pw_gid)
    return path


def test_job_runs_with_its_owners_uid_and_output_is_theirs(cell: Cell):
    roland = pwd.getpwnam("roland")
    work = owned_dir(cell, "roland", "roland-work")
    script = work / "job.sh"
    script.write_text('#!/bin/sh\n#$ -N who\necho "$(id -u) $(id -g) $(umask) $USER"\n')
    os.chown(script, roland.pw_uid, roland.pw_gid)
    job = qsub(cell, "roland", "-wd", str(work), str(script))
    block = accounted(cell, job)
    assert (field(block, "owner"), field(block, "failed"), field(block, "exit_status")) == (
        "roland", "0", "0")
    out = work / f"who.o{job}"
    assert out.read_text() == f"{roland.pw_uid} {roland.pw_gid} 0022 roland\n"
    assert (out.stat().st_uid, out.stat().st_gid) == (roland.pw_uid, roland.pw_gid)


class UserExecd:
    """Host node2's execd, started again by a normal user (andre) instead of root."""

    def __init__(self, cell: Cell, user: str, host: str = "node2") -> None:
        self.cell, self.user, self.host = cell, user, host
        self.spool = cell.root / "spool" / host
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        old = read_pid(self.spool / "execd.pid")
        os.kill(old, signal.SIGTERM)  # the root execd `gridd up` started
        wait_for(lambda: not alive(old), timeout=20, what="the root execd to stop")
        entry = pwd.getpwnam(self.user)
        # What that user's execd writes and reads: its spool, and its host's secret key.
        for path in [self.spool, *self.spool.rglob("*"),
                     Path(keys.secret_file(self.cell.root, keys.HOSTS, self.host))]:
            os.chown(path, entry.pw_uid, entry.pw_gid, follow_symlinks=False)
        endpoint = (self.cell.root / "common" / "master_endpoint").read_text().strip()
        env = dict(self.cell.env, HOME=str(self.cell.root), USER=self.user,
                   LOGNAME=self.user, PYTHONPATH=python_path())
        with open(self.cell.root / f"execd-{self.user}.out", "wb") as log:
            self.process = subprocess.Popen(
                [interpreter(self.user), str(BIN / "gridd"), "execd", "--name", self.host,
                 "--master", endpoint, "--load-report-time", "1"],
                env=env, cwd=self.cell.root, stdout=log, stderr=subprocess.STDOUT,
                user=entry.pw_uid, group=entry.pw_gid, extra_groups=[],
                start_new_session=True)
        wait_for(lambda: "registering" in self.log(), timeout=30,
                 what=f"{self.user}'s execd to register")

    def log(self) -> str:
        try:
            return (self.spool / "messages").read_text()
        except FileNotFoundError:
            return ""

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.kill()  # by its pid, which Popen holds
            self.process.wait(timeout=20)


@pytest.fixture
def andres_execd(cell: Cell) -> Iterator[UserExecd]:
    execd = UserExecd(cell, "andre")
    try:
        execd.start()
        yield execd
    finally:
        execd.stop()


def test_execd_of_a_normal_user_refuses_other_users_jobs(cell: Cell,
                                                         andres_execd: UserExecd):
    roland_job = qsub(cell, "roland", "-q", "all.q@node2", "-o", "/dev/null", "-j", "y",
                      "-b", "y", "true")
    block = accounted(cell, roland_job)
    assert field(block, "hostname") == "node2"
    assert field(block, "failed") == "11  : before job"
    assert 'execd runs as "andre" and cannot run jobs of "roland"' in andres_execd.log()

    work = owned_dir(cell, "andre", "andre-work")
    andre_job = qsub(cell, "andre", "-q", "all.q@node2", "-wd", str(work), "-b", "y",
                     "id", "-un")
    block = accounted(cell, andre_job)
    assert (field(block, "failed"), field(block, "exit_status")) == ("0", "0")
    out = work / f"id.o{andre_job}"
    assert out.read_text() == "andre\n"
    assert out.stat().st_uid == pwd.getpwnam("andre").pw_uid
    assert andres_execd.process is not None and andres_execd.process.poll() is None

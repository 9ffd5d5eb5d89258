"""qrsh, qlogin and qrsh -inherit on a real cell, driven as a user drives them: the
venv's commands, a pipe or a pseudo-terminal for a terminal, signals sent to qrsh."""

from __future__ import annotations

import fcntl
import os
import re
import select
import signal
import struct
import subprocess
import termios
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.e2e.conftest import BIN, Cell, make_cell, wait_for

SUBMITTED = re.compile(r'Your job (\d+) \("(.*)"\) has been submitted')


@pytest.fixture(scope="module")
def shared(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cell]:
    """One cell for the tests that only run their own short interactive jobs."""
    yield from make_cell(tmp_path_factory.mktemp("qrsh"), hosts=2, slots=4)


def accounted(cell: Cell, job_id: int) -> list[list[str]]:
    return [line.split(":") for line in cell.accounting_lines()
            if line.split(":")[5] == str(job_id)]


@pytest.fixture
def one_slot(tmp_path: Path) -> Iterator[Cell]:
    yield from make_cell(tmp_path, hosts=1, slots=1)


@pytest.fixture
def two_hosts(tmp_path: Path) -> Iterator[Cell]:
    yield from make_cell(tmp_path, hosts=2, slots=2)


def test_qrsh_streams_output_and_exits_with_the_commands_status(shared: Cell):
    res = shared.run("qrsh", "-now", "y", "echo out; echo err >&2; exit 3")
    assert (res.stdout, res.stderr, res.returncode) == ("out\n", "err\n", 3)
    res = shared.run("qrsh", "true")
    assert (res.stdout, res.stderr, res.returncode) == ("", "", 0)


def test_qrsh_passes_stdin_and_runs_with_the_job_environment(shared: Cell):
    res = shared.run("qrsh", "wc", "-l", input="a\nb\nc\n")
    assert (res.stdout.strip(), res.returncode) == ("3", 0), res.stderr
    res = shared.run("qrsh", "-v", "GREETING=hi",
                     'echo $GREETING $JOB_ID $HOSTNAME $SGE_TASK_ID $ENVIRONMENT')
    greeting, job_id, host, task, _ = res.stdout.split()
    assert (greeting, host[:4], task, res.returncode) == ("hi", "node", "undefined", 0)
    wait_for(lambda: accounted(shared, int(job_id)), what="the qrsh job accounted")
    (record,) = accounted(shared, int(job_id))
    # qname, hostname, job name, and the category 8.1.9 writes for interactive jobs
    assert record[0] == "all.q" and record[1] == host and record[4] == "echo"
    assert record[39].endswith("-I y"), record


def test_qrsh_binary_output_passes_unchanged(shared: Cell):
    blob = bytes(range(256)) * 400
    res = subprocess.run([str(BIN / "qrsh"), "cat"], input=blob, capture_output=True,
                         env=shared.env, cwd=shared.root, timeout=60)
    assert (res.stdout == blob, res.returncode) == (True, 0), res.stderr


def _interactive(cell: Cell, *args: str) -> subprocess.Popen:
    return subprocess.Popen([str(BIN / "qrsh"), *args], env=cell.env, cwd=cell.root,
                            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, start_new_session=True)


def _running_jobs(cell: Cell) -> list[str]:
    return [line.split()[0] for line in cell.ok("qstat").splitlines()[2:]]


@pytest.mark.parametrize(("signum", "status"), [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_a_signal_to_qrsh_reaches_the_command(shared: Cell, signum: int, status: int):
    proc = _interactive(shared, "echo started; exec sleep 300")
    assert proc.stdout.readline() == b"started\n"
    proc.send_signal(signum)
    out, err = proc.communicate(timeout=30)
    assert proc.returncode == status, err


def test_a_qrsh_that_goes_away_ends_its_job(shared: Cell):
    proc = _interactive(shared, "echo started; exec sleep 300")
    assert proc.stdout.readline() == b"started\n"
    (job,) = _running_jobs(shared)
    proc.kill()
    proc.wait()
    wait_for(lambda: job not in _running_jobs(shared), timeout=40,
             what="the job of a killed qrsh to end")


def test_an_interrupted_waiting_qrsh_takes_its_job_with_it(one_slot: Cell):
    """-now y refused in 8.1.9's words; -now n waits for a place, and interrupted
    meanwhile, it deletes its job."""
    cell = one_slot
    cell.ok("qsub", "-b", "y", "sleep", "300")
    wait_for(lambda: " r " in cell.ok("qstat"), what="the blocker to run")
    full = cell.run("qrsh", "-now", "y", "true")
    assert (full.returncode, full.stderr) == (
        1, 'Your "qrsh" request could not be scheduled, try again later.\n')
    waiting = subprocess.Popen([str(BIN / "qrsh"), "-now", "n", "true"], env=cell.env,
                               cwd=cell.root, stderr=subprocess.PIPE, text=True)
    wait_for(lambda: len(_running_jobs(cell)) == 2, what="qrsh's job to wait")
    waiting.send_signal(signal.SIGINT)
    waiting.wait(timeout=30)
    assert waiting.returncode != 0
    wait_for(lambda: len(_running_jobs(cell)) == 1, what="qrsh's job to go")


def test_a_dead_host_ends_its_qrsh_with_an_error(one_slot: Cell):
    cell = one_slot
    proc = _interactive(cell, "echo started; exec sleep 300")
    assert proc.stdout.readline() == b"started\n"
    execd = int((cell.root / "spool" / "node1" / "execd.pid").read_text().split()[0])
    os.kill(execd, signal.SIGKILL)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode != 0 and b"error" in err, err


# ---- a pseudo-terminal -------------------------------------------------------------


class Terminal:
    """A command on a pseudo-terminal of its own, as a user at a terminal runs it. The
    test keeps the terminal's other side open too, so that what the command wrote last is
    read before the end (a pty whose last holder closed it may hang up first)."""

    def __init__(self, cell: Cell, argv: list[str], rows: int = 33, cols: int = 101) -> None:
        self.fd, slave = os.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))
        self.proc = subprocess.Popen(
            [str(BIN / argv[0]), *argv[1:]], stdin=slave, stdout=slave, stderr=slave,
            env=cell.env, cwd=cell.root, start_new_session=True,
            preexec_fn=lambda: fcntl.ioctl(0, termios.TIOCSCTTY, 0))
        self.slave = slave
        self.seen = b""

    def send(self, data: bytes) -> None:
        os.write(self.fd, data)

    def _read(self, timeout: float) -> bool:
        if not select.select([self.fd], [], [], timeout)[0]:
            return False
        self.seen += os.read(self.fd, 4096)
        return True

    def expect(self, pattern: bytes, timeout: float = 30.0) -> re.Match[bytes]:
        deadline = time.monotonic() + timeout
        while not (found := re.search(pattern, self.seen)):
            left = deadline - time.monotonic()
            assert left > 0, f"no {pattern!r} in {self.seen[-2000:]!r}"
            self._read(min(left, 0.1))
        return found

    def status(self, timeout: float = 30.0) -> int:
        try:
            status = self.proc.wait(timeout)
        finally:
            while self._read(0):
                pass
            os.close(self.slave)
            os.close(self.fd)
        return status


def test_qlogin_gives_a_shell_on_a_terminal_of_the_callers_size(shared: Cell):
    """What is typed before the session opens is kept for the shell, as on a terminal."""
    term = Terminal(shared, ["qlogin"])
    term.send(b"stty size; tty; echo $JOB_NAME; exit 4\n")
    term.expect(rb"33 101\r\n")
    term.expect(rb"/dev/pts/\d+\r\n")
    assert term.status() == 4
    term.expect(rb"QLOGIN\r\n")


def test_qrsh_without_a_command_has_job_control_and_ends_with_ctrl_d(shared: Cell):
    term = Terminal(shared, ["qrsh"], rows=20, cols=70)
    term.expect(rb"[#$] $")  # the shell's prompt
    term.send(b"sleep 300 &\n")
    term.send(b"jobs; echo JOBS-$?\n")
    term.expect(rb"Running.*sleep 300")
    term.expect(rb"JOBS-0")
    term.send(b"kill %1; stty size\n")
    term.expect(rb"(?s)20 70\r\n.*[#$] $")
    term.send(b"\x04")
    assert term.status() == 0


def test_ctrl_c_on_a_qrsh_terminal_interrupts_the_remote_command_only(shared: Cell):
    term = Terminal(shared, ["qrsh", "-pty", "y",
                             "trap 'echo caught; exit 9' INT; echo ready; sleep 300 & wait"])
    term.expect(rb"ready")
    term.send(b"\x03")
    term.expect(rb"caught")
    assert term.status() == 9


# ---- qrsh -inherit: tight integration ---------------------------------------------


def test_qrsh_inherit_starts_accounted_tasks_of_a_parallel_job(two_hosts: Cell):
    cell = two_hosts
    cell.ok("qconf", "-mattr", "pe", "control_slaves", "TRUE", "mpi")
    cell.ok("qconf", "-mattr", "pe", "job_is_first_task", "FALSE", "mpi")
    cell.ok("qconf", "-mattr", "pe", "allocation_rule", "$round_robin", "mpi")
    script = cell.root / "tasks.sh"
    script.write_text(
        "#!/bin/sh\n"
        'for host in $(cut -d" " -f1 "$PE_HOSTFILE"); do\n'
        '  "$SGE_ROOT/bin/$ARC/qrsh" -inherit -nostdin "$host" echo task on \'$HOSTNAME\'\n'
        "done\n"
        '"$SGE_ROOT/bin/$ARC/qrsh" -inherit nosuchhost true; echo refused $?\n')
    out = cell.ok("qsub", "-pe", "mpi", "4", "-cwd", "-o", "tasks.out", "-j", "y",
                  str(script))
    job = int(SUBMITTED.search(out).group(1))
    wait_for(lambda: len(accounted(cell, job)) == 3, timeout=60,
             what="the job and its two PE tasks accounted")
    text = (cell.root / "tasks.out").read_text()
    assert "task on node1" in text and "task on node2" in text, text
    assert "refused 1" in text, text
    records = accounted(cell, job)
    pe_tasks = sorted((r[41], r[1]) for r in records if r[41] != "NONE")
    assert [host for _, host in pe_tasks] == ["node1", "node2"], records
    assert all(re.fullmatch(r"\d+\.node\d", task) for task, _ in pe_tasks)
    shown = cell.ok("qacct", "-j", str(job))
    assert shown.count("hostname     node") == 3  # 8.1.9 prints no pe_taskid line

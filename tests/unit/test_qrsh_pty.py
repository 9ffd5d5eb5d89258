"""The whole qrsh under a pseudo-terminal, against a stand-in master and execd: a qrsh
without a command puts its terminal in raw mode, sends the window size and each new one
(SIGWINCH), passes ^C as a byte, exits with the task's status and leaves the terminal as
it found it."""

from __future__ import annotations

import fcntl
import os
import pty
import struct
import sys
import termios
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import zmq

from gridd import protocol as p
from gridd import session as s
from tests.session_standins import Execd, Master

REPO = Path(__file__).resolve().parents[2]
# The child: qrsh's main in a process of its own, the terminal's modes compared around it.
CHILD = """
import sys, termios
sys.path.insert(0, {repo!r})
from gridd.cli import qrsh
before = termios.tcgetattr(0)
code = qrsh.main({argv!r})
after = termios.tcgetattr(0)
print("restored" if after == before else "NOT RESTORED", code)
"""


@pytest.fixture
def ctx() -> Iterator[zmq.Context]:
    context = zmq.Context()
    yield context
    context.term()


def _read_until_eof(fd: int, deadline: float) -> bytes:
    out = b""
    while time.monotonic() < deadline:
        try:
            chunk = os.read(fd, 4096)
        except OSError:  # EIO: the child's side closed
            break
        if not chunk:
            break
        out += chunk
    return out


def test_qrsh_on_a_terminal(ctx: zmq.Context, tmp_path: Path) -> None:
    raw_at_ctrl_c: list[bool] = []
    master_fd = -1

    def script(msg: s.FromClient, got: list[s.FromClient]) -> list[s.FromExecd]:
        if isinstance(msg, s.Input) and b"\x03" in msg.data:
            lflag = termios.tcgetattr(master_fd)[3]
            raw_at_ctrl_c.append(not lflag & (termios.ICANON | termios.ECHO | termios.ISIG))
            return [s.Output(fd=1, data=b"got ^C\r\n"), s.Exit(status=5)]
        return []

    execd = Execd(ctx, script)
    master = Master(ctx, tmp_path, started=p.Started(
        job_id=1, task_id=0, host="node1", endpoint=execd.endpoint, server_key=execd.public))
    execd.start()
    master.start()
    try:
        pid, master_fd = pty.fork()
        if pid == 0:  # the child: never back into pytest
            try:
                os.environ["GRIDD_ROOT"] = str(tmp_path)
                os.execv(sys.executable, [sys.executable, "-c",
                                          CHILD.format(repo=str(REPO), argv=[])])
            finally:
                os._exit(127)
        fcntl.ioctl(master_fd, termios.TIOCSWINSZ, struct.pack("HHHH", 31, 101, 0, 0))
        deadline = time.monotonic() + 30
        while not any(isinstance(m, s.Window) for m in execd.got):
            assert time.monotonic() < deadline, f"no window size: {execd.got}"
            time.sleep(0.02)
        # A resized terminal: the kernel sends its foreground group (qrsh) SIGWINCH.
        fcntl.ioctl(master_fd, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 120, 0, 0))
        while sum(isinstance(m, s.Window) for m in execd.got) < 2:
            assert time.monotonic() < deadline, f"no new window size: {execd.got}"
            time.sleep(0.02)
        os.write(master_fd, b"\x03")
        output = _read_until_eof(master_fd, deadline)
        _, status = os.waitpid(pid, 0)
    finally:
        execd.stop()
        master.stop()
    assert os.waitstatus_to_exitcode(status) == 0, output
    assert b"got ^C" in output
    assert b"restored 5" in output, output
    windows = [m for m in execd.got if isinstance(m, s.Window)]
    assert windows == [s.Window(rows=31, cols=101), s.Window(rows=40, cols=120)]
    assert raw_at_ctrl_c == [True]
    assert not any(isinstance(m, s.Signal) for m in execd.got)  # ^C was a byte
    submitted = next(m for m in master.got if isinstance(m, p.Submit)).spec
    assert (submitted.interactive, submitted.pty, submitted.name) == ("qrsh", True, "QRLOGIN")
    assert len(submitted.session_key) == 32 and submitted.session_key in execd.identities

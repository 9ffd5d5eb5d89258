"""execd's ends of an interactive task's standard streams: pipes, or a pseudo-terminal.

An interactive task (qrsh, qlogin, qrsh -inherit) writes to no file: its streams travel to
the qrsh that started it (see gridd.session). execd makes the pipes or the pseudo-terminal
before the shepherd starts, passes the job's ends to it (``child``; the shepherd hands
them to the job and closes its copies) and keeps its own ends here, non-blocking, for the
session to read and write. With a pseudo-terminal one descriptor, the master side, is
the job's input and its output at once; the terminal's line discipline echoes and turns
^C into a signal, so that qrsh sends its terminal's bytes as they come.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import os
import struct
import termios
from dataclasses import dataclass, field

import trio

DEFAULT_WINDOW = (24, 80)  # rows, columns until qrsh says its own


@dataclass(eq=False)
class TaskStreams:
    """The session's ends of one task's streams."""

    pty: bool
    stdin: int  # -1 with -nostdin or once closed; with a pty, the master side
    outputs: dict[int, int]  # the stream's number (1, 2) -> the end execd reads
    child: list[int] = field(default_factory=list)  # the job's 0, 1, 2 (-1: a file)
    # execd's own copy of a pseudo-terminal's job side, held until the task has ended:
    # a terminal whose last holder closed it may read as hung up (EIO) before the last
    # bytes written to it have reached the master side, and those would be lost.
    held: int = -1
    _closed: set[int] = field(default_factory=set)

    def close_child(self) -> None:
        """Once the shepherd has its copies: execd must not keep the job's ends open, or
        their end of file would never come."""
        for fd in set(self.child) - {-1}:
            _close(fd)
        self.child = []

    def release_terminal(self) -> None:
        """The task has ended: the terminal may hang up once what it holds is read."""
        if self.held >= 0:
            _close(self.held)
            self.held = -1

    def close_input(self) -> None:
        """qrsh's input ended: so does the job's (pipes only; on a terminal ^D says it)."""
        if not self.pty and self.stdin >= 0:
            self._close(self.stdin)
            self.stdin = -1

    def give_terminal(self, uid: int, gid: int) -> None:
        """The pseudo-terminal becomes the job owner's, as a login's terminal is its user's."""
        if self.pty and self.child:
            os.fchown(self.child[0], uid, gid)
            os.fchmod(self.child[0], 0o620)

    def set_window(self, rows: int, cols: int) -> None:
        if self.pty:
            _window(self.stdin, rows, cols)

    async def write(self, data: bytes) -> bool:
        """Write all of `data` to the job's input; False once the job no longer reads it."""
        view = memoryview(data)
        while view:
            fd = self.stdin
            if fd < 0:
                return False
            try:
                view = view[os.write(fd, view):]
            except BlockingIOError:
                await trio.lowlevel.wait_writable(fd)
            except OSError:  # EPIPE: the job closed its input, or EIO: the terminal hung up
                return False
        return True

    async def read(self, number: int, size: int) -> bytes:
        """The next bytes of output `number`; b"" at its end (a terminal's hang-up too)."""
        fd = self.outputs[number]
        while True:
            try:
                return os.read(fd, size)
            except BlockingIOError:
                await trio.lowlevel.wait_readable(fd)
            except OSError as exc:
                if exc.errno == errno.EIO:  # every process of the terminal closed it
                    return b""
                raise

    def close(self) -> None:
        self.close_child()
        self.release_terminal()
        for fd in {self.stdin, *self.outputs.values()} - {-1}:
            self._close(fd)
        self.stdin = -1
        self.outputs = {}

    def _close(self, fd: int) -> None:
        if fd in self._closed:
            return
        self._closed.add(fd)
        with contextlib.suppress(RuntimeError):  # outside trio there is nothing to notify
            trio.lowlevel.notify_closing(fd)
        _close(fd)


def open_streams(*, pty: bool, nostdin: bool) -> TaskStreams:
    """New pipes (stdin, stdout, stderr; no stdin pipe with `nostdin`: the job reads
    /dev/null), or a pseudo-terminal for all three."""
    if pty:
        master, slave = os.openpty()
        _window(master, *DEFAULT_WINDOW)
        os.set_blocking(master, False)
        return TaskStreams(pty=True, stdin=master, outputs={1: master},
                           child=[slave, slave, slave],
                           held=os.dup(slave))
    stdin = child_in = -1
    if not nostdin:
        child_in, stdin = os.pipe()
        os.set_blocking(stdin, False)
    out_read, out_write = os.pipe()
    err_read, err_write = os.pipe()
    for fd in (out_read, err_read):
        os.set_blocking(fd, False)
    return TaskStreams(pty=False, stdin=stdin, outputs={1: out_read, 2: err_read},
                       child=[child_in, out_write, err_write])


def _window(fd: int, rows: int, cols: int) -> None:
    """TIOCSWINSZ; the terminal sends SIGWINCH to its foreground job."""
    size = struct.pack("HHHH", max(0, min(rows, 0xFFFF)), max(0, min(cols, 0xFFFF)), 0, 0)
    with contextlib.suppress(OSError):
        fcntl.ioctl(fd, termios.TIOCSWINSZ, size)


def _close(fd: int) -> None:
    with contextlib.suppress(OSError):
        os.close(fd)

"""qrsh's end of a task's session (gridd.session): one select loop over the terminal's
input, the connection to the task's execd and a pipe that signals arrive on.

Signals are not acted on where they land: Python's wakeup fd writes their numbers to the
pipe, and the loop forwards them (SIGWINCH as the new window size). On a pseudo-terminal
the local terminal is raw, so that ^C, ^Z and ^D travel as bytes to the task's own
terminal, and it is restored on every way out. Blocking and free of trio, as every q*
command.
"""

from __future__ import annotations

import os
import select
import signal
import sys
import time
from collections.abc import Callable

from gridd import session as s
from gridd.zmtp import Dealer, ZmtpError

# What reaches the task: those a user or a dying terminal sends qrsh.
FORWARDED = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT, signal.SIGUSR1,
             signal.SIGUSR2)
EXIT_LOST = 1  # the session broke before the task's end was heard


class _Terminal:
    """The local terminal of a pty session: raw while the session runs, its window size
    for the task's pseudo-terminal. Nothing happens when stdin is not a terminal."""

    def __init__(self, fd: int, raw: bool) -> None:
        import termios

        self.fd = fd
        self.termios = termios
        self.saved: list | None = None
        self.is_tty = os.isatty(fd)
        if raw and self.is_tty:
            import tty

            self.saved = termios.tcgetattr(fd)
            tty.setraw(fd, termios.TCSANOW)  # not TCSAFLUSH: what was typed ahead is kept

    def window(self) -> s.Window | None:
        if not self.is_tty:
            return None
        try:
            size = os.get_terminal_size(self.fd)
        except OSError:
            return None
        return s.Window(rows=size.lines, cols=size.columns)

    def restore(self) -> None:
        if self.saved is not None:
            try:
                self.termios.tcsetattr(self.fd, self.termios.TCSADRAIN, self.saved)
            except self.termios.error:
                pass  # the terminal went away (SIGHUP): nothing to restore
            self.saved = None


class _Lost(Exception):
    """The connection to execd broke or went silent."""


class Session:
    """One session: run() until the task's Exit, and the status qrsh exits with."""

    def __init__(self, conn: Dealer, host: str, *, pty: bool, nostdin: bool = False,
                 stdin: int = 0, stdout: int = 1, stderr: int = 2,
                 alive_every: float = s.ALIVE_EVERY, lost_after: float = s.LOST_AFTER,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.conn = conn
        self.host = host
        self.pty = pty
        self.reading = not nostdin and _is_open(stdin)  # `qrsh cmd <&-`: no input
        self.fds = {1: stdout, 2: stderr}
        self.stdin = stdin
        self.alive_every = alive_every
        self.lost_after = lost_after
        self.clock = clock
        self.last_sent = self.last_heard = clock()

    def run(self) -> int:
        signal_read, signal_write = os.pipe()
        os.set_blocking(signal_read, False)
        os.set_blocking(signal_write, False)
        watched = (*FORWARDED, signal.SIGWINCH)
        handlers = {signum: signal.signal(signum, _noted) for signum in watched}
        wakeup = signal.set_wakeup_fd(signal_write, warn_on_full_buffer=False)
        terminal = None
        try:
            terminal = _Terminal(self.stdin, raw=self.pty)
            return self._loop(signal_read, terminal)
        except _Lost as exc:
            if terminal:
                terminal.restore()
            print(f"error: lost the connection to host {self.host}: {exc}", file=sys.stderr)
            return EXIT_LOST
        finally:
            if terminal:
                terminal.restore()
            signal.set_wakeup_fd(wakeup)
            for signum, handler in handlers.items():
                signal.signal(signum, handler)
            os.close(signal_read)
            os.close(signal_write)

    def _loop(self, signals: int, terminal: _Terminal) -> int:
        self._send(s.Alive())
        if self.pty and (window := terminal.window()):
            self._send(window)
        if not self.reading:
            self._send(s.InputEnd())
        while True:
            while self.conn.buffered():
                status = self._receive(terminal)
                if status is not None:
                    return status
            now = self.clock()
            if now - self.last_heard >= self.lost_after:
                raise _Lost(f"nothing heard for {self.lost_after:g} s")
            if now - self.last_sent >= self.alive_every:
                self._send(s.Alive())
            wait = min(self.alive_every - (self.clock() - self.last_sent),
                       self.lost_after - (now - self.last_heard))
            watched = [self.conn.fileno(), signals] + ([self.stdin] if self.reading else [])
            ready, _, _ = select.select(watched, [], [], max(wait, 0.0))
            if signals in ready:
                self._forward(os.read(signals, 256), terminal)
            if self.reading and self.stdin in ready:
                self._read_input()
            if self.conn.fileno() in ready:
                status = self._receive(terminal)
                if status is not None:
                    return status

    def _forward(self, numbers: bytes, terminal: _Terminal) -> None:
        for signum in numbers:
            if signum == signal.SIGWINCH:
                window = terminal.window() if self.pty else None
                if window:
                    self._send(window)
            else:
                self._send(s.Signal(signum=signum))

    def _read_input(self) -> None:
        try:
            data = os.read(self.stdin, s.CHUNK)
        except OSError:  # a terminal that went away reads as the end of input
            data = b""
        if data:
            self._send(s.Input(data=data))
        else:
            self.reading = False
            self._send(s.InputEnd())

    def _receive(self, terminal: _Terminal) -> int | None:
        """Handle the next message from execd: the exit status once the task ended."""
        self.conn.settimeout(self.lost_after)
        try:
            (frame,) = self.conn.recv()
            msg = s.from_execd(frame)
        except TimeoutError:
            raise _Lost("a message came only in part") from None
        except (ZmtpError, OSError, ValueError, s.SessionError) as exc:
            raise _Lost(str(exc)) from None
        self.last_heard = self.clock()
        if isinstance(msg, s.Output):
            try:
                _write_all(self.fds.get(msg.fd, self.fds[1]), msg.data)
            except OSError:  # the reader went away: so does the session, and the task
                return EXIT_LOST
        elif isinstance(msg, s.Exit):
            terminal.restore()
            if msg.error:
                print(msg.error, file=sys.stderr)
            return msg.status
        return None

    def _send(self, msg: s.FromClient) -> None:
        try:
            self.conn.send([s.encode(msg)])
        except (ZmtpError, OSError) as exc:
            raise _Lost(str(exc)) from None
        self.last_sent = self.clock()


def _is_open(fd: int) -> bool:
    try:
        os.fstat(fd)
    except OSError:
        return False
    return True


def _noted(signum: int, frame: object) -> None:
    """Signals are handled from the wakeup pipe; the handler only keeps Python's default
    (an exception, or the end of the process) away."""


def _write_all(fd: int, data: bytes) -> None:
    """All of `data`, also to a descriptor left non-blocking by whoever shares it."""
    view = memoryview(data)
    done = 0
    while done < len(data):
        try:
            done += os.write(fd, view[done:])
        except BlockingIOError:
            select.select([], [fd], [])

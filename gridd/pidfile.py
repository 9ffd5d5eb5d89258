"""Daemon pid files: which daemon of a cell runs, and on which machine.

A pid file holds the daemon's pid and the name of the machine it runs on: a cell root
shared over NFS holds the pid files of execds on other machines, whose pids mean
nothing here (another process of this machine may have that pid), so `gridd down`,
`up` and `status` act only on those of their own machine. A file without a machine
(written before) is taken for this machine's.

Light on purpose (os only): q* commands use it to tell whether the master runs before
deciding how to answer.
"""

from __future__ import annotations

import os


def pid_and_machine(path: str | os.PathLike[str]) -> tuple[int, str]:
    """The pid a file names (0 when there is none) and its machine (this one when it
    names none, or is not there)."""
    try:
        with open(path) as f:
            words = f.read().split()
    except OSError:
        words = []
    try:
        pid = int(words[0]) if words else 0
    except ValueError:
        pid = 0
    return pid, words[1] if len(words) > 1 else this_machine()


def read_pid(path: str | os.PathLike[str]) -> int:
    """The pid a file names, 0 when there is none."""
    return pid_and_machine(path)[0]


def local_pid(path: str | os.PathLike[str]) -> int:
    """The pid a file names if its daemon runs on this machine, else 0."""
    pid, machine = pid_and_machine(path)
    return pid if machine == this_machine() else 0


def write_pid(path: str | os.PathLike[str]) -> None:
    """Record this process, on this machine."""
    with open(path, "w") as f:
        f.write(f"{os.getpid()} {this_machine()}\n")


def this_machine() -> str:
    return os.uname().nodename


def alive(pid: int) -> bool:
    """Whether the process runs (a zombie counts as gone)."""
    if pid <= 0:
        return False
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        return False


def gridd_alive(pid: int) -> bool:
    """Whether a gridd daemon of that pid runs, not another program that got the pid of
    one that died."""
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return alive(pid) and b"gridd" in f.read()
    except OSError:
        return False


def master_pidfile(base: str | os.PathLike[str] | None = None) -> str:
    from gridd import paths

    return os.path.join(base or paths.root_dir(), "spool", "qmaster", "qmaster.pid")


def running_master(base: str | os.PathLike[str] | None = None) -> int:
    """The pid of the cell's running master, 0 when none runs."""
    pid = read_pid(master_pidfile(base))
    return pid if gridd_alive(pid) else 0

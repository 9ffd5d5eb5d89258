"""Processes found by what the kernel shows of them, for tests and benches to end what
they started by PID (a daemon's children may outlive it and be reparented)."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path


def processes(wanted: Callable[[bytes, bytes], bool]) -> list[int]:
    """The PIDs of the processes (this one aside) whose command line and environment
    (NUL-separated, as /proc holds them, the environment with a NUL after its last
    entry too) `wanted` picks; those that end or hide them meanwhile are passed over."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes()
            environ = (entry / "environ").read_bytes() + b"\0"
        except OSError:
            continue
        if wanted(cmdline, environ):
            found.append(int(entry.name))
    return found

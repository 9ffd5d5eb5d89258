"""Writes that survive a crash or a power loss: what the spool, the accounting files and
the spool's method mark share."""

from __future__ import annotations

import os


def write_all(fd: int, data: bytes) -> None:
    """Every byte of `data` (os.write may write less than it is given)."""
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


def fsync_dir(path: str | os.PathLike[str]) -> None:
    """Make the directory's entries (a file created or renamed in it) durable too."""
    fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def write_synced(path: str | os.PathLike[str], data: bytes) -> None:
    """A new file holding `data`, on disk before this returns (its name is not: the
    caller renames it into place and syncs the directory)."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC, 0o644)
    try:
        write_all(fd, data)
        os.fsync(fd)
    finally:
        os.close(fd)


def replace(path: str | os.PathLike[str], data: bytes) -> None:
    """The file's whole new content, at once and durably: written beside under a dot
    name, fsync'd, renamed over the old file, and the rename made durable."""
    path = os.fspath(path)
    directory, name = os.path.split(path)
    temporary = os.path.join(directory, f".{name}.new")
    write_synced(temporary, data)
    os.replace(temporary, path)
    fsync_dir(directory or ".")

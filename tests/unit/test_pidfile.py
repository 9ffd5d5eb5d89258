"""Pid files name their machine: on a root shared over NFS, only this machine's pids
mean anything here (gridd.pidfile)."""

from __future__ import annotations

import os
from pathlib import Path

from gridd.pidfile import local_pid, pid_and_machine, read_pid, this_machine, write_pid


def test_a_pid_file_names_the_process_and_its_machine(tmp_path: Path) -> None:
    path = tmp_path / "execd.pid"
    write_pid(path)
    assert path.read_text() == f"{os.getpid()} {this_machine()}\n"
    assert pid_and_machine(path) == (os.getpid(), this_machine())
    assert read_pid(path) == local_pid(path) == os.getpid()


def test_the_pid_of_another_machine_is_none_here(tmp_path: Path) -> None:
    path = tmp_path / "execd.pid"
    path.write_text("4242 elsewhere.example.org\n")
    assert pid_and_machine(path) == (4242, "elsewhere.example.org")
    assert (read_pid(path), local_pid(path)) == (4242, 0)


def test_a_pid_file_without_a_machine_is_this_machines(tmp_path: Path) -> None:
    path = tmp_path / "qmaster.pid"
    path.write_text("4242\n")
    assert (pid_and_machine(path), local_pid(path)) == ((4242, this_machine()), 4242)
    assert pid_and_machine(tmp_path / "none") == (0, this_machine())
    (tmp_path / "bad").write_text("x\n")
    assert pid_and_machine(tmp_path / "bad") == (0, this_machine())

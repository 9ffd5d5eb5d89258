"""Second local users for tests: roland, user1 and andre, made for the test run (and
deleted once no module of any worker holds them).

Made with useradd when the tests run as root (else the tests that need them are skipped,
saying why), each with a home directory: execd runs a job in its owner's home unless it
says otherwise, as Grid Engine does. Commands run as these users need a Python they may
run, with the venv's packages and gridd on PYTHONPATH (``python_path``).
"""

from __future__ import annotations

import contextlib
import fcntl
import functools
import os
import pwd
import shutil
import site
import subprocess
import sys
import tempfile
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

PEOPLE = ("roland", "user1", "andre")


# Modules of several pytest-xdist workers use the users at once: each holds them (a file
# of its own under _HOLDERS) and the last to let go deletes those the run made (_MADE).
_HOLDERS = Path(tempfile.gettempdir()) / "gridd-test-users"
_MADE = _HOLDERS / "made"


@contextlib.contextmanager
def _locked() -> Iterator[None]:
    _HOLDERS.mkdir(exist_ok=True)
    with open(_HOLDERS / "lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        yield


@pytest.fixture(scope="module")
def people() -> Iterator[tuple[str, ...]]:
    if os.geteuid() != 0 or shutil.which("useradd") is None:
        pytest.skip("needs root and useradd to create the local users roland, user1, andre")
    holder = _HOLDERS / f"holder-{os.getpid()}-{uuid.uuid4().hex}"
    with _locked():
        for name in PEOPLE:
            try:
                pwd.getpwnam(name)
            except KeyError:
                subprocess.run(["useradd", "-m", "-N", "-s", "/bin/sh", name], check=True)
                with open(_MADE, "a") as made:
                    made.write(name + "\n")
        holder.touch()
    try:
        if interpreter(PEOPLE[0]) is None:
            pytest.skip("no Python interpreter of this version that the test users may run "
                        f"(the venv's is under {sys.base_prefix})")
        yield PEOPLE
    finally:
        with _locked():
            holder.unlink(missing_ok=True)
            if not any(_HOLDERS.glob("holder-*")) and _MADE.exists():
                for name in _MADE.read_text().split():
                    subprocess.run(["userdel", "-r", name], check=False, capture_output=True)
                _MADE.unlink()


def python_path() -> str:
    """Where the venv's packages and gridd are, for an interpreter outside the venv."""
    import gridd

    return os.pathsep.join([*site.getsitepackages(),
                            str(Path(gridd.__file__).resolve().parent.parent)])


@functools.cache
def interpreter(user: str) -> str | None:
    """A Python of this version the user may run: the venv's own, else the system's
    (the venv's may sit in a home directory others cannot enter)."""
    version = f"python{sys.version_info.major}.{sys.version_info.minor}"
    entry = pwd.getpwnam(user)
    for candidate in (sys.executable, f"/usr/bin/{version}", f"/usr/local/bin/{version}"):
        try:
            ok = subprocess.run([candidate, "-c", "import gridd.cli.qsub, msgspec"],
                                env={"PYTHONPATH": python_path()}, user=entry.pw_uid,
                                group=entry.pw_gid, extra_groups=[], capture_output=True,
                                timeout=30).returncode == 0
        except OSError:
            ok = False
        if ok:
            return candidate
    return None

"""Commands on the master's machine reach it through its local socket (gridd.master_local):
let in by their uid as the user whose key they would have used, with no CURVE to do;
over TCP with CURVE wherever that does not hold. Run as the test users of tests/users.py
(skipped, saying why, where they cannot be made)."""

from __future__ import annotations

import os
import pwd
import re
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from gridd import keys, master_local
from tests.e2e.conftest import Cell, as_user, make_cell
from tests.users import interpreter, people, python_path

__all__ = ["people"]

IMPORTS = {"PYTHONPROFILEIMPORTTIME": "1"}


@pytest.fixture
def cell(people: tuple[str, ...]) -> Iterator[Cell]:
    base = Path(tempfile.mkdtemp(prefix="gridd-local-", dir="/tmp"))
    base.chmod(0o755)  # the test users read the cell's files
    try:
        yield from make_cell(base, hosts=1, slots=1)
    finally:
        shutil.rmtree(base, ignore_errors=True)


def used_curve(stderr: str) -> bool:
    """Whether a command run with IMPORTS loaded libsodium, as a CURVE handshake does."""
    return "nacl._sodium" in stderr


def test_a_command_is_let_in_by_its_uid_as_the_user_its_key_names(cell: Cell) -> None:
    res = as_user(cell, "roland", "qsub", "-h", "-b", "y", "true", env=IMPORTS)
    assert res.returncode == 0 and not used_curve(res.stderr), res.stderr[-2000:]
    job = res.stdout.split()[2]
    detail = cell.ok("qstat", "-j", job)
    assert re.search(r"^owner:\s+roland$", detail, re.M), detail
    assert re.search(rf"^sge_o_host:\s+{re.escape(os.uname().nodename)}$", detail, re.M)
    # roland may delete his job, not another user's: he is roland, not root
    mine = cell.ok("qsub", "-h", "-b", "y", "true").split()[2]
    res = as_user(cell, "roland", "qdel", mine)
    assert res.returncode != 0 and "roland" in res.stdout + res.stderr, res
    res = as_user(cell, "roland", "qdel", job, env=IMPORTS)
    assert res.returncode == 0 and not used_curve(res.stderr)
    assert "roland has deleted job" in res.stdout
    # a key named by hand decides who the command is: over TCP, with that key
    secret = keys.secret_file(cell.root, keys.USERS, "roland")
    res = as_user(cell, "roland", "qstat", env={**IMPORTS, "GRIDD_KEY": secret})
    assert res.returncode == 0 and used_curve(res.stderr), res.stderr[-2000:]


def test_the_local_socket_lets_in_only_users_with_keys(cell: Cell) -> None:
    endpoint = Path(master_local.location(cell.root)).read_text().strip()
    assert endpoint.startswith("ipc://@gridd-")
    knock = ("from gridd.zmtp import Dealer, ZmtpError\n"
             f"try:\n    Dealer({endpoint!r}, 5)\nexcept ZmtpError as exc:\n    print(exc)\n")
    entry = pwd.getpwnam("user1")  # who has no key yet
    res = subprocess.run([interpreter("user1"), "-c", knock], capture_output=True, text=True,
                         env={"PYTHONPATH": python_path()}, user=entry.pw_uid,
                         group=entry.pw_gid, extra_groups=[], timeout=60)
    assert "the server refused the connection: 400" in res.stdout, res
    res = as_user(cell, "user1", "qstat")  # as_user makes user1's key first
    assert (res.returncode, res.stdout) == (0, ""), res.stderr
    # a name nobody holds, or a file of another uid than the socket's: over TCP, as before
    for name, owner in ((master_local.new_endpoint(), 0),
                        (endpoint, pwd.getpwnam("roland").pw_uid)):
        master_local.publish(cell.root, name)
        os.chown(master_local.location(cell.root), owner, -1)
        res = cell.run("qstat", env=dict(cell.env, **IMPORTS))
        assert res.returncode == 0 and used_curve(res.stderr), res.stderr[-2000:]

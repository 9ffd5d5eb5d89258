"""CURVE on a real cell: who gets in, as whom, and what a hostile peer can and cannot do.

Hand-made clients (pyzmq, raw sockets) play the attacker; the real commands check that
the master keeps serving everyone else. A second user's key is made for `nobody`, which
every Unix system has, so that these tests need no useradd (the key of a user the
machine knows is all the master goes by).
"""

from __future__ import annotations

import os
import pwd
import re
import socket
import subprocess
from collections.abc import Iterator

import pytest
import zmq

from gridd import keys
from gridd import protocol as p
from gridd.model.job import JobSpec
from tests.e2e.conftest import Cell, dealer, make_cell, wait_for

NOBODY = "nobody"


def ask(sock: zmq.Socket, msg: p.Msg, timeout_ms: int = 10_000) -> p.Msg | None:
    """Send one request; its answer, or None when none comes."""
    sock.send(p.encode(msg))
    if not sock.poll(timeout_ms):
        return None
    return p.decode(sock.recv())


def log_lines(cell: Cell, pattern: str) -> list[str]:
    text = (cell.root / "spool" / "qmaster" / "messages").read_text()
    return [ln for ln in text.splitlines() if re.search(pattern, ln)]


def job_spec(cell: Cell, owner: str) -> JobSpec:
    return JobSpec(name="claim", owner=owner, group=owner, uid=0, gid=0,
                   submit_host="elsewhere", binary=True, command=["true"], hold=True,
                   o_home=str(cell.root), o_workdir=str(cell.root), cwd=str(cell.root))


@pytest.fixture
def nobody_key(cell: Cell) -> str:
    if os.geteuid() != 0:
        pytest.skip("needs root to make a key for another user (nobody)")
    try:
        pwd.getpwnam(NOBODY)
    except KeyError:
        pytest.skip("this machine has no user nobody")
    out = cell.ok("gridd", "keys", "user", NOBODY)
    secret = keys.secret_file(cell.root, keys.USERS, NOBODY)
    assert secret in out
    assert os.stat(secret).st_uid == pwd.getpwnam(NOBODY).pw_uid
    assert os.stat(secret).st_mode & 0o777 == 0o600
    return secret


def test_keys_are_made_private_and_listed(cell: Cell):
    listed = cell.ok("gridd", "keys", "list").splitlines()
    assert [ln.split()[:2] for ln in listed] == [
        ["master", "master"], ["user", pwd.getpwuid(os.getuid()).pw_name],
        ["host", "node1"], ["host", "node2"]]
    for kind, name in ((keys.MASTER, ""), (keys.HOSTS, "node1")):
        assert os.stat(keys.secret_file(cell.root, kind, name)).st_mode & 0o777 == 0o600
        assert os.stat(keys.key_file(cell.root, kind, name)).st_mode & 0o777 == 0o644
    again = cell.ok("gridd", "keys", "host", "node1")
    assert "has a key pair already" in again
    res = cell.run("gridd", "keys", "user", "../etc")
    assert res.returncode == 1 and "cannot name a key" in res.stderr


def test_a_client_without_keys_or_with_a_forged_one_gets_nothing_done(cell: Cell, tmp_path):
    ctx = zmq.Context()
    try:
        plain = ctx.socket(zmq.DEALER)  # NULL security: no key at all
        plain.setsockopt(zmq.LINGER, 0)
        plain.connect((cell.root / "common" / "master_endpoint").read_text().strip())
        assert ask(plain, p.Submit(spec=job_spec(cell, "root")), timeout_ms=2000) is None
        forged = str(tmp_path / "forged.key")
        keys.create(forged)  # a well-made key pair the cell does not know
        for _ in range(30):  # a client retrying: refused each time, logged once
            sock = dealer(ctx, cell, secret=forged + keys.SECRET_SUFFIX)
            assert ask(sock, p.Submit(spec=job_spec(cell, "root")), timeout_ms=300) is None
            sock.close()
    finally:
        ctx.destroy(linger=0)
    res = cell.run("qstat", env=dict(cell.env, GRIDD_KEY=forged + keys.SECRET_SUFFIX))
    assert res.returncode == 1
    assert "this client's key is not authorized" in res.stderr
    assert "gridd keys user NAME" in res.stderr
    refused = log_lines(cell, r"refused a connection from 127\.0\.0\.1: unknown key")
    assert len(refused) == 1, refused
    assert cell.ok("qstat", "-u", "*") == ""  # nothing was submitted
    job = int(cell.ok("qsub", "-b", "y", "true").split()[2])  # the others are served
    wait_for(lambda: cell.run("qacct", "-j", str(job)).returncode == 0, what="job done")


def test_a_new_users_key_works_without_restarting_the_master(cell: Cell, nobody_key: str):
    ctx = zmq.Context()
    try:
        reply = ask(dealer(ctx, cell, secret=nobody_key), p.Ping())
    finally:
        ctx.destroy(linger=0)
    assert isinstance(reply, p.Ok)


def test_a_request_is_taken_for_the_user_whose_key_sent_it(cell: Cell, nobody_key: str):
    me = pwd.getpwuid(os.getuid()).pw_name
    ctx = zmq.Context()
    try:
        sock = dealer(ctx, cell, secret=nobody_key)
        reply = ask(sock, p.Submit(spec=job_spec(cell, me)))  # claims to be the manager
        assert isinstance(reply, p.Submitted), reply
        denied = ask(sock, p.SpoolRequest(action="check", user=me))
        assert denied == p.Error(text=f'denied: "{NOBODY}" must be manager for this '
                                      'operation', rid=0)
        assert ask(sock, p.Shutdown()) == denied
    finally:
        ctx.destroy(linger=0)
    detail = cell.ok("qstat", "-j", str(reply.job_id))
    assert re.search(rf"^owner:\s+{NOBODY}$", detail, re.M), detail
    group = subprocess.run(["id", "-gn", NOBODY], capture_output=True, text=True).stdout.strip()
    assert re.search(rf"^group:\s+{re.escape(group)}$", detail, re.M), detail
    assert re.search(rf"^uid:\s+{pwd.getpwnam(NOBODY).pw_uid}$", detail, re.M), detail
    # the host is the one the connection came from: this machine, not "elsewhere"
    assert re.search(rf"^sge_o_host:\s+{re.escape(os.uname().nodename)}$", detail, re.M), detail
    cell.ok("qstat")  # the master still runs


def test_only_a_hosts_own_key_may_report_for_it(cell: Cell):
    report = p.LoadReport(host="node2", load={"np_load_avg": "99.0"})
    ctx = zmq.Context()
    try:
        mine = dealer(ctx, cell)  # a user's key
        assert ask(mine, report) == p.Error(text="error: LoadReport is for execution daemons "
                                                 "only")
        assert isinstance(ask(mine, p.Register(host="node2", load={})), p.Error)
        node1 = dealer(ctx, cell, secret=keys.secret_file(cell.root, keys.HOSTS, "node1"))
        assert ask(node1, report) == p.Error(text="error: the key of host node1 may only "
                                                  "send its reports")
        assert ask(node1, p.Submit(spec=job_spec(cell, "root"))) == p.Error(
            text="error: the key of host node1 may only send its reports")
    finally:
        ctx.destroy(linger=0)
    assert log_lines(cell, r"refused LoadReport from user:")
    assert log_lines(cell, r"refused LoadReport from host:node1@")
    assert "99.0" not in cell.ok("qhost")
    job = int(cell.ok("qsub", "-b", "y", "true").split()[2])  # both execds still get work
    wait_for(lambda: cell.run("qacct", "-j", str(job)).returncode == 0, what="job done")


def test_garbage_on_the_port_disturbs_nobody(cell: Cell):
    host, port = (cell.root / "common" / "master_endpoint").read_text().strip()[6:].split(":")
    greeting = b"\xff" + bytes(8) + b"\x7f\x03\x00" + b"CURVE".ljust(20, b"\x00") + bytes(32)
    for junk in (os.urandom(100_000), b"GET / HTTP/1.0\r\n\r\n",
                 greeting + b"\x04\xc8\x05HELLO" + os.urandom(200), greeting + os.urandom(5000)):
        with socket.create_connection((host, int(port)), timeout=5) as raw:
            raw.sendall(junk)
            try:
                while raw.recv(65536):  # the master hangs up (or waits for more)
                    pass
            except (TimeoutError, ConnectionResetError):
                pass
            assert cell.ok("qstat", "-f").startswith("queuename")  # served meanwhile
    job = int(cell.ok("qsub", "-b", "y", "true").split()[2])
    wait_for(lambda: cell.run("qacct", "-j", str(job)).returncode == 0, what="job done")


def test_a_secret_key_others_may_read_is_refused(cell: Cell):
    mine = keys.secret_file(cell.root, keys.USERS, pwd.getpwuid(os.getuid()).pw_name)
    os.chmod(mine, 0o644)
    res = cell.run("qstat")
    assert res.returncode == 1
    assert res.stderr == (f"error: the secret key file {mine} may be read or changed by others "
                          f"(mode 0644); it must be private to its owner: run 'chmod 600 {mine}'"
                          "\n")
    master = keys.secret_file(cell.root, keys.MASTER)
    os.chmod(master, 0o640)
    res = cell.run("gridd", "master", timeout=30)
    assert res.returncode != 0 and f"the secret key file {master} may be read" in res.stderr
    os.chmod(mine, 0o600)
    os.chmod(master, 0o600)
    assert cell.ok("qstat") == ""


def test_without_a_key_file_the_user_is_told_who_makes_one(cell: Cell, tmp_path):
    missing = str(tmp_path / "nosuch.key_secret")
    res = cell.run("qstat", env=dict(cell.env, GRIDD_KEY=missing))
    assert (res.returncode, res.stderr) == (
        1, f"error: no secret key file {missing}: the administrator makes one with 'gridd keys "
           f"user {pwd.getpwuid(os.getuid()).pw_name}' (or set GRIDD_KEY to your secret key "
           "file)\n")



@pytest.fixture
def plain_cell(tmp_path) -> Iterator[Cell]:
    yield from make_cell(tmp_path, hosts=1, slots=1, up_args=("--security", "none"))


def test_a_cell_without_security_is_only_made_on_purpose_and_says_so(plain_cell: Cell):
    assert not (plain_cell.root / "common" / "keys").exists()
    assert log_lines(plain_cell, r"\|W\|security none: connections are neither authenticated")
    job = int(plain_cell.ok("qsub", "-b", "y", "true").split()[2])  # no key needed
    wait_for(lambda: plain_cell.run("qacct", "-j", str(job)).returncode == 0, what="job done")
    res = plain_cell.run("gridd", "up", "--security", "curve")
    assert (res.returncode, res.stderr) == (
        1, f"gridd: the cell under {plain_cell.root} was made with --security none\n")

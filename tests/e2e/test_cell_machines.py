"""A cell over several machines, as far as one machine shows it: a master alone listening
on every address (`gridd up --listen 0.0.0.0:PORT --hosts 0`), execds started by hand with
no flags, a node's own cell root joined with a bundle, and execds the master will not let
in, which say so and end instead of hanging.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from gridd import keys
from gridd.pidfile import alive
from tests.e2e.conftest import BIN, Cell, make_cell, wait_for

HOST = socket.gethostname()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def master_alone(tmp_path: Path) -> Iterator[Cell]:
    yield from make_cell(tmp_path, hosts=0, slots=2,
                         up_args=("--listen", f"0.0.0.0:{free_port()}"))


@pytest.fixture
def started(tmp_path: Path) -> Iterator[list[subprocess.Popen]]:
    """The execds a test starts by hand, killed at its end with their jobs."""
    procs: list[subprocess.Popen] = []
    yield procs
    for proc in procs:
        if proc.poll() is None:
            proc.send_signal(signal.SIGKILL)
            proc.wait(10)


def execd(started: list[subprocess.Popen], root: Path, *args: str) -> subprocess.Popen:
    env = dict(os.environ, GRIDD_ROOT=str(root))
    proc = subprocess.Popen([str(BIN / "gridd"), "execd", "--load-report-time", "1", *args],
                            env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, start_new_session=True)
    started.append(proc)
    return proc


def hosts_up(cell: Cell) -> list[str]:
    """The hosts qhost shows with a load, which they reported."""
    lines = cell.ok("qhost").splitlines()[3:]
    return [ln.split()[0] for ln in lines if ln.split()[6:7] != ["-"]]


def node_root(cell: Cell, root: Path, host: str) -> Path:
    """A node's own cell root, as a join makes it, but with a key pair for `host` that
    is made here: the master's cell has none, or another."""
    (root / "common").mkdir(parents=True)
    (root / "common" / "master_endpoint").write_bytes(
        (cell.root / "common" / "master_endpoint").read_bytes())
    keys.make_dirs(root)
    keys.install_public(keys.key_file(root, keys.MASTER),
                        keys.read_public(keys.key_file(cell.root, keys.MASTER)))
    keys.ensure(root, keys.HOSTS, host)
    return root


def test_a_master_alone_on_every_address_is_reached_by_its_host_name(
        master_alone: Cell, started: list[subprocess.Popen]):
    endpoint = (master_alone.root / "common" / "master_endpoint").read_text().strip()
    assert endpoint.startswith(f"tcp://{HOST}:")
    assert hosts_up(master_alone) == []  # --hosts 0: no execd of its own
    master_alone.ok("gridd", "keys", "host", HOST)
    proc = execd(started, master_alone.root)  # no flags: its name and the master from root
    wait_for(lambda: hosts_up(master_alone) == [HOST], what=f"{HOST} to register")
    proc.send_signal(signal.SIGTERM)
    assert proc.wait(15) == 0


def test_listen_moves_a_stopped_master_and_is_refused_while_it_runs(
        master_alone: Cell):
    endpoint_file = master_alone.root / "common" / "master_endpoint"
    before = endpoint_file.read_text()
    port = free_port()
    res = master_alone.run("gridd", "up", "--listen", f"127.0.0.1:{port}")
    assert res.returncode == 1 and res.stderr.startswith(
        f"gridd: the master of the cell under {master_alone.root} runs, listening at ")
    assert "moves it only while it is stopped" in res.stderr
    assert endpoint_file.read_text() == before
    master_alone.ok("gridd", "down")
    res = master_alone.run("gridd", "up", "--listen", f"127.0.0.1:{port}")
    assert res.returncode == 0, res
    assert f"the master now listens at 127.0.0.1:{port}" in res.stderr
    assert endpoint_file.read_text() == f"tcp://127.0.0.1:{port}\n"
    master_alone.ok("qstat")
    master_alone.ok("gridd", "down")  # a master started again binds where it was moved
    assert f"master at tcp://127.0.0.1:{port}," in master_alone.ok("gridd", "up")
    master_alone.ok("qstat")


def test_a_bundle_joins_a_node_with_a_root_of_its_own(
        master_alone: Cell, started: list[subprocess.Popen], tmp_path: Path):
    bundle = tmp_path / f"{HOST}.join"
    out = master_alone.ok("gridd", "keys", "host", HOST, "--bundle", str(bundle))
    assert f"gridd: wrote {bundle} (mode 0600" in out
    assert bundle.stat().st_mode & 0o777 == 0o600
    node = tmp_path / "node"  # this node's cell root: nothing in it yet
    proc = execd(started, node, "--join", str(bundle))
    wait_for(lambda: hosts_up(master_alone) == [HOST], what=f"{HOST} to join")
    master = master_alone.root / "common"
    assert (node / "common" / "master_endpoint").read_text() == (
        master / "master_endpoint").read_text()
    for key in ("keys/master.key", f"keys/hosts/{HOST}.key"):
        assert keys.read_public(str(node / "common" / key)) == keys.read_public(
            str(master / key))
    secret = node / "common" / "keys" / "hosts" / f"{HOST}.key_secret"
    assert secret.stat().st_mode & 0o777 == 0o600
    assert not (node / "common" / "keys" / "master.key_secret").exists()
    proc.send_signal(signal.SIGTERM)
    assert proc.wait(15) == 0
    endpoint = (master / "master_endpoint").read_text().strip()
    assert f"joined the cell of the master at {endpoint} as host {HOST}" in proc.stderr.read()
    last = wait_for(lambda: master_alone.ok("qhost", "-h", HOST).splitlines()[-1],
                    what="a line of qhost")
    assert last.split()[0] == HOST
    proc = execd(started, node)  # afterwards, as the systemd unit runs it: no flags
    wait_for(lambda: alive(proc.pid) and (node / "spool" / HOST / "messages").read_text()
             .count("connected to master: registering") == 2, what="the second register")
    proc.send_signal(signal.SIGTERM)
    assert proc.wait(15) == 0


@pytest.mark.parametrize(("spoil", "says"), [
    (lambda b: b.chmod(0o644), "may be read or changed by others (mode 0644)"),
    (lambda b: b.write_text("not a bundle\n"), "is not a gridd join bundle"),
    (lambda b: b.write_text(b.read_text().replace("host_secret_key", "host_secret")),
     "line 8 is not FIELD = VALUE, FIELD one of host,"),
    (lambda b: b.write_text("".join(ln for ln in b.read_text().splitlines(True)
                                    if not ln.startswith("master_public_key"))),
     "no master_public_key"),
    (lambda b: b.write_text(b.read_text().replace("host_public_key = ",
                                                  "host_public_key = 0")[:-1] + "\n"),
     "host_public_key is not a CURVE key"),
    (lambda b: b.unlink(), "cannot read the bundle"),
])
def test_a_bad_bundle_installs_nothing(master_alone: Cell, tmp_path: Path, spoil, says: str):
    bundle = tmp_path / "node9.join"
    master_alone.ok("gridd", "keys", "host", "node9", "--bundle", str(bundle))
    spoil(bundle)
    node = tmp_path / "node"
    node.mkdir()
    res = subprocess.run([str(BIN / "gridd"), "execd", "--join", str(bundle)],
                         env=dict(os.environ, GRIDD_ROOT=str(node)), capture_output=True,
                         text=True, timeout=30)
    assert res.returncode == 1 and res.stderr.startswith("gridd: cannot join: "), res
    assert says in res.stderr
    assert list(node.iterdir()) == []


def test_a_bundle_whose_host_key_is_not_its_pair_is_refused(master_alone: Cell,
                                                            tmp_path: Path):
    one, other = tmp_path / "a.join", tmp_path / "b.join"
    master_alone.ok("gridd", "keys", "host", "nodea", "--bundle", str(one))
    master_alone.ok("gridd", "keys", "host", "nodeb", "--bundle", str(other))
    theirs = next(ln for ln in other.read_text().splitlines()
                  if ln.startswith("host_secret_key"))
    one.write_text("\n".join(theirs if ln.startswith("host_secret_key") else ln
                             for ln in one.read_text().splitlines()) + "\n")
    res = subprocess.run([str(BIN / "gridd"), "execd", "--join", str(one)],
                         env=dict(os.environ, GRIDD_ROOT=str(tmp_path / "node")),
                         capture_output=True, text=True, timeout=30)
    assert res.returncode == 1
    assert "host_public_key is not the public key of host_secret_key" in res.stderr
    assert not (tmp_path / "node").exists()


def refused(proc: subprocess.Popen) -> str:
    """What an execd the master will not let in says, once it has ended by itself."""
    try:
        code = proc.wait(30)
    except subprocess.TimeoutExpired:
        raise AssertionError("the refused execd did not end by itself") from None
    assert code == 1
    return proc.stderr.read()


def test_a_host_the_master_has_no_key_of_is_refused_and_execd_ends(
        master_alone: Cell, started: list[subprocess.Popen], tmp_path: Path):
    node = node_root(master_alone, tmp_path / "node", "stranger")
    err = refused(execd(started, node, "--name", "stranger"))
    assert "refused the key of host stranger" in err and "gridd keys host stranger" in err
    assert err.rstrip().endswith("execd ends")
    log = (node / "spool" / "stranger" / "messages").read_text()
    assert "refused the key of host stranger" in log
    assert "stranger" not in master_alone.ok("qhost")


def test_a_host_with_another_key_than_the_masters_is_refused(
        master_alone: Cell, started: list[subprocess.Popen], tmp_path: Path):
    master_alone.ok("gridd", "keys", "host", "node5")
    node = node_root(master_alone, tmp_path / "node", "node5")
    err = refused(execd(started, node, "--name", "node5"))
    assert "refused the key of host node5" in err


def test_a_root_with_another_masters_key_is_refused(
        master_alone: Cell, started: list[subprocess.Popen], tmp_path: Path):
    master_alone.ok("gridd", "keys", "host", "node6")
    node = node_root(master_alone, tmp_path / "node", "node6")
    for name in ("node6.key", "node6.key_secret"):
        (node / "common" / "keys" / "hosts" / name).write_bytes(
            (master_alone.root / "common" / "keys" / "hosts" / name).read_bytes())
    keys.create(str(tmp_path / "other.key"))
    (node / "common" / "keys" / "master.key").write_bytes((tmp_path / "other.key").read_bytes())
    err = refused(execd(started, node, "--name", "node6"))
    assert "broke off 5 handshakes in a row: this cell root's master key" in err


def test_an_execd_without_a_master_to_find_says_so(tmp_path: Path):
    res = subprocess.run([str(BIN / "gridd"), "execd"], capture_output=True, text=True,
                         env=dict(os.environ, GRIDD_ROOT=str(tmp_path)), timeout=30)
    assert res.returncode == 1
    assert res.stderr.startswith(f"gridd: no master to connect to: no --master and "
                                 f"{tmp_path}/common/master_endpoint cannot be read")


def test_a_bundle_of_another_name_than_the_machines_joins_with_a_warning(
        master_alone: Cell, started: list[subprocess.Popen], tmp_path: Path):
    bundle = tmp_path / "node9.join"
    master_alone.ok("gridd", "keys", "host", "node9", "--bundle", str(bundle))
    proc = execd(started, tmp_path / "node", "--join", str(bundle))
    wait_for(lambda: hosts_up(master_alone) == ["node9"], what="node9 to join")
    proc.send_signal(signal.SIGTERM)
    assert proc.wait(15) == 0
    err = proc.stderr.read()
    assert f"gridd: warning: this machine's host name is {HOST}, not node9" in err
    assert "a plain 'gridd execd' here needs --name node9" in err

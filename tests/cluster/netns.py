"""A lab of machines on one Linux host: a network namespace and a host name each, on a bridge.

Each machine is a network namespace (`ip netns`) with one interface on a private /24,
plugged into a bridge that lives in a namespace of its own (the switch), so nothing of the
host's own network is touched. Commands run on a machine through `ip netns exec`, which
also bind-mounts the machine's /etc/netns/NS/hosts over /etc/hosts (every machine resolves
every other by name, in both directions), and under `unshare --uts` with the machine's
host name set: what `hostname` and gethostname() say there. The file system is shared, as
a cell root on NFS would be.

Taking the lab down kills every process left in its namespaces (`ip netns pids`) and
removes the namespaces and the /etc/netns files it made. It needs root, iproute2 and
unshare (util-linux); `missing()` says why it cannot run.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from gridd.pidfile import alive

NETNS_ETC = Path("/etc/netns")
SUBNET = "10.77.0"  # private to the lab's switch: every lab may use it at once


def missing() -> str | None:
    """Why a lab cannot be built here, or None."""
    if os.geteuid() != 0:
        return "network namespaces need root"
    for tool in ("ip", "unshare"):
        if shutil.which(tool) is None:
            return f"no {tool} command (iproute2, util-linux)"
    probe = f"gdprobe{os.getpid()}"
    made = subprocess.run(["ip", "netns", "add", probe], capture_output=True, text=True)
    if made.returncode != 0:
        return f"cannot make a network namespace: {made.stderr.strip()}"
    subprocess.run(["ip", "netns", "del", probe], capture_output=True)
    return None


def _ip(*args: str) -> None:
    res = subprocess.run(["ip", *args], capture_output=True, text=True)
    if res.returncode != 0:
        raise RuntimeError(f"ip {' '.join(args)}: {res.stderr.strip()}")


@dataclass
class Machine:
    name: str  # its host name
    ns: str  # its network namespace
    address: str
    env: dict[str, str] = field(default_factory=dict)  # what its commands run with

    def argv(self, args: Sequence[str]) -> list[str]:
        """`args` as run on this machine: in its namespace, under its host name."""
        return ["ip", "netns", "exec", self.ns, "unshare", "--uts", "--", "sh", "-c",
                'hostname "$0" && exec "$@"', self.name, *args]

    def run(self, *args: str, input: str | None = None, env: dict[str, str] | None = None,
            cwd: Path | None = None, timeout: float = 60) -> subprocess.CompletedProcess:
        return subprocess.run(self.argv(args), input=input, capture_output=True, text=True,
                              env=env or self.env, cwd=cwd, timeout=timeout)

    def ok(self, *args: str, **kw) -> str:
        res = self.run(*args, **kw)
        assert res.returncode == 0, (f"on {self.name}: {args}: rc={res.returncode}\n"
                                     f"{res.stdout}\n{res.stderr}")
        return res.stdout

    def start(self, *args: str, log: Path, env: dict[str, str] | None = None,
              cwd: Path | None = None) -> subprocess.Popen:
        """A daemon in the foreground of its own session; its pid is the command's, since
        ip, unshare and sh each exec the next."""
        with open(log, "ab") as out:
            return subprocess.Popen(self.argv(args), env=env or self.env, stdout=out,
                                    stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                    cwd=cwd, start_new_session=True)

    def cut(self) -> None:
        """Pull its cable: the link goes down, connections stall (nothing is closed)."""
        _ip("-n", self.ns, "link", "set", "eth0", "down")

    def mend(self) -> None:
        _ip("-n", self.ns, "link", "set", "eth0", "up")

    def pids(self) -> list[int]:
        res = subprocess.run(["ip", "netns", "pids", self.ns], capture_output=True, text=True)
        return [int(pid) for pid in res.stdout.split()]


class Lab:
    """Machines named `names`, the first at SUBNET.1, the others at .11, .12, ..."""

    def __init__(self, names: Sequence[str], env: dict[str, str]) -> None:
        tag = f"gd{os.getpid()}x{time.monotonic_ns() % 10_000}"
        self.switch = f"{tag}-sw"
        self.machines: dict[str, Machine] = {}
        for index, name in enumerate(names):
            address = f"{SUBNET}.{1 if index == 0 else 10 + index}"
            self.machines[name] = Machine(name, f"{tag}-{name}", address, dict(env))
        self.made_etc = False
        self.made: list[str] = []

    def __getitem__(self, name: str) -> Machine:
        return self.machines[name]

    def up(self) -> None:
        _ip("netns", "add", self.switch)
        self.made.append(self.switch)
        _ip("-n", self.switch, "link", "add", "br0", "type", "bridge")
        _ip("-n", self.switch, "link", "set", "br0", "up")
        hosts = "127.0.0.1\tlocalhost\n" + "".join(
            f"{m.address}\t{m.name}\n" for m in self.machines.values())
        if not NETNS_ETC.exists():
            NETNS_ETC.mkdir()
            self.made_etc = True
        for index, m in enumerate(self.machines.values()):
            _ip("netns", "add", m.ns)
            self.made.append(m.ns)
            port = f"p{index}"
            _ip("-n", self.switch, "link", "add", port, "type", "veth", "peer", "name", "eth0",
                "netns", m.ns)
            _ip("-n", self.switch, "link", "set", port, "master", "br0", "up")
            _ip("-n", m.ns, "addr", "add", f"{m.address}/24", "dev", "eth0")
            _ip("-n", m.ns, "link", "set", "eth0", "up")
            _ip("-n", m.ns, "link", "set", "lo", "up")
            etc = NETNS_ETC / m.ns
            etc.mkdir()
            (etc / "hosts").write_text(hosts)

    def down(self) -> None:
        """Kill what runs in the lab, then remove its namespaces and files."""
        pids = [pid for m in self.machines.values() for pid in m.pids()]
        for pid in pids:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        deadline = time.monotonic() + 10
        while any(alive(pid) for pid in pids) and time.monotonic() < deadline:
            time.sleep(0.05)
        for ns in reversed(self.made):
            subprocess.run(["ip", "netns", "del", ns], capture_output=True)
        for m in self.machines.values():
            shutil.rmtree(NETNS_ETC / m.ns, ignore_errors=True)
        if self.made_etc:
            with contextlib.suppress(OSError):
                NETNS_ETC.rmdir()


@contextlib.contextmanager
def lab(names: Sequence[str], env: dict[str, str]) -> Iterator[Lab]:
    built = Lab(names, env)
    try:
        built.up()
        yield built
    finally:
        built.down()

"""A gridd cell over four machines made of Linux namespaces (see netns.py): the master on
`master` (10.77.0.1), execds on node1, node2 and node3, each set up the way the README tells
an administrator to: node1 shares the master's cell root (as over NFS), node2 and node3
join with a bundle and keep cell roots of their own.

The commands are the venv's own, run on each machine under its host name. Everything the
cell started, jobs included, is killed afterwards (by the namespaces' pids and by the
cell's roots), and the namespaces and their /etc/netns files are removed.
"""

from __future__ import annotations

import contextlib
import os
import re
import signal
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from gridd.pidfile import read_pid
from tests.cluster import netns
from tests.e2e.conftest import BIN, cell_processes, wait_for

NODES = ("node1", "node2", "node7")  # the README's
STRANGER = "node9"  # a machine whose key the administrator did not make
LISTEN = f"{netns.SUBNET}.1:6444"
REPORTS = ("--load-report-time", "2")
README = Path(__file__).resolve().parents[2] / "README.md"

_missing = netns.missing()
pytestmark = pytest.mark.skipif(_missing is not None, reason=f"no cluster tests: {_missing}")


@dataclass
class Cluster:
    lab: netns.Lab
    root: Path  # the master's cell root, shared with node1
    tmp: Path
    execds: dict[str, subprocess.Popen]

    @property
    def master(self) -> netns.Machine:
        return self.lab["master"]

    def node(self, name: str) -> netns.Machine:
        return self.lab[name]

    def node_root(self, name: str) -> Path:
        """Where a node keeps its cell root: the shared one but on node7, which joins with
        a bundle."""
        return self.tmp / "node7-root" if name == "node7" else self.root

    def start_execd(self, name: str, *args: str) -> subprocess.Popen:
        """`gridd execd ARGS` on node `name`, in the foreground as systemd would run it."""
        node = self.node(name)
        proc = node.start("gridd", "execd", *args, log=self.tmp / f"{name}-execd.out",
                          cwd=self.tmp)
        self.execds[name] = proc
        return proc

    def execd_pid(self, name: str) -> int:
        pidfile = self.node_root(name) / "spool" / name / "execd.pid"
        return read_pid(pidfile)

    def up_hosts(self) -> set[str]:
        """The execution hosts qhost shows with a load (up)."""
        lines = self.master.ok("qhost").splitlines()
        load = lines[0].split().index("LOAD")
        return {f[0] for f in (ln.split() for ln in lines[3:])
                if len(f) > load and f[load] != "-"}

    def wait_up(self, *names: str, timeout: float = 60) -> None:
        wait_for(lambda: set(names) <= self.up_hosts(), timeout=timeout,
                 what=f"hosts {', '.join(names)} up in qhost")

    def set_conf(self, **values: str) -> None:
        """Set global configuration attributes as `qconf -mconf` with an editor would."""
        script = self.tmp / "edit-conf.sh"
        sed = ";".join(f"s/^{k} .*/{k} {v}/" for k, v in values.items())
        script.write_text(f"#!/bin/sh\nsed -i '{sed}' \"$1\"\n")
        script.chmod(0o755)
        self.master.ok("qconf", "-mconf", env=dict(self.master.env, EDITOR=str(script)))

    def qsub(self, *args: str, on: str = "master", input: str | None = None) -> int:
        out = self.lab[on].ok("qsub", *args, input=input, cwd=self.tmp)
        return int(re.search(r"Your job (\d+)", out).group(1))

    def accounting(self) -> list[list[str]]:
        path = self.root / "common" / "accounting"
        if not path.exists():
            return []
        return [ln.split(":") for ln in path.read_text().splitlines()
                if ln and not ln.startswith("#")]

    def runs(self, job: int) -> list[list[str]]:
        """The accounting records of a job (field 6 is the job number)."""
        return [rec for rec in self.accounting() if rec[5] == str(job)]

    def wait_accounted(self, job: int, runs: int = 1, timeout: float = 60) -> list[list[str]]:
        wait_for(lambda: len(self.runs(job)) >= runs, timeout=timeout,
                 what=f"{runs} accounting record(s) of job {job}")
        return self.runs(job)

    def state(self, job: int) -> tuple[str, str]:
        """A job's state letters and queue instance in plain qstat, ("", "") once gone."""
        for line in self.master.ok("qstat").splitlines()[2:]:
            fields = line.split()
            if fields and fields[0] == str(job):
                queue = fields[7] if len(fields) > 8 and "@" in fields[7] else ""
                return fields[4], queue
        return "", ""

    def wait_running(self, job: int, timeout: float = 60) -> str:
        """The queue instance once the job runs."""
        wait_for(lambda: self.state(job)[0] == "r", timeout=timeout,
                 what=f"job {job} running")
        return self.state(job)[1]


def readme_blocks() -> list[list[str]]:
    """The command blocks of the README's section "A cell over several machines", in
    order: the master and the nodes sharing its root, then the master making a bundle and
    node7 joining with it, then systemd's."""
    text = README.read_text()
    section = text[text.index("## A cell over several machines"):]
    section = section[:section.index("\n## ", 1)]
    blocks: list[list[str]] = []
    previous = ""
    for line in section.splitlines():
        if line.startswith("    "):
            if not previous.startswith("    "):
                blocks.append([])
            blocks[-1].append(line.strip())
        previous = line
    return blocks


def typed(line: str, c: Cluster) -> str:
    """A README line as typed in the lab: its example roots are the test's."""
    return (line.replace("/shared/cell", str(c.root))
            .replace("/var/lib/gridd", str(c.node_root("node7"))))


@pytest.fixture
def cluster(tmp_path: Path) -> Iterator[Cluster]:
    """The master up, the three nodes joined as the README says, all of them up."""
    tmp_path.chmod(0o755)
    root = tmp_path / "cell"
    env = dict(os.environ, GRIDD_ROOT=str(root), GRIDD_CONNECT_TIMEOUT="5",
               PATH=f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}")
    env.pop("SGE_ROOT", None)
    with netns.lab(("master", *NODES, STRANGER), env) as lab:
        c = Cluster(lab, root, tmp_path, {})
        try:
            shared, shared_nodes, bundle, joining = readme_blocks()[:4]
            c.master.ok("sh", "-ec", "\n".join(typed(ln, c) for ln in shared), cwd=tmp_path)
            c.master.ok("sh", "-ec", "\n".join(typed(ln, c) for ln in bundle), cwd=tmp_path)
            assert shared_nodes == ["GRIDD_ROOT=/shared/cell gridd execd"]
            for name in NODES[:2]:
                c.start_execd(name, *REPORTS)
            *exports, join = joining
            assert join == "gridd execd --join node7.join"
            for line in exports:  # export GRIDD_ROOT=...
                name, _, value = typed(line, c).removeprefix("export ").partition("=")
                c.node("node7").env[name] = value
            c.start_execd("node7", "--join", "node7.join", *REPORTS)
            c.wait_up(*NODES)
            yield c
        finally:
            lab["master"].run("gridd", "down")
            left = cell_processes(root)
            left += cell_processes(c.node_root("node7"))
            for pid in left:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)

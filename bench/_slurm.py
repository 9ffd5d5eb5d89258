"""A private Slurm beside a bench: munged, slurmctld and slurmd in a temporary directory,
one node offering as many CPUs as asked (config_overrides: more than the machine has),
on ports of its own, so the benches can compare with Slurm's own figures (sdiag) in the
same run. Debian's slurmctld, slurmd and munge packages; None where they are missing.
Every daemon is stopped by its PID and the directory removed on leaving; so are the job
steps and job shells it started (slurmstepd leaves them running if slurmd stops first).
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # the tests package

from tests.processes import processes  # noqa: E402

DAEMONS = ("/usr/sbin/munged", "/usr/sbin/slurmctld", "/usr/sbin/slurmd")
KEY = Path("/etc/munge/munge.key")


def available() -> bool:
    return all(Path(p).exists() for p in DAEMONS) and KEY.exists() and bool(
        shutil.which("sbatch"))


def _config(root: Path, cpus: int, host: str) -> str:
    return "\n".join([
        "ClusterName=bench", f"SlurmctldHost={host}", "SlurmctldPort=16817",
        "SlurmdPort=16818", "AuthType=auth/munge", f"AuthInfo=socket={root}/munge.sock",
        "SlurmUser=root", "SlurmdUser=root", f"StateSaveLocation={root}/state",
        f"SlurmdSpoolDir={root}/spool", f"SlurmctldPidFile={root}/slurmctld.pid",
        f"SlurmdPidFile={root}/slurmd.pid", f"SlurmctldLogFile={root}/slurmctld.log",
        f"SlurmdLogFile={root}/slurmd.log", "ProctrackType=proctrack/linuxproc",
        "TaskPlugin=task/none", "MpiDefault=none", "SelectType=select/cons_tres",
        "SelectTypeParameters=CR_CPU", "ReturnToService=2",
        # the main loop runs every 2 s instead of 60 (the cost of one run is the same)
        "SchedulerParameters=sched_interval=2", "SlurmdParameters=config_overrides",
        "AccountingStorageType=accounting_storage/none", "JobCompType=jobcomp/none",
        "JobAcctGatherType=jobacct_gather/none",
        f"NodeName={host} CPUs={cpus} State=UNKNOWN",
        "PartitionName=p Nodes=ALL Default=YES MaxTime=INFINITE State=UP", ""])


@contextlib.contextmanager
def slurm(cpus: int) -> Iterator[dict[str, str]]:
    """A running Slurm with one idle node of `cpus` CPUs; yields the environment its
    commands need (SLURM_CONF)."""
    root = Path(tempfile.mkdtemp(prefix="bench-slurm-"))
    for sub in ("state", "spool"):
        (root / sub).mkdir()
    host = socket.gethostname().split(".")[0]
    conf = root / "slurm.conf"
    conf.write_text(_config(root, cpus, host))
    env = {**os.environ, "SLURM_CONF": str(conf)}
    try:
        subprocess.run(["/usr/sbin/munged", "--force", f"--socket={root}/munge.sock",
                        f"--pid-file={root}/munged.pid", f"--log-file={root}/munged.log",
                        f"--seed-file={root}/munge.seed", f"--key-file={KEY}"], check=True)
        subprocess.run(["/usr/sbin/slurmctld", "-f", str(conf)], check=True, env=env)
        subprocess.run(["/usr/sbin/slurmd", "-f", str(conf)], check=True, env=env)
        deadline = time.monotonic() + 60
        while subprocess.run(["sinfo", "-h", "-o", "%T"], env=env, capture_output=True,
                             text=True).stdout.strip() != "idle":
            if time.monotonic() > deadline:
                raise RuntimeError(f"Slurm's node is not idle within 60 s (see {root})")
            time.sleep(0.2)
        yield env
    finally:
        subprocess.run(["scancel", "--full", "-u", "root"], env=env, capture_output=True)
        _drained(env)
        for name in ("slurmd", "slurmctld", "munged"):
            _stop(root / f"{name}.pid")
        for pid in _started_by(conf):  # steps scancel did not end in time
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        shutil.rmtree(root, ignore_errors=True)


def _drained(env: dict[str, str], timeout: float = 30.0) -> None:
    """Wait until Slurm lists no job (cancelled jobs stay, completing, while their steps
    are ended), for at most `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        listed = subprocess.run(["squeue", "-h"], env=env, capture_output=True, text=True)
        if listed.returncode != 0 or not listed.stdout.strip():
            return
        time.sleep(0.2)


def _started_by(conf: Path) -> list[int]:
    """The processes of this Slurm: its slurmctld and slurmd, started with SLURM_CONF
    naming its configuration, and its jobs' (slurmstepd, the job's shell and what it
    runs), which inherit it from slurmd or sbatch."""
    mark = f"\0SLURM_CONF={conf}\0".encode()
    return processes(lambda _, environ: mark in b"\0" + environ)


def _stop(pid_file: Path) -> None:
    """Stop a daemon by its PID: TERM, then KILL if it is still there after 10 s."""
    try:
        pid = int(pid_file.read_text())
    except (OSError, ValueError):
        return
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, signal.SIGTERM)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            os.kill(pid, 0)
            time.sleep(0.05)
        os.kill(pid, signal.SIGKILL)


def submit(env: dict[str, str], script: str, count: int) -> None:
    """`count` jobs of one command, submitted four at a time."""
    subprocess.run(f"seq {count} | xargs -P 4 -I{{}} sbatch -Q -o /dev/null --wrap "
                   f"'{script}'", shell=True, check=True, env=env)


def main_loop(env: dict[str, str], cycles: int, timeout: float = 120.0
              ) -> tuple[float, int, int]:
    """Slurm's main scheduling loop from now on: its mean cycle in ms over at least
    `cycles` runs (sdiag's counters, reset first), the runs, and the jobs the last looked
    at (its depth)."""
    subprocess.run(["sdiag", "-r"], env=env, check=True, capture_output=True)
    deadline = time.monotonic() + timeout
    while True:
        text = subprocess.run(["sdiag"], env=env, check=True, capture_output=True,
                              text=True).stdout
        main = text.split("Main schedule statistics", 1)[1].split("\n\n", 1)[0]
        figures = dict(line.strip().split(":", 1) for line in main.splitlines()[1:]
                       if ":" in line)
        runs = int(figures["Total cycles"])
        if runs >= cycles or time.monotonic() > deadline:
            mean = float(figures.get("Mean cycle", "0")) / 1000
            return mean, runs, int(figures.get("Mean depth cycle", "0"))
        time.sleep(0.5)

"""The master's memory: at rest, and with 100,000 pending jobs.

First in-process (no daemons): a MasterState configured as `gridd up` would for 250
hosts; jobs go in through `Master.submit`, one Effects per 1,000 submissions as the actor
batches them. Afterwards the process's resident size is read from /proc/self/status
(VmRSS) and getrusage (peak), and, for reference, the size of the jobs as the spool would
encode them (msgspec msgpack).

Then a real master (`gridd up`, one host of one slot): at rest after a job has run and a
query made its accounting process open the reporting database (DuckDB lives there, not
in the master), and again with the same number of jobs pending, submitted through the
API (`submit_many`) and mirrored by the scheduler. Each is the master's VmRSS and peak
(VmHWM) from /proc/PID/status, with its children's VmRSS beside: the scheduler process
(its mirror of the pending jobs) and the accounting process.
"""

from __future__ import annotations

import getpass
import os
import resource
import subprocess
import time

import msgspec
from _cell import BIN, SMOKE, Cell, cell

from gridd.master.bootstrap import CellConfig, initial_config
from gridd.master.core import Master
from gridd.master.state import Effects, MasterState
from gridd.model.job import JobSpec

HOSTS = 10 if SMOKE else 250
JOBS = 2_000 if SMOKE else 100_000
BATCH = 1_000
GiB = 1024.0**3


def vm_rss(pid: int | str = "self", field: str = "VmRSS") -> int:
    """A process's resident set size (or its peak, VmHWM) in bytes."""
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith(f"{field}:"):
                return int(line.split()[1]) * 1024
    return 0


def spec(n: int) -> JobSpec:
    """What `qsub -b y -l h_rt=...,mem_free=... sleep N` sends, environment included."""
    user = f"user{n % 37:02d}"
    home = f"/home/{user}"
    env = {
        "HOME": home, "USER": user, "LOGNAME": user, "SHELL": "/bin/bash",
        "PATH": "/usr/local/bin:/usr/bin:/bin", "LANG": "C.UTF-8", "TERM": "xterm",
        "PWD": f"{home}/work", "TZ": "UTC", "PROJECT_RUN": f"run-{n // 1000:04d}",
    }
    return JobSpec(
        name=f"sim_{n % 500}", owner=user, uid=1000 + n % 37, group="users", gid=100,
        submit_host="login1", o_home=home, o_workdir=f"{home}/work", o_logname=user,
        o_shell="/bin/bash", o_path=env["PATH"], cwd=f"{home}/work", binary=True,
        command=["sleep", str(60 + n % 600)],
        hard_resources={"h_rt": f"{1 + n % 8}:00:00", "mem_free": f"{1 + n % 4}G"},
        env=env,
    )


def in_process() -> dict[str, float]:
    rss_before = vm_rss()
    state = MasterState()
    initial_config(state, CellConfig(hosts=[f"node{i:03d}" for i in range(HOSTS)], slots=16,
                                     machine="login1"))  # the jobs' submit host
    master = Master(state)
    specs_made = 0.0
    t0 = time.perf_counter()
    now = time.time()
    for first in range(0, JOBS, BATCH):
        fx = Effects()
        t_spec = time.perf_counter()
        batch = [spec(n) for n in range(first, first + BATCH)]
        specs_made += time.perf_counter() - t_spec
        for s in batch:
            reply = master.submit(s, now, fx)
            assert not hasattr(reply, "text"), reply
    elapsed = time.perf_counter() - t0
    submit_s = elapsed - specs_made
    pending = sum(1 for j in state.jobs.values() for t in j.tasks.values() if t.state == "qw")
    rss = vm_rss()
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    encoder = msgspec.msgpack.Encoder()
    encoded = sum(len(encoder.encode(job)) for job in state.jobs.values())
    print(f"{HOSTS} hosts; {pending:,} pending jobs submitted in {elapsed:.2f} s "
          f"({submit_s:.2f} s in Master.submit = {JOBS / submit_s:,.0f} jobs/s)")
    print(f"VmRSS {rss / 2**20:,.0f} MiB (at start {rss_before / 2**20:,.0f} MiB), "
          f"peak {peak / 2**20:,.0f} MiB; target < 1 GiB: "
          f"{'met' if max(rss, peak) < GiB else 'NOT met'}")
    print(f"msgpack-encoded jobs: {encoded / 2**20:,.1f} MiB ({encoded / JOBS:,.0f} bytes/job); "
          f"RSS per job {(rss - rss_before) / JOBS:,.0f} bytes")
    return {"rss_mib": rss / 2**20, "peak_mib": peak / 2**20, "submit_per_s": JOBS / submit_s,
            "encoded_mib": encoded / 2**20}


def sizes(c: Cell, label: str) -> dict[str, float]:
    master = c.pids()[0]
    rss, peak = vm_rss(master) / 2**20, vm_rss(master, "VmHWM") / 2**20
    sched = vm_rss(c.master_child("scheduler")) / 2**20
    acct = vm_rss(c.master_child("accounting")) / 2**20
    print(f"real master {label}: VmRSS {rss:,.0f} MiB, peak {peak:,.0f} MiB; "
          f"its scheduler process {sched:,.0f} MiB, accounting process {acct:,.0f} MiB")
    return {"rss_mib": rss, "peak_mib": peak, "scheduler_mib": sched, "accounting_mib": acct}


def gridd(c: Cell, *args: str) -> str:
    return subprocess.run([str(BIN / args[0]), *args[1:]], env=c.env, check=True,
                          capture_output=True, text=True).stdout


def pending_spec(c: Cell, n: int) -> JobSpec:
    """spec(n) as the cell's user may submit it from this machine."""
    realistic = spec(n)
    realistic.owner, realistic.uid, realistic.gid = getpass.getuser(), os.getuid(), os.getgid()
    realistic.submit_host = ""
    realistic.hard_resources = {"h_rt": realistic.hard_resources["h_rt"]}
    return realistic


def real_master() -> dict[str, float]:
    with cell(hosts=1, slots=1) as c:
        gridd(c, "qsub", "-sync", "y", "-b", "y", "true")
        gridd(c, "gridd", "report", "--sql", "SELECT count(*) FROM accounting")
        rest = sizes(c, "at rest")
        gridd(c, "qsub", "-b", "y", "sleep", "3600")  # holds the one slot
        t0 = time.perf_counter()
        c.submit_many(pending_spec(c, n) for n in range(JOBS))
        elapsed = time.perf_counter() - t0
        print(f"{JOBS:,} jobs submitted through the API in {elapsed:.1f} s")
        loaded = sizes(c, f"with {JOBS:,} pending")
    return {"rest_mib": rest["rss_mib"], "pending_mib": loaded["rss_mib"],
            "pending_peak_mib": loaded["peak_mib"]}


def main() -> dict[str, float]:
    return {**in_process(), **{f"real_{k}": v for k, v in real_master().items()}}


if __name__ == "__main__":
    main()

"""The master's memory with 100,000 pending jobs, in-process (no daemons).

A MasterState configured as `gridd up` would for 250 hosts; jobs go in through
`Master.submit`, one Effects per 1,000 submissions as the actor batches them. Afterwards
the process's resident size is read from /proc/self/status (VmRSS) and getrusage (peak),
and, for reference, the size of the jobs as the spool would encode them (msgspec msgpack).
"""

from __future__ import annotations

import resource
import time

import msgspec
from _cell import SMOKE

from gridd.master.bootstrap import CellConfig, initial_config
from gridd.master.core import Master
from gridd.master.state import Effects, MasterState
from gridd.model.job import JobSpec

HOSTS = 10 if SMOKE else 250
JOBS = 2_000 if SMOKE else 100_000
BATCH = 1_000
GiB = 1024.0**3


def vm_rss() -> int:
    """Current resident set size in bytes."""
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
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


def main() -> dict[str, float]:
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


if __name__ == "__main__":
    main()

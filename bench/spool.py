"""The spooling methods' figures: what each costs the master, so that the default is chosen
by measurement.

For each method (sqlite, classic):

  * acknowledged submissions/s with durability on: 4 client processes x 1,000 held jobs
    through a real master (`gridd up --spooling-method`), each client one request at a
    time (every answer waits for its commit: synchronous=FULL WAL for sqlite, an fsync'd
    journal for classic), then the same with each client pipelining its 1,000;
  * restarting with 100,000 jobs spooled: the spool is built through the Spool API (a job
    header and one task per job, as the master writes them; jobs made by Master.submit
    with bench/master_rss.py's realistic specs), then timed: open + read_all + restore +
    Tracker in-process, and `gridd master` from exec until it answers a ping;
  * the size of that spool on disk (du) and its file count;
  * a conversion round trip of a cell of 10,000 jobs (gridd.spool.admin.convert to the
    other method and back), the objects compared after.

Targets: >= 1,000 acknowledged submissions/s for the default; a restart with 100,000 jobs
under 10 s.

    .venv/bin/python bench/spool.py [--method M] [--jobs N] [--skip-submit]
"""

from __future__ import annotations

import argparse
import getpass
import multiprocessing as mp
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import msgspec
from _cell import BIN, SMOKE, cell
from master_rss import spec as realistic_spec

from gridd import keys, master_endpoint, paths
from gridd.client import Client, GriddError
from gridd.master.bootstrap import CellConfig, initial_config
from gridd.master.core import Master
from gridd.master.state import Effects, MasterState
from gridd.model.job import JobSpec
from gridd.spool import admin
from gridd.spool.methods import METHODS, open_spool, set_method
from gridd.spool.records import load, records
from gridd.spool.tracking import Tracker

CLIENTS = 4
PER_CLIENT = 10 if SMOKE else 1_000
RESTART_JOBS = 300 if SMOKE else 100_000
CONVERT_JOBS = 100 if SMOKE else 10_000
TX_OBJECTS = 5_000  # objects per transaction when building a spool (as a conversion does)
SUBMIT_TARGET = 1_000.0  # acknowledged submissions/s, the default method
RESTART_TARGET = 10.0  # seconds with 100,000 jobs

_msgpack = msgspec.msgpack.Encoder()


# ---- submissions through a real master -------------------------------------------------


def _client(root: str, n: int, pipelined: bool, ready: mp.Barrier, out: mp.Queue) -> None:
    """One client process: `n` held jobs, one at a time or pipelined; sends back the ids.
    It connects before the barrier, so that the timed part is the submissions alone."""
    spec = JobSpec(name="held", owner=getpass.getuser(), uid=os.getuid(), gid=os.getgid(),
                   binary=True, command=["true"], hold=True, cwd=root, o_home=root,
                   o_workdir=root)
    with Client(root) as client:
        ready.wait()
        if pipelined:
            ids = [r.job_id for r in client.submit_many([spec] * n)]
        else:
            ids = [client.submit(spec).job_id for _ in range(n)]
    out.put(ids)


def _submit_rate(root: Path, pipelined: bool) -> float:
    """Acknowledged submissions/s of CLIENTS processes x PER_CLIENT jobs, all ids checked
    to be distinct."""
    ctx = mp.get_context("fork")
    ready, out = ctx.Barrier(CLIENTS + 1), ctx.Queue()
    procs = [ctx.Process(target=_client, args=(str(root), PER_CLIENT, pipelined, ready, out))
             for _ in range(CLIENTS)]
    for proc in procs:
        proc.start()
    ready.wait(timeout=60)
    t0 = time.perf_counter()
    ids = [job_id for _ in procs for job_id in out.get(timeout=300)]
    elapsed = time.perf_counter() - t0
    for proc in procs:
        proc.join(30)
        if proc.is_alive():
            proc.kill()
            proc.join()
    assert len(ids) == len(set(ids)) == CLIENTS * PER_CLIENT, "ids missing or acknowledged twice"
    return len(ids) / elapsed


def submissions(method: str) -> dict[str, float]:
    root = Path(tempfile.mkdtemp(prefix="gridd-bench-spool-", dir="/tmp"))
    set_method(root / "spool" / "qmaster", method)  # what `gridd up --spooling-method` does
    with cell(hosts=1, slots=1, root=root) as c:
        one = _submit_rate(c.root, pipelined=False)
        many = _submit_rate(c.root, pipelined=True)
        with Client(c.root) as client:
            held = len(client.jobs().jobs)
    assert held == 2 * CLIENTS * PER_CLIENT, f"{held} jobs in the cell"
    return {"submit_one_per_s": one, "submit_pipelined_per_s": many}


# ---- a spool of many jobs ---------------------------------------------------------------


def cell_of(jobs: int) -> MasterState:
    """A one-host cell as `gridd up` configures it, with `jobs` pending jobs submitted
    through Master.submit (1,000 per Effects, as the actor batches them)."""
    state = MasterState()
    initial_config(state, CellConfig(hosts=["node1"], slots=4, manager=getpass.getuser(),
                                      machine="login1"))  # the jobs' submit host
    master = Master(state)
    now = time.time()
    for first in range(0, jobs, 1000):
        fx = Effects()
        for n in range(first, min(jobs, first + 1000)):
            reply = master.submit(realistic_spec(n), now, fx)
            assert not hasattr(reply, "text"), reply
    return state


def build_spool(spool_dir: Path, method: str, state: MasterState) -> float:
    """Write the state through the Spool API, TX_OBJECTS per transaction; seconds taken."""
    set_method(spool_dir, method)
    objects = list(records(state))
    spool = open_spool(spool_dir, method)
    t0 = time.perf_counter()
    try:
        admin.write_all(spool, objects, TX_OBJECTS)
    finally:
        spool.close()
    return time.perf_counter() - t0


def _flush_writeback() -> None:
    """Flush dirty pages so that a restart's timing is not a writeback's (the page cache
    stays warm: a master restarted after a crash finds its spool cached too)."""
    os.sync()


def read_back(spool_dir: Path) -> tuple[float, int]:
    """Seconds for what the master does with its spool at start (MasterActor.__init__):
    open, read_all and restore with the collector held off, Tracker; and the jobs read."""
    t0 = time.perf_counter()
    spool = open_spool(spool_dir)
    try:
        state = load(spool)
        Tracker(state)
    finally:
        spool.close()
    return time.perf_counter() - t0, len(state.jobs) if state else 0


def master_start(root: Path) -> float:
    """Seconds from exec of `gridd master` until it answers a ping; the master is stopped
    (SIGTERM, then SIGKILL by PID) afterwards."""
    common = root / "common"
    common.mkdir(parents=True, exist_ok=True)
    cellconf = CellConfig(hosts=["node1"], slots=4, manager=getpass.getuser(),
                          machine=os.uname().nodename)
    (common / "bootstrap.json").write_bytes(msgspec.json.encode(cellconf))
    paths.master_spool(root).mkdir(parents=True, exist_ok=True)
    paths.listen_file(root).write_text(f"{master_endpoint.ANY_PORT}\n")
    keys.set_security(root, keys.NONE)  # as `gridd up --security none`: no keys to make
    env = dict(os.environ, GRIDD_ROOT=str(root), GRIDD_CONNECT_TIMEOUT="1")
    log = open(root / "master.out", "wb")  # noqa: SIM115 (closed below)
    t0 = time.perf_counter()
    proc = subprocess.Popen([str(BIN / "gridd"), "master"], env=env, stdout=log,
                            stderr=subprocess.STDOUT, start_new_session=True)
    try:
        while True:
            try:
                with Client(root) as client:
                    client.ping()
                break
            except GriddError:
                if proc.poll() is not None:
                    raise RuntimeError(f"the master exited: {(root / 'master.out').read_text()}"
                                       ) from None
                if time.perf_counter() - t0 > 120:
                    raise RuntimeError("the master did not answer within 120 s") from None
                time.sleep(0.02)
        return time.perf_counter() - t0
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        log.close()


def disk_usage(path: Path) -> tuple[int, int]:
    """Bytes on disk (du -sk) and number of files under `path`."""
    kib = int(subprocess.run(["du", "-sk", str(path)], capture_output=True, text=True,
                             check=True).stdout.split()[0])
    files = sum(len(names) for _, _, names in os.walk(path))
    return kib * 1024, files


def restart(method: str, state: MasterState) -> dict[str, float]:
    root = Path(tempfile.mkdtemp(prefix="gridd-bench-spool-", dir="/tmp"))
    try:
        spool_dir = root / "spool" / "qmaster"
        build_s = build_spool(spool_dir, method, state)
        _flush_writeback()
        read_s, jobs = read_back(spool_dir)
        assert jobs == RESTART_JOBS, f"{jobs} jobs read back"
        start_s = master_start(root)
        size, files = disk_usage(spool_dir / method)
    finally:
        shutil.rmtree(root, ignore_errors=True)
    return {"build_s": build_s, "read_s": read_s, "start_s": start_s, "bytes": size,
            "files": files}


# ---- conversion -------------------------------------------------------------------------


def _contents(spool_dir: Path) -> dict[tuple[str, str], bytes]:
    spool = open_spool(spool_dir)
    try:
        return {(kind, key): _msgpack.encode(obj) for kind, key, obj in spool.read_all()}
    finally:
        spool.close()


def round_trip(method: str, state: MasterState) -> dict[str, float]:
    other = next(m for m in METHODS if m != method)
    root = Path(tempfile.mkdtemp(prefix="gridd-bench-spool-", dir="/tmp"))
    try:
        spool_dir = root / "qmaster"
        build_spool(spool_dir, method, state)
        before = _contents(spool_dir)
        t0 = time.perf_counter()
        admin.convert(spool_dir, other)
        there = time.perf_counter() - t0
        t0 = time.perf_counter()
        admin.convert(spool_dir, method)
        back = time.perf_counter() - t0
        equal = _contents(spool_dir) == before
    finally:
        shutil.rmtree(root, ignore_errors=True)
    return {"there_s": there, "back_s": back, "equal": float(equal), "objects": len(before)}


# ---- the report ------------------------------------------------------------------------


def main(argv: list[str] | None = None) -> dict[str, dict[str, float]]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--method", choices=METHODS, action="append")
    parser.add_argument("--skip-submit", action="store_true")
    parser.add_argument("--smoke", action="store_true", help="tiny sizes (bench/_cell.py)")
    args = parser.parse_args(argv)
    methods = args.method or list(METHODS)[: 1 if SMOKE else None]  # smoke: the default
    print(f"building the states: {RESTART_JOBS:,} and {CONVERT_JOBS:,} jobs "
          "(Master.submit) ...", flush=True)
    big, small = cell_of(RESTART_JOBS), cell_of(CONVERT_JOBS)
    figures: dict[str, dict[str, float]] = {}
    for method in methods:
        other = next(m for m in METHODS if m != method)
        print(f"\n== {method} ==", flush=True)
        fig: dict[str, float] = {}
        if not args.skip_submit:
            fig |= submissions(method)
            print(f"submissions, {CLIENTS} clients x {PER_CLIENT:,}, one at a time: "
                  f"{fig['submit_one_per_s']:8,.0f} acknowledged/s", flush=True)
            print(f"submissions, {CLIENTS} clients x {PER_CLIENT:,}, pipelined:      "
                  f"{fig['submit_pipelined_per_s']:8,.0f} acknowledged/s", flush=True)
        r = restart(method, big)
        fig |= {f"restart_{k}": v for k, v in r.items()}
        print(f"spool of {RESTART_JOBS:,} jobs written (Spool API, {TX_OBJECTS:,} objects "
              f"per transaction): {r['build_s']:6.1f} s", flush=True)
        print(f"  open + read_all + restore + Tracker:           {r['read_s']:6.2f} s")
        print(f"  gridd master from exec until it answers ping: {r['start_s']:6.2f} s")
        print(f"  on disk (du): {r['bytes'] / 2**20:,.1f} MiB in {r['files']:,} files "
              f"({r['bytes'] / RESTART_JOBS:,.0f} bytes per job)", flush=True)
        c = round_trip(method, small)
        fig |= {f"convert_{k}": v for k, v in c.items()}
        print(f"conversion of {CONVERT_JOBS:,} jobs ({c['objects']:,.0f} objects): "
              f"{method} -> {other} {c['there_s']:.1f} s, back {c['back_s']:.1f} s; "
              f"objects {'equal' if c['equal'] else 'DIFFERENT'}", flush=True)
        figures[method] = fig
    print("\n== summary ==")
    print(f"{'':44}" + "".join(f"{m:>12}" for m in methods))
    rows = [("acknowledged submissions/s, one at a time", "submit_one_per_s", "{:,.0f}"),
            ("acknowledged submissions/s, pipelined", "submit_pipelined_per_s", "{:,.0f}"),
            (f"restart, {RESTART_JOBS // 1000}k jobs: read+restore+Tracker s",
             "restart_read_s", "{:.2f}"),
            (f"restart, {RESTART_JOBS // 1000}k jobs: master until ping s",
             "restart_start_s", "{:.2f}"),
            (f"spool size, {RESTART_JOBS // 1000}k jobs, MiB", "restart_bytes", "MiB"),
            (f"convert {CONVERT_JOBS // 1000}k jobs there + back, s", "convert_there_s", "rt")]
    for label, key, form in rows:
        cells = []
        for method in methods:
            fig = figures[method]
            if key not in fig:
                cells.append("-")
            elif form == "MiB":
                cells.append(f"{fig[key] / 2**20:,.1f}")
            elif form == "rt":
                cells.append(f"{fig['convert_there_s']:.1f}+{fig['convert_back_s']:.1f}")
            else:
                cells.append(form.format(fig[key]))
        print(f"{label:44}" + "".join(f"{c:>12}" for c in cells))
    default = figures.get("sqlite", {})
    if "submit_one_per_s" in default:
        print(f"target >= {SUBMIT_TARGET:,.0f} acknowledged/s (sqlite, the default): "
              f"{'met' if default['submit_one_per_s'] >= SUBMIT_TARGET else 'NOT met'}")
    for method in methods:
        start = figures[method]["restart_start_s"]
        print(f"target restart < {RESTART_TARGET:.0f} s with {RESTART_JOBS:,} jobs ({method}): "
              f"{'met' if start < RESTART_TARGET else 'NOT met'} ({start:.2f} s until ping)")
    return figures


if __name__ == "__main__":
    main()
    sys.exit(0)

"""Drain rate through three execution hosts on other "machines" (network and UTS namespaces
on this host, tests/cluster/netns.py) beside the same through three local execds.

Both cells have 3 hosts x SLOTS slots; JOBS `sleep 0` jobs are submitted at once and the
time until all are accounted is taken. The namespaced cell's master listens on the lab's
bridge (gridd up --listen ... --hosts 0) and its execds run on node1..node3 with the cell
root shared; the measuring runs on the master's machine (`--measure`, in its namespace).
It needs root and iproute2; without them only the local figure is printed.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # the tests package

from _cell import BIN, SMOKE, Cell, cell  # noqa: E402

from tests.cluster import netns  # noqa: E402

JOBS = 20 if SMOKE else 1000
SLOTS = 4
POLL = 0.1
TIMEOUT = 180.0
NODES = ("node1", "node2", "node3")


def measure(root: Path, jobs: int) -> dict[str, float]:
    """Submit `jobs` jobs to the cell under `root` and wait until all are accounted."""
    from gridd.client import Client

    c = Cell(root=root, env=dict(os.environ))
    before = c.accounted()
    with Client(root) as client:
        t0 = time.perf_counter()
        client.submit_many([c.spec("sleep", "0")] * jobs)
        submitted = time.perf_counter() - t0
        done = 0
        while done < jobs and time.perf_counter() - t0 < TIMEOUT:
            time.sleep(POLL)
            done = c.accounted() - before
        total = time.perf_counter() - t0
    return {"jobs": float(done), "submit_s": submitted, "total_s": total,
            "per_s": done / total}


def _local() -> dict[str, float]:
    with cell(hosts=3, slots=SLOTS, load_report_time=2.0) as c:
        return measure(c.root, JOBS)


def _namespaced() -> dict[str, float] | None:
    why = netns.missing()
    if why:
        print(f"namespaced cell: skipped ({why})")
        return None
    tmp = Path(tempfile.mkdtemp(prefix="gridd-bench-", dir="/tmp"))
    tmp.chmod(0o755)
    root = tmp / "cell"
    env = dict(os.environ, GRIDD_ROOT=str(root), PATH=f"{BIN}{os.pathsep}{os.environ['PATH']}")
    with netns.lab(("master", *NODES), env) as lab:
        master = lab["master"]
        try:
            master.ok("gridd", "up", "--listen", f"{netns.SUBNET}.1:6444", "--hosts", "0",
                      "--slots", str(SLOTS))
            for node in NODES:
                master.ok("gridd", "keys", "host", node)
                lab[node].start("gridd", "execd", "--load-report-time", "2",
                                log=tmp / f"{node}.out")
            deadline = time.monotonic() + 60
            while time.monotonic() < deadline:
                out = master.ok("qhost").splitlines()[3:]
                if sum(1 for ln in out if len(ln.split()) > 3 and ln.split()[3] != "-") == 3:
                    break
                time.sleep(0.2)
            res = master.ok(sys.executable, __file__, "--measure", str(root), str(JOBS),
                            timeout=TIMEOUT + 30)
            return json.loads(res.splitlines()[-1])
        finally:
            master.run("gridd", "down", "--kill-jobs")
            subprocess.run(["rm", "-rf", str(tmp)])


def main() -> dict[str, float]:
    local = _local()
    print(f"3 local execds:      {local['jobs']:.0f} jobs drained in {local['total_s']:.2f} s: "
          f"{local['per_s']:6.0f} jobs/s")
    figures = {"local_per_s": local["per_s"]}
    spread = None if SMOKE else _namespaced()  # the short form: local execds only
    if spread is not None:
        print(f"3 namespaced nodes:  {spread['jobs']:.0f} jobs drained in "
              f"{spread['total_s']:.2f} s: {spread['per_s']:6.0f} jobs/s "
              f"({spread['per_s'] / local['per_s']:.2f} x local)")
        figures["nodes_per_s"] = spread["per_s"]
    return figures


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--measure", nargs=2, metavar=("ROOT", "JOBS"),
                        help="(inside the master's namespace) submit and time the drain")
    parser.add_argument("--smoke", action="store_true", help="20 jobs, local execds only")
    args = parser.parse_args()
    if args.measure:
        print(json.dumps(measure(Path(args.measure[0]), int(args.measure[1]))))
    else:
        main()

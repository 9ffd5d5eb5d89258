"""What CURVE costs: the same round trips on a cell with CURVE (the default) and on one
made with `gridd up --security none`, which exists only for this measurement.

- qsub: the real command (`qsub -h -b y true`, a fresh process each time: start-up, the
  CURVE handshake, one request), median and p90 of RUNS, the two cells taking turns;
- connect: Client() + ping + close in this process (the handshake without start-up);
- ping / query: requests a second on one open connection through the Python API (Ping,
  and a qstat-like QueryJobs on a cell holding QUERY_JOBS held jobs);
- submit_many: pipelined held submissions a second;
- the import of PyNaCl, which a q* command pays only with CURVE (gridd/zmtp.py imports it
  lazily).
"""

from __future__ import annotations

import contextlib
import subprocess
import sys
import time
from collections.abc import Callable, Iterator

from _cell import BIN, SMOKE, Cell, cell, median_p90

from gridd.client import Client

RUNS = 2 if SMOKE else 40
WARMUP = 0 if SMOKE else 3
PINGS = 30 if SMOKE else 3000
CONNECTS = 3 if SMOKE else 300
QUERIES = 5 if SMOKE else 500
QUERY_JOBS = 5 if SMOKE else 100
SUBMITS = 30 if SMOKE else 3000


def per_second(n: int, action: Callable[[], object]) -> float:
    t0 = time.perf_counter()
    for _ in range(n):
        action()
    return n / (time.perf_counter() - t0)


def qsub_times(cells: dict[str, Cell]) -> dict[str, list[float]]:
    """Seconds per `qsub`, the cells taking turns so that drift touches both alike."""
    times: dict[str, list[float]] = {name: [] for name in cells}
    for i in range(WARMUP + RUNS):
        for name, c in cells.items():
            t0 = time.perf_counter()
            res = subprocess.run([str(BIN / "qsub"), "-h", "-b", "y", "true"], env=c.env,
                                 cwd=c.root, capture_output=True, text=True)
            elapsed = time.perf_counter() - t0
            if res.returncode != 0:
                raise RuntimeError(f"qsub ({name}): {res.stderr.strip()}")
            if i >= WARMUP:
                times[name].append(elapsed)
    return times


def api_rates(c: Cell) -> dict[str, float]:
    def connect() -> None:
        with Client(c.root) as client:
            client.ping()

    with Client(c.root) as client:
        ping = per_second(PINGS, client.ping)
        client.submit_many([c.spec("true", hold=True) for _ in range(QUERY_JOBS)])
        query = per_second(QUERIES, client.jobs)
        specs = [c.spec("true", hold=True) for _ in range(SUBMITS)]
        t0 = time.perf_counter()
        client.submit_many(specs)
        submits = SUBMITS / (time.perf_counter() - t0)
    return {"connect": per_second(CONNECTS, connect), "ping": ping, "query": query,
            "submit_many": submits}


def nacl_import_ms() -> float:
    """What importing PyNaCl adds to a q* command, once qsub's own modules are loaded
    (median of 5 fresh interpreters)."""
    code = ("import time, gridd.cli.qsub; t = time.perf_counter(); "
            "from nacl import bindings, exceptions; print(time.perf_counter() - t)")
    runs = sorted(float(subprocess.run([sys.executable, "-c", code], capture_output=True,
                                       text=True, check=True).stdout) for _ in range(5))
    return runs[2] * 1000


@contextlib.contextmanager
def two_cells() -> Iterator[dict[str, Cell]]:
    with cell(hosts=1, slots=1) as curve, cell(hosts=1, slots=1,
                                               up_args=("--security", "none")) as none:
        yield {"CURVE": curve, "none": none}


def main() -> dict[str, float]:
    with two_cells() as cells:
        qsub = qsub_times(cells)
        rates = {name: api_rates(c) for name, c in cells.items()}
    figures: dict[str, float] = {}
    print(f"{'':28}{'CURVE':>14}{'none':>14}{'CURVE costs':>14}")
    medians = {}
    for name in cells:
        med, p90 = median_p90(qsub[name])
        medians[name] = med
        figures[f"qsub_{name}_ms"] = med * 1000
        figures[f"qsub_{name}_p90_ms"] = p90 * 1000
    print(f"{'qsub -h -b y true, median':28}{medians['CURVE'] * 1000:11.1f} ms"
          f"{medians['none'] * 1000:11.1f} ms"
          f"{(medians['CURVE'] - medians['none']) * 1000:+11.1f} ms   ({RUNS} runs each)")
    p90s = {name: figures[f"qsub_{name}_p90_ms"] for name in cells}
    print(f"{'qsub -h -b y true, p90':28}{p90s['CURVE']:11.1f} ms{p90s['none']:11.1f} ms")
    for key, what in (("connect", "API connect+ping+close"), ("ping", "API ping round trips"),
                      ("query", f"API QueryJobs ({QUERY_JOBS} jobs)"),
                      ("submit_many", "API submit_many (held)")):
        with_curve, without = rates["CURVE"][key], rates["none"][key]
        figures[f"{key}_CURVE_per_s"], figures[f"{key}_none_per_s"] = with_curve, without
        print(f"{what:28}{with_curve:12,.0f}/s{without:12,.0f}/s"
              f"{(1 / with_curve - 1 / without) * 1e6:+11.0f} µs each")
    figures["nacl_import_ms"] = nacl_import_ms()
    print(f"{'import nacl (in qsub)':28}{figures['nacl_import_ms']:11.1f} ms"
          f"{'-':>14}   (paid by each q* command with CURVE)")
    return figures


if __name__ == "__main__":
    main()

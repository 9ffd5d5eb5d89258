"""Ingest rate into the reporting database: accounting records per second, both ways in.

stream  `gridd.accounting.db.ingest_stream` in batches of 1,000 records, as the accounting
        actor hands them over (reporting lines "end_time:acct:...", outbox seqs 1..N), then
        `settle` so that every record is in ARCo's tables.
file    `ingest_file` of the same records as an accounting(5) file, as `gridd dbwriter`.

Records come from bench/synthetic_accounting.py (1,000,000 by default); each run starts
from an empty database and ends with a CHECKPOINT, so that no deferred write goes
unmeasured. Wall time is what a user waits; CPU time (all threads of the process) says
what the work costs when other processes share the cores. Best of --repeat runs.
Target: at least 50,000 records/s each.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import duckdb
from synthetic_accounting import write_accounting

from gridd.accounting import db

BATCH = 1000  # records per ingest_stream call, the actor's batch
TARGET = 50_000


def _timed(run: Callable[[duckdb.DuckDBPyConnection], int], path: Path) -> tuple[float, float, int]:
    """Wall and CPU seconds of run on a fresh database, and the records it reports."""
    path.unlink(missing_ok=True)
    Path(f"{path}.wal").unlink(missing_ok=True)
    con = db.open_db(path)
    wall, cpu = time.perf_counter(), time.process_time()
    records = run(con)
    con.execute("CHECKPOINT")
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    con.close()
    return wall, cpu, records


def _stream(items: list[tuple[int, str]],
            batch: int) -> Callable[[duckdb.DuckDBPyConnection], int]:
    def run(con: duckdb.DuckDBPyConnection) -> int:
        added = 0
        for i in range(0, len(items), batch):
            added += db.ingest_stream(con, items[i:i + batch]).accounting
        return added + db.settle(con).accounting
    return run


def _file(acct: Path) -> Callable[[duckdb.DuckDBPyConnection], int]:
    return lambda con: db.ingest_file(con, acct).accounting


def _stream_items(acct: Path) -> list[tuple[int, str]]:
    """The file's records as the actor sends them: "end_time:acct:record" with a seq."""
    with acct.open(encoding="utf-8") as f:
        lines = [line.rstrip("\n") for line in f if not line.startswith("#")]
    return [(seq, f"{line.split(':', 11)[10]}:acct:{line}") for seq, line in enumerate(lines, 1)]


def _report(name: str, runs: list[tuple[float, float, int]]) -> float:
    wall, cpu, records = min(runs)
    rate = records / wall
    print(f"{name:<7} {records:>9,} records  {wall:6.2f} s  {rate:>9,.0f}/s  "
          f"(CPU {cpu:6.2f} s: {records / cpu:>9,.0f}/CPU-s)  target >= {TARGET:,}/s: "
          f"{'met' if rate >= TARGET else 'NOT met'}", flush=True)
    return rate


def main(jobs: int = 1_000_000, repeat: int = 2, acct: Path | None = None,
         batch: int = BATCH) -> dict[str, float]:
    with tempfile.TemporaryDirectory(prefix="gridd-ingest-") as tmp:
        work = Path(tmp)
        if acct is None:
            acct = write_accounting(work / "accounting", jobs=jobs, seed=7)
        items = _stream_items(acct)
        database = work / "reporting.duckdb"
        print(f"{len(items):,} accounting records; stream batches of {batch:,}", flush=True)
        stream = _report("stream", [_timed(_stream(items, batch), database)
                                    for _ in range(repeat)])
        file = _report("file", [_timed(_file(acct), database) for _ in range(repeat)])
    return {"stream_per_s": stream, "file_per_s": file}


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=1_000_000, help="synthetic records")
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--file", type=Path, help="an accounting file to use instead")
    parser.add_argument("--batch", type=int, default=BATCH, help="records per stream call")
    parser.add_argument("--smoke", action="store_true", help="2,000 records, once")
    args = parser.parse_args()
    if args.smoke:
        args.jobs, args.repeat = 2_000, 1
    main(args.jobs, args.repeat, args.file, args.batch)

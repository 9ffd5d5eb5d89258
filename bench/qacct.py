"""qacct on a million jobs: gridd's answers from the reporting database, next to Grid
Engine 8.1.9's qacct reading the same records from the accounting file, in the same run.

The accounting file is bench/synthetic_accounting.py's (1,000,000 records by default),
loaded into a reporting database as `gridd dbwriter` would. Each form is one fresh
process per run, timed with perf_counter around subprocess.run, the commands measured
together taking turns; the median of --repeat runs counts, after one warm-up run of
each. gridd is timed three ways: through the master of a running cell that holds the database (how
qacct answers while the cell runs: the command loads no duckdb), on the database with no
master (opened read-only), and on the accounting file (-f). Targets: -o and the summary
under 0.5 s, and every form no slower than real qacct (which reads the file).

With --listing, `qacct -j` listing every record (some 45 lines each) is timed too, once
each way, its output written to a file and compared by digest: a long run (a minute or
more per million records and way), so not a default.

    python bench/qacct.py [--jobs N] [--repeat R] [--file ACCOUNTING] [--listing]
"""

from __future__ import annotations

import argparse
import hashlib
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _cell import BIN, cell
from synthetic_accounting import build_database, write_accounting

SGE_SETTINGS = Path("/var/lib/gridengine/default/common/settings.sh")
GE_QACCT = Path("/usr/lib/gridengine/qacct")  # Debian's program, without /usr/bin's wrapper
TARGET_S = 0.5

Command = tuple[list[str], dict[str, str]]
# The per-month accounting report (ARCo's everyday one), timed beside qacct.
MONTHLY = [str(BIN / "gridd"), "report", "accounting_per_user", "--param", "period=month"]


def ge_env() -> dict[str, str] | None:
    """Real GE's environment when its qacct is installed (a program, not gridd's script);
    `qacct -f` needs SGE_ROOT and SGE_CELL but no running daemon."""
    try:
        with GE_QACCT.open("rb") as f:
            if f.read(4) != b"\x7fELF" or not SGE_SETTINGS.exists():
                return None
    except OSError:
        return None
    env = dict(os.environ, TZ="UTC")
    env.update(re.findall(r"^(SGE_\w+)=(\S+?);", SGE_SETTINGS.read_text(), re.M))
    return env


def middle_job(acct: Path) -> int:
    """The job number of the record in the middle of the file: what `-j N` looks for."""
    with acct.open("rb") as f:
        f.seek(acct.stat().st_size // 2)
        f.readline()
        return int(f.readline().split(b":")[5])


def timed(commands: list[Command], repeat: int) -> list[tuple[float, bytes]]:
    """Median seconds of each command over `repeat` runs taken in turns, and its stdout."""
    times: list[list[float]] = [[] for _ in commands]
    outputs = [b""] * len(commands)
    for n in range(repeat + 1):
        for i, (argv, env) in enumerate(commands):
            t0 = time.perf_counter()
            done = subprocess.run(argv, env=env, capture_output=True)
            elapsed = time.perf_counter() - t0
            if done.returncode != 0:
                raise RuntimeError(f"{' '.join(argv)}: rc={done.returncode}: {done.stderr!r}")
            if n:  # the first run warms the page cache
                times[i].append(elapsed)
            outputs[i] = done.stdout
    return [(statistics.median(t), out) for t, out in zip(times, outputs, strict=True)]


def listed(argv: list[str], env: dict[str, str], scratch: Path) -> tuple[float, bytes]:
    """Seconds of one run whose output goes to a file, as a user's redirection would,
    and the output's digest."""
    with (scratch / "listing").open("w+b") as out:
        t0 = time.perf_counter()
        done = subprocess.run(argv, env=env, stdout=out, stderr=subprocess.PIPE)
        elapsed = time.perf_counter() - t0
        if done.returncode != 0:
            raise RuntimeError(f"{' '.join(argv)}: rc={done.returncode}: {done.stderr!r}")
        out.seek(0)
        return elapsed, hashlib.file_digest(out, "sha256").digest()


def _differing(ours: bytes, theirs: bytes) -> int:
    a, b = ours.splitlines(), theirs.splitlines()
    return sum(x != y for x, y in zip(a, b, strict=False)) + abs(len(a) - len(b))


Results = dict[str, list[tuple[str, float, bytes]]]  # form -> (who, seconds, stdout)


def measure(acct: Path, root: Path, ge: dict[str, str] | None, repeat: int,
            listing: bool = False) -> Results:
    """Every form, gridd's three ways and real qacct's; `root`'s database is loaded. The
    listing's outputs are digests."""
    forms = {"-o": ["-o"], "summary": [], "-j N": ["-j", str(middle_job(acct))]}
    qacct = str(BIN / "qacct")
    standalone = dict(os.environ, GRIDD_ROOT=str(root), TZ="UTC")
    names = ["gridd, database, no master", "gridd -f file", "real qacct -f file"]
    results: Results = {}
    for form, args in forms.items():
        commands = [([qacct, *args], standalone), ([qacct, "-f", str(acct), *args], standalone)]
        if ge is not None:
            commands.append(([str(GE_QACCT), "-f", str(acct), *args], ge))
        results[form] = [(name, seconds, out) for name, (seconds, out)
                         in zip(names, timed(commands, repeat), strict=False)]
    help_runs = [([qacct, "-help"], standalone), ([sys.executable, "-c", "pass"], standalone)]
    (help_s, _), (python_s, _) = timed(help_runs, repeat * 4)
    results["-help"] = [("gridd, start-up", help_s, b""), ("python -c pass", python_s, b"")]
    ((seconds, _),) = timed([(MONTHLY, standalone)], repeat)
    results["report"] = [("gridd, database, no master", seconds, b"")]
    scratch = root.parent
    if listing:
        commands = [([qacct, "-j"], standalone), ([qacct, "-f", str(acct), "-j"], standalone)]
        if ge is not None:
            commands.append(([str(GE_QACCT), "-f", str(acct), "-j"], ge))
        results["-j"] = [(name, *listed(argv, env, scratch))
                         for name, (argv, env) in zip(names, commands, strict=False)]
    with cell(hosts=1, slots=1, root=root) as c:  # its master holds the database now
        env = dict(c.env, TZ="UTC")
        for form, args in forms.items():
            ((seconds, out),) = timed([([qacct, *args], env)], repeat)
            results[form].insert(0, ("gridd, through the master", seconds, out))
        ((seconds, _),) = timed([(MONTHLY, env)], repeat)
        results["report"].insert(0, ("gridd, through the master", seconds, b""))
        if listing:
            results["-j"].insert(0, ("gridd, through the master",
                                     *listed([qacct, "-j"], env, scratch)))
    return results


def report_listing(runs: list[tuple[str, float, bytes]]) -> dict[str, float]:
    """Print the listing's times: the database's two ways list in one order, the file's
    two in another (the file's), and each pair must agree."""
    print("  qacct -j listing every record, one run each:")
    digests = {who: digest for who, _, digest in runs}
    pairs = {"gridd, database, no master": "gridd, through the master",
             "real qacct -f file": "gridd -f file"}
    for who, seconds, digest in runs:
        other = pairs.get(who)
        same = "" if other is None else (
            f"  same output as {other}" if digests[other] == digest else f"  DIFFERS from {other}")
        print(f"  {'-j':<8} {who:<28} {seconds:7.3f} s{same}")
    return {f"listing_{key}_s": seconds for key, (_, seconds, _) in
            zip(("master", "standalone", "file", "ge"), runs, strict=False)}


def report(results: Results, records: int, repeat: int) -> dict[str, float]:
    """Print the table and the verdicts; the figures for run_all."""
    print(f"\nqacct on {records:,} records, median of {repeat} runs each:")
    figures: dict[str, float] = {}
    for form, key in (("-o", "o"), ("summary", "summary"), ("-j N", "j")):
        theirs = next((out for who, _, out in results[form] if who.startswith("real")), None)
        for who, seconds, out in results[form]:
            same = ""
            if theirs is not None and not who.startswith("real"):
                n = _differing(out, theirs)
                same = "  same output" if n == 0 else f"  {n} line(s) differ from real qacct's"
            print(f"  {form:<8} {who:<28} {seconds:7.3f} s{same}")
        if theirs is None:
            print(f"  {form:<8} real qacct: not installed")
        by_who = {who: seconds for who, seconds, _ in results[form]}
        figures[f"{key}_s"] = by_who["gridd, through the master"]
        figures[f"{key}_standalone_s"] = by_who["gridd, database, no master"]
        figures[f"{key}_file_s"] = by_who["gridd -f file"]
        if "real qacct -f file" in by_who:
            figures[f"ge_{key}_s"] = by_who["real qacct -f file"]
    for who, seconds, _ in results["report"]:
        print(f"  {'report':<8} {who:<28} {seconds:7.3f} s  (gridd report accounting_per_user, "
              "by month)")
    figures["report_month_s"] = results["report"][0][1]
    (_, help_s, _), (_, python_s, _) = results["-help"]
    print(f"  qacct -help start-up: {help_s * 1000:.0f} ms (python -c pass: "
          f"{python_s * 1000:.0f} ms)")
    figures["help_ms"] = help_s * 1000
    for key, form in (("o", "-o"), ("summary", "summary"), ("j", "-j N")):
        ours, theirs = figures[f"{key}_s"], figures.get(f"ge_{key}_s")
        verdicts = [] if key == "j" else [f"under {TARGET_S} s: "
                                          + ("yes" if ours < TARGET_S else "NO")]
        verdicts.append("no slower than real qacct: "
                        + ("n/a" if theirs is None else "yes" if ours <= theirs else "NO"))
        print(f"  target {form:<8} {'; '.join(verdicts)} (through the master)")
    print(f"  target report   under {TARGET_S} s: "
          f"{'yes' if figures['report_month_s'] < TARGET_S else 'NO'} (through the master)")
    if "-j" in results:
        figures.update(report_listing(results["-j"]))
    return figures


def main(jobs: int = 1_000_000, repeat: int = 5, acct: Path | None = None,
         listing: bool = False, peer: bool = True) -> dict[str, float]:
    with tempfile.TemporaryDirectory(prefix="gridd-qacct-") as tmp:
        if acct is None:
            t0 = time.perf_counter()
            acct = write_accounting(Path(tmp) / "accounting", jobs=jobs, seed=7)
            print(f"{jobs:,} records written in {time.perf_counter() - t0:.1f} s", flush=True)
        root = Path(tmp) / "cell"
        (root / "common").mkdir(parents=True)
        t0 = time.perf_counter()
        records = build_database(root / "common" / "reporting.duckdb", acct)
        print(f"{records:,} records loaded into the database in "
              f"{time.perf_counter() - t0:.1f} s", flush=True)
        results = measure(acct, root, ge_env() if peer else None, repeat, listing)
    return report(results, records, repeat)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=1_000_000, help="synthetic records")
    parser.add_argument("--repeat", type=int, default=5, help="timed runs of each form")
    parser.add_argument("--file", type=Path, help="an accounting file to use instead")
    parser.add_argument("--listing", action="store_true",
                        help="time `qacct -j` listing every record too (long)")
    parser.add_argument("--smoke", action="store_true",
                        help="2,000 records, once, without Grid Engine")
    args = parser.parse_args()
    if args.smoke:
        args.jobs, args.repeat = 2_000, 1
    main(args.jobs, args.repeat, args.file, args.listing, peer=not args.smoke)

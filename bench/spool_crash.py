"""The crash test's long form: 5,000 jobs from four clients, 20 SIGKILLs of the master.

The same harness as tests/e2e/test_spool_crash.py (the suite's short form), run once per
spooling method with more jobs and kills, five of the restarts killed again while the
master starts. Prints what happened and every broken promise; exits 1 if there was one.

    .venv/bin/python bench/spool_crash.py [--jobs N] [--kills K] [--method M] [--seed S]
"""

from __future__ import annotations

import argparse
import re
import shutil
import sys
import tempfile
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # the tests package

from gridd.spool.methods import METHODS  # noqa: E402
from tests.e2e.test_spool_crash import crash_run  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=5000)
    parser.add_argument("--kills", type=int, default=20)
    parser.add_argument("--starting-kills", type=int, default=5)
    parser.add_argument("--method", choices=METHODS, action="append")
    parser.add_argument("--seed", type=int, default=None)
    parser.add_argument("--smoke", action="store_true",
                        help="30 jobs, 1 kill, one method")
    args = parser.parse_args(argv)
    if args.smoke:
        args.jobs, args.kills, args.starting_kills = 30, 1, 0
        args.method = args.method or list(METHODS)[:1]
    failed = False
    for method in args.method or METHODS:
        root = Path(tempfile.mkdtemp(prefix="gridd-crash-", dir="/tmp"))
        print(f"== {method}: {args.jobs} jobs, {args.kills} kills ==", flush=True)
        try:
            result = crash_run(root / "cell", method, args.jobs, args.kills,
                               starting_kills=args.starting_kills, seed=args.seed,
                               log=lambda line: print(f"  {line}", flush=True))
        finally:
            shutil.rmtree(root, ignore_errors=True)
        print(result.summary())
        print(f"  gridd spool check: {result.check_stopped.stdout.strip()}")
        failures = Counter(re.sub(r"tcp://[^ ]+?:\d+", "<master>", failure)
                           for sub in result.submissions for failure in sub.failures)
        for text, n in failures.most_common():
            print(f"  {n:4} requests failed with: {text}")
        print("  connecting while the master was down failed with: "
              + ", ".join(f"{kind} x{n}" for kind, n in result.connect_failures.items()))
        problems = result.problems()
        for problem in problems:
            print(f"  BROKEN: {problem}")
        print("  every acknowledged job is there exactly once, under its own name"
              if not problems else f"  {len(problems)} problem(s)", flush=True)
        failed |= bool(problems)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

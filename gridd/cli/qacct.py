"""qacct: report on finished jobs from the accounting file.

It reads the file directly (no daemon needed) and imports neither duckdb nor the protocol
stack, so it starts as fast as GE's qacct does.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterable, Sequence
from fnmatch import fnmatchcase
from pathlib import Path

from gridd.accounting.accounting_file import read_records
from gridd.accounting.record import AccountingRecord
from gridd.accounting.render import SUMMARY_KEYS, render_job, render_summary

USAGE = """\
usage: qacct [options]
 [-A [account]]                    group by [or select] account
 [-D [department]]                 group by [or select] department
 [-f acctfile]                     read this accounting file
 [-g [group]]                      group by [or select] group
 [-h [host]]                       group by [or select] host
 [-help]                           show this text
 [-j [job_id|job_name|pattern]]    show every [matching] job record
 [-o [owner]] or [-u [owner]]      group by [or select] owner
 [-pe [pe_name]]                   group by [or select] parallel environment
 [-P [project]]                    group by [or select] project
 [-q [queue]]                      group by [or select] cluster queue or queue instance
"""

# Options taking an optional value, mapped to their SUMMARY_KEYS key.
_GROUPING = {f"-{key}": key for key in SUMMARY_KEYS} | {"-u": "o"}


class _Args:
    """What the command line asked for."""

    def __init__(self) -> None:
        self.file: Path | None = None
        self.job: str | None = None  # "" means every job
        self.groups: dict[str, str] = {}  # SUMMARY_KEYS key -> pattern ("" = no filter)
        self.help = False


class UsageError(Exception):
    pass


def _optional_value(argv: Sequence[str], i: int) -> tuple[str, int]:
    """The value after option i when there is one (the next word not starting with '-')."""
    if i + 1 < len(argv) and not argv[i + 1].startswith("-"):
        return argv[i + 1], i + 2
    return "", i + 1


def parse_args(argv: Sequence[str]) -> _Args:
    args = _Args()
    i = 0
    while i < len(argv):
        option = argv[i]
        if option == "-help":
            args.help, i = True, i + 1
        elif option == "-f":
            if i + 1 >= len(argv):
                raise UsageError("qacct: -f needs a file name")
            args.file, i = Path(argv[i + 1]), i + 2
        elif option == "-j":
            args.job, i = _optional_value(argv, i)
        elif option in _GROUPING:
            args.groups[_GROUPING[option]], i = _optional_value(argv, i)
        elif option.startswith("-"):
            raise UsageError(f"qacct: option {option} not supported yet")
        else:
            raise UsageError(f"qacct: unexpected argument {option!r}")
    return args


def accounting_path(args: _Args) -> Path:
    if args.file is not None:
        return args.file
    root = os.environ.get("GRIDD_ROOT") or str(Path.home() / ".gridd")
    return Path(root) / "common" / "accounting"


def _matches(key: str, pattern: str, rec: AccountingRecord) -> bool:
    if key == "q" and "@" in pattern:
        return fnmatchcase(f"{rec.qname}@{rec.hostname}", pattern)
    return fnmatchcase(SUMMARY_KEYS[key][1](rec), pattern)


def _selected(records: Iterable[AccountingRecord], args: _Args) -> list[AccountingRecord]:
    filters = [(key, pattern) for key, pattern in args.groups.items() if pattern]
    return [r for r in records if all(_matches(k, p, r) for k, p in filters)]


def _job_matcher(job: str) -> Callable[[AccountingRecord], bool]:
    if not job:
        return lambda rec: True
    if job.isdigit():
        return lambda rec: rec.job_number == int(job)
    return lambda rec: fnmatchcase(rec.job_name, job)


def _show_jobs(records: list[AccountingRecord], job: str) -> int:
    wanted = _job_matcher(job)
    blocks = [render_job(rec) for rec in records if wanted(rec)]
    if not blocks and job:
        kind = "id" if job.isdigit() else "name"
        print(f"error: job {kind} {job} not found", file=sys.stderr)
        return 1
    sys.stdout.write("".join(blocks))
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    try:
        args = parse_args(sys.argv[1:] if argv is None else argv)
    except UsageError as err:
        print(err, file=sys.stderr)
        return 1
    if args.help:
        sys.stdout.write(USAGE)
        return 0
    path = accounting_path(args)
    try:
        records = _selected(read_records(path), args)
    except OSError as err:
        print(f"error: cannot read accounting file {path}: {err.strerror}", file=sys.stderr)
        return 1
    except ValueError as err:
        print(f"error: {err}", file=sys.stderr)
        return 1
    if args.job is not None:
        return _show_jobs(records, args.job)
    sys.stdout.write(render_summary(records, list(args.groups)))
    return 0


if __name__ == "__main__":
    sys.exit(main())

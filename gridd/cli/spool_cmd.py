"""`gridd spool`: look after the master's spool.

    gridd spool check                 every spooled object parses (exit 1 when not)
    gridd spool backup DIR            a consistent copy, also while the master runs
    gridd spool restore DIR           put a backup in place (master stopped)
    gridd spool convert --to METHOD   sqlite <-> classic (master stopped)

While the master runs, check and backup are done by the master itself between two
transactions (a manager's request); restore and convert refuse to run under it.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from gridd.spool.methods import METHODS

ACTIONS = ("check", "backup", "restore", "convert")


def configure(sub: argparse._SubParsersAction) -> None:
    """Add `spool` to gridd's subcommands."""
    parser = sub.add_parser("spool", help="check, back up, restore or convert the spool")
    parser.add_argument("action", choices=ACTIONS,
                        help="check: every spooled object parses; backup DIRECTORY: a "
                        "consistent copy, also while the master runs; restore DIRECTORY, "
                        "convert --to METHOD: with the master stopped")
    parser.add_argument("directory", nargs="?", type=Path, help="backup/restore: the copy")
    parser.add_argument("--to", choices=METHODS, help="convert: the method")


def cmd_spool(base: Path, args: argparse.Namespace) -> int:
    from gridd import paths
    from gridd.pidfile import running_master
    from gridd.spool import admin
    from gridd.spool.base import SpoolError
    from gridd.spool.methods import open_spool

    spool_dir = paths.master_spool(base)
    if args.action in ("backup", "restore") and args.directory is None:
        return _fail(f"gridd spool {args.action}: a directory is required", 2)
    if args.action == "convert" and args.to is None:
        return _fail(f"gridd spool convert: --to {'|'.join(METHODS)} is required", 2)
    master = running_master(base)
    try:
        if args.action in ("restore", "convert"):
            if master:
                return _fail(f"gridd spool {args.action}: the master runs (pid {master}); "
                             "stop it first (gridd down)")
            if args.action == "restore":
                lines = admin.restore_backup(spool_dir, args.directory.resolve())
            else:
                lines = admin.convert(spool_dir, args.to)
        elif master:
            return _through_master(args)
        else:
            spool = open_spool(spool_dir)
            try:
                lines = (admin.check(spool) if args.action == "check"
                         else admin.backup(spool, args.directory.resolve()))
            finally:
                spool.close()
    except (SpoolError, OSError) as exc:
        return _fail(f"gridd spool {args.action}: {exc}")
    for line in lines:
        print(line)
    return 0


def _through_master(args: argparse.Namespace) -> int:
    """The running master checks or backs up its spool; its answer printed as qdel's is."""
    from gridd import protocol as p
    from gridd.cli.common import current_user, print_answer

    target = str(args.directory.resolve()) if args.directory is not None else ""
    request = p.SpoolRequest(action=args.action, user=current_user(), target=target)
    return print_answer(lambda client: client.request(request, timeout=None))


def _fail(text: str, code: int = 1) -> int:
    print(text, file=sys.stderr)
    return code

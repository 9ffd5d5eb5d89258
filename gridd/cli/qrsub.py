"""qrsub: ask for an advance reservation; print the master's answer on stdout.

Grid Engine's qrsub prints the master's refusals ("denied: ...", "advance_reservation:
no suitable queues") on standard output and exits with their code, so this does too;
only failures to reach the master go to standard error.
"""

from __future__ import annotations

import grp
import os
import sys
import time

from gridd import paths
from gridd.cli.common import current_user, run_command
from gridd.cli.qrsub_args import USAGE, QrsubError, QrsubRequest, parse_qrsub
from gridd.client import Client, GriddError


def main(argv: list[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    try:
        req = _parse(args)
    except QrsubError as exc:
        if exc.usage:
            sys.stderr.write(USAGE)
            print(f"ERROR! {exc.message}", file=sys.stderr)
        else:
            print(f"qrsub: {exc.message}", file=sys.stderr)
        return exc.exit_code
    if req.help:
        sys.stdout.write(USAGE)
        return 0
    return run_command(lambda: _submit(req))


def _parse(args: list[str]) -> QrsubRequest:
    try:
        group = grp.getgrgid(os.getgid()).gr_name
    except KeyError:
        group = str(os.getgid())
    return parse_qrsub(
        args, now=time.time(), root=paths.root_dir(), home=os.path.expanduser("~"),
        read_file=_read_file, owner=current_user(), group=group,
    )


def _read_file(path: str) -> str | None:
    try:
        with open(path, encoding="utf-8", errors="surrogateescape") as f:
            return f.read()
    except OSError:
        return None


def _submit(req: QrsubRequest) -> int:
    with Client() as client:  # not reaching the master: run_command, stderr
        try:
            reply = client.ar_submit(req.spec, os.uname().nodename)
        except GriddError as exc:  # the master's refusal, on stdout as Grid Engine does
            print(exc.text)
            return exc.code
    for line in reply.lines:
        print(line)
    return reply.code


if __name__ == "__main__":
    sys.exit(main())

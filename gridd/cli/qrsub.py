"""qrsub: ask for an advance reservation; print the master's answer on stdout.

Grid Engine's qrsub prints the master's refusals ("denied: ...", "advance_reservation:
no suitable queues") on standard output and exits with their code, so this does too;
only failures to reach the master go to standard error.
"""

from __future__ import annotations

import os
import sys
import time

from gridd import paths
from gridd.cli.common import current_group, current_user, print_answer, read_text, usage_error
from gridd.cli.qrsub_args import QrsubError, QrsubRequest, parse_qrsub
from gridd.manual import usage


def main(argv: list[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    try:
        req = _parse(args)
    except QrsubError as exc:
        if exc.usage:
            return usage_error("qrsub", exc.message)
        print(f"{exc.preamble}qrsub: {exc.message}", file=sys.stderr)
        return exc.exit_code
    if req.help:
        sys.stdout.write(usage("qrsub"))
        return 0
    return print_answer(lambda client: client.ar_submit(req.spec, os.uname().nodename),
                        refusal_to_stdout=True)


def _parse(args: list[str]) -> QrsubRequest:
    return parse_qrsub(
        args, now=time.time(), root=paths.root_dir(), home=os.path.expanduser("~"),
        read_file=read_text, owner=current_user(), group=current_group(),
    )


if __name__ == "__main__":
    sys.exit(main())

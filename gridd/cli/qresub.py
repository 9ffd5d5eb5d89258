"""qresub: submit jobs again, as new jobs with the same requests (and with the holds -h
names, none otherwise)."""

from __future__ import annotations

import socket
import sys
from collections import deque

from gridd import protocol as p
from gridd.cli.common import current_user, print_answer, usage_error
from gridd.cli.qhold import hold_list_error
from gridd.manual import usage

# The options qresub takes (gridd.manual.qresub describes them).
OPTIONS = frozenset({"-h", "-help"})


def main(argv: list[str] | None = None) -> int:
    args = deque(sys.argv[1:] if argv is None else argv)
    targets: list[str] = []
    holds = ""
    while args:
        arg = args.popleft()
        if not arg.startswith("-"):
            targets += [t for t in arg.split(",") if t]
        elif arg not in OPTIONS:  # a line of its own, as 8.1.9 says it
            print(f'qresub: invalid option argument "{arg}"', file=sys.stderr)
            return 2
        elif arg == "-h":
            holds = args.popleft() if args else ""
            code = hold_list_error("qresub", holds, alter=True)
            if code:
                return code
        else:  # -help
            sys.stdout.write(usage("qresub"))
            return 0
    if not targets:
        return usage_error("qresub", "no option argument")
    request = p.Resubmit(targets=targets, user=current_user(), host=socket.gethostname(),
                         holds=holds)
    return print_answer(lambda client: client.resubmit(request))


if __name__ == "__main__":
    sys.exit(main())

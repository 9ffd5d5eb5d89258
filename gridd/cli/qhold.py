"""qhold (and qrls, which releases): the user, operator and system holds of jobs and
array tasks."""

from __future__ import annotations

import socket
import sys
from collections import deque

from gridd import protocol as p
from gridd.cli.common import current_user, print_answer, usage_error
from gridd.formats.requests import first_invalid_job_task
from gridd.manual import usage


def hold_list_error(command: str, kinds: str, alter: bool = False) -> int:
    """The exit code for a -h hold list that is none, its error printed (0: it is one).
    qhold and qrls take u, s and o; qalter also n (no hold) and U, S and O (release
    one)."""
    if not kinds or set(kinds) - set("usonUSO" if alter else "uso"):
        print(f'{command}: Unknown hold list "{kinds}" specified to -h option',
              file=sys.stderr)
        return 7
    return 0


# The options qhold and qrls take (gridd.manual.qhold describes them).
OPTIONS = frozenset({"-h", "-help"})


def main(argv: list[str] | None = None, release: bool = False) -> int:
    command = "qrls" if release else "qhold"
    args = deque(sys.argv[1:] if argv is None else argv)
    targets: list[str] = []
    kinds = "u"
    while args:
        arg = args.popleft()
        if not arg.startswith("-"):
            targets += [t for t in arg.split(",") if t]
        elif arg not in OPTIONS:
            print(f'{command}: invalid option argument "{arg}"', file=sys.stderr)
            return 2
        elif arg == "-h":
            kinds = args.popleft() if args else ""
            code = hold_list_error(command, kinds)
            if code:
                return code
        else:  # -help
            sys.stdout.write(usage(command))
            return 0
    if not targets:  # the usage, then 8.1.9's complaint
        return usage_error(command, "no option argument")
    why = first_invalid_job_task(targets)
    if why:
        print(why, file=sys.stderr)
        return 2
    request = p.Hold(targets=targets, user=current_user(), host=socket.gethostname(),
                     hold=not release, kinds=kinds)
    return print_answer(lambda client: client.hold(request))


if __name__ == "__main__":
    sys.exit(main())

"""qresub: submit jobs again, as new jobs with the same requests (and with the holds -h
names, none otherwise)."""

from __future__ import annotations

import socket
import sys
from collections import deque

from gridd import protocol as p
from gridd.cli.common import current_user, print_answer
from gridd.cli.qhold import hold_list_error

USAGE = """usage: qresub [options] job_id_list
   [-h hold_list]     holds of the new jobs (u, o, s; n for none)
   [-help]            print this help
   job_id_list        job_id[,job_id,...]
"""


def main(argv: list[str] | None = None) -> int:
    args = deque(sys.argv[1:] if argv is None else argv)
    targets: list[str] = []
    holds = ""
    while args:
        arg = args.popleft()
        if arg == "-help":
            print(USAGE, end="")
            return 0
        if arg == "-h":
            holds = args.popleft() if args else ""
            code = hold_list_error("qresub", holds, alter=True)
            if code:
                return code
        elif arg.startswith("-"):
            print(f'{USAGE}invalid option argument "{arg}"', file=sys.stderr)
            return 1
        else:
            targets += [t for t in arg.split(",") if t]
    if not targets:
        print(f"{USAGE}ERROR! no option argument", file=sys.stderr)
        return 1
    request = p.Resubmit(targets=targets, user=current_user(), host=socket.gethostname(),
                         holds=holds)
    return print_answer(lambda client: client.resubmit(request))


if __name__ == "__main__":
    sys.exit(main())

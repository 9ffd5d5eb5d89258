"""qalter: change attributes of submitted jobs (-N, -p, -R, -ar and the hard -l list)."""

from __future__ import annotations

import socket
import sys
from collections import deque

from gridd import protocol as p
from gridd.cli.common import current_user, print_answer
from gridd.cli.qsub_args import ALTERABLE, QsubError, alter_settings

USAGE = ("usage: qalter [-N name] [-p priority] [-R y|n] [-ar ar_id] "
         "[-l resource=value,...] job_task_list")
FIELDS = {"name": "name", "priority": "priority", "reserve": "reserve",
          "hard_resources": "hard", "ar": "ar"}


def main(argv: list[str] | None = None) -> int:
    args = deque(sys.argv[1:] if argv is None else argv)
    changes: dict[str, object] = {}
    targets: list[str] = []
    while args:
        arg = args.popleft()
        if arg in ("-help", "--help"):
            print(USAGE)
            return 0
        if arg in ALTERABLE:
            if not args:
                print(f"qalter: option {arg} needs an argument\n{USAGE}", file=sys.stderr)
                return 1
            try:
                settings = alter_settings(arg, args.popleft())
            except QsubError as exc:
                print(f"qalter: {exc.message}", file=sys.stderr)
                return exc.exit_code
            changes.update({FIELDS[k]: v for k, v in settings.items()})
        elif arg.startswith("-"):
            print(f'{USAGE}\nerror: invalid option argument "{arg}"', file=sys.stderr)
            return 1
        else:
            targets += [t for t in arg.split(",") if t]
    if not targets or not changes:
        print(USAGE, file=sys.stderr)
        return 1
    request = p.Alter(targets=targets, user=current_user(), host=socket.gethostname(),
                      **changes)  # type: ignore[arg-type]

    return print_answer(lambda client: client.alter(request))


if __name__ == "__main__":
    sys.exit(main())

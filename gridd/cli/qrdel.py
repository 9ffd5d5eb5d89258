"""qrdel: delete advance reservations by id or name, or every AR of some users (-u).

The master's answer, refusals included, is printed on standard output, as Grid Engine's
qrdel prints it; only failures to reach the master go to standard error.
"""

from __future__ import annotations

import sys

from gridd.cli.common import (
    DeleteArgsError,
    current_user,
    delete_args,
    print_answer,
)
from gridd.manual import usage


def main(argv: list[str] | None = None) -> int:
    try:
        args = delete_args(sys.argv[1:] if argv is None else argv)
    except DeleteArgsError as exc:  # after the usage, in 8.1.9's words
        sys.stderr.write(usage("qrdel"))
        print(f'error: invalid option argument "{exc.option}"' if exc.option
              else "ERROR! no option argument", file=sys.stderr)  # no users, no AR named
        return 1
    if args.help:
        sys.stdout.write(usage("qrdel"))
        return 0
    return print_answer(lambda client: client.ar_delete(args.targets, current_user(),
                                                        args.users, args.force),
                        refusal_to_stdout=True)


if __name__ == "__main__":
    sys.exit(main())

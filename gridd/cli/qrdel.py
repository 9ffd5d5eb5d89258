"""qrdel: delete advance reservations by id or name, or every AR of some users (-u).

The master's answer, refusals included, is printed on standard output, as Grid Engine's
qrdel prints it; only failures to reach the master go to standard error.
"""

from __future__ import annotations

import sys

from gridd.cli.common import current_user, print_answer

USAGE = """usage: qrdel [options] ar_list
   [-f]                                     also delete the jobs of the ARs, forcibly
   [-help]                                  show this text
   [-u user_list]                           delete the ARs of these users

ar_list                 ar_id|ar_name[,ar_id|ar_name,...] (names may be patterns)
user_list               user[,user,...]
"""


def main(argv: list[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    force = False
    users: list[str] = []
    targets: list[str] = []
    while args:
        arg = args.pop(0)
        if arg == "-f":
            force = True
        elif arg == "-u":
            if not args:
                return _usage_error("-u option must have argument")
            users += [u for u in args.pop(0).split(",") if u]
        elif arg in ("-help", "--help"):
            sys.stdout.write(USAGE)
            return 0
        elif arg.startswith("-"):
            return _usage_error(f'invalid option argument "{arg}"')
        else:
            targets += [t for t in arg.split(",") if t]
    if not targets and not users:
        return _usage_error("no ar_list given")
    return print_answer(lambda client: client.ar_delete(targets, current_user(), users, force),
                        refusal_to_stdout=True)


def _usage_error(message: str) -> int:
    sys.stderr.write(USAGE)
    print(f"ERROR! {message}", file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.exit(main())

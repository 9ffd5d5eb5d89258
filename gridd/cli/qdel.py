"""qdel: delete jobs by id, id.task range, name, or owner (-u)."""

from __future__ import annotations

import sys

from gridd.cli.common import current_user, print_answer

USAGE = "usage: qdel [-f] [-u user_list] [job_task_list | -u user_list]"


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
                print("qdel: option -u needs an argument\n" + USAGE, file=sys.stderr)
                return 1
            users += [u for u in args.pop(0).split(",") if u]
        elif arg in ("-help", "--help"):
            print(USAGE)
            return 0
        elif arg.startswith("-"):
            print(f'{USAGE}error: invalid option argument "{arg}"', file=sys.stderr)
            return 1
        else:
            targets += [t for t in arg.split(",") if t]
    if not targets and not users:
        print(USAGE, file=sys.stderr)
        return 1

    return print_answer(lambda client: client.delete(targets, current_user(), users, force))


if __name__ == "__main__":
    sys.exit(main())

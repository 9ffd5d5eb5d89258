"""qdel: delete jobs by id, id.task range, name, or owner (-u)."""

from __future__ import annotations

import sys

from gridd.cli.common import DeleteArgsError, current_user, delete_args, print_answer
from gridd.formats.requests import first_invalid_job_task

USAGE = "usage: qdel [-f] [-u user_list] [job_task_list | -u user_list]"


def main(argv: list[str] | None = None) -> int:
    try:
        args = delete_args(sys.argv[1:] if argv is None else argv)
    except DeleteArgsError as exc:
        print({"-u without users": "qdel: option -u needs an argument\n" + USAGE,
               "invalid option": f'{USAGE}error: invalid option argument "{exc.option}"',
               "nothing to delete": USAGE}[exc.kind], file=sys.stderr)
        return 1
    if args.help:
        print(USAGE)
        return 0
    why = first_invalid_job_task(args.targets)
    if why:
        print(f"error: {why}", file=sys.stderr)
        return 1
    return print_answer(lambda client: client.delete(args.targets, current_user(), args.users,
                                                     args.force))


if __name__ == "__main__":
    sys.exit(main())

"""qdel: delete jobs by id, id.task range, name, or owner (-u)."""

from __future__ import annotations

import sys

from gridd.cli.common import DeleteArgsError, current_user, delete_args, print_answer
from gridd.formats.requests import first_invalid_job_task
from gridd.manual import usage


def main(argv: list[str] | None = None) -> int:
    try:
        args = delete_args(sys.argv[1:] if argv is None else argv)
    except DeleteArgsError as exc:  # the usage first, as 8.1.9 prints it
        sys.stderr.write(usage("qdel"))
        if exc.option:
            print(f'error: invalid option argument "{exc.option}"', file=sys.stderr)
        else:  # -u without users, or nothing named: 8.1.9 says so on standard output
            print("ERROR! no option argument")
        return 1
    if args.help:
        sys.stdout.write(usage("qdel"))
        return 0
    why = first_invalid_job_task(args.targets)
    if why:
        print(f"error: {why}", file=sys.stderr)
        return 1
    return print_answer(lambda client: client.delete(args.targets, current_user(), args.users,
                                                     args.force))


if __name__ == "__main__":
    sys.exit(main())

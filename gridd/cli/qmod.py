"""qmod: disable, enable, suspend and unsuspend queue instances, suspend, unsuspend and
reschedule jobs, and clear error states."""

from __future__ import annotations

import os
import sys
from collections import deque

from gridd import protocol as p
from gridd.cli.common import current_user, run_command
from gridd.client import Client
from gridd.manual import usage

ACTIONS = frozenset({"c", "cj", "cq", "d", "e", "r", "rj", "rq", "s", "sj", "sq", "us", "usj",
                     "usq"})
# The options qmod takes (gridd.manual.qmod describes them); -help is seen first.
OPTIONS = frozenset(f"-{action}" for action in ACTIONS) | {"-f", "-help"}


class _UsageError(Exception):
    pass


def parse(argv: list[str]) -> list[tuple[str, list[str]]]:
    """The actions in order, each with its targets: an action takes every following
    argument up to the next option, split on commas."""
    args = deque(argv)
    actions: list[tuple[str, list[str]]] = []
    if not args:
        raise _UsageError("ERROR! no option argument")
    while args:
        arg = args.popleft()
        if arg not in OPTIONS:
            raise _UsageError(f'invalid option argument "{arg}"')
        if arg == "-f":
            continue
        targets = []
        while args and not args[0].startswith("-"):
            targets += [t for t in args.popleft().split(",") if t]
        if not targets:
            raise _UsageError(f"{arg} option must have argument")
        actions.append((arg[1:], targets))
    return actions


def main(argv: list[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if "-help" in args:
        sys.stdout.write(usage("qmod"))
        return 0
    try:
        actions = parse(args)
    except _UsageError as exc:
        shown = "" if str(exc).endswith("must have argument") else usage("qmod")
        print(f"{shown}{exc}", file=sys.stderr)
        return 1

    force = "-f" in args  # looked for once, not at each action

    def body() -> int:
        code = 0
        user, host = current_user(), os.uname().nodename
        with Client() as client:
            for action, targets in actions:
                reply = client.request(p.Qmod(action=action, targets=targets, user=user,
                                              host=host, force=force))
                for line in reply.lines:
                    print(line)
                code = code or reply.code
        return code

    return run_command(body)


if __name__ == "__main__":
    sys.exit(main())

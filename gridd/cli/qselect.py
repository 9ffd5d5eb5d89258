"""qselect: the names of the queue instances that meet every option given, one a line,
for scripts (`qmod -d $(qselect -l arch=lx-amd64)`). Exit 1 when none does."""

from __future__ import annotations

import sys
from collections import deque

from gridd.cli.common import UsageError, run_command, usage_exit
from gridd.cli.queue_select import OPTIONS as SELECTION
from gridd.cli.queue_select import BadSelection, Selection
from gridd.client import Client

# The options qselect takes (gridd.manual.qselect describes them).
OPTIONS = SELECTION | {"-help"}


def _parse(args: deque[str]) -> Selection:
    selection = Selection()
    while args:
        arg = args.popleft()
        if arg == "-help":
            raise UsageError("")
        if arg not in OPTIONS:
            raise UsageError(f'invalid option argument "{arg}"')
        if not args:
            raise BadSelection(f"{arg} option must have argument")
        selection.take(arg, args.popleft())
    return selection


def main(argv: list[str] | None = None) -> int:
    try:
        selection = _parse(deque(sys.argv[1:] if argv is None else argv))
    except UsageError as exc:
        return usage_exit("qselect", exc)
    except BadSelection as exc:
        print(exc, file=sys.stderr)
        return 1

    def body() -> int:
        with Client() as client:
            reply = client.select_queues(selection.select)
        for name in reply.names:
            print(name)
        return 0 if reply.names else 1

    return run_command(body)


if __name__ == "__main__":
    sys.exit(main())

"""qmod: disable, enable, suspend and unsuspend queue instances, suspend, unsuspend and
reschedule jobs, and clear error states."""

from __future__ import annotations

import os
import sys
from collections import deque

from gridd import protocol as p
from gridd.cli.common import current_user, run_command
from gridd.client import Client

USAGE = """usage: qmod [options]
   [-c job_wc_queue_list]  clear the error state of jobs or queue instances
   [-cj job_list]          clear the error state of jobs
   [-cq wc_queue_list]     clear the error state of queue instances
   [-d wc_queue_list]      disable queue instances: they take no new jobs
   [-e wc_queue_list]      enable queue instances
   [-f]                    force: reschedule jobs that are not rerunnable too
   [-help]                 print this help
   [-r job_wc_queue_list]  reschedule jobs, or the jobs running in queue instances
   [-rj job_list]          reschedule jobs: kill them and run them again
   [-rq wc_queue_list]     reschedule the jobs running in queue instances
   [-s job_wc_queue_list]  suspend jobs or queue instances (and their jobs)
   [-sj job_list]          suspend jobs
   [-sq wc_queue_list]     suspend queue instances
   [-us job_wc_queue_list] unsuspend jobs or queue instances
   [-usj job_list]         unsuspend jobs
   [-usq wc_queue_list]    unsuspend queue instances

job_list           job ids (id or id.task_range) or job names, separated by ',' or ' '
wc_queue_list      cluster queues, queue instances (queue@host) or queue@@hostgroup,
                   with shell wildcards, separated by ','
"""

ACTIONS = frozenset({"c", "cj", "cq", "d", "e", "r", "rj", "rq", "s", "sj", "sq", "us", "usj",
                     "usq"})


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
        if arg == "-f":
            continue
        if not arg.startswith("-") or arg[1:] not in ACTIONS:
            raise _UsageError(f'invalid option argument "{arg}"')
        targets = []
        while args and not args[0].startswith("-"):
            targets += [t for t in args.popleft().split(",") if t]
        if not targets:
            raise _UsageError(f"{arg} option must have argument")
        actions.append((arg[1:], targets))
    return actions


def main(argv: list[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if args == ["-help"]:
        print(USAGE, end="")
        return 0
    try:
        actions = parse(args)
    except _UsageError as exc:
        usage = "" if str(exc).endswith("must have argument") else USAGE
        print(f"{usage}{exc}", file=sys.stderr)
        return 1

    def body() -> int:
        code = 0
        user, host = current_user(), os.uname().nodename
        with Client() as client:
            for action, targets in actions:
                reply = client.request(p.Qmod(action=action, targets=targets, user=user,
                                              host=host, force="-f" in args))
                for line in reply.lines:
                    print(line)
                code = code or reply.code
        return code

    return run_command(body)


if __name__ == "__main__":
    sys.exit(main())

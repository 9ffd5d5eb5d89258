"""qalter: change attributes of submitted jobs (most of what qsub sets: see OPTIONS) and
their holds (-h u, o or s sets one, U, O or S releases it, n releases all, as qhold and
qrls do)."""

from __future__ import annotations

import os
import socket
import sys
import time
from collections import deque

from gridd import protocol as p
from gridd.cli.common import current_user, print_answer, usage_error
from gridd.cli.qhold import hold_list_error
from gridd.cli.qsub_args import (
    ALTERABLE,
    EXIT_UNKNOWN,
    NOT_ALTERED,
    QsubError,
    alter_settings,
    arity,
    check_refused,
    missing_argument,
)
from gridd.client import Client
from gridd.formats.requests import ONLY_JOBS, first_invalid_job_task, split_job_task
from gridd.manual import usage

# The options qalter takes (gridd.manual.qalter describes them), and all it reads: qsub's
# others too, to refuse them (NOT_ALTERED).
OPTIONS = ALTERABLE | {"-c", "-h", "-hard", "-help", "-soft"}
_READ = OPTIONS | NOT_ALTERED
FIELDS = {"hard_resources": "hard"}  # settings named otherwise in p.Alter


def main(argv: list[str] | None = None) -> int:
    args = deque(sys.argv[1:] if argv is None else argv)
    changes: dict[str, object] = {}
    targets: list[str] = []
    hold: bool | None = None  # set (True) or release (False) holds
    hold_kinds = "u"  # which: u, o, s
    soft = False  # -l and -q after -soft
    refused = ""  # the first option qsub takes and qalter does not, with its arguments
    options = False  # whether any option was given
    environ = dict(os.environ)  # what -V and -v take, read once for every option
    while args:
        arg = args.popleft()
        options = options or arg.startswith("-")
        if arg.startswith("-") and arg not in _READ:
            print(f'qalter: invalid option argument "{arg}"', file=sys.stderr)
            return 2
        if arg == "-help":
            sys.stdout.write(usage("qalter"))
            return 0
        if arg == "-h":
            if not args:
                print("qalter: -h option must have argument", file=sys.stderr)
                return 2
            kinds = args.popleft()
            code = hold_list_error("qalter", kinds, alter=True)
            if code:
                return code
            hold = not set(kinds) & set("nUOS")
            hold_kinds = "uos" if "n" in kinds else kinds.lower()
        elif arg in ("-hard", "-soft"):
            soft = arg == "-soft"
        elif arg.startswith("-"):  # qsub's options, -c among them
            count = arity(arg, [args[0]] if args else [])
            if len(args) < count:
                print(f"qalter: {missing_argument(arg, len(args))}", file=sys.stderr)
                return 2
            if arg == "-c":  # 8.1.9 takes a checkpoint interval, whatever it is, for nothing
                args.popleft()
                continue
            if arg in NOT_ALTERED:
                given = [args.popleft() for _ in range(count)]
                try:
                    check_refused(arg, given, time.time())
                except QsubError as exc:
                    print(f"{exc.preamble}qalter: {exc.message}", file=sys.stderr)
                    return exc.exit_code
                refused = refused or " ".join([arg, *given])
                continue
            try:
                settings = alter_settings(arg, [args.popleft() for _ in range(count)],
                                          soft=soft, now=time.time(),
                                          environ=environ, cwd=os.getcwd())
            except QsubError as exc:
                print(f"{exc.preamble}qalter: {exc.message}", file=sys.stderr)
                return exc.exit_code
            for key, value in settings.items():
                if key == "context_changes":  # in order, each -ac, -sc or -dc after the last
                    changes.setdefault(key, []).extend(value)  # type: ignore[attr-defined]
                else:
                    changes[FIELDS.get(key, key)] = value
        else:
            targets += [t for t in arg.split(",") if t]
    if refused:  # said once the whole line is read, as 8.1.9 says it
        print(f"Unknown option {refused}\n", file=sys.stderr)
        return EXIT_UNKNOWN
    if not targets and options:  # 8.1.9 is silent where options name no job
        return 0
    if not targets:  # the usage, then 8.1.9's complaint
        return usage_error("qalter", "no option argument")
    why = first_invalid_job_task(targets)
    if why:
        print(why, file=sys.stderr)
        return 2
    if changes and any(split_job_task(target)[1] for target in targets):
        print(ONLY_JOBS, file=sys.stderr)  # before the hold changes: nothing is changed
        return 4
    user, host = current_user(), socket.gethostname()
    held = None if hold is None else p.Hold(targets=targets, user=user, host=host, hold=hold,
                                            kinds=hold_kinds)
    # With no change at all, the jobs are still looked up: 8.1.9 says those that are not.
    altered = p.Alter(targets=targets, user=user, host=host,
                      **changes) if changes or hold is None else None  # type: ignore[arg-type]
    return print_answer(lambda client: _ask(client, held, altered))


def _ask(client: Client, held: p.Hold | None, altered: p.Alter | None) -> p.Ok:
    """The hold changed first, then the attributes, as 8.1.9 reports them; the exit code
    the first failure's, qalter's 1 where qhold's is another (3 no such job, 4 tasks of a
    job that is no array, 18 not the owner)."""
    lines: list[str] = []
    code = 0
    if held is not None:
        reply = client.hold(held)
        lines += reply.lines
        code = 1 if reply.code in (3, 4, 18) else reply.code
    if altered is not None:
        reply = client.alter(altered)
        lines += reply.lines
        code = code or reply.code
    return p.Ok(lines=lines, code=code)


if __name__ == "__main__":
    sys.exit(main())

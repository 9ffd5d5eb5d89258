"""What every q* command shares: who is asking, and how a failure is reported."""

from __future__ import annotations

import sys
from collections import deque
from collections.abc import Callable

import msgspec

from gridd import protocol as p
from gridd.cli.failure import run_command  # noqa: F401  (the commands take it from here)
from gridd.client import Client, GriddError, Refused
from gridd.connection import (  # noqa: F401  (the q* commands take them from here)
    current_group,
    current_user,
    home_dir,
)
from gridd.manual import usage

# What -fmt takes on qstat, qhost, qrstat and qquota: Open Cluster Scheduler 9.2's
# spelling of the default output, -xml and -json.
_FORMATS = ("plain", "xml", "json")


def output_format(value: str) -> str:
    """-fmt's argument: plain, xml or json. Any other word is refused (ValueError) in
    Grid Engine's words for a bad option argument, which each command says as it says
    an option it does not know."""
    if value not in _FORMATS:
        raise ValueError(f'invalid option argument "{value}"')
    return value


def read_text(path: str) -> str | None:
    """A file's text (default request files, option files), None when unreadable."""
    try:
        with open(path, encoding="utf-8", errors="surrogateescape") as f:
            return f.read()
    except OSError:
        return None


class UsageError(Exception):
    """A command line refused with the command's usage; no message: -help asked for it."""


def interrupt(signum: int, frame: object) -> None:
    """A signal handler that makes SIGTERM (or any) end a waiting command as ^C does."""
    raise KeyboardInterrupt


def withdraw(job_id: int) -> None:
    """Delete the job an interrupted command (qsub -now or -sync, qrsh) waited for, as
    8.1.9's do (over a connection of its own: the one interrupted may still hold an
    answer)."""
    try:
        with Client() as client:
            client.delete([str(job_id)], current_user())
    except GriddError:
        pass  # it could not be reached: the job stays, as after any lost connection


def usage_exit(command: str, exc: UsageError) -> int:
    """-help prints the usage on stdout and succeeds; anything else prints it on stderr
    with the complaint, and fails."""
    if not str(exc):
        sys.stdout.write(usage(command))
        return 0
    print(f"{usage(command)}{exc}", file=sys.stderr)
    return 1


def print_answer(ask: Callable[[Client], p.Ok], refusal_to_stdout: bool = False) -> int:
    """Send one request, print the lines of the master's answer and exit with its code
    (qdel, qalter: one line per job). Grid Engine's qrsub and qrdel print the master's
    refusal on standard output too (`refusal_to_stdout`); a master that cannot be reached
    is always reported on standard error."""

    def body() -> int:
        with Client() as client:
            try:
                reply = ask(client)
            except Refused as exc:
                if not refusal_to_stdout:
                    raise
                print(exc.text)
                return exc.code
        for line in reply.lines:
            print(line)
        return reply.code

    return run_command(body)


def usage_error(command: str, message: str) -> int:
    """The usage text, then what was wrong, on standard error, as 8.1.9's commands print
    a command line they cannot take (qrsub's wrong ones; a bare qconf, qalter, qhold, qrls
    or qresub: "no option argument"); exit code 1."""
    sys.stderr.write(usage(command))
    print(f"ERROR! {message}", file=sys.stderr)
    return 1


class DeleteArgsError(Exception):
    """A qdel or qrdel command line that cannot be taken, each words it its own way: an
    unknown `option`, or (option empty) -u without users or nothing named at all."""

    def __init__(self, option: str = "") -> None:
        super().__init__(option)
        self.option = option


class DeleteArgs(msgspec.Struct):
    """What qdel and qrdel are asked: targets (ids, names, patterns) and/or users (a
    Struct, not a dataclass: dataclasses imports inspect, a q* command's milliseconds)."""

    force: bool = False
    users: list[str] = msgspec.field(default_factory=list)
    targets: list[str] = msgspec.field(default_factory=list)
    help: bool = False


# The options qdel and qrdel take (gridd.manual.qdel and .qrdel describe them).
DELETE_OPTIONS = frozenset({"-f", "-help", "-u"})


def delete_args(argv: list[str]) -> DeleteArgs:
    """Read `[-f] [-u user,...] [target,... ...]`, the command line qdel and qrdel share."""
    args, out = deque(argv), DeleteArgs()
    while args:
        arg = args.popleft()
        if not arg.startswith("-"):
            out.targets += [t for t in arg.split(",") if t]
        elif arg not in DELETE_OPTIONS:
            raise DeleteArgsError(arg)
        elif arg == "-f":
            out.force = True
        elif arg == "-u":
            if not args:
                raise DeleteArgsError()
            out.users += [u for u in args.popleft().split(",") if u]
        else:  # -help
            out.help = True
            return out
    if not out.targets and not out.users:
        raise DeleteArgsError()
    return out

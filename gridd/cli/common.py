"""What every q* command shares: who is asking, and how a failure is reported."""

from __future__ import annotations

import os
import pwd
import sys
from collections.abc import Callable

from gridd import protocol as p
from gridd.client import Client, GriddError


def current_user() -> str:
    try:
        return pwd.getpwuid(os.getuid()).pw_name
    except KeyError:
        return str(os.getuid())


def run_command(body: Callable[[], int]) -> int:
    """Run a command body; a refused or unreachable master is one line on stderr."""
    try:
        return body()
    except GriddError as exc:
        print(exc.text, file=sys.stderr)
        return exc.code
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:  # e.g. `qstat | head`
        return 0


def print_answer(ask: Callable[[Client], p.Ok]) -> int:
    """Send one request, print the lines of the master's answer and exit with its code
    (qdel, qalter: one line per job)."""

    def body() -> int:
        with Client() as client:
            reply = ask(client)
        for line in reply.lines:
            print(line)
        return reply.code

    return run_command(body)

"""How a q* command ends when the master refused it or could not be reached: one line on
standard error (qsub's own words for a submission) and Grid Engine's exit code. Light,
for the quick forms (gridd.cli.quick) as for the whole commands."""

from __future__ import annotations

import sys

from gridd.connection import GriddError

TYPE_CHECKING = False  # typing's own costs a q* command milliseconds to import
if TYPE_CHECKING:
    from collections.abc import Callable


def run_command(body: Callable[[], int]) -> int:
    """Run a command body; a refused or unreachable master is one line on stderr."""
    try:
        return body()
    except GriddError as exc:
        if exc.text:  # some refusals are silent in Grid Engine: only the exit code tells
            print(exc.text, file=sys.stderr)
        return exc.code
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:  # e.g. `qstat | head`
        return 0


def run_submission(body: Callable[[], int]) -> int:
    """Run qsub's body: a refused or unreachable master is "Unable to run job" and
    "Exiting." on stderr."""
    try:
        return body()
    except GriddError as exc:
        from gridd.formats.submitted import unable_to_run

        print(f"{unable_to_run(exc.text)}\nExiting.", file=sys.stderr)
        return exc.code
    except KeyboardInterrupt:
        return 130

"""The shepherd: the one process that waits for a job, so that its end outlives execd.

Only a parent learns how its child ended (exit status, resource usage), and execd may die
or be restarted while jobs run. So execd does not start a job itself: it starts this small
program, which starts the job, waits for it and writes down how it ended before it exits.
A restarted execd finds that record in the task's spool directory, or finds the shepherd
still waiting and watches it to the end.

    gridd-shepherd TASK_DIR LOCK_FD NOTIFY_FD -- COMMAND...

The program is ``shepherd.c``, built beside this file at install time (``build``, from
setup.py); this module holds what execd and it agree on: the files, the config's entries,
Grid Engine's codes (compiled into the program from here) and the lock.

The job's environment is read from ``TASK_DIR/environment`` (``NAME=value`` entries
separated by NUL bytes, as in ``/proc/<pid>/environ``), so that any value passes byte
for byte and nothing of the shepherd's own (which execd leaves empty) reaches the job.
Who the job runs as and where it runs come from ``TASK_DIR/config``, entries of the same
form (``CONFIG``, written by ``config_entries``): ``user``, ``uid``, ``gid``, ``groups``
(supplementary), ``cwd``, ``stdin``, ``stdout``, ``stderr`` and ``merge`` (stderr goes
to stdout's file). An interactive task's streams are not files but pipes or a
pseudo-terminal whose other ends execd holds: ``fds`` names the descriptors (passed to
the shepherd) that become the job's 0, 1 and 2 (-1: the file named as above), and
``tty`` says that the first is a pseudo-terminal, made the job's controlling terminal.
The shepherd closes its copies once the job runs. In ``TASK_DIR`` it writes:

``job.json``
    ``{"shepherd_pid", "job_pid", "start_time"}`` once the job runs. Then the shepherd
    closes ``NOTIFY_FD``, the write end of a pipe: execd, waiting for the end of file,
    reads ``job.json`` at once instead of polling for it (the end of file also comes when
    the shepherd dies first, and then there is no ``job.json``).
``exit.json``
    ``{"status", "start_time", "end_time", "usage": {RUSAGE...}}`` once the job ended,
    with the raw wait status; ``{"error", "failed"}`` instead when the job could not be
    started, ``failed`` being Grid Engine's code for the step that failed and ``error``
    the line ``qstat -j`` shows as the job's error reason, stamped as 8.1.9 stamps it:
    the local time, then the uid and pid of the process that met it (the job's own, as
    its owner, for the owner's steps).

``LOCK_FD`` is the task's ``lock`` file, locked (flock) by execd before the shepherd
started: the lock lives as long as the shepherd holds the descriptor, so a lock that can
be taken means that no shepherd runs for the task any more, with no pid to trust.

The shepherd keeps execd's identity, so that its records stay execd's and the job cannot
forge them. The job's own process takes the owner's identity between fork and exec (when
the shepherd runs as root: an execd of a normal user runs only that user's jobs), and only
then checks the shell, enters the working directory and opens its standard streams: a
path the owner may not use fails as it would for the owner, and the files the job creates
are the owner's (umask 022, as Grid Engine sets it).

The job gets a session and process group of its own (its pid names them); execd signals
that group for qdel, limits and suspension. The shepherd stays outside it so that a kill
of the job never kills the one process that records its end. When the job's first process
has exited, whatever it left in its group is killed before it is reaped, as long as its
unreaped pid keeps the group id from being reused.

It is a C program, not Python, because it starts once per task and is then most of a
trivial job's cost: Python's start-up alone took 10-13 ms of CPU, the C program's whole
life about 1 ms. Its failure lines are 8.1.9's words, as execd's tests check them.
"""

from __future__ import annotations

import fcntl
import os
import subprocess
import sys
from pathlib import Path

# The program execd starts, built from SOURCE.
PROGRAM = Path(__file__).with_name("gridd-shepherd")
SOURCE = Path(__file__).with_name("shepherd.c")

# Grid Engine's codes (accounting(5), "failed") for the steps of starting a job; the
# program is compiled with them and execd imports them from here.
FAILED_BEFORE_JOB = 11
FAILED_OPEN_OUTPUT = 26
FAILED_NO_SHELL = 27
FAILED_NO_CWD = 28

# The task's lock file in TASK_DIR, which LOCK_FD holds open.
LOCK = "lock"

# What of the job's rusage is recorded, by the names of gridd.model.job.Usage (the field
# is ru_<name>); a test holds the program's record to it.
RUSAGE = ("utime", "stime", "maxrss", "minflt", "majflt", "inblock", "oublock", "nvcsw",
          "nivcsw")

# The config's entries, in the order execd writes them: a list is of numbers with commas
# between them, and a flag is true when its value is not empty. fds and tty may be left
# out (no interactive streams).
CONFIG = ("user", "uid", "gid", "groups", "cwd", "stdin", "stdout", "stderr", "merge", "fds",
          "tty")


def shepherd_alive(task_dir: str | os.PathLike[str]) -> bool:
    """Whether a shepherd still holds the task's lock (execd holds none of its own then).
    Here beside the lock's meaning, so that ``gridd down`` can ask without loading execd."""
    try:
        fd = os.open(os.path.join(task_dir, LOCK), os.O_RDONLY | os.O_CLOEXEC)
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    finally:
        os.close(fd)  # also drops the shared lock just taken
    return False


def config_entries(config: dict[str, object]) -> bytes:
    """The config file execd writes for the program, NUL-separated ``NAME=value``."""
    entries = []
    for name in CONFIG:
        if name not in config:
            continue
        value = config[name]
        if isinstance(value, (list, tuple)):
            text = ",".join(str(int(n)) for n in value)
        elif isinstance(value, bool):
            text = "1" if value else ""
        else:
            text = str(value)
        entries.append(name.encode() + b"=" + os.fsencode(text))
    return b"\0".join(entries) + b"\0"


def build(target: Path = PROGRAM) -> Path:
    """Compile the program (``$CC``, else cc) to `target`, written aside and renamed."""
    codes = {name: value for name, value in globals().items() if name.startswith("FAILED_")}
    scratch = target.with_name(target.name + ".new")
    subprocess.run([os.environ.get("CC", "cc"), "-O2", "-Wall", "-o", str(scratch),
                    *(f"-D{name}={value}" for name, value in codes.items()), str(SOURCE)],
                   check=True, stdout=sys.stderr)
    os.replace(scratch, target)
    return target

"""The shepherd: the one process that waits for a job, so that its end outlives execd.

Only a parent learns how its child ended (exit status, resource usage), and execd may die
or be restarted while jobs run. So execd does not start a job itself: it starts this small
program, which starts the job, waits for it and writes down how it ended before it exits.
A restarted execd finds that record in the task's spool directory, or finds the shepherd
still waiting and watches it to the end.

    python -I -S shepherd.py TASK_DIR LOCK_FD NOTIFY_FD -- COMMAND...

(or as ``command`` says, which is the same but quicker)

The job's environment is read from ``TASK_DIR/environment`` (``NAME=value`` entries
separated by NUL bytes, as in ``/proc/<pid>/environ``), not taken from the shepherd's own,
because the interpreter adds to that one (``LC_CTYPE`` when the locale is C). Who the job
runs as and where it runs come from ``TASK_DIR/config``, entries of the same form
(``CONFIG`` names them and their types): ``user``, ``uid``, ``gid``, ``groups``
(supplementary), ``cwd``, ``stdin``, ``stdout``, ``stderr`` and ``merge`` (stderr goes to
stdout's file). An interactive task's streams are not files but pipes or a
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
    ``{"status", "start_time", "end_time", <rusage fields>}`` once the job ended, with the
    raw wait status; ``{"error", "failed"}`` instead when the job could not be started,
    ``failed`` being Grid Engine's code for the step that failed and ``error`` the line
    ``qstat -j`` shows as the job's error reason (``stamped``).

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

Standard library only and no imports of gridd: it starts once per task, and its start-up
is most of a trivial job's cost. So it loads no module the interpreter has not loaded
already but for ``os``, ``fcntl``, ``termios`` and ``warnings``: no ``json`` (which
brings ``re`` and ``enum``; it reads NUL-separated entries and writes its few JSON
records itself), no ``signal`` (``enum`` again) and no ``typing``. ``-S`` skips the
site packages; ``-I`` keeps user site packages and the working directory out of its
path. ``command`` (below) starts it from its cached bytecode, as a script run by its
path would be compiled anew each time.
"""

from __future__ import annotations

import _signal  # signal's C module: signal itself imports enum
import fcntl
import os
import sys
import termios
import time

# os.execvpe imports warnings in the job's process, as the owner, who may not be able to
# read the standard library: so it, as all that the job's process uses, is loaded first.
import warnings  # noqa: F401

TYPE_CHECKING = False  # typing costs more to import than the rest of the shepherd
if TYPE_CHECKING:
    from typing import Any

# Python ignores these at start-up; the job must get the defaults.
_RESTORED_SIGNALS = (_signal.SIGPIPE, _signal.SIGXFSZ)

# Grid Engine's codes (accounting(5), "failed") for the steps of starting a job; execd
# imports them from here.
FAILED_BEFORE_JOB = 11
FAILED_OPEN_OUTPUT = 26
FAILED_NO_SHELL = 27
FAILED_NO_CWD = 28

# The task's lock file in TASK_DIR, which LOCK_FD holds open.
LOCK = "lock"

JOB_UMASK = 0o022
OUTPUT_MODE = 0o644


class StartError(Exception):
    """A step of starting the job failed; ``failed`` is Grid Engine's code for the step,
    the text the line 8.1.9's ``qstat -j`` shows as the job's error reason (``stamped``)."""

    def __init__(self, failed: int, line: str) -> None:
        super().__init__(line)
        self.failed = failed


def stamped(message: str) -> str:
    """A failure as 8.1.9 words the job's error reason: the local time, then the uid and
    pid of the process that met it (the job's own, as its owner, for the owner's steps)."""
    return f"{time.strftime('%m/%d/%Y %H:%M:%S')} [{os.geteuid()}:{os.getpid()}]: {message}"


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


def write_record(path: str, record: dict[str, object]) -> None:
    """Written aside and renamed, so that a reader sees the whole record or none."""
    scratch = path + ".new"
    with open(scratch, "w", encoding="ascii") as f:
        f.write(json_text(record))
    os.replace(scratch, path)


def json_text(value: object) -> str:
    """A record as JSON: objects, strings and numbers (finite, as times and rusage are),
    all that the records hold."""
    if isinstance(value, dict):
        return "{" + ", ".join(f"{json_text(k)}: {json_text(v)}" for k, v in value.items()) + "}"
    if isinstance(value, str):
        return '"' + "".join(map(_json_char, value)) + '"'
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return repr(value)
    raise TypeError(f"no JSON for {value!r}")


def _json_char(char: str) -> str:
    """ASCII as itself, but for the quote, the backslash and control characters; the
    rest as UTF-16 escapes, a lone surrogate (a path's undecodable byte) too."""
    code = ord(char)
    if 0x20 <= code < 0x7F and char not in '"\\':
        return char
    if code > 0xFFFF:
        code -= 0x10000
        return f"\\u{0xD800 | code >> 10:04x}\\u{0xDC00 | code & 0x3FF:04x}"
    return f"\\u{code:04x}"


def read_entries(path: str) -> dict[bytes, bytes]:
    """NUL-separated ``NAME=value`` entries; bytes, so any value passes unchanged."""
    with open(path, "rb") as f:
        entries = f.read().split(b"\0")
    env = {}
    for entry in entries:
        name, sep, value = entry.partition(b"=")
        if sep and name:
            env[name] = value
    return env


# The config file's entries and their types: a list is of numbers, written with commas
# between them, and a flag is true when its value is not empty.
CONFIG = {"user": str, "uid": int, "gid": int, "groups": list, "cwd": str, "stdin": str,
          "stdout": str, "stderr": str, "merge": bool, "fds": list, "tty": bool}
# Entries a config may leave out, and their values then.
CONFIG_DEFAULTS = {"fds": [], "tty": False}


def config_entries(config: dict[str, object]) -> bytes:
    """The config file execd writes for the shepherd (``read_config`` reads it back)."""
    entries = []
    for name, value in config.items():
        if isinstance(value, (list, tuple)):
            text = ",".join(str(int(n)) for n in value)
        elif isinstance(value, bool):
            text = "1" if value else ""
        else:
            text = str(value)
        entries.append(name.encode() + b"=" + os.fsencode(text))
    return b"\0".join(entries) + b"\0"


def read_config(path: str) -> dict[str, Any]:
    """ValueError for an entry missing or of the wrong form."""
    entries = {os.fsdecode(k): os.fsdecode(v) for k, v in read_entries(path).items()}
    config: dict[str, Any] = dict(CONFIG_DEFAULTS)
    for name, kind in CONFIG.items():
        if name not in entries:
            if name in CONFIG_DEFAULTS:
                continue
            raise ValueError(f"{path}: no {name}")
        text = entries[name]
        if kind is list:
            config[name] = [int(n) for n in text.split(",")] if text else []
        elif kind is bool:
            config[name] = bool(text)
        else:
            config[name] = kind(text)
    return config


# What of the job's rusage is recorded, by the names of gridd.model.job.Usage (the field
# is ru_<name>); a test holds the two together, since this file imports nothing of gridd.
RUSAGE = ("utime", "stime", "maxrss", "minflt", "majflt", "inblock", "oublock", "nvcsw",
          "nivcsw")


def usage_record(status: int, rusage: object, start: float, end: float) -> dict[str, object]:
    return {"status": status, "start_time": start, "end_time": end,
            "usage": {name: getattr(rusage, f"ru_{name}") for name in RUSAGE}}


def become_owner(config: dict[str, Any]) -> None:
    """Take on the owner's groups, gid and uid for good (real, effective and saved), in
    that order since only root may set groups. Not root, there is nothing to switch:
    execd then runs only jobs of its own user."""
    if os.geteuid() != 0:
        return
    uid, gid = config["uid"], config["gid"]
    try:
        os.setgroups(config["groups"])
        os.setresgid(gid, gid, gid)
        os.setresuid(uid, uid, uid)
    except OSError as exc:
        raise StartError(FAILED_BEFORE_JOB, stamped(
            f"error: can't switch to user {config['user']!r} (uid {uid}, gid {gid}): "
            f"{exc.strerror}")) from None


def enter_job(command: list[str], config: dict[str, Any]) -> None:
    """In the job's process before the exec: become the owner, then check the shell,
    enter the working directory and open the standard streams as the owner, in the order
    of Grid Engine's shepherd so that a failure gets its code."""
    become_owner(config)
    os.umask(JOB_UMASK)
    # A bare name is for the exec to find on the job's PATH.
    if "/" in command[0] and not os.access(command[0], os.X_OK):
        raise StartError(FAILED_NO_SHELL, stamped(f'unable to find shell "{command[0]}"'))
    try:
        os.chdir(config["cwd"])
    except OSError as exc:
        raise StartError(FAILED_NO_CWD, stamped(
            f"error: can't chdir to {config['cwd']}: {exc.strerror}")) from None
    given = config["fds"] or [-1, -1, -1]
    if config["tty"]:
        _take_terminal(given[0])
    streams = [given[0] if given[0] >= 0 else _open_input(config["stdin"])]
    outputs = [config["stdout"]] if config["merge"] else [config["stdout"], config["stderr"]]
    for number, path in enumerate(outputs, start=1):
        streams.append(given[number] if given[number] >= 0 else _open_output(path))
    if config["merge"]:
        streams.append(streams[1])
    for target, fd in enumerate(streams):  # none below 3: the shepherd's own 0-2 are open
        os.dup2(fd, target)
    for fd in set(given) - {-1, 0, 1, 2}:
        os.close(fd)


def _take_terminal(fd: int) -> None:
    """Make the pseudo-terminal `fd` the job's controlling terminal (its session is new)."""
    try:
        fcntl.ioctl(fd, termios.TIOCSCTTY, 0)
    except OSError as exc:
        raise StartError(FAILED_BEFORE_JOB, stamped(
            f"error: can't make the pseudo-terminal the job's terminal: {exc.strerror}")
        ) from None


def _open_input(path: str) -> int:
    try:
        return os.open(path, os.O_RDONLY)
    except OSError:
        raise StartError(FAILED_OPEN_OUTPUT, stamped(
            f"error: can't open {path} as dummy input file")) from None


def _open_output(path: str) -> int:
    try:
        return os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, OUTPUT_MODE)
    except OSError as exc:
        raise StartError(FAILED_OPEN_OUTPUT, stamped(
            f'error: can\'t open output file "{path}": {exc.strerror}')) from None


def start_job(command: list[str], env: dict[bytes, bytes], config: dict[str, Any]) -> int:
    """fork and exec, as subprocess does, so that the job gets what a shell would give it:
    the program found on the job's own PATH and default signal dispositions (glibc's
    posix_spawn leaves two of its internal signals ignored). A failed start comes back
    as ``CODE message`` through a close-on-exec pipe, which an exec that worked closes
    unread."""
    errors_read, errors_write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the shepherd has a single thread, so a fork is safe here
        try:
            os.close(errors_read)
            os.setsid()
            for number in _RESTORED_SIGNALS:
                _signal.signal(number, _signal.SIG_DFL)
            enter_job(command, config)
            os.execvpe(command[0], command, env)
        except StartError as exc:
            os.write(errors_write, f"{exc.failed} {exc}".encode(errors="replace"))
        except BaseException as exc:  # whatever it is, the child must end here
            line = stamped(f"error: can't start job: {exc}")
            os.write(errors_write, f"{FAILED_BEFORE_JOB} {line}".encode(errors="replace"))
        finally:
            os._exit(127)
    os.close(errors_write)
    # The job alone holds its ends of an interactive task's streams: their end of file
    # (or a pseudo-terminal's hang-up) reaches execd when the job's processes are gone.
    for fd in set(config["fds"]) - {-1}:
        os.close(fd)
    with os.fdopen(errors_read, "rb") as errors:
        error = errors.read()
    if error:
        os.waitpid(pid, 0)
        code, _, text = error.decode(errors="replace").partition(" ")
        raise StartError(int(code), text)
    return pid


def launch(task_dir: str, command: list[str]) -> int:
    """The job's pid once it runs; StartError for whatever kept it from starting."""
    try:
        env = read_entries(os.path.join(task_dir, "environment"))
        config = read_config(os.path.join(task_dir, "config"))
        return start_job(command, env, config)
    except (OSError, ValueError) as exc:
        raise StartError(FAILED_BEFORE_JOB, stamped(f"error: can't start job: {exc}")) from None


def shepherd(task_dir: str, lock_fd: int, notify_fd: int, command: list[str]) -> int:
    # Neither descriptor may reach the job: the lock must end with the shepherd, and the
    # end of file that execd waits for must come when the shepherd closes its end.
    os.set_inheritable(lock_fd, False)
    os.set_inheritable(notify_fd, False)
    start = time.time()
    try:
        pid = launch(task_dir, command)
    except StartError as exc:
        os.close(notify_fd)
        write_record(os.path.join(task_dir, "exit.json"),
                     {"error": str(exc), "failed": exc.failed})
        return 1
    started = {"shepherd_pid": os.getpid(), "job_pid": pid, "start_time": start}
    write_record(os.path.join(task_dir, "job.json"), started)
    os.close(notify_fd)
    os.waitid(os.P_PID, pid, os.WEXITED | os.WNOWAIT)
    try:
        os.killpg(pid, _signal.SIGKILL)
    except ProcessLookupError:
        pass
    _, status, rusage = os.wait4(pid, 0)
    write_record(os.path.join(task_dir, "exit.json"),
                 usage_record(status, rusage, start, time.time()))
    return 0


def command(python: str) -> list[str]:
    """How execd starts a shepherd (its arguments follow): this module imported from its
    directory, so that its bytecode is cached, as that of a script run by its path is
    not (compiling it took longer than the rest of the shepherd's start-up)."""
    here = os.path.dirname(os.path.abspath(__file__))
    return [python, "-I", "-S", "-c",
            f"import sys; sys.path.insert(0, {here!r}); import shepherd; "
            "sys.exit(shepherd.main(sys.argv))"]


def main(argv: list[str]) -> int:
    if len(argv) < 6 or argv[4] != "--":
        print("usage: shepherd.py TASK_DIR LOCK_FD NOTIFY_FD -- COMMAND...", file=sys.stderr)
        return 2
    return shepherd(argv[1], int(argv[2]), int(argv[3]), argv[5:])


if __name__ == "__main__":
    sys.exit(main(sys.argv))

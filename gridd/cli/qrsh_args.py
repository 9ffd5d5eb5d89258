"""What `qrsh` or `qlogin` was asked to do, worked out before talking to the master.

qrsh takes qsub's options that make sense for a job whose streams come back to the
terminal (QSUB_OPTIONS, below), and its own: -inherit, -nostdin, -noshell, -pty and
-verbose; qlogin fewer. Its own are read here, the job's are handed to qsub's parser
(gridd.cli.qsub_args) as `-b y -now y OPTIONS COMMAND`, so that each rule has one home.
Every refusal is 8.1.9's: `error: ...` and exit 1. All I/O is passed in.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

import msgspec

from gridd.cli.qsub_args import (
    OPTIONS as QSUB_ALL,
)
from gridd.cli.qsub_args import (
    QsubError,
    arity,
    missing_argument,
    option_words,
    parse_qsub,
    yes_no,
)
from gridd.model.job import JobSpec

EXIT_ERROR = 1  # what 8.1.9's qrsh exits with for every refusal of its own
_MAX_OPTION_FILE_DEPTH = 8

# The qsub options qrsh and qlogin take (8.1.9's -help lists, less what gridd does not
# offer at all, plus -ar, -P and -R, which 8.1.9 takes without listing them).
QRSH_QSUB_OPTIONS = frozenset({
    "-ac", "-A", "-ar", "-b", "-cwd", "-dc", "-h", "-hard", "-help", "-hold_jid",
    "-hold_jid_ad", "-js", "-l", "-M", "-m", "-masterq", "-N", "-notify", "-now", "-P", "-p",
    "-pe", "-q", "-R", "-sc", "-soft", "-v", "-verify", "-V", "-wd", "-@"})
QLOGIN_QSUB_OPTIONS = frozenset({
    "-ac", "-A", "-ar", "-dc", "-hard", "-help", "-js", "-l", "-M", "-m", "-masterq", "-N",
    "-now", "-P", "-p", "-pe", "-q", "-R", "-sc", "-soft", "-verify", "-@"})
_OWN_FLAGS = frozenset({"-inherit", "-nostdin", "-noshell", "-verbose"})
# What each command's parser takes (its manual describes exactly these).
QRSH_OPTIONS = QRSH_QSUB_OPTIONS | _OWN_FLAGS | {"-pty"}
QLOGIN_OPTIONS = QLOGIN_QSUB_OPTIONS


class QrshError(Exception):
    """A refusal before the master is asked: print `message`, exit `exit_code`."""

    def __init__(self, message: str, exit_code: int = EXIT_ERROR) -> None:
        super().__init__(message)
        self.message = message
        self.exit_code = exit_code


class QrshRequest(msgspec.Struct, kw_only=True):
    """The job (or, with -inherit, the PE task) to start, and how to run its session."""

    spec: JobSpec = msgspec.field(default_factory=JobSpec)
    help: bool = False
    verify_only: bool = False
    verbose: bool = False
    pty: bool = False
    nostdin: bool = False
    inherit: bool = False
    host: str = ""  # -inherit: where the task runs
    command: list[str] = msgspec.field(default_factory=list)  # -inherit: what runs
    job_id: int = 0  # -inherit: the job of the environment
    task_id: int = 0
    env_all: bool = False  # -inherit -V


class _Own(msgspec.Struct):
    """qrsh's own options, and the qsub options and command found among them."""

    passed: list[str] = msgspec.field(default_factory=list)
    positional: list[str] = msgspec.field(default_factory=list)
    flags: set[str] = msgspec.field(default_factory=set)
    pty: bool | None = None


def _error(text: str) -> QrshError:
    return QrshError(f"error: {text}")


def _scan(tokens: list[str], program: str, read_file: Callable[[str], str | None],
          cwd: str, into: _Own, depth: int = 0) -> _Own:
    """Sort the command line into qrsh's own options, qsub's, and the command after
    them; -@ files are read in place (they may hold either kind)."""
    taken = QRSH_QSUB_OPTIONS if program == "qrsh" else QLOGIN_QSUB_OPTIONS
    own = _OWN_FLAGS if program == "qrsh" else frozenset()
    if depth > _MAX_OPTION_FILE_DEPTH:
        raise _error("option files nested too deeply (-@)")
    index = 0
    while index < len(tokens):
        token = tokens[index]
        if token == "--" or not token.startswith("-"):
            into.positional = tokens[index + (token == "--"):]
            return into
        if token in own:
            into.flags.add(token)
            index += 1
            continue
        if token == "-pty" and program == "qrsh":
            value = tokens[index + 1] if index + 1 < len(tokens) else None
            if value is None:
                raise _error("-pty option must have argument")
            into.pty = yes_no(value)
            if into.pty is None:
                raise _error(f'invalid option argument "-pty {value}"')
            index += 2
            continue
        if token not in taken:
            if token in QSUB_ALL or token in ("-he", "-ot"):
                raise _error(f"Unknown option {token}")
            raise _error(f'invalid option argument "{token}"')
        count = arity(token, tokens[index + 1:index + 2])
        args = tokens[index + 1:index + 1 + count]
        if len(args) < count:
            raise _error(missing_argument(token, len(args)))
        if token == "-@":
            text = read_file(args[0] if args[0].startswith("/") else f"{cwd}/{args[0]}")
            if text is None:
                raise _error(f"cannot read option file {args[0]}: No such file or directory")
            try:
                words = option_words(text)
            except QsubError as exc:
                raise _error(exc.message) from None
            _scan(words, program, read_file, cwd, into, depth + 1)
        else:
            into.passed += [token, *args]
        index += 1 + count
    return into


def _inherited(own: _Own, environ: Mapping[str, str]) -> QrshRequest:
    """qrsh -inherit HOST COMMAND: a task of the job this process runs in (JOB_ID and
    SGE_TASK_ID of its environment, as the job's execd set them)."""
    job = environ.get("JOB_ID")
    if job is None:
        raise _error('"qrsh" called with option "-inherit", but "JOB_ID" not set in '
                     "environment")
    if not job.isdigit() or not int(job):
        raise _error(f'"qrsh" called with option "-inherit", but "JOB_ID" is not a job id: '
                     f'"{job}"')
    task = environ.get("SGE_TASK_ID")
    if task is None:
        raise _error(f'executing task of job {job} failed: missing "SGE_TASK_ID" in '
                     "environment")
    if task != "undefined" and not task.isdigit():
        raise _error(f'executing task of job {job} failed: "SGE_TASK_ID" is not a task id: '
                     f'"{task}"')
    if len(own.positional) < 2:
        raise _error('"qrsh -inherit" needs a host and a command: qrsh -inherit [-nostdin] '
                     "[-V] host command [args]")
    return QrshRequest(inherit=True, host=own.positional[0], command=own.positional[1:],
                       job_id=int(job), task_id=0 if task == "undefined" else int(task),
                       nostdin="-nostdin" in own.flags, verbose="-verbose" in own.flags,
                       env_all="-V" in own.passed)


def parse_qrsh(
    argv: list[str],
    *,
    program: str,
    environ: dict[str, str],
    cwd: str,
    read_file: Callable[[str], str | None],
    home: str,
    root: str,
    user: str,
    uid: int,
    group: str,
    gid: int,
    host: str,
    now: float,
    session_key: bytes,
) -> QrshRequest:
    """Turn qrsh's (`program` "qrsh") or qlogin's arguments into one request; raises
    QrshError with 8.1.9's text. `session_key` is the session's one-time public key."""
    own = _scan(argv, program, read_file, cwd, _Own())
    if "-help" in own.passed:
        return QrshRequest(help=True)
    if "-inherit" in own.flags:
        return _inherited(own, environ)
    if program == "qlogin" and own.positional:
        raise _error(f'invalid option argument "{own.positional[0]}"')
    try:
        req = parse_qsub(
            ["-b", "y", "-now", "y", *own.passed, "--", *own.positional], environ=environ,
            cwd=cwd, read_file=read_file, home=home, root=root, user=user, uid=uid,
            group=group, gid=gid, host=host, stdin_text=lambda: "", now=now, prefix="",
            interactive=program)
    except QsubError as exc:
        text = exc.message.removeprefix("Unable to run job: ").removesuffix("\nExiting.")
        raise QrshError(text if text != exc.message else f"error: {text.strip()}",
                        EXIT_ERROR) from None
    pty = own.pty if own.pty is not None else program == "qlogin" or not own.positional
    env = req.spec.env
    if "TERM" in environ and "TERM" not in env:  # as 8.1.9's: what the terminal is
        env = {**env, "TERM": environ["TERM"]}
    spec = msgspec.structs.replace(
        req.spec, interactive=program, pty=pty, session_key=session_key, env=env,
        noshell=req.spec.noshell or "-noshell" in own.flags)
    return QrshRequest(spec=spec, verify_only=req.verify_only, pty=pty,
                       verbose=program == "qlogin" or "-verbose" in own.flags,
                       nostdin="-nostdin" in own.flags)

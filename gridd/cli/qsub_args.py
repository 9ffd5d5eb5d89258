"""What `qsub` was asked to do, worked out before talking to the master.

Options come from four places, read in this order so that later ones win: the cluster,
user and directory `sge_request` files, the `#$` lines of the script, and the command
line. `-l`, `-v`, `-hold_jid` and `-M` accumulate across all of them; everything else,
`-q` included, is replaced by a later source. All I/O is passed in, so this module can
be tested without files, environment or a terminal, and it stays cheap to import.
"""

from __future__ import annotations

import os.path
import shlex
from collections.abc import Callable, Mapping
from typing import Any

import msgspec

from gridd.formats import requests
from gridd.formats.names import date_time_complaint, parse_date_time
from gridd.formats.submitted import unable_to_run
from gridd.model.job import JobSpec, changed_context
from gridd.model.values import is_unsigned, parse_time

DEFAULT_PREFIX = "#$"
PRIORITY_RANGE = range(-1023, 1025)
_MAX_OPTION_FILE_DEPTH = 8

# Exit codes Grid Engine's qsub uses for failures found on the client.
EXIT_USAGE = 2
EXIT_BAD_ARGUMENT = 7
EXIT_NO_INPUT = 4
EXIT_NO_SCRIPT = 14
EXIT_REJECTED = 1
EXIT_UNKNOWN = 5  # an option qsub knows of but does not take (-ot, -he)

_SCRIPT_ERROR = "Unable to read script file because of error: "

_FLAGS = frozenset(
    {"-cwd", "-V", "-terse", "-h", "-notify", "-hard", "-soft", "-help", "-verify", "-clear"}
)
# A source's settings with this key set began with -clear: whatever came before it, in
# that source and the ones read before (request files, then the script's directives,
# then the command line), counts for nothing.
CLEARED = "cleared"
# Options 8.1.9's qsub reads (each with its argument) only to refuse as unknown.
_REFUSED = ("-ot", "-he")
_ONE_ARG = frozenset(
    {"-N", "-o", "-e", "-j", "-wd", "-v", "-S", "-l", "-q", "-p", "-sync", "-now",
     "-hold_jid", "-hold_jid_ad", "-t", "-b", "-R", "-A", "-P", "-M", "-m", "-w", "-ar",
     "-C", "-@",
     "-a", "-dl", "-r", "-shell", "-ac", "-sc", "-dc", "-binding", "-js", "-i", "-ckpt",
     "-c", "-masterq", "-tc", *_REFUSED}
)
_TWO_ARGS = frozenset({"-pe"})
# The options qsub takes (gridd.manual.qsub describes them): all it reads but those it
# reads only to refuse.
OPTIONS = (_FLAGS | _ONE_ARG | _TWO_ARGS) - frozenset(_REFUSED)
_VERIFY_MODES = frozenset("ewnvp")
_YES = frozenset({"y", "yes"})
_NO = frozenset({"n", "no"})

# Settings that add up over every source instead of being replaced by a later one, and
# lists that add up within one source only: `-q a -q b` is a,b but a script's `-q`
# replaces the one from sge_request.
_MERGING = (frozenset({"hard_resources", "soft_resources", "env", "hold_jid", "hold_jid_ad",
                       "mail_list", "context_changes"}),
            frozenset({"hard_queues", "soft_queues"}))
_BINDING_STRATEGIES = ("linear", "striding", "explicit")

class QsubError(Exception):
    """A submission refused before reaching the master: print `message`, exit `exit_code`."""

    def __init__(self, message: str, exit_code: int, preamble: str = "") -> None:
        super().__init__(message)
        self.message = message
        self.exit_code = exit_code
        self.preamble = preamble  # said before the command's name (8.1.9's date complaints)


class QsubRequest(msgspec.Struct, kw_only=True):
    """The job to submit plus what the qsub process itself has to do around submitting."""

    spec: JobSpec
    terse: bool = False
    sync: bool = False
    now: bool = False
    verify: str = ""  # -w letter as given; "" is Grid Engine's default (n)
    verify_only: bool = False  # -verify: print the job, submit nothing
    help: bool = False


class _Context(msgspec.Struct, kw_only=True):
    """What option handlers may consult; `soft` follows -hard/-soft within one source.
    `now` is when a date without a year falls in the current one."""

    environ: Mapping[str, str]
    cwd: str
    read_file: Callable[[str], str | None]
    now: float
    soft: bool = False


class _Scanned(msgspec.Struct, kw_only=True):
    """Options found in one token list and where they stopped."""

    options: list[tuple[str, list[str]]] = msgspec.field(default_factory=list)
    positional: list[str] = msgspec.field(default_factory=list)
    after_dashdash: bool = False


def _rejected(text: str) -> QsubError:
    """Errors Grid Engine reports from the master; we find them earlier but say the same."""
    return QsubError(f"{unable_to_run(text)}\nExiting.", EXIT_REJECTED)


def yes_no(value: str) -> bool | None:
    """y[es] or n[o] as a bool (any case), None for anything else."""
    word = value.lower()
    return True if word in _YES else False if word in _NO else None


def _yes_no(option: str, value: str) -> bool:
    answer = yes_no(value)
    if answer is None:
        raise QsubError(f'invalid option argument "{option} {value}"', EXIT_BAD_ARGUMENT)
    return answer


def _bad(error: ValueError) -> QsubError:
    if isinstance(error, requests.MissingValueError):
        return _rejected(f"denied: {error}")
    if isinstance(error, requests.TaskIdError):
        return _rejected(f"job rejected: {error}")
    return QsubError(str(error), EXIT_BAD_ARGUMENT)


def _parsed(parse: Callable[[str], Any], text: str) -> Any:
    """Run a list parser, turning its ValueError into the matching qsub refusal."""
    try:
        return parse(text)
    except ValueError as error:
        raise _bad(error) from None


def _name(value: str) -> dict[str, Any]:
    if "/" in value:
        raise QsubError("argument to -N option must not contain / ", EXIT_USAGE)
    return {"name": value}


def _priority(value: str) -> dict[str, Any]:
    try:
        priority = int(value)
    except ValueError:
        priority = None
    if priority not in PRIORITY_RANGE:
        raise QsubError(
            f'invalid priority "{value}".  Must be an integer from -1023 to 1024',
            EXIT_BAD_ARGUMENT,
        )
    return {"priority": priority}


def _task_concurrency(value: str) -> dict[str, Any]:
    if not is_unsigned(value):
        raise QsubError(f'invalid task concurrency number "{value}". Must be an integer '
                        "greater or equal to 0.", EXIT_BAD_ARGUMENT)
    return {"task_concurrency": int(value)}


def _ar(value: str) -> dict[str, Any]:
    if not is_unsigned(value):
        raise QsubError(
            "invalid advance reservation id, must be an unsigned integer", EXIT_USAGE
        )
    return {"ar": int(value)}


def _verify(value: str) -> dict[str, Any]:
    if len(value) != 1 or value not in _VERIFY_MODES:
        raise QsubError(f'invalid option argument "-w {value}"', EXIT_BAD_ARGUMENT)
    return {"verify": value}


def _pe(name: str, slots: str) -> dict[str, Any]:
    low, high = _parsed(requests.parse_pe_range, slots)
    return {"pe_name": name, "pe_min": low, "pe_max": high}


def _resources(value: str, ctx: _Context) -> dict[str, Any]:
    key = "soft_resources" if ctx.soft else "hard_resources"
    return {key: _parsed(requests.parse_resource_list, value)}


def _queues(value: str, ctx: _Context) -> dict[str, Any]:
    key = "soft_queues" if ctx.soft else "hard_queues"
    return {key: requests.parse_name_list(value)}


def _date(key: str, option: str) -> Callable[[str, _Context], dict[str, Any]]:
    def parse(value: str, ctx: _Context) -> dict[str, Any]:
        try:
            return {key: float(parse_date_time(value, now=ctx.now))}
        except ValueError:
            raise QsubError(f'Wrong date/time format "{value}" specified to {option} option',
                            EXIT_BAD_ARGUMENT, f"\n{date_time_complaint(value)}\n") from None
    return parse


def _context(op: str) -> Callable[[str], dict[str, Any]]:
    """-ac, -sc and -dc as changes, applied in order once every source is read."""
    def parse(value: str) -> dict[str, Any]:
        names = [item for item in value.split(",") if item]
        if not names:
            raise QsubError(f'Wrong context list format {op} "{value}"', EXIT_BAD_ARGUMENT)
        pairs = dict(item.partition("=")[::2] for item in names)
        return {"context_changes": [(op, {k: v or "NONE" for k, v in pairs.items()})]}
    return parse


def _binding(args: list[str]) -> dict[str, Any]:
    """8.1.9's -binding: an optional type (env, pe, set; set when not given), then a
    strategy with its arguments (linear:1, striding:2:1, explicit:0,0)."""
    kind, strategy = args if len(args) == 2 else ("set", args[0])
    name, colon, rest = strategy.partition(":")
    if name not in _BINDING_STRATEGIES or not colon or not rest:
        raise QsubError("-binding option contains errors: couldn't parse binding parameter "
                        "(no strategy found)", EXIT_USAGE)
    return {"binding": f"{kind} {strategy}"}


def _checkpoint_when(value: str) -> dict[str, Any]:
    """-c: letters of n, s, m, x and r, or an interval as a time."""
    if not value or not (set(value) <= set("nsmxr") or _is_time(value)):
        raise QsubError("-c specifier invalid", EXIT_USAGE)
    return {"checkpoint_when": value}


def _is_time(value: str) -> bool:
    try:
        parse_time(value)
    except ValueError:
        return False
    return True


def _jobshare(value: str) -> dict[str, Any]:
    if not is_unsigned(value):
        raise QsubError("invalid jobshare, must be an unsigned integer", EXIT_USAGE)
    return {"jobshare": int(value)}


def _variables(value: str, ctx: _Context) -> dict[str, Any]:
    return {"env": _parsed(lambda text: requests.parse_variable_list(text, ctx.environ), value)}


_SIMPLE: dict[str, Callable[[str], dict[str, Any]]] = {
    "-N": _name,
    "-o": lambda v: {"stdout_path": requests.parse_name_list(v)},
    "-e": lambda v: {"stderr_path": requests.parse_name_list(v)},
    "-j": lambda v: {"merge": _yes_no("-j", v)},
    "-wd": lambda v: {"cwd": v},
    "-S": lambda v: {"shell": v},
    "-p": _priority,
    "-sync": lambda v: {"sync": _yes_no("-sync", v)},
    "-now": lambda v: {"immediate": _yes_no("-now", v)},
    "-hold_jid": lambda v: {"hold_jid": requests.parse_hold_list(v)},
    "-hold_jid_ad": lambda v: {"hold_jid_ad": requests.parse_hold_list(v)},
    "-t": lambda v: {"array": _parsed(requests.parse_task_range, v)},
    "-b": lambda v: {"binary": _yes_no("-b", v)},
    "-R": lambda v: {"reserve": _yes_no("-R", v)},
    "-A": lambda v: {"account": v},
    "-P": lambda v: {"project": v},
    "-M": lambda v: {"mail_list": requests.parse_name_list(v)},
    "-m": lambda v: {"mail_options": _parsed(requests.parse_mail_options, v)},
    "-w": _verify,
    "-ar": _ar,
    "-C": lambda v: {"prefix": v},
    "-r": lambda v: {"restart": "y" if _yes_no("-r", v) else "n"},
    "-shell": lambda v: {"noshell": not _yes_no("-shell", v)},
    "-ac": _context("-ac"),
    "-sc": _context("-sc"),
    "-dc": _context("-dc"),
    "-js": _jobshare,
    "-i": lambda v: {"stdin_path": v},
    "-ckpt": lambda v: {"checkpoint": v},
    "-c": _checkpoint_when,
    "-masterq": lambda v: {"master_queues": requests.parse_name_list(v)},
    "-tc": _task_concurrency,
}
_WITH_CONTEXT: dict[str, Callable[[str, _Context], dict[str, Any]]] = {
    "-l": _resources,
    "-q": _queues,
    "-v": _variables,
    "-a": _date("start_time", "-a"),
    "-dl": _date("deadline", "-dl"),
}
_FLAG_SETTINGS: dict[str, dict[str, Any]] = {
    "-V": {"env_all": True},
    "-terse": {"terse": True},
    "-h": {"hold": True},
    "-notify": {"notify": True},
    "-help": {"help": True},
    "-verify": {"verify_only": True},
}


def _option_settings(option: str, args: list[str], ctx: _Context) -> dict[str, Any]:
    """The settings one option stands for; -hard/-soft only switch the context."""
    if option in ("-hard", "-soft"):
        ctx.soft = option == "-soft"
        return {}
    if option == "-cwd":
        return {"cwd": ctx.cwd}
    if option == "-pe":
        return _pe(args[0], args[1])
    if option == "-binding":
        return _binding(args)
    if option in _FLAG_SETTINGS:
        return dict(_FLAG_SETTINGS[option])
    if option in _WITH_CONTEXT:
        return _WITH_CONTEXT[option](args[0], ctx)
    if option in _REFUSED:  # 8.1.9 leaves a blank line after the message
        _check_refused(option, args[0])
        raise QsubError(f"Unknown option {option} {args[0]}\n", EXIT_UNKNOWN)
    return _SIMPLE[option](args[0])


def _check_refused(option: str, value: str) -> None:
    """8.1.9 checks the value of an option it then refuses: -he's a yes or no, -ot's
    (override tickets) a count."""
    if option == "-he":
        _yes_no(option, value)
    elif not is_unsigned(value):
        raise QsubError("invalid override tickets, must be an unsigned integer", EXIT_USAGE)


def check_refused(option: str, args: list[str], now: float) -> None:
    """Check an option's arguments as qsub does, for qalter, which then refuses the
    option itself ("Unknown option")."""
    if option in _FLAGS:
        return
    if option in _REFUSED:
        _check_refused(option, args[0])
        return
    try:
        alter_settings(option, args, soft=False, now=now)
    except QsubError as error:
        if not error.message.startswith("Unable to run job: "):  # the master's to say
            raise


def add_setting(settings: dict[str, Any], key: str, value: Any, *, same_source: bool,
                merging: tuple[frozenset[str], frozenset[str]]) -> None:
    """Store a setting, accumulating where Grid Engine accumulates: the first set of
    `merging` over every source, the second within one source. A list or mapping that
    may accumulate is stored as a copy and then added to in place, so that many options
    cost time in proportion to their number (a new one each time made it quadratic)."""
    cumulative, per_source = merging
    old = settings.get(key)
    if old is None or not (key in cumulative or (same_source and key in per_source)):
        if key in cumulative or key in per_source:
            value = dict(value) if isinstance(value, dict) else list(value)
        settings[key] = value
    elif isinstance(old, dict):
        requests.merge_resources(old, value)
    else:
        old.extend(value)


def _collect(scanned: _Scanned, ctx: _Context) -> dict[str, Any]:
    """Fold one source's options into settings; -hard/-soft reset at each source."""
    ctx.soft = False
    settings: dict[str, Any] = {}
    for option, args in scanned.options:
        if option == "-clear":
            settings = {CLEARED: True}
            ctx.soft = False
            continue
        for key, value in _option_settings(option, args, ctx).items():
            add_setting(settings, key, value, same_source=True, merging=_MERGING)
    return settings


def option_words(text: str) -> list[str]:
    """Shell-like words; `#` starts a comment even inside a word, as Grid Engine reads it."""
    try:
        return shlex.split(text, comments=True)
    except ValueError as error:
        raise QsubError(f'cannot parse "{text.strip()}": {error}', EXIT_BAD_ARGUMENT) from None


def _read_option_file(path: str, ctx: _Context) -> list[str]:
    text = ctx.read_file(os.path.join(ctx.cwd, path))
    if text is None:
        raise QsubError(
            f"cannot read option file {path}: No such file or directory", EXIT_NO_INPUT
        )
    return option_words(text)


# What 8.1.9 says an option wants when it is given none (else "argument").
_WANTED = {"-@": "file argument", "-S": "path_name argument",
           "-ac": "a context_list list argument", "-dc": "a simple_context_list list argument",
           "-sc": "context list argument", "-q": "queue list argument",
           "-masterq": "queue list argument", "-t": "a list of task id ranges",
           "-v": "variable list argument", "-pe": "pe_name argument",
           "-u": "a list usernames"}  # (qrsub's -u)


def missing_argument(option: str, given: int) -> str:
    """What 8.1.9's qsub, qalter and qrsub say of an option given fewer arguments than
    it takes (`given` of them)."""
    if option == "-pe" and given == 1:
        return "-pe option must have range as 2nd argument"
    return f"{option} option must have {_WANTED.get(option, 'argument')}"


def arity(option: str, following: list[str]) -> int:
    """How many of the `following` words the option takes (-binding two when the first
    is the binding's type, else one)."""
    if option == "-binding" and following[:1] in (["env"], ["pe"], ["set"]):
        return 2
    if option in _FLAGS:
        return 0
    if option in _ONE_ARG:
        return 1
    if option in _TWO_ARGS:
        return 2
    raise QsubError(f'invalid option argument "{option}"', EXIT_USAGE)


def _scan(tokens: list[str], ctx: _Context, into: _Scanned, depth: int = 0) -> _Scanned:
    """Split tokens into options and the script/command part; -@ files are read in place."""
    if depth > _MAX_OPTION_FILE_DEPTH:
        raise QsubError("option files nested too deeply (-@)", EXIT_USAGE)
    index = 0
    while index < len(tokens):
        token = tokens[index]
        if token == "--":
            into.positional, into.after_dashdash = tokens[index + 1 :], True
            return into
        if not token.startswith("-"):
            into.positional = tokens[index:]
            return into
        count = arity(token, tokens[index + 1 : index + 2])
        args = tokens[index + 1 : index + 1 + count]
        if len(args) < count:
            raise QsubError(missing_argument(token, len(args)), EXIT_USAGE)
        if token == "-@":
            _scan(_read_option_file(args[0], ctx), ctx, into, depth + 1)
        else:
            into.options.append((token, args))
        index += 1 + count
    return into


def _options_only(tokens: list[str], ctx: _Context) -> _Scanned:
    """Sources other than the command line hold options only."""
    scanned = _scan(tokens, ctx, _Scanned())
    if scanned.positional:
        raise QsubError(f'invalid option argument "{scanned.positional[0]}"', EXIT_USAGE)
    return scanned


def _prefixed(prefix: str, action: Callable[[], Any]) -> Any:
    """Run `action`, prefixing its refusals with where the offending option came from.

    Errors the master would report (`Unable to run job: ...`) read the same from anywhere.
    """
    try:
        return action()
    except QsubError as error:
        if error.message.startswith("Unable to run job: "):
            raise
        raise QsubError(error.preamble + prefix + error.message, error.exit_code) from None


def _source_settings(
    tokens: Callable[[], list[str]], ctx: _Context, prefix: str
) -> dict[str, Any]:
    """Settings of a file source: options only, nothing to run."""
    return _prefixed(prefix, lambda: _collect(_options_only(tokens(), ctx), ctx))


def _command_line(argv: list[str], ctx: _Context,
                  prefix: str) -> tuple[_Scanned, dict[str, Any]]:
    """Options of the command line and the command or script after them."""

    def scan_and_collect() -> tuple[_Scanned, dict[str, Any]]:
        scanned = _scan(argv, ctx, _Scanned())
        return scanned, _collect(scanned, ctx)

    return _prefixed(prefix, scan_and_collect)


def _request_file_settings(paths: list[str], ctx: _Context) -> list[dict[str, Any]]:
    """Settings from each default request file that exists, in reading order."""
    texts = [text for text in map(ctx.read_file, paths) if text is not None]
    return [_source_settings(lambda t=text: option_words(t), ctx, "") for text in texts]


def _directive_tokens(script: str, prefix: str) -> list[str]:
    """Words of every script line that starts with the directive prefix, anywhere in it."""
    words: list[str] = []
    for line in script.splitlines():
        if line.startswith(prefix):
            words.extend(option_words(line[len(prefix) :]))
    return words


def _last(sources: list[dict[str, Any]], key: str, default: Any) -> Any:
    for settings in reversed(sources):
        if key in settings:
            return settings[key]
        if CLEARED in settings:
            break
    return default


def combine(sources: list[dict[str, Any]],
            merging: tuple[frozenset[str], frozenset[str]]) -> dict[str, Any]:
    """The settings of all sources, later ones over earlier ones, `merging` keys added up."""
    combined: dict[str, Any] = {}
    for settings in sources:
        if CLEARED in settings:
            combined = {}
        for key, value in settings.items():
            if key != CLEARED:
                add_setting(combined, key, value, same_source=False, merging=merging)
    return combined


class _JobBody(msgspec.Struct):
    """What runs: binary command or script text, and the names shown for it."""

    binary: bool
    command: list[str]
    args: list[str]
    script: str
    script_name: str
    default_name: str


def _binary_body(scanned: _Scanned) -> _JobBody:
    if scanned.after_dashdash or not scanned.positional:
        raise QsubError("qsub: command required for a binary job", EXIT_USAGE)
    command = scanned.positional
    return _JobBody(True, list(command), command[1:], "", command[0],
                    os.path.basename(command[0]))


def _interactive_body(scanned: _Scanned, kind: str) -> _JobBody:
    """qrsh's command (none: a login shell there), named as 8.1.9 names it: after the
    first word of its first argument ('qrsh "echo a; exit 3"' is "echo"); QRLOGIN for a
    qrsh without a command, QLOGIN for qlogin."""
    command = list(scanned.positional)
    if not command:
        return _JobBody(True, [], [], "", "", "QLOGIN" if kind == "qlogin" else "QRLOGIN")
    first = (command[0].split() or [command[0]])[0]
    return _JobBody(True, command, command[1:], "", command[0], os.path.basename(first))


def _script_body(scanned: _Scanned, ctx: _Context, stdin_text: Callable[[], str]) -> _JobBody:
    if scanned.positional and not scanned.after_dashdash:
        path, args = scanned.positional[0], scanned.positional[1:]
        script = ctx.read_file(os.path.join(ctx.cwd, path))
        if script is None:
            raise QsubError(
                f"{_SCRIPT_ERROR}error opening {path}: No such file or directory",
                EXIT_NO_SCRIPT,
            )
        return _JobBody(False, [path, *args], args, script, path, os.path.basename(path))
    script = stdin_text()
    if not script:
        raise QsubError(f"{_SCRIPT_ERROR}no input read from stdin", EXIT_NO_INPUT)
    args = scanned.positional
    return _JobBody(False, ["STDIN", *args], args, script, "STDIN", "STDIN")


_SPEC_KEYS = frozenset(JobSpec.__struct_fields__)


def _build_spec(
    settings: dict[str, Any], body: _JobBody, ident: dict[str, Any], environ: Mapping[str, str]
) -> JobSpec:
    """The JobSpec: identity and SGE_O_* values, then the job body, then the options."""
    env = dict(environ) if settings.get("env_all") else {}
    env.update(settings.get("env", {}))
    options = {k: v for k, v in settings.items() if k in _SPEC_KEYS and k != "binary"}
    options.setdefault("name", body.default_name)
    options.setdefault("mail_list", [f"{ident['owner']}@{ident['submit_host']}"])
    options["env"] = env
    options["context"] = changed_context({}, settings.get("context_changes", []))
    return JobSpec(
        **ident,
        **options,
        binary=body.binary,
        command=body.command,
        args=body.args,
        script=body.script,
        script_name=body.script_name,
    )


def _identity(
    environ: Mapping[str, str], cwd: str, home: str, user: str, uid: int, group: str,
    gid: int, host: str,
) -> dict[str, Any]:
    """Who submits from where: the SGE_O_* values the job will see."""
    return {
        "owner": user, "uid": uid, "group": group, "gid": gid, "submit_host": host,
        "o_home": environ.get("HOME", home), "o_path": environ.get("PATH", ""),
        "o_shell": environ.get("SHELL", ""), "o_workdir": cwd,
        "o_mail": environ.get("MAIL", ""), "o_logname": environ.get("LOGNAME", user),
        "o_tz": environ.get("TZ", ""),
    }


def parse_qsub(
    argv: list[str],
    *,
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
    stdin_text: Callable[[], str],
    now: float,
    prefix: str = "qsub: ",
    interactive: str = "",
) -> QsubRequest:
    """Turn qsub's arguments, request files and script directives into one request.

    `argv` excludes the program name. Raises QsubError with Grid Engine's text and exit
    code for anything qsub refuses before contacting the master, its own complaints
    after `prefix`. With `interactive` (qrsh, qlogin) a binary job's command may be
    empty, and is named as qrsh names it.
    """
    ctx = _Context(environ=environ, cwd=cwd, read_file=read_file, now=now)
    command_line, cli_settings = _command_line(argv, ctx, prefix)
    if cli_settings.get("help"):
        return QsubRequest(spec=JobSpec(), help=True)
    paths = [f"{root}/common/sge_request", f"{home}/.sge_request", f"{cwd}/.sge_request"]
    sources = _request_file_settings(paths, ctx)
    sources.append(cli_settings)
    if _last(sources, "binary", False):
        body = (_interactive_body(command_line, interactive) if interactive
                else _binary_body(command_line))
    else:
        body = _script_body(command_line, ctx, stdin_text)
        prefix = _last(sources, "prefix", DEFAULT_PREFIX)
        if prefix:
            directives = _source_settings(
                lambda: _directive_tokens(body.script, prefix), ctx, _SCRIPT_ERROR
            )
            sources.insert(-1, directives)
    settings = combine(sources, _MERGING)
    ident = _identity(environ, cwd, home, user, uid, group, gid, host)
    spec = _build_spec(settings, body, ident, environ)
    return QsubRequest(
        spec=spec,
        terse=bool(settings.get("terse")),
        sync=spec.sync,
        now=spec.immediate,
        verify=spec.verify,
        verify_only=bool(settings.get("verify_only")),
    )


# The qsub options qalter reads, checks as qsub does, and then refuses ("Unknown option").
NOT_ALTERED = frozenset({"-now", "-he", "-sync", "-C", "-t", "-clear", "-terse", "-verify"})
# The qsub options qalter takes (their arguments as qsub's: see arity).
ALTERABLE = frozenset({"-N", "-p", "-R", "-l", "-ar", "-q", "-masterq", "-pe", "-hold_jid",
                       "-a", "-dl", "-js", "-r", "-ac", "-sc", "-dc", "-A", "-binding",
                       "-tc", "-o", "-e", "-j", "-S", "-v", "-V", "-M", "-m", "-cwd", "-wd",
                       "-i", "-notify", "-P", "-ckpt", "-hold_jid_ad", "-w"})


def alter_settings(option: str, args: list[str], *, soft: bool, now: float,
                   environ: dict[str, str] | None = None, cwd: str = "") -> dict[str, Any]:
    """What one of qalter's options (ALTERABLE) sets, checked as qsub checks it; -l and
    -q set the soft lists after -soft. -V takes `environ` whole (as -v takes from it what
    it names without a value), -cwd `cwd`."""
    ctx = _Context(environ=environ or {}, cwd=cwd, read_file=lambda _: None, now=now,
                   soft=soft)
    if option == "-V":
        return {"env": dict(ctx.environ)}
    return _option_settings(option, args, ctx)

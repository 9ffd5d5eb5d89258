"""The commonest q* command lines, run without loading the whole command.

`qstat`, `qstat -u USERS`, `qstat -xml`, `qdel ID...`, `qsub [-h] -b y COMMAND [ARGS]`
and `qacct -j ID` are most of what people and scripts run, many times over. Here each is sent as
plain values (gridd.wire) over the light connection (gridd.connection): no msgspec, no
model, no parser but the word comparisons below, so that the command costs little more
than the interpreter's start. A request so built is the same message the whole command
sends (tests/unit/test_quick.py holds each form's equal to it), and its answer is
printed as the whole command prints it. Any other command line, and any of these where
something could make the whole command do otherwise (a default request file for qsub),
is not taken here: `run` returns None and the command runs whole.
"""

from __future__ import annotations

import os
import sys

from gridd import connection, wire
from gridd.cli.failure import run_command, run_submission
from gridd.connection import GriddError

TYPE_CHECKING = False  # typing's own costs a q* command milliseconds to import
if TYPE_CHECKING:
    from collections.abc import Callable

    from gridd.zmtp import Dealer

    Request = dict[str, object]


def run(command: str, argv: list[str]) -> int | None:
    """The command's exit code, once done here; None when the command line is not one
    of the quick forms."""
    form = _FORMS.get(command)
    request = form(argv) if form else None
    if request is None:
        return None
    show, fields = request
    link = None
    if command == "qacct":
        try:
            link = connection.connect()
        except GriddError:  # where no master answers, qacct reads the database itself
            return None

    def body() -> int:
        dealer, endpoint = link or connection.connect()
        return show(_ask(dealer, endpoint, fields))

    return (run_submission if command == "qsub" else run_command)(body)


def _ask(dealer: Dealer, endpoint: str, fields: Request) -> dict[str, object]:
    """The master's answer to one request, as plain values; an Error answer raises
    Refused, as gridd.client does."""
    rid = 1
    try:
        try:
            frame = wire.pack({"t": fields.pop("t"), "v": wire.VERSION, "rid": rid, **fields})
        except UnicodeEncodeError as exc:
            raise connection.not_utf8(exc) from None
        connection.transfer(endpoint, dealer.send_raw, dealer.encode([frame]))
        dealer.settimeout(connection.REPLY_TIMEOUT)
        while True:
            (answer,) = connection.transfer(endpoint, dealer.recv)
            try:
                reply = wire.unpack(answer)
                if not isinstance(reply, dict) or reply.get("v") != wire.VERSION:
                    raise wire.WireError("not a message of this protocol version")
            except wire.WireError as exc:
                raise connection.unreadable(endpoint, exc) from None
            if reply.get("rid") in (rid, 0):
                break
    finally:
        dealer.close()
    if reply.get("t") == "error":
        raise connection.Refused(str(reply.get("text", "")), _code(reply, 1))
    return reply


def _code(reply: dict[str, object], default: int) -> int:
    code = reply.get("code", default)
    return code if isinstance(code, int) else default


def _expected(reply: dict[str, object], tag: str) -> dict[str, object]:
    if reply.get("t") != tag:
        raise GriddError(f"error: unexpected answer from qmaster: {reply.get('t')!r}")
    return reply


# ---- qstat -------------------------------------------------------------------------

def _qstat(argv: list[str]) -> tuple[Callable[[dict], int], Request] | None:
    """qstat, with -u USERS and -xml: a plain listing, printed by the master
    (protocol.QueryRows, as cli.qstat._listing asks it)."""
    users: list[str] | None = [connection.current_user()]
    xml = False
    words = iter(argv)
    for word in words:
        if word == "-xml":
            xml = True
        elif word == "-u":
            named = [u for u in next(words, "").split(",") if u]
            if not named:
                return None
            users = None if "*" in named else named
        else:
            return None
    return _printed, {"t": "query_rows", "users": users, "states": "", "select": None,
                      "tasks_apart": False, "xml": xml, "zone": connection.time_zone()}


def _printed(reply: dict) -> int:
    text = _expected(reply, "printed").get("text")
    if not isinstance(text, str):
        raise GriddError("error: unexpected answer from qmaster: no text")
    sys.stdout.write(text)
    return 0


# ---- qdel --------------------------------------------------------------------------

def _qdel(argv: list[str]) -> tuple[Callable[[dict], int], Request] | None:
    """qdel with job ids alone (commas or blanks between them)."""
    targets = [t for word in argv for t in word.split(",") if t]
    if not targets or not all(t.isascii() and t.isdigit() for t in targets):
        return None
    return _lines, {"t": "delete", "targets": targets, "user": connection.current_user(),
                    "users": [], "force": False}


def _lines(reply: dict) -> int:
    """An Ok's lines on standard output, its code the exit code (cli.common.print_answer)."""
    for line in _expected(reply, "ok").get("lines") or []:
        print(line)
    return _code(reply, 0)


# ---- qsub --------------------------------------------------------------------------

def _qsub(argv: list[str]) -> tuple[Callable[[dict], int], Request] | None:
    """qsub [-h] -b y COMMAND [ARGS...] where no default request file could add
    options (cli.qsub_args.parse_qsub builds the same spec)."""
    hold = binary = False
    at = 0
    while at < len(argv) and argv[at].startswith("-"):
        if argv[at] == "-h":
            hold, at = True, at + 1
        elif argv[at] == "-b" and argv[at + 1:at + 2] == ["y"]:
            binary, at = True, at + 2
        else:
            return None
    command = argv[at:]
    if not binary or not command:
        return None
    home, cwd = connection.home_dir(), os.getcwd()
    from gridd import paths

    if any(os.path.exists(f) for f in (f"{paths.root_dir()}/common/sge_request",
                                       f"{home}/.sge_request", f"{cwd}/.sge_request")):
        return None
    env = os.environ
    user, host = connection.current_user(), os.uname().nodename
    spec = {
        "owner": user, "uid": os.getuid(), "group": connection.current_group(), "gid": os.getgid(),
        "submit_host": host, "o_home": env.get("HOME", home), "o_path": env.get("PATH", ""),
        "o_shell": env.get("SHELL", ""), "o_workdir": cwd, "o_mail": env.get("MAIL", ""),
        "o_logname": env.get("LOGNAME", user), "o_tz": env.get("TZ", ""),
        "name": os.path.basename(command[0]), "mail_list": [f"{user}@{host}"], "env": {},
        "context": {}, "hold": hold, "binary": True, "command": command,
        "args": command[1:], "script": "", "script_name": command[0],
    }
    return _submitted, {"t": "submit", "spec": spec}


def _submitted(reply: dict) -> int:
    """What cli.qsub prints for a job taken: its warnings, then the line."""
    from gridd.formats.submitted import submitted_line

    _expected(reply, "submitted")
    for line in reply.get("warnings") or []:
        print(line, file=sys.stderr)
    array = reply.get("array")
    print(submitted_line(reply["job_id"], reply["name"], tuple(array) if array else None))
    return 0


# ---- qacct -------------------------------------------------------------------------

def _qacct(argv: list[str]) -> tuple[Callable[[dict], int], Request] | None:
    """qacct -j ID of a cell whose records are in its database, which the accounting
    file could not answer (cli.qacct_quick): the accounting process answers with what
    the whole command prints (cli.qacct.printed), so that qacct needs neither the
    queries nor the renderer here, and asks once."""
    from gridd import paths
    from gridd.cli.qacct_quick import job_asked

    if job_asked(argv) is None:
        return None
    if not os.path.exists(os.path.join(paths.common_dir(), paths.REPORTING_DB)):
        return None  # the whole command reads the accounting files
    return _qacct_printed, {"t": "db_query", "sql": "", "params": None, "client": b"",
                            "qacct": argv}


def _qacct_printed(reply: dict) -> int:
    _expected(reply, "db_answer")
    text, error, code = reply.get("text"), reply.get("error"), reply.get("code")
    if not (isinstance(text, str) and isinstance(error, str) and isinstance(code, int)):
        raise GriddError("error: unexpected answer from qmaster: not qacct's")
    sys.stdout.write(text)
    sys.stderr.write(error)
    return code


_FORMS = {"qstat": _qstat, "qdel": _qdel, "qsub": _qsub, "qacct": _qacct}

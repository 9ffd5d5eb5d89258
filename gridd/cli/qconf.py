"""qconf: show and change the cell's configuration.

The options go to the master as command lines, applied there in order; the command
prints the two streams it gets back, since Grid Engine puts most confirmations on
stderr. Files named by -A*/-M* options are read here and travel with the request (the
master may run elsewhere), and so does which of the host names it gives that the master
has no exec host by resolve here.

The interactive forms (-a*/-m*) are this command's own business, as in Grid Engine: it
fetches the object (or makes the template of a new one), opens $EDITOR on a temporary
file, and sends what the editor left as the file of the matching -A*/-M* option. When
the editor left the file as it was, some forms say so and send nothing, each in Grid
Engine's words; Grid Engine judges by the file's modification time, we by its content,
so saving an unchanged file counts as unchanged here.
"""

from __future__ import annotations

import functools
import itertools
import os
import sys
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass

from gridd import protocol as p
from gridd.cli.common import current_user, run_command, usage_error
from gridd.client import Client
from gridd.manual import usage

# Grid Engine's last line when an option's file can't be read ({} is the file), and
# its exit code then (0 for -Ahgrp, as Grid Engine does).
_INVALID_ARGUMENT = 'error: invalid option argument "{}"\nUsage: qconf -help'
FILE_OPTIONS: dict[str, tuple[str, int]] = {
    "-Aq": ("", 1),
    "-Mq": ('Cluster queue file "{}" is not correct', 1),
    "-Ae": ("invalid format", 1),
    "-Me": ("invalid format", 1),
    "-Ahgrp": ("", 0),
    "-Mhgrp": ('Host group file "{}" is not correct', 1),
    "-Mc": ('Complex attribute file "{}" is not correct', 1),
    "-Aconf": ("error reading configuration from file {}", 1),
    "-Mconf": ("error reading configuration from file {}", 1),
    **{option: ("error reading in file", 1)
       for option in ("-Ap", "-Mp", "-Aprj", "-Mprj", "-Auser", "-Muser", "-Au", "-Mu",
                      "-Msconf")},
    **{option: (_INVALID_ARGUMENT, 1) for option in ("-Aattr", "-Mattr", "-Dattr", "-Rattr")},
    "-Arqs": ("", 1),
    "-Mrqs": ("", 1),
}
# options whose complaint about an unreadable file has no "error: " in front
BARE_OPEN_ERRORS = {"-Arqs", "-Mrqs"}
# where the file is among the option's arguments, when not first
FILE_INDEX = {"-Aattr": 1, "-Mattr": 1, "-Dattr": 1, "-Rattr": 1}
# options whose argument is a comma-separated list of files
FILE_LISTS = {"-Aconf", "-Mconf"}

OPTIONAL = -1


@dataclass(frozen=True)
class Unchanged:
    """What a form says when the editor left the file as it was; None sends it anyway."""

    text: str
    stdout: bool = False
    code: int = 1


FILE_UNCHANGED = Unchanged("file unchanged")
CONF_UNCHANGED = Unchanged("configuration unchanged")


@dataclass(frozen=True)
class EditorForm:
    send: str  # the option the edited file goes to
    operands: int  # 0, 1 or OPTIONAL
    show: str = ""  # the option showing the current object ("" for a new one)
    kind: str = ""  # gridd.formats.qconf_objects kind of the template or object
    unchanged: Unchanged | None = FILE_UNCHANGED
    each: bool = False  # the operand is a list, edited one item at a time
    missing: str = ""  # said of a host name `show` finds nothing by that resolves ({})


EDITOR_FORMS: dict[str, EditorForm] = {
    "-mc": EditorForm("-Mc", 0, show="-sc", unchanged=None),
    "-msconf": EditorForm("-Msconf", 0, show="-ssconf"),
    "-mhgrp": EditorForm("-Mhgrp", 1, show="-shgrp",
                         unchanged=Unchanged("Object has not been changed")),
    "-mprj": EditorForm("-Mprj", 1, show="-sprj"),
    "-mq": EditorForm("-Mq", 1, show="-sq", unchanged=None),
    "-mp": EditorForm("-Mp", 1, show="-sp"),
    "-me": EditorForm("-Me", 1, show="-se", kind="exechost"),
    "-mu": EditorForm("-Mu", 1, show="-su", each=True,
                      unchanged=Unchanged("file unchanged", stdout=True, code=0)),
    "-aq": EditorForm("-Aq", OPTIONAL, kind="queue", unchanged=None),
    "-ae": EditorForm("-ae", OPTIONAL, show="-se", kind="exechost",
                      missing="{} is not an exec host"),
    "-ap": EditorForm("-Ap", 1, kind="pe"),
    "-ahgrp": EditorForm("-Ahgrp", 1, kind="hostgroup", unchanged=None),
    "-aprj": EditorForm("-Aprj", 0, kind="project"),
    "-auser": EditorForm("-Auser", 0, kind="user"),
    "-muser": EditorForm("-Muser", 1, show="-suser"),
    "-mconf": EditorForm("-Mconf", OPTIONAL, show="-sconf", each=True,
                         unchanged=CONF_UNCHANGED),
    "-aconf": EditorForm("-Aconf", 1, each=True, unchanged=CONF_UNCHANGED),
    "-arqs": EditorForm("-Arqs", OPTIONAL),
    "-mrqs": EditorForm("-Mrqs", OPTIONAL, show="-srqs"),
}


def options() -> frozenset[str]:
    """Every option qconf takes (gridd.manual.qconf describes them): those the master
    carries out, the editor forms carried out here, and -help."""
    from gridd.master.admin import VERBS

    return frozenset(VERBS) | frozenset(EDITOR_FORMS) | {"-help"}


class QconfError(Exception):
    def __init__(self, text: str, code: int = 1) -> None:
        super().__init__(text)
        self.code = code


Request = Callable[[list[str], dict[str, str]], p.QconfReply]


def main(argv: list[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if args == ["-help"]:
        sys.stdout.write(usage("qconf"))
        return 0
    if not args:  # the usage, then 8.1.9's complaint
        return usage_error("qconf", "no option argument")
    who = {"user": current_user(), "host": os.uname().nodename}
    try:
        files = _read_files(args)
    except QconfError as exc:
        print(exc, file=sys.stderr)
        return exc.code

    def body() -> int:
        with Client() as client:
            resolved: list[str] = []  # found before the command line is sent

            def request(argv: list[str], files: dict[str, str]) -> p.QconfReply:
                return client.request(p.Qconf(argv=argv, files=files, resolved=resolved,
                                              **who))

            resolved += _resolvable(args, files, request)
            return run(args, files, request)

    return run_command(body)


def _named_hosts(args: list[str], files: dict[str, str]) -> list[str]:
    """The host names the options give: -se, -me and -ae one, -de, -as and -ah a list,
    and a -Me file the one on its hostname line."""
    hosts: list[str] = []
    for option, operand in itertools.pairwise(args):
        if option in ("-se", "-me", "-ae") and not operand.startswith("-"):
            hosts.append(operand)
        elif option in ("-de", "-as", "-ah"):
            hosts += [h for h in operand.replace(" ", ",").split(",") if h]
        elif option == "-Me" and operand in files:
            hosts += _file_host(files[operand])
    return hosts


def _file_host(text: str) -> list[str]:
    """The host an exec host file names on its hostname line, if it has one."""
    for line in text.splitlines():
        words = line.split()
        if len(words) > 1 and words[0] == "hostname":
            return [words[1]]
    return []


def _resolvable(args: list[str], files: dict[str, str], request: Request) -> list[str]:
    """The host names of the command line the master has no exec host by that resolve
    here: Grid Engine says such a name is no execution host, and one that does not
    resolve, that it can't resolve it. gridd's hosts need not resolve, so the names the
    master knows are not looked up."""
    named = _named_hosts(args, files)
    if not named:
        return []
    known = {*request(["-sel"], {}).out, "global"}
    return [name for name in dict.fromkeys(named) if name not in known and _resolves(name)]


@functools.cache
def _resolves(name: str) -> bool:
    import socket  # only where a host name is looked up: kept out of qconf's start-up

    try:
        socket.getaddrinfo(name, None)
    except (OSError, UnicodeError, ValueError):  # (a name with a NUL, or too long)
        return False
    return True


def run(args: list[str], files: dict[str, str], request: Request) -> int:
    """The command line in order: runs of ordinary options go to the master together,
    each editor form is handled here between them. The exit code is the worst one.
    """
    code = 0
    pending: list[str] = []
    rest = deque(args)
    while rest:
        word = rest.popleft()
        if word not in EDITOR_FORMS:
            pending.append(word)
            continue
        if pending:
            code = max(code, _show(request(pending, files)))
            pending = []
        form = EDITOR_FORMS[word]
        if form.operands == OPTIONAL:
            operands = [rest.popleft()] if rest and not rest[0].startswith("-") else []
        elif len(rest) < form.operands:
            print(f'error: no option argument provided to "{word}"\nUsage: qconf -help',
                  file=sys.stderr)
            return max(code, 1)
        else:
            operands = [rest.popleft() for _ in range(form.operands)]
        code = max(code, _edit_form(word, form, operands, request))
    if pending:
        code = max(code, _show(request(pending, files)))
    return code


def _show(reply: p.QconfReply) -> int:
    for line in reply.out:
        print(line)
    for line in reply.err:
        print(line, file=sys.stderr)
    return reply.code


def _read_files(args: list[str]) -> dict[str, str]:
    """The files -A*/-M* options name, read before anything is sent, so that a missing
    one changes nothing.
    """
    files = {}
    for i, arg in enumerate(args):
        position = i + 1 + FILE_INDEX.get(arg, 0)
        if arg not in FILE_OPTIONS or position >= len(args):
            continue
        paths = args[position].split(",") if arg in FILE_LISTS else [args[position]]
        for path in paths:
            try:
                with open(path, encoding="utf-8", errors="surrogateescape") as f:
                    files[path] = f.read()
            except OSError as exc:
                trailer, code = FILE_OPTIONS[arg]
                prefix = "" if arg in BARE_OPEN_ERRORS else "error: "
                lines = [f'{prefix}error opening file "{path}" for reading: {exc.strerror}']
                raise QconfError("\n".join(lines + ([trailer.format(path)] if trailer else [])),
                                 code) from None
    return files


def _edit_form(option: str, form: EditorForm, operands: list[str], request: Request) -> int:
    """One editor form; a list operand (-mu a,b) is edited one item after the other."""
    if form.each:
        items = [n for n in (operands[0] if operands else "").split(",") if n]
        code = 0
        for item in items or ["global"]:  # only -mconf may go without a list
            code = max(code, _edit_one(option, form, item, request))
        return code
    return _edit_one(option, form, operands[0] if operands else "", request)


def _offered(option: str, form: EditorForm, name: str,
             request: Request) -> tuple[str, str] | int:
    """(the text to edit, the option its result goes to), or the exit code of a failure
    to fetch the object (its message printed).
    """
    from gridd.formats.qconf_objects import editable, template

    send = form.send
    if option == "-arqs":
        from gridd.formats.rqs import template as rqs_template

        return rqs_template([n for n in name.split(",") if n] or ["template"]), send
    if option == "-mrqs":
        current = request(["-srqs", *([name] if name else [])], {})
        if current.code and name:
            for missing in (n for n in name.split(",") if n):
                print(f'resource quota set "{missing}" does not exist', file=sys.stderr)
            return 1
        if current.code:
            return _show(current)
        return "".join(line + "\n" for line in current.out), send
    if option in ("-mconf", "-aconf"):
        current = request(["-sconf", name], {}) if option == "-mconf" else None
        if current is None or current.code:
            if name == "global" and current is not None:
                return _show(current)
            return "\n", "-Aconf"  # a host without a configuration of its own yet
        body = current.out[1:]  # without the "#name:" line
        return "".join(line + "\n" for line in body), send
    if form.show and (name or not form.kind):
        current = request([form.show, *([name] if name else [])], {})
        if current.code and form.missing and _resolves(name):
            print(form.missing.format(name), file=sys.stderr)
            return 1
        if current.code:
            return _show(current)
        text = "".join(line + "\n" for line in current.out)
        return (editable(form.kind, text) if form.kind else text), send
    return template(form.kind, name or "template"), send


def _edit_one(option: str, form: EditorForm, name: str, request: Request) -> int:
    offered = _offered(option, form, name, request)
    if isinstance(offered, int):
        return offered
    text, send = offered
    if send in ("-Aconf", "-Mconf") and (
            not name or "/" in name or "\0" in name or name in (".", "..")):
        # The file is named after the host: a name with a slash would put it outside
        # the temporary directory (`-aconf /etc/x` would write /etc/x).
        print(f'error: "{name}" is not a valid host name', file=sys.stderr)
        return 1
    import tempfile  # the editor forms alone need it: kept out of qconf's start-up

    with tempfile.TemporaryDirectory(prefix="qconf-") as tmpdir:
        # a configuration's file is named after its host, as -Aconf/-Mconf expect
        path = os.path.join(tmpdir, name if send in ("-Aconf", "-Mconf") else "object")
        with open(path, "w", encoding="utf-8", errors="surrogateescape") as f:
            f.write(text)
        status = _run_editor(path)
        if status:
            return status
        with open(path, encoding="utf-8", errors="surrogateescape") as f:
            edited = f.read()
        if edited == text and form.unchanged is not None:
            print(form.unchanged.text, file=sys.stdout if form.unchanged.stdout else sys.stderr)
            return form.unchanged.code
        if send in ("-Aconf", "-Mconf") and not any(
                line.strip() and not line.startswith("#") for line in edited.splitlines()):
            print(f'error: error reading file: "{path}"\nerror reading temp file',
                  file=sys.stderr)
            return 1
        return _show(request([send, path, *_edited_sets(option, name, edited)],
                             {path: edited}))


def _edited_sets(option: str, name: str, edited: str) -> list[str]:
    """-mrqs with a list sends each set the edited file holds as a change of that set
    (one renamed in the editor is a set that does not exist); without a list the file
    replaces every set. Other forms send the file alone.
    """
    if option != "-mrqs" or not name:
        return []
    from gridd.formats.parsing import FormatError
    from gridd.formats.rqs import parse_rule_sets

    try:
        found = list(dict.fromkeys(rs.name for rs in parse_rule_sets(edited)))
    except FormatError:
        return [name]  # the master reads it again and says what is wrong
    return [",".join(found)] if found else [name]


def _run_editor(path: str) -> int:
    """$EDITOR (which may carry its own arguments, `emacs -nw`) on the file; 0 when it
    succeeded, else the exit code with Grid Engine's message printed.
    """
    import shlex
    import subprocess

    editor = os.environ.get("EDITOR") or "vi"
    try:
        status = subprocess.run([*shlex.split(editor), path]).returncode
    except (OSError, ValueError):
        print(f"error: can't start editor {editor}", file=sys.stderr)
        return 1
    if status:
        print(f"error: editor exited with error {status}\nedit failed", file=sys.stderr)
        return 1
    return 0

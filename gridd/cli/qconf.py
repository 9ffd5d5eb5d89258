"""qconf: show and change the cell's configuration.

The options go to the master as one command line, applied there in order; the command
prints the two streams it gets back, since Grid Engine puts most confirmations on
stderr. Files named by -A*/-M* options are read here and travel with the request (the
master may run elsewhere); the -a*/-m* forms fetch the object, open $EDITOR on a
temporary file as qconf does, and send what the editor left as the file of the
matching -A*/-M* option.
"""

import os
import subprocess
import sys
import tempfile

from gridd import protocol as p
from gridd.cli.common import current_user, run_command
from gridd.client import Client

USAGE = """usage: qconf [options]
   [-am user_list]            add users to the manager list
   [-ao user_list]            add users to the operator list
   [-ah hostname_list]        add administrative hosts
   [-as hostname_list]        add submit hosts
   [-au user_list list_list]  add users to access lists (created when missing)
   [-dm|-do user_list]        delete managers or operators
   [-dh|-ds hostname_list]    delete administrative or submit hosts
   [-du user_list list_list]  delete users from access lists
   [-dul list_list]           delete access lists
   [-sm|-so|-sh|-ss|-sul]     show managers, operators, admin hosts, submit hosts, lists
   [-su list_list]            show access lists
   [-sc | -mc | -Mc file]     show, edit, or replace from a file the complex attributes
   [-shgrpl | -shgrp group | -shgrp_resolved group | -shgrp_tree group]
   [-Ahgrp file | -Mhgrp file | -mhgrp group | -dhgrp group]       host groups
   [-sprjl | -sprj p | -Aprj file | -Mprj file | -mprj p | -dprj p] projects
   [-ssconf | -msconf | -Msconf file]   the scheduler configuration
   [-sconf | -mconf | -Mconf file]      the global configuration
   [-sql | -sq q | -Aq file | -Mq file | -mq q | -dq q]            cluster queues
   [-spl | -sp pe | -Ap file | -Mp file | -mp pe | -dp pe]         parallel environments
   [-sel | -se host | -Ae file | -Me file | -me host | -de host]    execution hosts
   [-aattr | -mattr | -dattr | -rattr obj attr value obj_list]  change one attribute
       of queue, exechost, hostgroup or pe objects; values may be [host=value] overrides
   [-purge queue attr queue@host]       drop a host's override
   [-help]                    print this help
"""

# option -> index of its file argument
FILE_OPTIONS = {option: 0 for option in (
    "-Mc", "-Ahgrp", "-Mhgrp", "-Aprj", "-Mprj", "-Msconf", "-Mconf", "-Aq", "-Mq", "-Ap",
    "-Mp", "-Ae", "-Me")}
# editor option -> (show option, file option, number of arguments)
EDITOR_OPTIONS = {
    "-mc": ("-sc", "-Mc", 0),
    "-mhgrp": ("-shgrp", "-Mhgrp", 1),
    "-mprj": ("-sprj", "-Mprj", 1),
    "-msconf": ("-ssconf", "-Msconf", 0),
    "-mconf": ("-sconf", "-Mconf", 0),
    "-mq": ("-sq", "-Mq", 1),
    "-mp": ("-sp", "-Mp", 1),
    "-me": ("-se", "-Me", 1),
}


class QconfError(Exception):
    pass


def main(argv: list[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if not args or args == ["-help"]:
        print(USAGE, end="", file=sys.stdout if args else sys.stderr)
        return 0 if args else 1
    who = {"user": current_user(), "host": os.uname().nodename}

    def body() -> int:
        with Client() as client:
            if args[0] in EDITOR_OPTIONS:
                return _edit(client, args, who)
            try:
                files = _read_files(args)
            except QconfError as exc:
                print(exc, file=sys.stderr)
                return 1
            return _show(client.request(p.Qconf(argv=args, files=files, **who)))

    return run_command(body)


def _show(reply: p.QconfReply) -> int:
    for line in reply.out:
        print(line)
    for line in reply.err:
        print(line, file=sys.stderr)
    return reply.code


def _read_files(args: list[str]) -> dict[str, str]:
    files = {}
    for i, arg in enumerate(args):
        if arg in FILE_OPTIONS and i + 1 + FILE_OPTIONS[arg] < len(args):
            path = args[i + 1 + FILE_OPTIONS[arg]]
            try:
                with open(path, encoding="utf-8", errors="surrogateescape") as f:
                    files[path] = f.read()
            except OSError as exc:
                raise QconfError(f'error: error opening file "{path}" for reading: '
                                 f"{exc.strerror}") from None
    return files


def _edit(client: Client, args: list[str], who: dict[str, str]) -> int:
    show, replace, count = EDITOR_OPTIONS[args[0]]
    operands = args[1:1 + count]
    current = client.request(p.Qconf(argv=[show, *operands], **who))
    if current.code:
        return _show(current)
    editor = os.environ.get("EDITOR") or "vi"
    with tempfile.NamedTemporaryFile("w+", prefix="qconf-", suffix=".txt") as tmp:
        tmp.write("".join(line + "\n" for line in current.out))
        tmp.flush()
        try:
            status = subprocess.run([editor, tmp.name]).returncode
        except OSError:
            print(f"error: can't start editor {editor}", file=sys.stderr)
            return 1
        if status:
            print(f"error: editor exited with error {status}\nedit failed", file=sys.stderr)
            return 1
        with open(tmp.name, encoding="utf-8", errors="surrogateescape") as f:
            text = f.read()
    return _show(client.request(p.Qconf(argv=[replace, tmp.name], files={tmp.name: text},
                                        **who)))

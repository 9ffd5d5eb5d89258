"""qrstat: show advance reservations (overview, -ar details, -xml, -json).

Without -u only the caller's ARs are shown; `-u '*'` shows everybody's and `$user`
stands for the caller. ARs named with -ar are shown whoever owns them unless -u is given.
"""

from __future__ import annotations

import sys
from collections import deque

from gridd.cli.common import current_user, output_format, run_command
from gridd.cli.qsub_args import missing_argument
from gridd.client import Client
from gridd.manual import usage

# The options qrstat takes (gridd.manual.qrstat describes them).
OPTIONS = frozenset({"-ar", "-explain", "-fmt", "-help", "-json", "-u", "-xml"})


class _Usage(Exception):
    """A command line 8.1.9 refuses with a line of its own."""


class _TooMany(Exception):
    """Words that are no options: 8.1.9 refuses them after its usage."""


class _Options:
    def __init__(self) -> None:
        self.ids: list[str] | None = None
        self.users: list[str] | None = None
        self.explain = False
        self.xml = False
        self.json = False
        self.help = False


def _parse(args: deque[str]) -> _Options:
    opts = _Options()
    while args:
        arg = args.popleft()
        if arg.startswith("-") and arg not in OPTIONS:
            raise _Usage(f'invalid option argument "{arg}"')
        if arg == "-ar":
            if opts.ids is None:
                opts.ids = []
            opts.ids += [i for i in _value(args, arg).split(",") if i]
        elif arg == "-u":
            if opts.users is None:
                opts.users = []
            opts.users += [u for u in _value(args, arg).split(",") if u]
        elif arg == "-explain":
            opts.explain = True
        elif arg == "-xml":
            opts.xml = True
        elif arg == "-json":
            opts.json = True
        elif arg == "-fmt":
            try:
                value = output_format(_value(args, arg))
            except ValueError as exc:
                raise _Usage(str(exc)) from None
            opts.xml, opts.json = value == "xml", value == "json"
        elif arg == "-help":
            opts.help = True
        else:
            raise _TooMany
    return opts


def _value(args: deque[str], option: str) -> str:
    if not args:
        raise _Usage(missing_argument(option, 0))
    return args.popleft()


def _owners(opts: _Options, me: str) -> list[str]:
    if opts.users is None:
        return ["*"] if opts.ids else [me]
    return [me if user == "$user" else user for user in opts.users]


def main(argv: list[str] | None = None) -> int:
    try:
        opts = _parse(deque(sys.argv[1:] if argv is None else argv))
    except _Usage as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    except _TooMany:  # 8.1.9 prints its usage on standard output here
        sys.stdout.write(usage("qrstat"))
        print("error: too many options", file=sys.stderr)
        return 1
    if opts.help:
        sys.stdout.write(usage("qrstat"))
        return 0

    def body() -> int:
        from gridd.cli import render_qrstat as render

        with Client() as client:
            reply = client.query_ars(opts.ids or [], _owners(opts, current_user()))
        ars = list(reply.ars)
        if reply.missing and not ars:  # 8.1.9 names those missing only when none is found
            print("Following advance reservations do not exist:\n"
                  + ", ".join(reply.missing))
            return 1
        if opts.json:
            from gridd.cli.render_json import document
            from gridd.cli.render_qrstat_json import qrstat_json

            sys.stdout.write(document(qrstat_json(ars, details=opts.ids is not None,
                                                  explain=opts.explain)))
            return 0
        if opts.xml:
            lines = render.xml(ars, details=opts.ids is not None, explain=opts.explain)
        elif opts.ids is not None:
            lines = render.details(ars, explain=opts.explain)
        else:
            lines = render.overview(ars, explain=opts.explain)
        if lines:
            sys.stdout.write("\n".join(lines) + "\n")
        return 0

    return run_command(body)


if __name__ == "__main__":
    sys.exit(main())

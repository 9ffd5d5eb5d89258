"""qhost: show execution hosts, their load and memory (default, -F, -h, -l, -q, -j, -xml, -json)."""

from __future__ import annotations

import sys
from collections import deque

from gridd.cli.common import output_format, run_command
from gridd.client import Client
from gridd.formats import requests
from gridd.manual import usage

# The options qhost takes (gridd.manual.qhost describes them).
OPTIONS = frozenset({"-F", "-fmt", "-h", "-help", "-j", "-json", "-l", "-ncb", "-q", "-u",
                     "-xml"})


class _Usage(Exception):
    """A bad command line; `usage` says whether the usage text goes before the message."""

    def __init__(self, text: str, usage: bool = True) -> None:
        super().__init__(text)
        self.usage = usage


def _parse(args: deque[str]) -> dict:
    opts: dict = {"flags": set(), "resources": None, "hosts": None, "request": None,
                  "users": None}
    while args:
        arg = args.popleft()
        if arg not in OPTIONS:
            raise _Usage(f'error: invalid option argument "{arg}"')
        if arg in ("-q", "-j", "-xml", "-json"):
            opts["flags"].add(arg)
        elif arg == "-ncb":
            pass
        elif arg == "-F":
            opts["resources"] = []
            if args and not args[0].startswith("-"):
                opts["resources"] = requests.parse_name_list(args.popleft())
        elif arg == "-fmt":
            if not args:
                raise _Usage("error: -fmt option must have argument", usage=False)
            try:
                value = output_format(args.popleft())
            except ValueError as exc:
                raise _Usage(f"error: {exc}") from None
            opts["flags"] -= {"-xml", "-json"}
            opts["flags"] |= {f"-{value}"} - {"-plain"}
        elif arg in ("-h", "-l", "-u"):
            if not args:
                raise _Usage(f"error: {arg} option must have argument", usage=False)
            value = args.popleft()
            if arg == "-h":
                opts["hosts"] = requests.parse_name_list(value)
            elif arg == "-u":
                opts["users"] = requests.parse_name_list(value)
            else:
                try:
                    opts["request"] = requests.parse_resource_list(value)
                except ValueError as exc:
                    raise _Usage(f"error: {exc}", usage=False) from None
    return opts


def main(argv: list[str] | None = None) -> int:
    from gridd.cli import render_qhost as render

    args = list(sys.argv[1:] if argv is None else argv)
    if "-help" in args:
        sys.stdout.write(usage("qhost"))
        return 0
    try:
        opts = _parse(deque(args))
    except _Usage as exc:
        print(f"{usage('qhost') if exc.usage else ''}{exc}", file=sys.stderr)
        return 1
    flags = opts["flags"]

    def body() -> int:
        with Client() as client:
            reply = client.jobs(host_resources=opts["resources"], host_request=opts["request"])
        hosts = sorted(reply.hosts, key=lambda h: h.name)
        known = {h.name for h in hosts} | {"global"}
        for name in opts["hosts"] or []:
            if name not in known:
                print(f'error: can\'t resolve hostname "{name}"', file=sys.stderr)
                return 1
        shown = render.HostSelection(names=opts["hosts"], fitting=reply.fitting_hosts)
        if "-json" in flags:
            from gridd.cli.render_json import document
            from gridd.cli.render_qhost_json import qhost_json

            text = document(qhost_json(
                hosts, reply.queues, reply.jobs, show_queues="-q" in flags,
                show_jobs="-j" in flags, states=reply.states, select=shown,
                resources=reply.host_resources if opts["resources"] is not None else None,
                users=opts["users"], priorities=reply.priorities))
        elif "-xml" in flags:
            text = render.qhost_xml(hosts, reply.queues, reply.jobs, show_queues="-q" in flags,
                                    states=reply.states, select=shown)
        else:
            text = render.qhost_default(
                hosts, reply.queues, reply.jobs, show_queues="-q" in flags,
                show_jobs="-j" in flags, states=reply.states, select=shown,
                resources=reply.host_resources if opts["resources"] is not None else None,
                picked=bool(opts["resources"]), users=opts["users"],
                priorities=reply.priorities)
        sys.stdout.write(text)
        return 0

    return run_command(body)


if __name__ == "__main__":
    sys.exit(main())

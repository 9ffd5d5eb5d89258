"""qhost: show execution hosts, their load and memory (default, -q, -j, -xml)."""

from __future__ import annotations

import sys

from gridd.cli.common import run_command
from gridd.client import Client

USAGE = """usage: qhost [options]
  [-help]                    print this help
  [-j]                       show the jobs running on each host
  [-q]                       show the queue instances on each host
  [-xml]                     print the information as XML
"""


def main(argv: list[str] | None = None) -> int:
    from gridd.cli import render_qhost as render

    flags = set()
    for arg in sys.argv[1:] if argv is None else argv:
        if arg == "-help":
            print(USAGE, end="")
            return 0
        if arg not in ("-q", "-j", "-xml"):
            print(f'{USAGE}error: invalid option argument "{arg}"', file=sys.stderr)
            return 1
        flags.add(arg)

    def body() -> int:
        with Client() as client:
            reply = client.jobs()
        hosts = sorted(reply.hosts, key=lambda h: h.name)
        if "-xml" in flags:
            text = render.qhost_xml(hosts, reply.queues, reply.jobs, show_queues="-q" in flags,
                                    states=reply.states)
        else:
            text = render.qhost_default(hosts, reply.queues, reply.jobs,
                                        show_queues="-q" in flags, show_jobs="-j" in flags,
                                        states=reply.states)
        sys.stdout.write(text)
        return 0

    return run_command(body)


if __name__ == "__main__":
    sys.exit(main())

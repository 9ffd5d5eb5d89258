"""qstat: show jobs and queues in Grid Engine's layouts (default, -f, -j, -g c|d|t, -xml)."""

from __future__ import annotations

import sys
from collections import deque

from gridd.cli.common import UsageError, current_user, run_command, usage_exit
from gridd.cli.queue_select import OPTIONS, BadSelection, Selection, state_letters
from gridd.client import Client

USAGE = """usage: qstat [options]
        [-f]                     full output: every queue instance with its jobs
        [-F [resource,...]]      full output with the resources each instance offers
        [-ext]                   with tickets, project, department and usage
        [-explain a|A|c|E]       full output, saying why queue instances are in load
                                 alarm (a) or suspend alarm (A)
        [-g {c|d|t}]             c: a summary per cluster queue; d: a line per waiting
                                 array task; t: a line per slot, MASTER or SLAVE
        [-help]                  print this help
        [-j job_identifier_list] show the details of jobs
        [-ne]                    with -f, only the queue instances where jobs run
        [-l resource_list]       only queue instances offering these resources (what
                                 they hold in all), and jobs that might run there
        [-pe pe_list]            only queue instances listing one of these PEs
        [-pri]                   with the parts of each job's priority
        [-q wc_queue_list]       only these queue instances
        [-qs {a|c|d|o|s|u|A|C|D|E|S}] only queue instances in one of these states
        [-r]                     with each job's requests
        [-s {p|r|s|z|hu|ho|hs|hd|hj|ha|h|a}] show only jobs in these states
        [-u user_list]           show jobs of these users ('*' for everybody)
        [-U user_list]           only queue instances these users may all use
        [-urg]                   with each job's urgency and what makes it up
        [-xml]                   print the information as XML
"""


# Options whose extra columns are not shown yet; accepted so that scripts keep working.
_ACCEPTED_FLAGS = frozenset({"-ncb", "-t"})
_EXTRA_FLAGS = {"-pri": "pri", "-urg": "urg", "-ext": "ext", "-r": "requests", "-ne": "no_empty"}


_GROUPS = {"c": "summary", "d": "tasks_apart", "t": "slots_apart"}


class _Wrong(Exception):
    """An option's argument 8.1.9 refuses with a line of its own, without the usage."""


def _parse(args: deque[str]) -> dict:
    opts: dict = {"full": False, "xml": False, "jobs": None, "users": None, "states": None,
                  "resources": None, "extra": set(), "summary": False, "explain": "",
                  "selection": Selection()}
    while args:
        arg = args.popleft()
        if arg == "-f":
            opts["full"] = True
        elif arg == "-F":
            opts["full"] = True
            opts["resources"] = []
            if args and not args[0].startswith("-"):
                opts["resources"] = [r for r in args.popleft().split(",") if r]
        elif arg in OPTIONS:
            opts["selection"].take(arg, _value(args, arg))
        elif arg == "-xml":
            opts["xml"] = True
        elif arg in _EXTRA_FLAGS:
            opts["extra"].add(_EXTRA_FLAGS[arg])
        elif arg in _ACCEPTED_FLAGS:
            pass
        elif arg == "-g":
            for letter in _value(args, arg):
                if letter not in _GROUPS:
                    raise _Wrong(f"wrong character '{letter}' for -g option")
                if letter == "c":
                    opts["summary"] = True
                else:
                    opts["extra"].add(_GROUPS[letter])
        elif arg == "-explain":
            opts["full"] = True
            opts["explain"] = state_letters(_value(args, arg), "acAE")
        elif arg == "-j":
            opts["jobs"] = []
            if args and not args[0].startswith("-"):
                opts["jobs"] = [j for j in args.popleft().split(",") if j]
        elif arg == "-u":
            opts["users"] = [u for u in _value(args, arg).split(",") if u]
        elif arg == "-s":
            opts["states"] = _value(args, arg)
        elif arg == "-help":
            raise UsageError("")
        else:
            raise UsageError(f'invalid option argument "{arg}"')
    return opts


def _value(args: deque[str], option: str) -> str:
    if not args:  # said alone, without the usage
        raise _Wrong(f"{option} option must have argument")
    return args.popleft()


def main(argv: list[str] | None = None) -> int:
    from gridd.cli import render_qstat as render

    try:
        opts = _parse(deque(sys.argv[1:] if argv is None else argv))
        render.state_filter(opts["states"])
    except UsageError as exc:
        return usage_exit(USAGE, exc)
    except ValueError:
        print(f"{USAGE}ERROR! wrong argument to -s option", file=sys.stderr)
        return 1
    except (_Wrong, BadSelection) as exc:
        print(exc, file=sys.stderr)
        return 1
    users = opts["users"] if opts["users"] is not None else [current_user()]
    extra = render.Extra(**dict.fromkeys(opts["extra"], True))
    selection = opts["selection"]

    def body() -> int:
        with Client() as client:
            reply = client.jobs(details=opts["jobs"] is not None, resources=opts["resources"],
                                parts=bool(opts["extra"] - {"slots_apart", "tasks_apart",
                                                            "no_empty"}),
                                finished="z" in (opts["states"] or ""),
                                select=selection.select if selection.given else None,
                                explain=opts["explain"])
        if opts["summary"] and opts["jobs"] is None:
            from gridd.cli import render_qstat_summary as summary

            text = (summary.cluster_summary_xml if opts["xml"] else summary.cluster_summary)(
                reply)
            sys.stdout.write(text)
            return 0
        if opts["jobs"] is not None:
            shown = render.qstat_job(reply, opts["jobs"] or ["*"])
            sys.stdout.write(shown.stdout)
            sys.stderr.write(shown.stderr)
            return shown.code
        if opts["xml"]:
            text = render.qstat_xml(reply, full=opts["full"], users=users,
                                    states=opts["states"], extra=extra)
        elif opts["full"]:
            text = render.qstat_full(reply, users=users, states=opts["states"],
                                     extra=extra)
        else:
            text = render.qstat_default(reply, users=users, states=opts["states"], extra=extra)
        sys.stdout.write(text)
        return 0

    return run_command(body)


if __name__ == "__main__":
    sys.exit(main())

"""qstat: show jobs and queues in Grid Engine's layouts (default, -f, -j, -g c|d|t, -xml, -json)."""

from __future__ import annotations

import sys
from collections import deque
from collections.abc import Callable
from typing import TYPE_CHECKING

from gridd.cli.common import (
    UsageError,
    current_user,
    output_format,
    run_command,
    usage_exit,
)
from gridd.cli.queue_select import OPTIONS as SELECTION
from gridd.cli.queue_select import BadSelection, Selection, state_letters
from gridd.client import Client
from gridd.manual import usage
from gridd.model.job_rows import state_filter

if TYPE_CHECKING:
    from gridd.cli.render_qstat import Rendered
    from gridd.formats.qstat_rows import Extra
    from gridd.protocol import JobsReply

# Options whose extra columns are not shown yet; accepted so that scripts keep working.
_ACCEPTED_FLAGS = frozenset({"-ncb", "-t"})
_EXTRA_FLAGS = {"-pri": "pri", "-urg": "urg", "-ext": "ext", "-r": "requests", "-ne": "no_empty"}


_GROUPS = {"c": "summary", "d": "tasks_apart", "t": "slots_apart"}


class _Wrong(Exception):
    """An option's argument 8.1.9 refuses with a line of its own, without the usage."""


Handler = Callable[[dict, deque[str], str], None]


def _full(opts: dict, args: deque[str], option: str) -> None:
    opts["full"] = True


def _resources(opts: dict, args: deque[str], option: str) -> None:
    opts["full"] = True
    opts["resources"] = []
    if args and not args[0].startswith("-"):
        opts["resources"] = [r for r in args.popleft().split(",") if r]


def _select(opts: dict, args: deque[str], option: str) -> None:
    opts["selection"].take(option, _value(args, option))


def _xml(opts: dict, args: deque[str], option: str) -> None:
    opts["xml"] = True


def _json(opts: dict, args: deque[str], option: str) -> None:
    opts["json"] = True


def _format(opts: dict, args: deque[str], option: str) -> None:
    """-fmt plain|xml|json, Open Cluster Scheduler's spelling of -xml and -json."""
    try:
        value = output_format(_value(args, option))
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    opts["xml"], opts["json"] = value == "xml", value == "json"


def _extra(opts: dict, args: deque[str], option: str) -> None:
    opts["extra"].add(_EXTRA_FLAGS[option])


def _accepted(opts: dict, args: deque[str], option: str) -> None:
    pass


def _group(opts: dict, args: deque[str], option: str) -> None:
    for letter in _value(args, option):
        if letter not in _GROUPS:
            raise _Wrong(f"wrong character '{letter}' for -g option")
        if letter == "c":
            opts["summary"] = True
        else:
            opts["extra"].add(_GROUPS[letter])


def _explain(opts: dict, args: deque[str], option: str) -> None:
    opts["full"] = True
    opts["explain"] = state_letters(_value(args, option), "acAE")


def _jobs(opts: dict, args: deque[str], option: str) -> None:
    opts["jobs"] = []
    if args and not args[0].startswith("-"):
        opts["jobs"] = [j for j in args.popleft().split(",") if j]


def _users(opts: dict, args: deque[str], option: str) -> None:
    opts["users"] = [u for u in _value(args, option).split(",") if u]


def _states(opts: dict, args: deque[str], option: str) -> None:
    opts["states"] = _value(args, option)


def _help(opts: dict, args: deque[str], option: str) -> None:
    raise UsageError("")


# What each option qstat takes does (gridd.manual.qstat describes them).
_HANDLERS: dict[str, Handler] = {
    "-f": _full, "-F": _resources, "-xml": _xml, "-json": _json, "-fmt": _format,
    "-g": _group, "-explain": _explain, "-j": _jobs, "-u": _users, "-s": _states, "-help": _help,
    **dict.fromkeys(SELECTION, _select), **dict.fromkeys(_EXTRA_FLAGS, _extra),
    **dict.fromkeys(_ACCEPTED_FLAGS, _accepted),
}
OPTIONS = frozenset(_HANDLERS)


def _parse(args: deque[str]) -> dict:
    opts: dict = {"full": False, "xml": False, "json": False, "jobs": None, "users": None,
                  "states": None, "resources": None, "extra": set(), "summary": False,
                  "explain": "", "selection": Selection()}
    while args:
        arg = args.popleft()
        handler = _HANDLERS.get(arg)
        if handler is None:
            raise UsageError(f'invalid option argument "{arg}"')
        handler(opts, args, arg)
    return opts


def _value(args: deque[str], option: str) -> str:
    if not args:  # said alone, without the usage
        raise _Wrong(f"{option} option must have argument")
    return args.popleft()


def main(argv: list[str] | None = None) -> int:
    try:
        opts = _parse(deque(sys.argv[1:] if argv is None else argv))
        state_filter(opts["states"])
    except UsageError as exc:
        return usage_exit("qstat", exc)
    except ValueError:
        print(f"{usage('qstat')}ERROR! wrong argument to -s option", file=sys.stderr)
        return 1
    except (_Wrong, BadSelection) as exc:
        print(exc, file=sys.stderr)
        return 1
    users = opts["users"] if opts["users"] is not None else [current_user()]
    selection = opts["selection"]
    if _plain(opts):
        return run_command(lambda: _listing(opts, users, selection))
    from gridd.cli import render_qstat as render

    extra = render.Extra(**dict.fromkeys(opts["extra"], True))

    def body() -> int:
        with Client() as client:
            reply = client.jobs(details=opts["jobs"] is not None, resources=opts["resources"],
                                parts=bool(opts["extra"] - {"slots_apart", "tasks_apart",
                                                            "no_empty"}),
                                finished="z" in (opts["states"] or ""),
                                select=selection.select if selection.given else None,
                                explain=opts["explain"])
        if opts["json"] and opts["jobs"] is None:
            sys.stdout.write(_json_text(reply, opts, users, extra))
            return 0
        if opts["summary"] and opts["jobs"] is None:
            from gridd.cli import render_qstat_summary as summary

            text = (summary.cluster_summary_xml if opts["xml"] else summary.cluster_summary)(
                reply)
            sys.stdout.write(text)
            return 0
        if opts["jobs"] is not None:
            shown = _job_details(reply, opts["jobs"] or ["*"], opts["json"])
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


def _plain(opts: dict) -> bool:
    """Whether the listing asked for is one the master's rows make (protocol.QueryRows):
    qstat or qstat -xml, with -u, -s, -g d and the queue selection options."""
    return (opts["jobs"] is None and not (opts["full"] or opts["json"] or opts["summary"])
            and opts["extra"] <= {"tasks_apart"} and opts["resources"] is None
            and not opts["explain"])


def _listing(opts: dict, users: list[str], selection: Selection) -> int:
    """A plain listing, printed by the master from its rows: only what is shown travels."""
    with Client() as client:
        reply = client.job_rows(
            None if "*" in users else users, opts["states"] or "",
            select=selection.select if selection.given else None,
            tasks_apart="tasks_apart" in opts["extra"], xml=opts["xml"])
    sys.stdout.write(reply.text)
    return 0


def _job_details(reply: JobsReply, refs: list[str], json: bool) -> Rendered:
    """qstat -j as text, or with -json as one document (-xml shows the text)."""
    if json:
        from gridd.cli.render_qstat_job_json import qstat_job_json

        return qstat_job_json(reply, refs)
    from gridd.cli.render_qstat import qstat_job

    return qstat_job(reply, refs)


def _json_text(reply: JobsReply, opts: dict, users: list[str], extra: Extra) -> str:
    """The -json document of the view asked for, but qstat -j's (_job_details)."""
    from gridd.cli import render_qstat_json as render
    from gridd.cli.render_json import document

    if opts["summary"]:
        return document(render.cluster_summary_json(reply))
    return document(render.qstat_json(reply, full=opts["full"], users=users,
                                      states=opts["states"], extra=extra))


if __name__ == "__main__":
    sys.exit(main())

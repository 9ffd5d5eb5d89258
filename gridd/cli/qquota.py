"""qquota: the resource quota limits in use, for the calling user unless told otherwise.

Options come from `$GRIDD_ROOT/common/sge_qquota`, then `~/.sge_qquota`, then the command
line; a later -u, -h, -l, -q, -pe or -P replaces what an earlier one selected.
"""

from __future__ import annotations

import math
import os
import shlex
import sys
from collections import deque
from typing import Any

from gridd import paths
from gridd import protocol as p
from gridd.cli.common import current_user, output_format, run_command
from gridd.client import Client
from gridd.manual import usage
from gridd.model.rqs import QuotaRow

_LISTS = {"-h": "hosts", "-l": "resources", "-u": "users", "-pe": "pes", "-P": "projects",
          "-q": "queues"}
# The options qquota takes (gridd.manual.qquota describes them); -help is seen first.
OPTIONS = frozenset(_LISTS) | {"-fmt", "-help", "-json", "-xml"}
_XML_HEAD = ("<?xml version='1.0'?>\n<qquota_result xmlns=\"http://arc.liv.ac.uk/repos/darcs/"
             "sge/source/source/dist/util/resources/schemas/qquota/qquota.xsd\">\n")


class UsageError(Exception):
    pass


def parse(argv: list[str], user: str) -> tuple[p.QueryQuota, str]:
    """The request and the form of the answer: "text", "xml" or "json"."""
    args, req, form = deque(argv), p.QueryQuota(users=[user]), "text"
    while args:
        arg = args.popleft()
        if arg not in OPTIONS:
            raise UsageError(f'error: invalid option argument "{arg}"')
        if arg == "-json":
            form = "json"
        elif arg == "-xml":
            form = "json" if form == "json" else "xml"  # with both, JSON
        elif arg == "-fmt":
            if not args:
                raise UsageError("error: -fmt option must have argument")
            try:
                form = output_format(args.popleft())
            except ValueError as exc:
                raise UsageError(f"error: {exc}") from None
            form = "text" if form == "plain" else form
        elif arg in _LISTS:
            if not args:
                raise UsageError(f"error: {arg} option must have argument")
            items = [i for i in args.popleft().replace(" ", ",").split(",") if i]
            if arg == "-l":  # `-l slots` or `-l slots=1`: the resource names count
                items = [i.partition("=")[0] for i in items]
            setattr(req, _LISTS[arg], items)
    return req, form


def default_args(root: str, home: str) -> list[str]:
    """Options of the cell's and the user's sge_qquota files, comments dropped."""
    found: list[str] = []
    for path in (os.path.join(root, "common", "sge_qquota"), os.path.join(home, ".sge_qquota")):
        try:
            with open(path, encoding="utf-8") as f:
                text = f.read()
        except OSError:
            continue
        for line in text.splitlines():
            found += shlex.split(line, comments=True)
    return found


def amount(row: QuotaRow) -> str:
    if row.used == int(row.used):
        return str(int(row.used))
    if row.type == "MEMORY":
        from gridd.cli.render_qstat import format_memory

        return format_memory(row.used, 3)
    return f"{row.used:f}"


def filter_text(row: QuotaRow) -> str:
    parts = [f"{name} {','.join([*scope, *('!' + x for x in excluded)])}"
             for name, scope, excluded in row.filters]
    return " ".join(parts) or "-"


def render_text(rows: list[QuotaRow]) -> str:
    if not rows:
        return ""
    out = [f"{'resource quota rule':<18} {'limit':<20} filter\n", "-" * 80 + "\n"]
    out += [f"{row.rule:<18} {f'{row.resource}={amount(row)}/{row.limit}':<20} "
            f"{filter_text(row)}\n" for row in rows]
    return "".join(out)


def render_xml(rows: list[QuotaRow]) -> str:
    """One qquota_rule per rule and scope, with a limit element per resource."""
    from gridd.formats.shown import xml_escape

    out = [_XML_HEAD]
    previous: tuple[str, str] | None = None
    for row in rows:
        scope = (row.rule, filter_text(row))
        if scope != previous:
            if previous is not None:
                out.append(" </qquota_rule>\n")
            out.append(f" <qquota_rule name='{xml_escape(row.rule)}'>\n")
            for name, names, excluded in row.filters:
                out += [f"   <{name}>{xml_escape(n)}</{name}>\n" for n in names]
                out += [f"   <x{name}>{xml_escape(n)}</x{name}>\n" for n in excluded]
            previous = scope
        out.append(f"   <limit resource='{xml_escape(row.resource)}' "
                   f"limit='{xml_escape(row.limit)}' value='{amount(row)}'/>\n")
    if previous is not None:
        out.append(" </qquota_rule>\n")
    out.append("</qquota_result>\n")
    return "".join(out)


def render_json(rows: list[QuotaRow]) -> dict[str, Any]:
    """qquota -json: a quota_usage entry per line, under Open Cluster Scheduler 9.2's keys
    (schemas/qquota.json): the rule set and rule apart, what is in use and the limit as
    numbers (memory in bytes), each filter a list of names with whether they are
    excluded."""
    from gridd.cli.render_json import whole

    out = []
    for row in rows:
        rqs, _, rule = row.rule.partition("/")
        entry: dict[str, Any] = {"rqs_name": rqs, "rule_name": rule, "resource": row.resource,
                                 "used": whole(row.used), "max": _typed(row.type, row.limit)}
        for name, names, excluded in row.filters:
            entry[name] = ([{"exclude": False, "name": n} for n in names]
                           + [{"exclude": True, "name": n} for n in excluded])
        out.append(entry)
    return {"quota_usage": out}


def _typed(kind: str, text: str) -> int | float | str:
    """A limit as a number when its type makes it one; infinity and the rest as text."""
    from gridd.cli.render_json import whole
    from gridd.model.complexes import parse_value

    try:
        value = parse_value(kind, text)
    except ValueError:
        return text
    if isinstance(value, str) or math.isinf(value):
        return text
    return whole(value)


def main(argv: list[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if "-help" in args:
        sys.stdout.write(usage("qquota"))
        return 0
    home = os.path.expanduser("~")
    try:
        req, form = parse(default_args(paths.root_dir(), home) + args, current_user())
    except UsageError as exc:
        print(f"{usage('qquota')}{exc}", file=sys.stderr)
        return 1
    except ValueError as exc:  # an unbalanced quote in an sge_qquota file
        print(f"error: cannot read sge_qquota: {exc}", file=sys.stderr)
        return 1

    def body() -> int:
        with Client() as client:
            reply = client.request(req)
        if form == "json":
            from gridd.cli.render_json import document

            sys.stdout.write(document(render_json(reply.rows)))
        else:
            sys.stdout.write(render_xml(reply.rows) if form == "xml" else render_text(reply.rows))
        return 0

    return run_command(body)


if __name__ == "__main__":
    sys.exit(main())

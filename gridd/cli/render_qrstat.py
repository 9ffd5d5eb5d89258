"""Text and XML views of advance reservations, laid out as Grid Engine 8.1.9's qrstat.

Pure functions of a list of ``AdvanceReservation``: times are shown in local time through
``time.localtime``, nothing else is read, so the layout is tested byte for byte against
the reference transcripts. Each function returns the lines to print (none at all for the
text views when there is no AR).
"""

from __future__ import annotations

from collections.abc import Iterable

from gridd.formats.shown import stamp, xml_escape, xml_stamp
from gridd.model.ar import AdvanceReservation
from gridd.model.ar_lifecycle import FAILED

XML_NAMESPACE = (
    "http://arc.liv.ac.uk/repos/darcs/sge/source/dist/util/resources/schemas/qrstat/qrstat.xsd"
)
HEADER = (
    f"{'ar-id':<7} {'name':<10} {'owner':<12} {'state':<5} {'start at':<20} {'end at':<20} "
    f"{'duration':>8}"
)
FIELD_WIDTH = 30  # the name column of the -ar block, a blank follows it
_INDENT = "   "


def duration(ar: AdvanceReservation) -> int:
    """The AR's length in whole seconds."""
    return max(int(ar.end) - int(ar.start), 0)


def _duration(ar: AdvanceReservation) -> str:
    """HH:MM:SS; hours go past 24 rather than wrapping into days."""
    hours, rest = divmod(duration(ar), 3600)
    minutes, seconds = divmod(rest, 60)
    return f"{hours:02d}:{minutes:02d}:{seconds:02d}"


def message_shown(ar: AdvanceReservation, explain: bool, details: bool) -> bool:
    """The reason of an error state: asked for with -explain, or part of an -ar block of
    an AR in state E or W."""
    return bool(ar.message) and (explain or (details and ar.state in FAILED))


def granted_pe(ar: AdvanceReservation) -> tuple[str, str] | None:
    """Granted PE name and its slots, for a PE reservation."""
    name = ar.granted_pe or ar.spec.pe_name
    if not name:
        return None
    if ar.granted:
        slots = str(sum(n for _, n in ar.granted))
    elif ar.spec.pe_min == ar.spec.pe_max:
        slots = str(ar.spec.pe_min)
    else:
        slots = f"{ar.spec.pe_min}-{ar.spec.pe_max}"
    return name, slots


def by_id(ars: Iterable[AdvanceReservation]) -> list[AdvanceReservation]:
    return sorted(ars, key=lambda ar: ar.ar_id)


# ---- text --------------------------------------------------------------------------

def overview(ars: Iterable[AdvanceReservation], explain: bool = False) -> list[str]:
    """Plain `qrstat`: one line per AR under a header; with -explain, an AR's message on
    an indented line below it."""
    ars = by_id(ars)
    if not ars:
        return []
    lines = [HEADER, "-" * 90]
    for ar in ars:
        ar_id, name, owner, state, start, end, duration = columns(ar)
        lines.append(
            f"{ar_id:>7} {name:<10.10} {owner:<12.12} {state:<5.5} "
            f"{start:<20.20} {end:<20.20} {duration}"
        )
        if explain and ar.message:
            lines.append(f"       {ar.message}")
    return lines


def columns(ar: AdvanceReservation) -> tuple[str, str, str, str, str, str, str]:
    """An AR's columns in plain qrstat (ar-id, name, owner, state, start at, end at,
    duration), each whole: the text cuts them to its widths, a web page need not."""
    return (str(ar.ar_id), ar.spec.name, ar.spec.owner, ar.state, stamp(ar.start),
            stamp(ar.end), _duration(ar))


def _field(name: str, value: str) -> str:
    return f"{name:<{FIELD_WIDTH}.{FIELD_WIDTH}} {value}"


def details(ars: Iterable[AdvanceReservation], explain: bool = False) -> list[str]:
    """`qrstat -ar`: a block of `name value` lines per AR, each after a line of dashes."""
    lines: list[str] = []
    for ar in by_id(ars):
        spec = ar.spec
        lines += [
            "-" * 80,
            _field("id", str(ar.ar_id)),
            _field("name", spec.name),
            _field("owner", spec.owner),
            _field("state", ar.state),
            _field("start_time", stamp(ar.start)),
            _field("end_time", stamp(ar.end)),
            _field("duration", _duration(ar)),
        ]
        if message_shown(ar, explain, details=True):
            lines.append(_field("message", ar.message))
        lines += [
            _field("submission_time", stamp(ar.submission_time)),
            _field("group", spec.group),
            _field("account", spec.account),
        ]
        if spec.resources:
            lines.append(_field("resource_list", ", ".join(
                f"{name}={value}" for name, value in spec.resources.items())))
        if ar.granted:
            lines.append(_field("granted_slots_list", ",".join(
                f"{instance}={slots}" for instance, slots in ar.granted)))
        pe = granted_pe(ar)
        if pe is not None:
            lines.append(_field("granted_parallel_environment", f"{pe[0]} slots {pe[1]}"))
        if spec.checkpoint:
            lines.append(_field("checkpoint_name", spec.checkpoint))
        if spec.mail_options:
            lines.append(_field("mail_options", spec.mail_options))
        if spec.mail_list:
            lines.append(_field("mail_list", ",".join(spec.mail_list)))
        if spec.users:
            lines.append(_field("acl_list", ",".join(spec.users)))
    return lines


# ---- XML ---------------------------------------------------------------------------

def _element(name: str, value: str, depth: int = 2) -> str:
    if not value:
        return f"{_INDENT * depth}<{name}/>"
    return f"{_INDENT * depth}<{name}>{xml_escape(value)}</{name}>"


def _mail_attributes(address: str) -> str:
    user, _, host = address.partition("@")
    return f'user="{xml_escape(user)}" host="{xml_escape(host)}"'


def _xml_details(ar: AdvanceReservation) -> list[str]:
    spec = ar.spec
    inner = _INDENT * 3
    lines = [
        _element("submission_time", xml_stamp(ar.submission_time)),
        _element("group", spec.group),
        _element("account", spec.account),
    ]
    if spec.resources:
        lines.append(f"{_INDENT * 2}<resource_list>")
        lines += [f'{inner}<resource name="{xml_escape(name)}" type="{xml_escape(value)}"/>'
                  for name, value in spec.resources.items()]
        lines.append(f"{_INDENT * 2}</resource_list>")
    if ar.granted:
        lines.append(f"{_INDENT * 2}<granted_slots_list>")
        lines += [f'{inner}<granted_slots  queue_instance="{xml_escape(instance)}" '
                  f'slots="{slots}"/>' for instance, slots in ar.granted]
        lines.append(f"{_INDENT * 2}</granted_slots_list>")
    pe = granted_pe(ar)
    if pe is not None:
        lines += [
            f"{_INDENT * 2}<granted_parallel_environment>",
            _element("parallel_environment", pe[0], 3),
            _element("slots", pe[1], 3),
            f"{_INDENT * 2}</granted_parallel_environment>",
        ]
    if spec.checkpoint:
        lines.append(_element("checkpoint_name", spec.checkpoint))
    if spec.mail_options:
        lines.append(_element("mail_options", spec.mail_options))
    if spec.mail_list:
        lines.append(f"{_INDENT * 2}<mail_list>")
        lines += [f"{inner}<mail  {_mail_attributes(address)}/>" for address in spec.mail_list]
        lines.append(f"{_INDENT * 2}</mail_list>")
    if spec.users:
        lines.append(f"{_INDENT * 2}<acl_list>")
        lines += [f'{inner}<acl  user="{xml_escape(user)}"/>' for user in spec.users]
        lines.append(f"{_INDENT * 2}</acl_list>")
    return lines


def xml(ars: Iterable[AdvanceReservation], details: bool = False,
        explain: bool = False) -> list[str]:
    """`qrstat -xml`: an ar_summary element per AR; with -ar (`details`), the fields of
    the -ar block as well. The document is printed even when there is no AR."""
    lines = ["<?xml version='1.0'?>", f'<qrstat xmlns:xsd="{XML_NAMESPACE}">']
    for ar in by_id(ars):
        lines += [
            f"{_INDENT}<ar_summary>",
            _element("id", str(ar.ar_id)),
            _element("name", ar.spec.name),
            _element("owner", ar.spec.owner),
            _element("state", ar.state),
            _element("start_time", xml_stamp(ar.start)),
            _element("end_time", xml_stamp(ar.end)),
            _element("duration", _duration(ar)),
        ]
        if message_shown(ar, explain, details):
            lines.append(_element("message", ar.message))
        if details:
            lines += _xml_details(ar)
        lines.append(f"{_INDENT}</ar_summary>")
    lines.append("</qrstat>")
    return lines

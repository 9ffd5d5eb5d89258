"""qstat's job lines and job_list elements from rows, as 8.1.9 prints them: the title
and the plain columns every listing starts with (the columns -pri, -urg, -ext and -r add
are `Extra`), and the whole of a plain listing (qstat, qstat -xml), which the master
prints for the client from its compact rows (`protocol.QueryRows`).

A row is a `model.job_rows.ShownRow` or a `model.job_rows.Row`, which has its names;
the views with more columns (`cli.render_qstat`) print theirs through these too. Kept
apart from render_qstat so that a plain listing, which may be 100,000 lines, loads and
runs no more than it needs.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

import msgspec

from gridd.formats.shown import STAMP, XML_STAMP, stamp, xml_escape, xml_stamp, zoned
from gridd.model.task_lifecycle import SHOWN_HOLDING, ZOMBIE

if TYPE_CHECKING:
    from datetime import tzinfo

    from gridd.model.job_rows import JobRows, Row, ShownRow

    AnyRow = Row | ShownRow

QUEUE_WIDTH = 30  # GE truncates queue instance names to 30 columns unless told otherwise
NO_TASK = " " * 7  # ja-task-ID column of a job that is not an array
XML_HEAD = (
    "<?xml version='1.0'?>\n"
    '<job_info  xmlns:xsd="http://arc.liv.ac.uk/repos/darcs/sge/source/dist/util/'
    'resources/schemas/qstat/qstat.xsd">\n'
)
_XML_RESERVED = frozenset("&<>\"'")


class Extra(msgspec.Struct, frozen=True):
    """The columns and lines qstat's options add to its job lines."""

    pri: bool = False
    urg: bool = False
    ext: bool = False
    requests: bool = False  # -r
    slots_apart: bool = False  # -g t: a line per slot, MASTER or SLAVE
    tasks_apart: bool = False  # -g d: a line per waiting array task
    no_empty: bool = False  # -ne: with -f, only the queue instances where jobs run

    @property
    def columns(self) -> bool:
        return self.pri or self.urg or self.ext

    @property
    def when(self) -> bool:
        """Whether the submit/start time is shown."""
        return self.pri or self.urg or not self.ext


PLAIN = Extra()  # none of -pri, -urg, -ext and -r


def header(extra: Extra) -> str:
    """The job listing's title line."""
    text = "job-ID  prior   "
    text += "nurg    " if extra.pri or extra.urg else ""
    text += "npprior " if extra.pri else ""
    text += "ntckts  " if extra.pri or extra.ext else ""
    text += "urg      rrcontr  wtcontr  dlcontr  " if extra.urg else ""
    text += " ppri " if extra.pri else ""
    text += "name       user         "
    text += "project          department " if extra.ext else ""
    text += "state "
    if extra.when:
        text += "submit/start at      deadline           " if extra.urg else "submit/start at     "
    text += "cpu        mem     io      tckts ovrts otckt ftckt stckt share " if extra.ext else ""
    slots = "master" if extra.slots_apart else "slots"
    return text + "queue" + " " * (QUEUE_WIDTH - 5) + f" {slots} ja-task-ID "


def rule(extra: Extra) -> str:
    """The dashes under the title: 8.1.9 adds a fixed count per option."""
    return "-" * (113 + 35 * extra.pri + 64 * extra.urg + 79 * extra.ext + extra.slots_apart)


def job_columns(row: AnyRow, when: str | None = None) -> str:
    """The columns every job listing starts with, from job-ID to submit/start at
    (`when`: that time as shown, when the caller has it already)."""
    return (
        f"{row.job_id:7d} {row.prior:7.5f} {row.name[:10]:<10} "
        f"{row.owner[:12]:<12} {row.state[:5]:<5} {when or stamp(row.stamp)}"
    )


def task_column(row: AnyRow) -> str:
    return row.tasks if row.array else NO_TASK


def queue_column(row: AnyRow) -> str:
    return f" {row.queue[:QUEUE_WIDTH]:<{QUEUE_WIDTH}}"


def qstat_rows(reply: JobRows, zone: tzinfo | None = None, memo: Memo | None = None) -> str:
    """Plain qstat: two header lines and one line per row; nothing at all without rows.
    Times are in the time zone `zone` (shown.zoned); `memo` holds the lines of
    an earlier listing, which rows that did not change take from it."""
    rows = reply.running + reply.pending
    if not rows:
        return ""
    stamps = _Stamps(zoned(STAMP, zone))

    def line(row: AnyRow) -> str:
        return (f"{job_columns(row, stamps[int(row.stamp)])}{queue_column(row)} "
                f"{row.slots:5d} {task_column(row)}\n")

    return "".join([header(PLAIN), "\n", rule(PLAIN), "\n",
                    *(memo.lines(rows, zone, line) if memo else map(line, rows))])


def qstat_rows_xml(reply: JobRows, zone: tzinfo | None = None,
                   memo: Memo | None = None) -> str:
    """qstat -xml: running rows under queue_info, pending ones under the nested
    job_info; times and `memo` as qstat_rows'."""
    stamps = _Stamps(zoned(XML_STAMP, zone))

    def element(row: AnyRow) -> str:
        return xml_job(row, 4, True, when=stamps[int(row.stamp)])

    rows = reply.running + reply.pending
    shown = memo.lines(rows, zone, element) if memo else list(map(element, rows))
    running = len(reply.running)
    return "".join([XML_HEAD, "  <queue_info>\n", *shown[:running],
                    "  </queue_info>\n  <job_info>\n", *shown[running:],
                    "  </job_info>\n</job_info>\n"])


class Memo:
    """The lines of the last listing printed in one form, by row: the master keeps one
    per form, so that a listing asked again prints only the rows that changed (from one
    qstat to the next, a queue of 100,000 waiting jobs is mostly the same rows, and
    looking a row up costs a fifth of printing it). Rows are frozen (model.job_rows.ShownRow),
    so a row that changed is another key; the lines of rows gone are dropped when they
    outnumber those shown."""

    def __init__(self) -> None:
        self.zone: tzinfo | None = None
        self.known: dict[AnyRow, str] = {}

    def lines(self, rows: Sequence[AnyRow], zone: tzinfo | None,
              show: Callable[[AnyRow], str]) -> list[str]:
        if zone != self.zone:
            self.zone, self.known = zone, {}
        known = self.known
        get = known.get
        out = []
        for row in rows:
            text = get(row)
            if text is None:
                text = known[row] = show(row)
            out.append(text)
        if len(known) > 2 * len(rows) + 1024:
            self.known = dict(zip(rows, out, strict=True))
        return out


Elements = Sequence[tuple[str, str, str]]  # tag, its attributes, its text


def xml_job(row: AnyRow, indent: int, with_queue: bool, *, role: str | None = None,
            when: str | None = "", priority: Elements = (), owner: Elements = (),
            timed: Elements = (), requests: Elements = ()) -> str:
    """One job_list element; running rows carry a start time, pending a submission time
    (`when`: as shown, "" to work it out, None for none, as -ext alone); with -g t the
    slot's `role`; the elements -pri, -urg, -ext and -r add, each list in its place
    (`timed`: those after the time)."""
    pad = " " * indent
    inner = pad + "  "
    running = row.state in SHOWN_HOLDING
    state = "running" if running else "zombie" if row.state == ZOMBIE else "pending"
    out = [f'{pad}<job_list state="{state}">\n{inner}<JB_job_number>{row.job_id}'
           f"</JB_job_number>\n{inner}<JAT_prio>{row.prior:.5f}</JAT_prio>\n"]
    out += _elements(inner, priority)
    out.append(f"{inner}<JB_name>{_escaped(row.name)}</JB_name>\n"
               f"{inner}<JB_owner>{_escaped(row.owner)}</JB_owner>\n")
    out += _elements(inner, owner)
    out.append(f"{inner}<state>{row.state}</state>\n")
    if when is not None:
        tag = "JAT_start_time" if running else "JB_submission_time"
        out.append(f"{inner}<{tag}>{when or xml_stamp(row.stamp)}</{tag}>\n")
    out += _elements(inner, timed)
    if with_queue:
        out.append(f"{inner}<queue_name>{_escaped(row.queue)}</queue_name>\n")
    if role is not None:
        out.append(f"{inner}<master>{role}</master>\n")
    out.append(f"{inner}<slots>{1 if role else row.slots}</slots>\n")
    if row.array:
        out.append(f"{inner}<tasks>{row.tasks}</tasks>\n")
    out += _elements(inner, requests)
    out.append(f"{pad}</job_list>\n")
    return "".join(out)


def _elements(pad: str, elements: Elements) -> list[str]:
    return [f"{pad}<{tag}{attrs}>{_escaped(text)}</{tag}>\n" for tag, attrs, text in elements]


def _escaped(text: str) -> str:
    """xml_escape, skipped for the many values that hold nothing to escape."""
    return xml_escape(text) if not _XML_RESERVED.isdisjoint(text) else text


class _Stamps(dict[int, str]):
    """Times as shown, by the whole second, each worked out once: a queue's jobs share
    few seconds."""

    def __init__(self, show: Callable[[float], str]) -> None:
        super().__init__()
        self.show = show

    def __missing__(self, ts: int) -> str:
        text = self[ts] = self.show(ts)
        return text

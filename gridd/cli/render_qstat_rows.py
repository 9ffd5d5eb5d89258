"""qstat's job lines and job_list elements from rows, as 8.1.9 prints them: the plain
columns every listing starts with, and the whole of a plain listing (qstat, qstat -xml)
from the compact rows the master sends (`protocol.ShownRow`).

A row is either a `protocol.ShownRow` or a `model.job_rows.Row`, which has the same
names; the views with more columns (`render_qstat`) print theirs through these too. Kept
apart from render_qstat so that a plain qstat, which may print 100,000 lines, loads and
runs no more than it needs.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from gridd.cli.render_qstat_extra import PLAIN, QUEUE_WIDTH, header, rule
from gridd.cli.render_text import stamp, xml_escape, xml_stamp
from gridd.model.task_lifecycle import SHOWN_HOLDING, ZOMBIE

if TYPE_CHECKING:
    from gridd.model.job_rows import Row
    from gridd.protocol import JobRows, ShownRow

    AnyRow = Row | ShownRow

NO_TASK = " " * 7  # ja-task-ID column of a job that is not an array
XML_HEAD = (
    "<?xml version='1.0'?>\n"
    '<job_info  xmlns:xsd="http://arc.liv.ac.uk/repos/darcs/sge/source/dist/util/'
    'resources/schemas/qstat/qstat.xsd">\n'
)
_XML_RESERVED = frozenset("&<>\"'")


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


def qstat_rows(reply: JobRows) -> str:
    """Plain qstat: two header lines and one line per row; nothing at all without rows."""
    rows = reply.running + reply.pending
    if not rows:
        return ""
    stamps = _Stamps(stamp)
    return "".join([
        header(PLAIN), "\n", rule(PLAIN), "\n",
        *(f"{job_columns(row, stamps[int(row.stamp)])}{queue_column(row)} {row.slots:5d} "
          f"{task_column(row)}\n" for row in rows)])


def qstat_rows_xml(reply: JobRows) -> str:
    """qstat -xml: running rows under queue_info, pending ones under the nested
    job_info."""
    stamps = _Stamps(xml_stamp)
    return "".join([
        XML_HEAD, "  <queue_info>\n",
        *(xml_job(row, 4, True, when=stamps[int(row.stamp)]) for row in reply.running),
        "  </queue_info>\n  <job_info>\n",
        *(xml_job(row, 4, True, when=stamps[int(row.stamp)]) for row in reply.pending),
        "  </job_info>\n</job_info>\n"])


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

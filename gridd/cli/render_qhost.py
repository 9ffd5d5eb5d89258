"""qhost's table and XML, laid out as Grid Engine 8.1.9 prints them.

Pure functions of the hosts, queues and jobs a ``JobsReply`` carries.

Load-value convention (what execd puts in ``ExecHost.load``, keyed by GE's names, all
values strings):

- ``arch``: architecture string, e.g. ``lx-amd64``.
- ``num_proc``, ``m_socket``, ``m_core``, ``m_thread``: decimal integers, e.g. ``"2"``.
- ``load_avg``, ``np_load_avg`` (and the other load_* values): decimal floats, e.g.
  ``"0.463867"``.
- ``mem_total``, ``mem_free``, ``mem_used``, ``swap_total``, ``swap_free``, ``swap_used``:
  bytes as plain decimal numbers, e.g. ``"25769803776"``. Values with a GE memory suffix
  (``K M G T`` = powers of 1024, ``k m g t`` = powers of 1000) are read as well, so a
  load sensor printing ``24105.558594M`` also works.

A host that has never reported, or that the master considers lost (``last_report`` 0),
keeps its static values (arch, processor topology, memory and swap totals) and shows
``-`` for load and usage, since those are stale.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from gridd.cli.render_qstat import (
    Row,
    format_memory,
    job_columns,
    qtype_letters,
    queue_order,
    resource_line,
    used_slots,
)
from gridd.formats.shown import xml_escape
from gridd.model.cluster import ExecHost, Queue, Resource, split_instance
from gridd.model.host_lifecycle import shown_up
from gridd.model.job import Job
from gridd.model.task_lifecycle import SHOWN_HOLDING

HEADER = (
    "HOSTNAME                ARCH         NCPU NSOC NCOR NTHR  LOAD  MEMTOT  MEMUSE"
    "  SWAPTO  SWAPUS"
)
_JOB_HEADER = (
    "   job-ID  prior   name       user         state submit/start at     queue"
    "      master ja-task-ID "
)
_XML_HEAD = (
    "<?xml version='1.0'?>\n"
    '<qhost xmlns:xsd="http://arc.liv.ac.uk/repos/darcs/sge/source/dist/util/'
    'resources/schemas/qhost/qhost.xsd">\n'
)
_UNITS = {"k": 1000, "m": 1000**2, "g": 1000**3, "t": 1000**4,
          "K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}
_DYNAMIC = frozenset({"load_avg", "mem_used", "swap_used"})  # stale once a host is lost
# (XML name, load key, kind) in column order; kind picks the formatting.
_COLUMNS = (
    ("arch_string", "arch", "text"), ("num_proc", "num_proc", "count"),
    ("m_socket", "m_socket", "count"), ("m_core", "m_core", "count"),
    ("m_thread", "m_thread", "count"), ("load_avg", "load_avg", "load"),
    ("mem_total", "mem_total", "memory"), ("mem_used", "mem_used", "memory"),
    ("swap_total", "swap_total", "memory"), ("swap_used", "swap_used", "memory"),
)


def parse_bytes(text: str) -> float | None:
    """A memory load value in bytes, or None when it is not a number."""
    factor = _UNITS.get(text[-1:], 1)
    try:
        return float(text[:-1] if factor != 1 else text) * factor
    except ValueError:
        return None


def _format(kind: str, text: str) -> str:
    """One load value as its column shows it; '-' when unusable."""
    try:
        if kind == "count":
            return str(int(float(text)))
        if kind == "load":
            return f"{float(text):.2f}"
    except ValueError:
        return "-"
    if kind == "memory":
        value = parse_bytes(text)
        return "-" if value is None else format_memory(value, 1)
    return text


def _reported(host: ExecHost | None) -> list[tuple[str, str, str | None]]:
    """(XML name, kind, reported text) for every column after HOSTNAME; None where there
    is no value to show: for global, for a value not reported, for a stale one."""
    values = []
    for name, key, kind in _COLUMNS:
        text = host.load.get(key) if host is not None else None
        if key in _DYNAMIC and not shown_up(host):
            text = None
        values.append((name, kind, text))
    return values


def host_values(host: ExecHost | None) -> list[tuple[str, str]]:
    """(XML name, shown text) for every column after HOSTNAME; all '-' for global."""
    return [(name, "-" if text is None else _format(kind, text))
            for name, kind, text in _reported(host)]


def host_numbers(host: ExecHost | None) -> dict[str, str | int | float | None]:
    """The same values typed, for -json: counts as integers, the load as a number, memory
    in bytes, the architecture as text; None for '-'."""
    from gridd.cli.render_json import whole

    out: dict[str, str | int | float | None] = {}
    for name, kind, text in _reported(host):
        value: str | int | float | None = text
        if text is not None and kind != "text":
            found = parse_bytes(text) if kind == "memory" else _float(text)
            value = (None if found is None else int(found) if kind == "count"
                     else whole(found) if kind == "memory" else found)
        out[name] = value
    return out


def _float(text: str) -> float | None:
    try:
        return float(text)
    except ValueError:
        return None


def _host_line(name: str, host: ExecHost | None) -> str:
    v = [text for _, text in host_values(host)]
    return (
        f"{name[:23]:<23} {v[0][:13]:<13}{v[1]:>4} {v[2]:>4} {v[3]:>4} {v[4]:>4} "
        f"{v[5]:>5} {v[6]:>7} {v[7]:>7} {v[8]:>7} {v[9]:>7}\n"
    )


def host_queues(host: ExecHost, queues: Sequence[Queue], used: dict[str, int],
                 states: Mapping[str, str]) -> list[tuple[str, str, int, int, str]]:
    """(cluster queue, qtype, used, total, states) of every queue instance on the host."""
    return [
        (queue.name, qtype_letters(queue), used.get(qi, 0),
         queue.instance_slots(host.name), states.get(qi, ""))
        for queue, qi in queue_order(queues)
        if split_instance(qi)[1] == host.name
    ]


@dataclass(frozen=True)
class HostSelection:
    """Which hosts to show: -h names them (the global line stays), -l leaves those whose
    resources fit the request (without the global line)."""

    names: list[str] | None = None
    fitting: list[str] | None = None

    def shows(self, name: str) -> bool:
        if self.fitting is not None:
            return name in self.fitting and (self.names is None or name in self.names)
        return self.names is None or name in self.names or name == "global"

    @property
    def nothing(self) -> bool:
        """-l that no host satisfies: qhost prints nothing at all, not even its header."""
        return self.fitting == []


@dataclass(frozen=True)
class Walk:
    """What each of qhost's forms goes through: the hosts shown, in order, global first
    (with no host: it has no values of its own); the jobs -u leaves (all without it);
    and the slots they hold in each queue instance (what -q counts as used)."""

    hosts: list[tuple[str, ExecHost | None]]
    jobs: list[Job]
    used: dict[str, int]


def walk(hosts: Sequence[ExecHost], jobs: Sequence[Job], select: HostSelection,
         users: list[str] | None = None) -> Walk:
    """The walk of the hosts `select` leaves, with the jobs of `users` (None: all)."""
    shown: list[tuple[str, ExecHost | None]] = []
    if select.shows("global"):
        shown.append(("global", None))
    shown += [(h.name, h) for h in sorted(hosts, key=lambda h: h.name) if select.shows(h.name)]
    owned = [j for j in jobs if users is None or j.spec.owner in users]
    return Walk(shown, owned, used_slots(owned))


def _resource_lines(resources: list[Resource], picked: bool) -> list[str]:
    """-F lines under a host; with an attribute list, 8.1.9 puts the first one on a
    "Host Resource(s):" line of its own style."""
    lines = [f"   {resource_line(r, qhost=True)}\n" for r in resources]
    if picked and lines:
        lines[0] = f"    Host Resource(s):      {resource_line(resources[0], qhost=True)}\n"
    return lines


def host_rows(host: str, jobs: Iterable[Job],
              priorities: Mapping[int, float]) -> list[tuple[Row, str]]:
    """Tasks with slots on the host, each with its role there: MASTER on the master queue
    instance, SLAVE elsewhere."""
    rows = []
    for job in sorted(jobs, key=lambda j: j.job_id):
        for task in sorted(job.tasks.values(), key=lambda t: t.task_id):
            if task.state not in SHOWN_HOLDING:
                continue
            tasks = str(task.task_id) if job.is_array else ""
            for qi, slots in task.granted:
                if split_instance(qi)[1] != host:
                    continue
                row = Row(job, task.state, task.start_time, qi, slots, tasks, task.task_id,
                          priorities.get(job.job_id, 0.5), task)
                rows.append((row, "MASTER" if qi == task.queue else "SLAVE"))
    return rows


def _job_lines(host: str, jobs: Iterable[Job], priorities: Mapping[int, float]) -> list[str]:
    return [f"   {job_columns(row)} {row.queue[:10]:<10} {role:<6} {row.tasks or ' ' * 7}\n"
            for row, role in host_rows(host, jobs, priorities)]


def qhost_default(hosts: Sequence[ExecHost], queues: Sequence[Queue] = (),
                  jobs: Sequence[Job] = (), *, show_queues: bool = False,
                  show_jobs: bool = False, states: Mapping[str, str] | None = None,
                  select: HostSelection | None = None,
                  resources: Mapping[str, list[Resource]] | None = None,
                  picked: bool = False, users: list[str] | None = None,
                  priorities: Mapping[int, float] | None = None) -> str:
    """qhost, with -q (queue instances per host), -j (jobs per host, -u owners only) and
    -F (resources per host) when asked."""
    select = select or HostSelection()
    if select.nothing:
        return ""
    shown = walk(hosts, jobs, select, users)
    out = [HEADER + "\n", "-" * len(HEADER) + "\n"]
    for name, host in shown.hosts:
        out.append(_host_line(name, host))
        if resources is not None:
            out += _resource_lines(resources.get(name, []), picked)
        if host is None:
            continue
        if show_queues:
            for queue, qtype, n, total, letters in host_queues(host, queues, shown.used,
                                                                 states or {}):
                out.append(f"   {queue[:20]:<20} {qtype:<5} {f'0/{n}/{total}':<13} {letters}\n")
        if show_jobs:
            lines = _job_lines(name, shown.jobs, priorities or {})
            if lines:
                out += [_JOB_HEADER + "\n", "   " + "-" * (len(_JOB_HEADER) - 4) + "\n"]
                out += lines
    return "".join(out)


def _xml_host(name: str, host: ExecHost | None, queue_xml: str) -> str:
    values = "".join(
        f"   <hostvalue name='{key}'>{xml_escape(text)}</hostvalue>\n"
        for key, text in host_values(host)
    )
    return f" <host name='{xml_escape(name)}'>\n{values}{queue_xml} </host>\n"


def _xml_queues(host: ExecHost, queues: Sequence[Queue], used: dict[str, int],
                states: Mapping[str, str]) -> str:
    out = []
    for name, qtype, n, total, letters in host_queues(host, queues, used, states):
        q = xml_escape(name)
        fields = (("qtype_string", qtype), ("slots_used", str(n)), ("slots", str(total)),
                  ("slots_resv", "0"), ("state_string", letters))
        body = "".join(f"   <queuevalue qname='{q}' name='{key}'>{value}</queuevalue>\n"
                       for key, value in fields)
        out.append(f" <queue name='{q}'>\n{body} </queue>\n")
    return "".join(out)


def qhost_xml(hosts: Sequence[ExecHost], queues: Sequence[Queue] = (),
              jobs: Sequence[Job] = (), *, show_queues: bool = False,
              states: Mapping[str, str] | None = None,
              select: HostSelection | None = None) -> str:
    """qhost -xml (and -q -xml): one host element per host, global first."""
    shown = walk(hosts, jobs, select or HostSelection())
    out = [_XML_HEAD]
    for name, host in shown.hosts:
        queue_xml = (_xml_queues(host, queues, shown.used, states or {})
                     if show_queues and host is not None else "")
        out.append(_xml_host(name, host, queue_xml))
    out.append("</qhost>\n")
    return "".join(out)

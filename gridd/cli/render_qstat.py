"""Text and XML views of jobs and queue instances, laid out as Grid Engine 8.1.9's qstat.

Pure functions of a ``JobsReply``: no sockets, no clock (times come from the jobs and are
shown in local time through ``time.localtime``), so the layout can be tested byte for byte
against the reference transcripts. Scripts (Nextflow, snakemake, qstat -xml parsers) read
these columns, which is why widths, truncation and element order are fixed here.

The reply is expected to hold every job the master knows (filtering by user, state or
job reference happens here): slot counts of queue instances and the dependency lines of
``qstat -j`` are computed from it.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING

import msgspec

from gridd.cli.render_qstat_extra import (
    columns,
    pe_span,
    refers_to,
    request_lines,
    resource_text,
    xml_deadline,
    xml_owner,
    xml_priority,
    xml_requests,
    xml_usage,
)
from gridd.formats.qstat_rows import (
    PLAIN,
    QUEUE_WIDTH,
    XML_HEAD,
    Extra,
    header,
    job_columns,
    queue_column,
    rule,
    task_column,
    xml_job,
)
from gridd.formats.shown import xml_escape
from gridd.model import job_rows as listing
from gridd.model.cluster import ExecHost, Queue, Resource, split_instance
from gridd.model.complexes import NUMERIC_TYPES, parse_value
from gridd.model.host_lifecycle import shown_up
from gridd.model.job import Job, JobSpec, Task
from gridd.model.job_rows import Row, queue_order
from gridd.model.task_lifecycle import ERROR, SHOWN_HOLDING
from gridd.model.values import is_unsigned

if TYPE_CHECKING:
    from gridd.model.planning import Reserved
    from gridd.model.rsmap import ResourceMap
    from gridd.protocol import JobsReply

_QUEUE_HEADER = (
    "queuename" + " " * (QUEUE_WIDTH - 9) + " qtype resv/used/tot. load_avg arch          states"
)
# -f's rule under the queue header and the pending jobs' banner: 8.1.9 widens both
# for -ext, each by a count of its own.
_QUEUE_RULE = {False: "-" * len(_QUEUE_HEADER), True: "-" * 189}
_PENDING_BANNER = {ext: "#" * n + "\n" + " - PENDING JOBS" * 5 + "\n" + "#" * n + "\n"
                   for ext, n in ((False, 76), (True, 186))}
_LABEL = 28  # qstat -j values start in this column


class Rendered(msgspec.Struct, frozen=True):
    """A command's whole answer: what goes to stdout, what to stderr, and the exit code."""

    stdout: str
    stderr: str = ""
    code: int = 0


# ---- selecting and ordering jobs --------------------------------------------------------

def job_rows(reply: JobsReply, users: list[str] | None, states: str | None,
             extra: Extra = PLAIN) -> tuple[list[Row], list[Row]]:
    """The reply's rows (gridd.model.job_rows.job_rows): with queue selection options,
    the tasks running in the instances chosen and the waiting jobs that might run there
    (JobsReply.selected, JobsReply.eligible)."""
    return listing.job_rows(reply.jobs, reply.priorities, users=users, states=states,
                            queues=reply.queues, chosen=chosen_instances(reply),
                            eligible=None if reply.eligible is None else set(reply.eligible),
                            finished=reply.finished, tasks_apart=extra.tasks_apart)


def _array_text(job: Job) -> str:
    """The job's -t range as submitted (qstat -j, and a fully pending array)."""
    assert job.spec.array is not None
    first, last, step = job.spec.array
    return f"{first}-{last}:{step}"


# ---- plain text -------------------------------------------------------------------------

def _line_start(row: Row, reply: JobsReply, extra: Extra) -> str:
    """A job line up to its queue column, with the columns -pri, -urg and -ext add."""
    if not extra.columns:
        return job_columns(row)
    return columns(extra, row.job, row.prior, row.state, row.stamp,
                   reply.parts.get(row.job.job_id), row.task)


def _requests(row: Row, reply: JobsReply, extra: Extra) -> str:
    """qstat -r's lines under a job line (none without -r)."""
    if not extra.requests:
        return ""
    return request_lines(row.job, row.task, reply.parts.get(row.job.job_id), reply.jobs)


def _job_lines(row: Row, reply: JobsReply, extra: Extra, with_queue: bool) -> str:
    """A row's job line, with or without (qstat -f) the queue column; with -g t a line
    per slot held in the instance, the job's columns on the first only; -r's block."""
    start = _line_start(row, reply, extra)
    queue = queue_column(row) if with_queue else ""
    if extra.slots_apart:
        lines = [f"{start if i == 0 else ' ' * len(start)}{queue} {role:<6} "
                 f"{task_column(row)}\n" for i, role in enumerate(roles(row))]
    else:
        lines = [f"{start}{queue} {row.slots:5d} {task_column(row)}\n"]
    return "".join(lines) + _requests(row, reply, extra)


def roles(row: Row) -> list[str]:
    """qstat -g t's master column for each slot a running row holds in its instance: the
    master task's instance has MASTER first, every other slot is a SLAVE; a waiting row
    has none."""
    if row.task is None:
        return [""]
    master = row.task.queue == row.queue
    return ["MASTER"] * master + ["SLAVE"] * (row.slots - master)


def by_instance(reply: JobsReply, running: list[Row]) -> list[Row]:
    """The running rows of every queue instance in turn, each with the slots it holds
    there (qstat -g t lists them so)."""
    placed = rows_by_instance(reply, running)
    order = [qi for _, qi in queue_order(reply.queues) if qi in placed]
    order += [qi for qi in placed if qi not in set(order)]  # gone from the configuration
    return [row for qi in order for row in placed[qi]]


def qstat_default(reply: JobsReply, *, users: list[str] | None = None,
                  states: str | None = None, extra: Extra = PLAIN) -> str:
    """Plain qstat: two header lines and one line per row; nothing at all without jobs.

    ``users`` are owner patterns (qstat -u; '*' for everybody) and None means no filter:
    like GE, the command itself passes the caller's name when -u is not given.
    ``states`` are qstat -s letters; ``extra`` what -pri, -urg, -ext and -r add.
    """
    running, pending = job_rows(reply, users, states, extra)
    if not running and not pending:
        return ""
    out = [header(extra) + "\n", rule(extra) + "\n"]
    if extra.slots_apart:
        running = by_instance(reply, running)
    out += [_job_lines(row, reply, extra, with_queue=True) for row in running + pending]
    return "".join(out)


# ---- queue instances --------------------------------------------------------------------

_QTYPE_LETTERS = (("BATCH", "B"), ("INTERACTIVE", "I"), ("CHECKPOINTING", "C"),
                  ("PARALLEL", "P"), ("TRANSFER", "T"))


def qtype_letters(queue: Queue) -> str:
    """Short queue type, e.g. 'BIP': B batch, I interactive, P when the queue has a
    pe_list (or says PARALLEL, as older configurations do)."""
    words = queue.qtype.upper().split()
    parallel = bool(queue.pe_list) or "PARALLEL" in words
    letters = ""
    for word, letter in _QTYPE_LETTERS:
        if word in words or (letter == "P" and parallel):
            letters += letter
    return letters


def used_slots(jobs: Iterable[Job]) -> dict[str, int]:
    """Slots taken on each queue instance by transferring, running or deleting tasks."""
    used: dict[str, int] = {}
    for job in jobs:
        for task in job.tasks.values():
            if task.state in SHOWN_HOLDING:
                for qi, n in task.granted:
                    used[qi] = used.get(qi, 0) + n
    return used


def _load_avg(host: ExecHost | None) -> float | None:
    """The host's load_avg, or None when it is unknown or the host is not reporting."""
    if not shown_up(host):
        return None
    try:
        return float(host.load["load_avg"])
    except (KeyError, ValueError):
        return None


def _arch(host: ExecHost | None) -> str | None:
    return host.load.get("arch") if host is not None else None


class QueueInstance(msgspec.Struct, frozen=True):
    """What qstat -f shows of one queue instance."""

    name: str
    qtype: str
    used: int
    total: int
    load: float | None
    arch: str | None
    states: str
    reserved: int = 0  # slots held by advance reservations now


def queue_instances(reply: JobsReply) -> list[QueueInstance]:
    """Every queue instance (or those qstat's selection options chose) in display order
    with its slot usage and host data."""
    hosts = {h.name: h for h in reply.hosts}
    used = used_slots(reply.jobs)
    out = []
    for queue, qi in shown_instances(reply):
        host = hosts.get(split_instance(qi)[1])
        out.append(QueueInstance(
            name=qi, qtype=qtype_letters(queue), used=used.get(qi, 0),
            total=queue.instance_slots(split_instance(qi)[1]),
            load=_load_avg(host), arch=_arch(host), states=reply.states.get(qi, ""),
            reserved=reply.ar_slots.get(qi, 0),
        ))
    return out


def chosen_instances(reply: JobsReply) -> set[str] | None:
    """The queue instances qstat's selection options (-q, -l, -pe, -qs, -U) chose, or
    None without them."""
    return None if reply.selected is None else set(reply.selected)


def shown_instances(reply: JobsReply) -> list[tuple[Queue, str]]:
    """(cluster queue, instance) as queue_order lists them, of those chosen if any."""
    chosen = chosen_instances(reply)
    return [(queue, qi) for queue, qi in queue_order(reply.queues)
            if chosen is None or qi in chosen]


def _queue_line(qi: QueueInstance, reply: JobsReply) -> str:
    """The instance's line, then why it is in alarm (-explain) and what it offers (-F)."""
    load = "-NA-" if qi.load is None else f"{qi.load:.2f}"
    counts = f"{qi.reserved}/{qi.used}/{qi.total}"
    return (
        f"{qi.name[:QUEUE_WIDTH]:<{QUEUE_WIDTH}} {qi.qtype:<5} {counts:<14} "
        f"{load:<8} {(qi.arch or '-NA-')[:13]:<13} {qi.states}\n"
    ) + "".join(f"\t{line}\n" for _, line in reply.alarms.get(qi.name, ())) + "".join(
        f"\t{resource_line(r)}\n" for r in reply.instance_resources.get(qi.name, ()))


def rows_by_instance(reply: JobsReply, running: list[Row]) -> dict[str, list[Row]]:
    """Running rows under every queue instance they hold slots in, with those slots."""
    tasks = {(j.job_id, t.task_id): t for j in reply.jobs for t in j.tasks.values()}
    placed: dict[str, list[Row]] = {}
    for row in running:
        granted = tasks[(row.job.job_id, row.task_id)].granted or [(row.queue, row.slots)]
        for qi, n in granted:
            placed.setdefault(qi, []).append(
                Row(row.job, row.state, row.stamp, qi, n, row.tasks, row.task_id, row.prior,
                    row.task)
            )
    return placed


def qstat_full(reply: JobsReply, *, users: list[str] | None = None,
               states: str | None = None, extra: Extra = PLAIN) -> str:
    """qstat -f: each queue instance with its jobs (and -F resources), then the pending
    jobs block."""
    running, pending = job_rows(reply, users, states, extra)
    placed = rows_by_instance(reply, running)
    out: list[str] = []
    instances = [qi for qi in queue_instances(reply) if not extra.no_empty or qi.name in placed]
    if instances:
        out.append(_QUEUE_HEADER + "\n")
    for qi in instances:
        out.append(_QUEUE_RULE[extra.ext] + "\n")
        out.append(_queue_line(qi, reply))
        out += [_job_lines(row, reply, extra, with_queue=False) for row in placed.get(qi.name, [])]
    if pending:
        out.append("\n" + _PENDING_BANNER[extra.ext])
        out += [_job_lines(row, reply, extra, with_queue=False) for row in pending]
    return "".join(out)


# ---- XML --------------------------------------------------------------------------------

def _xml_job(row: Row, reply: JobsReply, extra: Extra, indent: int, with_queue: bool,
             role: str | None = None) -> str:
    """A row's job_list element (render_qstat_rows.xml_job) with what -pri, -urg, -ext
    and -r add."""
    parts = reply.parts.get(row.job.job_id)
    return xml_job(row, indent, with_queue, role=role, when="" if extra.when else None,
                   priority=xml_priority(extra, parts), owner=xml_owner(extra, row.job),
                   timed=xml_deadline(extra, row.job) + xml_usage(extra, row.task),
                   requests=xml_requests(extra, row.job, row.task, parts, reply.jobs))


def _xml_queue(qi: QueueInstance, rows: list[Row], resources: list[Resource],
               reply: JobsReply, extra: Extra) -> str:
    fields = [
        ("name", qi.name), ("qtype", qi.qtype), ("slots_used", str(qi.used)),
        ("slots_resv", str(qi.reserved)), ("slots_total", str(qi.total)),
    ]
    if qi.load is not None:
        fields.append(("load_avg", f"{qi.load:.5f}"))
    if qi.arch is not None:
        fields.append(("arch", qi.arch))
    if qi.states:
        fields.append(("state", qi.states))
    fields += [(f"{kind}-alarm-reason", line) for kind, line in reply.alarms.get(qi.name, ())]
    body = "".join(f"      <{tag}>{xml_escape(value)}</{tag}>\n" for tag, value in fields)
    body += "".join(
        f'      <resource name="{xml_escape(r.name)}" type="{r.prefix}">'
        f"{xml_escape(resource_value(r))}</resource>\n"
        for r in resources)
    jobs = "".join(_xml_jobs(row, reply, extra, 6, with_queue=False) for row in rows)
    return f"    <Queue-List>\n{body}{jobs}    </Queue-List>\n"


def _xml_jobs(row: Row, reply: JobsReply, extra: Extra, indent: int, with_queue: bool) -> str:
    """A row's job_list element, or with -g t one per slot."""
    if not extra.slots_apart:
        return _xml_job(row, reply, extra, indent, with_queue)
    return "".join(_xml_job(row, reply, extra, indent, with_queue, role)
                   for role in roles(row))


def qstat_xml(reply: JobsReply, *, full: bool = False, users: list[str] | None = None,
              states: str | None = None, extra: Extra = PLAIN) -> str:
    """qstat -xml / qstat -f -xml: running jobs (or queue instances) under queue_info,
    pending jobs under the nested job_info."""
    running, pending = job_rows(reply, users, states, extra)
    out = [XML_HEAD, "  <queue_info>\n"]
    if full:
        placed = rows_by_instance(reply, running)
        out += [_xml_queue(qi, placed.get(qi.name, []), reply.instance_resources.get(qi.name, []),
                           reply, extra)
                for qi in queue_instances(reply) if not extra.no_empty or qi.name in placed]
    else:
        if extra.slots_apart:
            running = by_instance(reply, running)
        out += [_xml_jobs(row, reply, extra, 4, with_queue=True) for row in running]
    out.append("  </queue_info>\n  <job_info>\n")
    out += [_xml_jobs(row, reply, extra, 4, with_queue=not full) for row in pending]
    out.append("  </job_info>\n</job_info>\n")
    return "".join(out)


# ---- qstat -j ---------------------------------------------------------------------------

def _field(label: str, value: object) -> str:
    return f"{label + ':':<{_LABEL}}{value}\n"


def _task_field(label: str, task_id: int, value: str) -> str:
    """A per-task line such as 'usage         1:' (task 1 for a job that is no array)."""
    return _field(f"{label}{max(task_id, 1):>{15 - len(label)}}", value)


def _resource_list(resources: dict[str, str]) -> str:
    """-l requests as GE echoes them: time limits in seconds, other values as given."""
    return ",".join(resource_text(name, value) for name, value in resources.items())


def path_parts(entry: str) -> tuple[str, str]:
    """A -o/-e/-i entry '[host:]path' as (host or "", path)."""
    host, _, path = entry.rpartition(":")
    return host, path


def _path_list(paths: list[str]) -> str:
    """-o/-e/-i entries as 'host:file_host:path' with NONE for the missing parts."""
    return ",".join(f"{host or 'NONE'}:NONE:{path}" for host, path in map(path_parts, paths))


def _env_list(env: dict[str, str]) -> str:
    return ",".join(f"{k}={v or 'NONE'}" for k, v in env.items())


def format_memory(value: float, decimals: int) -> str:
    """Bytes with a binary K/M/G/T suffix, e.g. 3.492M (no suffix below 1K)."""
    for suffix, size in (("T", 1 << 40), ("G", 1 << 30), ("M", 1 << 20), ("K", 1 << 10)):
        if value >= size:
            return f"{value / size:.{decimals}f}{suffix}"
    return f"{value:.{decimals}f}"


def resource_value(resource: Resource, *, qhost: bool = False) -> str:
    """A -F value as Grid Engine prints it: qstat shows INT values whole, qhost with six
    decimals; memory scaled (23.540G), times as infinity or hh:mm:ss."""
    kind = resource.type
    if kind not in NUMERIC_TYPES:
        return resource.text
    value = as_number(resource.text, kind)
    if value is None:
        return resource.text
    if kind in ("MEMORY", "TIME") and math.isinf(value):
        return "infinity"
    if kind == "MEMORY":
        return format_memory(value, 3)
    if kind == "TIME":
        return _cpu(value)
    if kind == "INT" and not qhost and value == int(value):
        return str(int(value))
    return f"{value:f}"


def as_number(text: str, kind: str) -> float | None:
    try:
        return float(text)
    except ValueError:
        pass
    try:
        return float(parse_value(kind, text))
    except ValueError:
        return None


def resource_line(resource: Resource, *, qhost: bool = False) -> str:
    return f"{resource.prefix}:{resource.name}={resource_value(resource, qhost=qhost)}"


def _cpu(seconds: float) -> str:
    whole = int(seconds)
    return f"{whole // 3600:02d}:{whole % 3600 // 60:02d}:{whole % 60:02d}"


def _usage(task: Task) -> str:
    """The usage summary of a running task, as its execd last reported it."""
    u = task.usage
    vmem = format_memory(u.vmem, 3) if u.vmem else "N/A"
    maxvmem = format_memory(u.maxvmem, 3) if u.maxvmem else "N/A"
    return (
        f"cpu={_cpu(u.utime + u.stime)}, mem={u.mem:.5f} GB s, io={u.io / (1 << 30):.5f} GB, "
        f"vmem={vmem}, maxvmem={maxvmem}"
    )


def _identity_lines(job: Job, submitted: bool = True) -> list[str]:
    """Number, files and times, owner, origin; what submission fills in (number, script
    file, submission time, account) only for a `submitted` job."""
    spec = job.spec
    lines = [
        *([_field("job_number", job.job_id),
           _field("exec_file", f"job_scripts/{job.job_id}"),
           _field("submission_time", time.asctime(time.localtime(job.submit_time)))]
          if submitted else [_field("job_number", "unassigned")]),
        *([_field("deadline", time.asctime(time.localtime(spec.deadline)))]
          if spec.deadline else []),
        _field("owner", spec.owner),
        _field("uid", spec.uid),
        _field("group", spec.group),
        _field("gid", spec.gid),
    ]
    lines += [_field(label, value) for label, _, value in origin(spec) if value]
    if spec.start_time:
        lines.append(_field("execution_time", time.asctime(time.localtime(spec.start_time))))
    if submitted:
        lines.append(_field("account", spec.account))
    return lines


def origin(spec: JobSpec) -> list[tuple[str, str, str]]:
    """The submitter's environment qstat -j shows: its line's label, the name the job
    finds it by, and the value."""
    return [("sge_o_home", "SGE_O_HOME", spec.o_home),
            ("sge_o_log_name", "SGE_O_LOGNAME", spec.o_logname),
            ("sge_o_path", "SGE_O_PATH", spec.o_path), ("sge_o_mail", "SGE_O_MAIL", spec.o_mail),
            ("sge_o_shell", "SGE_O_SHELL", spec.o_shell), ("sge_o_tz", "SGE_O_TZ", spec.o_tz),
            ("sge_o_workdir", "SGE_O_WORKDIR", spec.o_workdir),
            ("sge_o_host", "SGE_O_HOST", spec.submit_host)]


def mail_recipients(spec: JobSpec) -> list[str]:
    """-M addresses; without any, the owner at the submit host, as qstat -j says."""
    return spec.mail_list or [f"{spec.owner}@{spec.submit_host}"]


def job_args(spec: JobSpec) -> list[str]:
    return list(spec.args or spec.command[1:])


def script_file(spec: JobSpec) -> str:
    return spec.script_name or (spec.command[0] if spec.command else "")


def job_type(spec: JobSpec) -> str:
    """What a -b y job is (qstat -j's job_type)."""
    return "binary,noshell" if spec.noshell else "binary"


def _request_lines(job: Job) -> list[str]:
    """From cwd to job_type: what was asked for, in GE's order, optional keys only if set."""
    spec = job.spec
    optional = [
        ("cwd", spec.cwd),
        ("stderr_path_list", _path_list(spec.stderr_path)),
        ("reserve", "y" if spec.reserve else ""),
        ("merge", "y" if spec.merge else ""),
        ("hard resource_list", _resource_list(spec.hard_resources)),
        ("soft resource_list", _resource_list(spec.soft_resources)),
        ("mail_options", spec.mail_options),
    ]
    lines = [_field(label, value) for label, value in optional if value]
    lines.append(_field("mail_list", ",".join(mail_recipients(spec))))
    lines.append(_field("notify", "TRUE" if spec.notify else "FALSE"))
    lines.append(_field("job_name", spec.name))
    if spec.stdout_path:
        lines.append(_field("stdout_path_list", _path_list(spec.stdout_path)))
    if spec.stdin_path:
        lines.append(_field("stdin_path_list", _path_list([spec.stdin_path])))
    if spec.priority:
        lines.append(_field("priority", spec.priority))
    lines.append(_field("jobshare", spec.jobshare))
    if spec.restart:
        lines.append(_field("restart", spec.restart))
    if spec.hard_queues:
        lines.append(_field("hard_queue_list", ",".join(spec.hard_queues)))
    if spec.soft_queues:
        lines.append(_field("soft_queue_list", ",".join(spec.soft_queues)))
    if spec.shell:
        lines.append(_field("shell_list", f"NONE:{spec.shell}"))
    lines.append(_field("env_list", _env_list(spec.env)))
    args = job_args(spec)
    if args:
        lines.append(_field("job_args", ",".join(args)))
    if spec.master_queues:
        lines.append(_field("master hard queue_list", ",".join(spec.master_queues)))
    script = script_file(spec)
    if script:
        lines.append(_field("script_file", script))
    if spec.context:
        lines.append(_field("context", ",".join(f"{k}={v}" for k, v in spec.context.items())))
    return lines


def linked(job: Job, jobs: list[Job], refs: Callable[[Job], list[str]]
           ) -> tuple[list[int], list[int]]:
    """The jobs the job's references (`refs`) name, and those whose references name it,
    as qstat -j lists them."""
    before = sorted(o.job_id for o in jobs if o.job_id != job.job_id
                    and any(refers_to(r, o) for r in refs(job)))
    after = sorted(o.job_id for o in jobs if o.job_id != job.job_id
                   and any(refers_to(r, job) for r in refs(o)))
    return before, after


def _ids(ids: list[int]) -> str:
    return ",".join(map(str, ids))


def _relation_lines(job: Job, jobs: list[Job]) -> list[str]:
    """PE request, job dependencies (both directions) and project."""
    spec = job.spec
    lines = []
    if spec.pe_name:
        lines.append(f"parallel environment:  {spec.pe_name} range: {pe_span(job)}\n")
    before, after = linked(job, jobs, lambda j: j.spec.hold_jid)
    if spec.hold_jid:
        lines.append(_field("jid_predecessor_list (req)", ",".join(spec.hold_jid)))
        if before:
            lines.append(_field("jid_predecessor_list", _ids(before)))
    if after:
        lines.append(_field("jid_successor_list", _ids(after)))
    before, after = linked(job, jobs, lambda j: j.spec.hold_jid_ad)
    if before:
        lines.append(_field("ja_ad_predecessor_list", _ids(before)))
    if after:
        lines.append(_field("ja_ad_successor_list", _ids(after)))
    if spec.project:
        lines.append(_field("project", spec.project))
    if spec.ar:
        lines.append(_field("ar_id", spec.ar))
    return lines


def _task_lines(job: Job) -> list[str]:
    """Array range, binding, job type, then per-task error reasons, usage and binding."""
    lines = []
    if job.is_array:
        lines.append(_field("job-array tasks", _array_text(job)))
    if job.spec.task_concurrency:
        lines.append(_field("maximum concurrency", job.spec.task_concurrency))
    lines.append(_field("binding", job.spec.binding or "NONE"))
    if job.spec.binary:
        lines.append(_field("job_type", job_type(job.spec)))
    tasks = sorted(job.tasks.values(), key=lambda t: t.task_id)
    for task in tasks:
        if task.state == ERROR and task.failed_reason:
            label = f"error reason{max(task.task_id, 1):>11}:"
            lines.append(f"{label}      {task.failed_reason}\n")
    active = [t for t in tasks if t.state in SHOWN_HOLDING]
    lines += [_task_field("usage", t.task_id, _usage(t)) for t in active]
    lines += [_task_field("binding", t.task_id, "NONE") for t in active]
    lines += [_task_field("resource_map", t.task_id, resource_map_text(t.resource_map))
              for t in active if t.resource_map]
    return lines


def resource_map_text(resource_map: ResourceMap) -> str:
    """RSMAP ids held as Open Cluster Scheduler shows them: gpu=node1=(0 1)."""
    return ",".join(f"{name}={host}=({' '.join(ids)})" for name, host, ids in resource_map)


def _reservation_lines(reserved: Reserved | None) -> list[str]:
    """When and where the last scheduling run reserved resources for a waiting job (the
    planned start Grid Engine only writes to its schedule file), and the RSMAP ids it
    booked."""
    if reserved is None:
        return []
    start, granted, ids = reserved
    where = ",".join(f"{name}={slots}" for name, slots in granted)
    booked = f" {resource_map_text(ids)}" if ids else ""
    return [_field("reserved start", f"{time.asctime(time.localtime(start))} {where}{booked}")]


def _reason_lines(reasons: list[str]) -> list[str]:
    """Scheduler messages: the first after the label, the rest aligned under it."""
    if not reasons:
        return []
    first, *rest = reasons
    return [_field("scheduling info", first)] + [" " * _LABEL + r + "\n" for r in rest]


def job_detail(job: Job, reply: JobsReply) -> str:
    """One qstat -j block, opened by its line of '=' characters."""
    return "".join(["=" * 62 + "\n"] + detail_lines(job, reply)
                   + _reason_lines(reply.reasons.get(job.job_id, [])))


def detail_lines(job: Job, reply: JobsReply) -> list[str]:
    """A qstat -j block's lines but its rule and its scheduling info, which the web
    interface's job page shows apart."""
    return (_identity_lines(job) + _request_lines(job) + _relation_lines(job, reply.jobs)
            + _task_lines(job) + _reservation_lines(reply.reserved.get(job.job_id)))


def unsubmitted_detail(job: Job) -> str:
    """qsub -verify: the job as qstat -j would show it, before the master has numbered
    it (8.1.9 shows no number, files, times or account then)."""
    return "".join(_identity_lines(job, submitted=False) + _request_lines(job)
                   + _relation_lines(job, []) + _task_lines(job))


def named_jobs(reply: JobsReply, refs: list[str]) -> tuple[list[Job], list[str]]:
    """The jobs qstat -j's references name (id, id.task or name pattern), by id, and the
    references that name none."""
    shown: dict[int, Job] = {}
    missing: list[str] = []
    for ref in refs:
        number = ref.partition(".")[0]  # 552.3 names job 552; a name may contain dots
        by = number if is_unsigned(number) else ref
        matches = [j for j in reply.jobs if refers_to(by, j)]
        if not matches:
            missing.append(ref)
        for job in matches:
            shown.setdefault(job.job_id, job)
    return sorted(shown.values(), key=lambda j: j.job_id), missing


def with_missing(stdout: str, missing: list[str]) -> Rendered:
    """qstat -j's answer in any form: references matching no job are listed on stderr
    and make the exit code 1."""
    if not missing:
        return Rendered(stdout)
    return Rendered(stdout, "Following jobs do not exist: \n" + ", ".join(missing) + "\n", 1)


def qstat_job(reply: JobsReply, refs: list[str]) -> Rendered:
    """qstat -j ref,...: details of jobs named by id (optionally id.task) or name pattern."""
    jobs, missing = named_jobs(reply, refs)
    return with_missing("".join(job_detail(job, reply) for job in jobs), missing)

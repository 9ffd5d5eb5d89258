"""What qstat -pri, -urg, -ext, -r and -g t|d add to job lines, laid out as 8.1.9 lays it
out.

-pri shows the parts of a job's priority, -urg its urgency and what makes it up, -ext
tickets, project, department and usage (no share policy hands out tickets: they are 0),
and -r a block of the job's requests under each line; -g t shows a line per slot of a
running task (its master task's MASTER, the others SLAVE) and -g d a line per waiting
array task. The options combine; the columns
keep one order whichever are asked for. 8.1.9's quirks are kept, as scripts read them:
-ext alone leaves out the submit/start time, and the rule under the header has a length
of its own, not the header's.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Iterable

from gridd.formats.qstat_rows import Extra
from gridd.formats.shown import stamp, xml_escape, xml_stamp
from gridd.model.job import Job, Task, Usage
from gridd.model.job_rows import task_slots
from gridd.model.values import is_unsigned
from gridd.protocol import PriorityParts

NO_PARTS = PriorityParts(0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0)
_REQUEST_LABEL = 18  # -r values start 7 + 18 columns in
_INDENT = " " * 7
_TIME_RESOURCES = frozenset({"h_rt", "s_rt", "h_cpu", "s_cpu"})


def columns(extra: Extra, job: Job, prior: float, state: str, when: float,
            parts: PriorityParts | None, task: Task | None) -> str:
    """A job line from job-ID to just before the queue column."""
    x = parts or NO_PARTS
    spec = job.spec
    text = f"{job.job_id:7d} {prior:7.5f} "
    text += f"{x.nurg:7.5f} " if extra.pri or extra.urg else ""
    text += f"{x.npprior:7.5f} " if extra.pri else ""
    text += f"{x.ntckts:7.5f} " if extra.pri or extra.ext else ""
    if extra.urg:
        text += f"{x.urg:8.0f} {x.rrcontr:8.0f} {x.wtcontr:8.0f} {x.dlcontr:8.0f} "
    text += f"{x.ppri:5d} " if extra.pri else ""
    text += f"{spec.name[:10]:<10} {spec.owner[:12]:<12} "
    if extra.ext:
        department = spec.department or "defaultdepartment"
        text += f"{(spec.project or 'NA')[:16]:<16} {department[:10]:<10} "
    text += f"{state[:5]:<5}"
    if extra.when:
        text += f" {stamp(when)}"
        if extra.urg:
            text += f" {stamp(spec.deadline) if spec.deadline else '':<19}"
    if extra.ext:
        text += f" {_usage(task.usage if task is not None else None)}"
        text += f" {0:5d} {0:5d} {0:5d} {0:5d} {0:5d} {0.0:<5.2f}"
    return text


def _usage(usage: Usage | None) -> str:
    """cpu, mem and io as -ext shows them: blank while pending, NA while nothing is
    reported (8.1.9 shows NA until the first usage report)."""
    if usage is None:
        return " " * 26
    if usage == Usage():
        return f"{'NA':<10} {'NA':<7} {'NA':<7}"
    whole = int(usage.utime + usage.stime)
    cpu = f"{whole // 86400}:{whole % 86400 // 3600:02d}:{whole % 3600 // 60:02d}:{whole % 60:02d}"
    return f"{cpu:<10} {usage.mem:.5f} {usage.io / (1 << 30):.5f}"


def request_lines(job: Job, task: Task | None, parts: PriorityParts | None,
                  jobs: Iterable[Job]) -> str:
    """qstat -r's block under a job line: name, where it runs, its PE, its requests
    (hard ones with what each adds to the urgency), queues and predecessors."""
    spec = job.spec
    lines = [_request("Full jobname", spec.name)]
    started = task if task is not None and task.queue else None
    if started is not None:
        lines.append(_request("Master Queue", started.queue))
    if spec.pe_name:
        lines.append(_request("Requested PE", f"{spec.pe_name} {pe_span(job)}"))
        if started is not None:
            granted = f"{started.pe or spec.pe_name} {task_slots(job, started)}"
            lines.append(_request("Granted PE", granted))
    contribution = (parts or NO_PARTS).requests
    lines += _listed("Hard Resources", [
        f"{resource_text(name, value)} ({contribution.get(name, 0.0):f})"
        for name, value in spec.hard_resources.items()])
    lines += _listed("Soft Resources", [resource_text(name, value)
                                        for name, value in spec.soft_resources.items()])
    if spec.hard_queues:
        lines.append(f"{_INDENT}Hard requested queues: {', '.join(spec.hard_queues)}")
    if spec.soft_queues:
        lines.append(f"{_INDENT}Soft requested queues: {', '.join(spec.soft_queues)}")
    if spec.master_queues:
        lines.append(f"{_INDENT}Master task hard requested queues: "
                     f"{', '.join(spec.master_queues)}")
    if spec.hold_jid:
        lines.append(f"{_INDENT}Predecessor Jobs (request): {', '.join(spec.hold_jid)}")
        found = predecessors(job, jobs)
        if found:
            lines.append(f"{_INDENT}Predecessor Jobs: {', '.join(found)}")
    lines.append(_request("Binding", spec.binding or "NONE"))
    return "".join(line + "\n" for line in lines)


def pe_span(job: Job) -> str:
    """A PE slot range as 8.1.9 prints it: "2", "2,3" or "2-4"."""
    low, high = job.spec.pe_min, job.spec.pe_max
    return str(low) if low == high else f"{low}{',' if high == low + 1 else '-'}{high}"


def predecessors(job: Job, jobs: Iterable[Job]) -> list[str]:
    """The jobs each -hold_jid reference names, in the order asked (repeats kept)."""
    jobs = list(jobs)
    return [str(other.job_id) for ref in job.spec.hold_jid for other in jobs
            if other.job_id != job.job_id and refers_to(ref, other)]


def _request(label: str, value: str) -> str:
    return f"{_INDENT}{label + ':':<{_REQUEST_LABEL}}{value}"


def _listed(label: str, items: list[str]) -> list[str]:
    """The first item beside the label, the others under it."""
    first = _request(label, items[0] if items else "")
    return [first] + [" " * (len(_INDENT) + _REQUEST_LABEL) + item for item in items[1:]]


def resource_text(name: str, value: str) -> str:
    return f"{name}={request_value(name, value)}"


def request_value(name: str, value: str) -> str:
    """A request's value as 8.1.9 echoes it: time limits in seconds, others as given."""
    secs = _seconds(value) if name in _TIME_RESOURCES else None
    return value if secs is None else str(secs)


def _seconds(text: str) -> int | None:
    """'[[h:]m:]s' as seconds, or None when the text is not a GE time."""
    parts = text.split(":")
    if len(parts) > 3 or not all(is_unsigned(p) for p in parts):
        return None
    total = 0
    for part in parts:
        total = total * 60 + int(part)
    return total


def refers_to(ref: str, job: Job) -> bool:
    """A job reference (id, or name pattern) as qstat -j and -hold_jid accept it."""
    if is_unsigned(ref):
        return int(ref) == job.job_id
    return fnmatch.fnmatchcase(job.spec.name, ref)


# ---- XML: elements as (tag, attributes, text) ----------------------------------------

Element = tuple[str, str, str]


def xml_priority(extra: Extra, parts: PriorityParts | None) -> list[Element]:
    """What -pri, -urg and -ext add between JAT_prio and JB_name (8.1.9 names no total
    urgency element)."""
    x = parts or NO_PARTS
    out = []
    if extra.pri or extra.ext:
        out.append(("JAT_ntix", "", f"{x.ntckts:.5f}"))
    if extra.pri:
        out.append(("JB_nppri", "", f"{x.npprior:.5f}"))
    if extra.pri or extra.urg:
        out.append(("JB_nurg", "", f"{x.nurg:.5f}"))
    if extra.urg:
        out += [("JB_rrcontr", "", f"{x.rrcontr:.0f}"), ("JB_wtcontr", "", f"{x.wtcontr:.0f}"),
                ("JB_dlcontr", "", f"{x.dlcontr:.0f}")]
    if extra.pri:
        out.append(("JB_priority", "", str(x.ppri)))
    return out


def xml_owner(extra: Extra, job: Job) -> list[Element]:
    """-ext's project and department, after JB_owner."""
    if not extra.ext:
        return []
    return [("JB_project", "", job.spec.project), ("JB_department", "", job.spec.department)]


def xml_deadline(extra: Extra, job: Job) -> list[Element]:
    """-urg's deadline of a job that has one, after the time."""
    if not (extra.urg and job.spec.deadline):
        return []
    return [("JB_deadline", "", xml_stamp(job.spec.deadline))]


def xml_usage(extra: Extra, task: Task | None) -> list[Element]:
    """-ext's usage (of a running task that reported some) and tickets, after the time."""
    if not extra.ext:
        return []
    out = []
    if task is not None and task.usage != Usage():
        u = task.usage
        out += [("cpu_usage", "", f"{u.utime + u.stime:.5f}"), ("mem_usage", "", f"{u.mem:.5f}"),
                ("io_usage", "", f"{u.io / (1 << 30):.5f}")]
    out += [(tag, "", "0") for tag in ("tickets", "JB_override_tickets", "JB_jobshare",
                                       "otickets", "ftickets", "stickets")]
    return out + [("JAT_share", "", "0.00000")]


def xml_requests(extra: Extra, job: Job, task: Task | None, parts: PriorityParts | None,
                 jobs: Iterable[Job]) -> list[Element]:
    """-r's elements, last in a job_list."""
    if not extra.requests:
        return []
    spec = job.spec
    out = [("full_job_name", "", spec.name)]
    if spec.pe_name:
        out.append(("requested_pe", f' name="{xml_escape(spec.pe_name)}"', pe_span(job)))
        if task is not None and task.queue:
            out.append(("granted_pe", f' name="{xml_escape(task.pe or spec.pe_name)}"',
                        str(task_slots(job, task))))
    contribution = (parts or NO_PARTS).requests
    out += [("hard_request", f' name="{xml_escape(name)}" resource_contribution='
             f'"{contribution.get(name, 0.0):f}"', request_value(name, value))
            for name, value in spec.hard_resources.items()]
    out += [("soft_request", f' name="{xml_escape(name)}"', request_value(name, value))
            for name, value in spec.soft_resources.items()]
    out += [("hard_req_queue", "", q) for q in spec.hard_queues]
    out += [("soft_req_queue", "", q) for q in spec.soft_queues]
    out += [("master_hard_req_queue", "", q) for q in spec.master_queues]
    out += [("predecessor_jobs_req", "", ref) for ref in spec.hold_jid]
    out += [("predecessor_jobs", "", number) for number in predecessors(job, jobs)]
    return out + [("binding", "", spec.binding or "NONE")]

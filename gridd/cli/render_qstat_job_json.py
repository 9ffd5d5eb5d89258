"""qstat -j -json: what qstat -j shows of each job, typed, as one document
(schemas/qstat-job.json describes it).

Keys are Open Cluster Scheduler 9.2's (its `-fmt json -j`, named after the JB_ fields):
jobs, each with job_number, ownership, hard_resource_list, mail_list, pe, job_array_tasks,
the jid_ lists, scheduling_info and array_tasks, the tasks that have started or failed,
each with its task_id, job_state, usage, granted_queue_list, exec_host_list, start_time
and error_reason. What 9.2 has no key for keeps the text's label (job_type, reserved).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from gridd.cli.render_json import document, iso, mail_address, whole
from gridd.cli.render_qstat import (
    Rendered,
    job_args,
    job_type,
    linked,
    mail_recipients,
    named_jobs,
    origin,
    path_parts,
    script_file,
    with_missing,
)
from gridd.cli.render_qstat_extra import pe_span, request_value
from gridd.model.cluster import split_instance
from gridd.model.job import Job, Task
from gridd.model.task_lifecycle import ERROR, SHOWN_HOLDING

if TYPE_CHECKING:
    from gridd.model.rsmap import ResourceMap
    from gridd.protocol import JobsReply


def qstat_job_json(reply: JobsReply, refs: list[str]) -> Rendered:
    """The jobs the references name as one document; references naming no job are said
    as the text says them (stderr, exit code 1), with no document when none is found."""
    jobs, missing = named_jobs(reply, refs)
    shown = document({"jobs": [job_json(job, reply) for job in jobs]}) if jobs else ""
    return with_missing(shown, missing)


def job_json(job: Job, reply: JobsReply) -> dict[str, Any]:
    """One job: its identity, what it asks for, its relations, then its tasks."""
    return (_identity(job) | _requests(job) | _relations(job, reply.jobs) | _tasks(job)
            | _scheduling(job, reply))


def _identity(job: Job) -> dict[str, Any]:
    spec = job.spec
    out: dict[str, Any] = {"job_number": job.job_id, "exec_file": f"job_scripts/{job.job_id}",
                           "submission_time": iso(job.submit_time)}
    if spec.deadline:
        out["deadline_time"] = iso(spec.deadline)
    out["ownership"] = {"primary": {"owner": spec.owner, "uid": spec.uid,
                                    "group": spec.group, "gid": spec.gid},
                        "supplementary": []}
    out["environment_core"] = [{"name": name, "value": value}
                               for _, name, value in origin(spec) if value]
    if spec.start_time:
        out["execution_time"] = iso(spec.start_time)
    out["account"] = spec.account
    return out


def _requests(job: Job) -> dict[str, Any]:
    """From cwd to context, as qstat -j's lines: optional ones only when set."""
    spec = job.spec
    out: dict[str, Any] = {}
    if spec.cwd:
        out["cwd"] = spec.cwd
    out |= {"reserve": spec.reserve, "merge_stderr": spec.merge,
            "hard_resource_list": _resources(spec.hard_resources),
            "soft_resource_list": _resources(spec.soft_resources)}
    if spec.mail_options:
        out["mail_options"] = spec.mail_options
    out["mail_list"] = [mail_address(entry) for entry in mail_recipients(spec)]
    out |= {"notify": spec.notify, "job_name": spec.name,
            "stdout_path_list": _paths(spec.stdout_path),
            "stderr_path_list": _paths(spec.stderr_path),
            "stdin_path_list": _paths([spec.stdin_path] if spec.stdin_path else []),
            "priority": spec.priority, "job_share": spec.jobshare}
    if spec.restart:
        out["restart"] = spec.restart == "y"
    out |= {"hard_queue_list": list(spec.hard_queues), "soft_queue_list": list(spec.soft_queues),
            "master_hard_queue_list": list(spec.master_queues)}
    if spec.shell:
        out["shell_list"] = [{"host": "", "path": spec.shell}]
    out["env_list"] = [{"name": k, "value": v} for k, v in spec.env.items()]
    out["job_args"] = job_args(spec)
    script = script_file(spec)
    if script:
        out["script_file"] = script
    out["context"] = [{"name": k, "value": v} for k, v in spec.context.items()]
    return out


def _resources(resources: dict[str, str]) -> list[dict[str, str]]:
    return [{"name": name, "value": request_value(name, value)}
            for name, value in resources.items()]


def _paths(entries: list[str]) -> list[dict[str, Any]]:
    """-o/-e/-i entries; gridd stages no files, so file_host is always empty."""
    return [{"host": host, "file_host": "", "path": path, "file_staging": False}
            for host, path in map(path_parts, entries)]


def _relations(job: Job, jobs: list[Job]) -> dict[str, Any]:
    """PE request, dependencies both ways (as asked, and the jobs they name now),
    project and AR."""
    spec = job.spec
    out: dict[str, Any] = {}
    if spec.pe_name:
        out["pe"] = {"name": spec.pe_name, "range": pe_span(job)}
    before, after = linked(job, jobs, lambda j: j.spec.hold_jid)
    out |= {"jid_request_list": list(spec.hold_jid), "jid_predecessor_list": before,
            "jid_successor_list": after}
    before, after = linked(job, jobs, lambda j: j.spec.hold_jid_ad)
    out |= {"ja_ad_request_list": list(spec.hold_jid_ad), "ja_ad_predecessor_list": before,
            "ja_ad_successor_list": after}
    if spec.project:
        out["project"] = spec.project
    if spec.ar:
        out["ar_id"] = spec.ar
    return out


def _tasks(job: Job) -> dict[str, Any]:
    """Array range, concurrency, binding, job type, and the tasks qstat -j says
    something of: those holding slots (usage) and those in error (their reason)."""
    spec = job.spec
    out: dict[str, Any] = {}
    if spec.array is not None:
        first, last, step = spec.array
        out["job_array_tasks"] = {"start": first, "end": last, "step": step}
    if spec.task_concurrency:
        out["task_concurrency"] = spec.task_concurrency
    out["binding"] = spec.binding or "NONE"
    if spec.binary:
        out["job_type"] = job_type(spec)
    tasks = sorted(job.tasks.values(), key=lambda t: t.task_id)
    out["array_tasks"] = [_task(t) for t in tasks if t.state in SHOWN_HOLDING
                          or (t.state == ERROR and t.failed_reason)]
    return out


def _task(task: Task) -> dict[str, Any]:
    out: dict[str, Any] = {"task_id": max(task.task_id, 1), "job_state": task.state}
    if task.state == ERROR:
        return out | {"error_reason": [task.failed_reason]}
    u = task.usage
    out["usage"] = {"wallclock": u.wallclock, "cpu": u.utime + u.stime, "mem": u.mem,
                    "io": u.io / (1 << 30), "vmem": whole(u.vmem),
                    "maxvmem": whole(u.maxvmem), "maxrss": whole(u.maxrss * 1024)}
    hosts: dict[str, int] = {}
    for qi, n in task.granted:
        host = split_instance(qi)[1]
        hosts[host] = hosts.get(host, 0) + n
    out |= {"granted_queue_list": [{"queue_name": qi, "slots": n} for qi, n in task.granted],
            "exec_host_list": [{"hostname": h, "slots": n} for h, n in hosts.items()],
            "resource_map": _resource_map(task.resource_map)}
    if task.start_time:
        out["start_time"] = iso(task.start_time)
    return out


def _resource_map(resource_map: ResourceMap) -> list[dict[str, Any]]:
    """RSMAP ids under Open Cluster Scheduler's keys, the ids as strings."""
    return [{"name": name, "hostname": host, "rsmap_ids": ids, "total_amount": len(ids)}
            for name, host, ids in resource_map]


def _scheduling(job: Job, reply: JobsReply) -> dict[str, Any]:
    """Where the last scheduling run reserved for the job, and why it waits."""
    out: dict[str, Any] = {}
    reserved = reply.reserved.get(job.job_id)
    if reserved is not None:
        start, granted, ids = reserved
        out["reserved"] = {"start_time": iso(start),
                           "granted_queue_list": [{"queue_name": name, "slots": n}
                                                  for name, n in granted],
                           "resource_map": _resource_map(ids)}
    out["scheduling_info"] = list(reply.reasons.get(job.job_id, []))
    return out

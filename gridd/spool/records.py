"""The master's state as spooled objects, and back.

Every object has a kind and a key. A job is spooled as its header (kind `job`: the job
without its tasks) and one object per array task (kind `task`, key `job.task`), so a task
that starts or ends rewrites that task alone, as Grid Engine's job spool directories do.
The configuration is spooled one qconf object at a time (a queue, a PE, an access list,
...), so that changing one queue writes one queue; where the order of a collection is
part of what qconf shows (resource quota sets move to the end when changed), an `order`
object keeps it.
"""

from __future__ import annotations

import typing
from collections.abc import Iterable, Iterator
from typing import Any

import msgspec

from gridd.collector import held_off
from gridd.formats.rqs import with_formulas
from gridd.master.state import MasterState
from gridd.model.ar import AdvanceReservation
from gridd.model.cluster import ExecHost
from gridd.model.complexes import ComplexTable
from gridd.model.config import Configuration
from gridd.model.job import Job, Task
from gridd.model.report import Report
from gridd.spool.base import Spool, SpoolError

CELL = "cell"  # the key of objects there is one of

# Configuration fields spooled as one object each (key CELL), by kind.
CONFIG_SINGLE = {"managers": "managers", "operators": "operators", "adminhosts": "admin_hosts",
                 "submithosts": "submit_hosts", "complexes": "complexes",
                 "sched_conf": "sched", "global_conf": "conf"}
# Configuration collections spooled one object per member (key: its name), by kind.
CONFIG_DICT = {"userset": "usersets", "hostgroup": "hostgroups", "project": "projects",
               "user": "users",
               "queue": "queues", "pe": "pes", "exechost": "exechosts",
               "host_conf": "host_confs", "rqs": "rqs"}
CONFIG_KINDS = frozenset(CONFIG_SINGLE) | frozenset(CONFIG_DICT) | {"order"}

COUNTERS = ("next_job_id", "next_seq", "next_ar_id")


def _config_types() -> dict[str, Any]:
    hints = typing.get_type_hints(Configuration)
    types: dict[str, Any] = {kind: hints[name] for kind, name in CONFIG_SINGLE.items()}
    for kind, name in CONFIG_DICT.items():
        types[kind] = typing.get_args(hints[name])[1]
    return types


# What each kind decodes to.
TYPES: dict[str, Any] = {
    "job": Job, "task": Task, "host": ExecHost, "ar": AdvanceReservation,
    "report": Report, "outbox": tuple[int, int], "flags": dict[str, str], "counter": int,
    "order": list[str], **_config_types(),
}


def task_key(job_id: int, task_id: int) -> str:
    return f"{job_id}.{task_id}"


def header(job: Job) -> Job:
    """The job without its tasks: what the `job` object holds."""
    return msgspec.structs.replace(job, tasks={})


def config_records(config: Configuration) -> Iterator[tuple[str, str, object]]:
    for kind, name in CONFIG_SINGLE.items():
        yield kind, CELL, getattr(config, name)
    for kind, name in CONFIG_DICT.items():
        members: dict[str, object] = getattr(config, name)
        yield "order", kind, list(members)
        for key, obj in members.items():
            yield kind, key, obj


def records(state: MasterState) -> Iterator[tuple[str, str, object]]:
    """Every object of the state, as a first spooling or a conversion writes them."""
    yield from config_records(state.config)
    for name in COUNTERS:
        yield "counter", name, getattr(state, name)
    yield "flags", CELL, state.flags
    for name, host in state.hosts.items():
        yield "host", name, host
    for job_id, job in state.jobs.items():
        yield "job", str(job_id), header(job)
        for task_id, task in job.tasks.items():
            yield "task", task_key(job_id, task_id), task
    for ar_id, ar in state.ars.items():
        yield "ar", str(ar_id), ar
    for seq, entry in state.outbox.items():
        yield "outbox", str(seq), entry
    for seq, record in state.reports.items():
        yield "report", str(seq), record


def restore(objects: Iterable[tuple[str, str, object]]) -> MasterState:
    """The state the objects describe (in any order); the objects become the state's
    (jobs get their tasks put in), so spool `records(state)`, never them again. A task
    without its job, or a key that does not fit its kind, is a damaged spool: SpoolError
    says which."""
    state = MasterState()
    config = Configuration()
    collections: dict[str, dict[str, object]] = {kind: {} for kind in CONFIG_DICT}
    orders: dict[str, list[str]] = {}
    tasks: list[tuple[str, Task]] = []
    for kind, key, obj in objects:
        try:
            if kind in CONFIG_SINGLE:
                setattr(config, CONFIG_SINGLE[kind], obj)
            elif kind in CONFIG_DICT:
                collections[kind][key] = obj
            elif kind == "order":
                orders[key] = typing.cast(list[str], obj)
            elif kind == "counter":
                setattr(state, key, obj)
            elif kind == "flags":
                state.flags = typing.cast(dict[str, str], obj)
            elif kind == "host":
                state.hosts[key] = typing.cast(ExecHost, obj)
            elif kind == "job":
                state.jobs[int(key)] = typing.cast(Job, obj)
            elif kind == "task":
                tasks.append((key, typing.cast(Task, obj)))
            elif kind == "ar":
                state.ars[int(key)] = typing.cast(AdvanceReservation, obj)
            elif kind == "outbox":
                job_id, task_id = typing.cast(tuple[int, int], obj)
                state.outbox[int(key)] = (job_id, task_id)
            elif kind == "report":
                state.reports[int(key)] = typing.cast(Report, obj)
            else:
                raise SpoolError(f"unknown object kind {kind!r} (key {key!r})")
        except ValueError as exc:
            raise SpoolError(f"bad key {key!r} of a {kind} object") from exc
    for key, task in tasks:
        job = state.jobs.get(int(key.partition(".")[0]))
        if job is None:
            raise SpoolError(f"task {key} is spooled without its job")
        job.tasks[task.task_id] = task
    for kind, members in collections.items():
        if kind not in orders and not members:
            continue  # not spooled at all (a new cell): the defaults stand
        order = orders.get(kind, [])
        ordered = {name: members[name] for name in order if name in members}
        ordered.update((name, obj) for name, obj in sorted(members.items())
                       if name not in ordered)
        setattr(config, CONFIG_DICT[kind], ordered)
    if config.rqs:
        table = ComplexTable(config.complexes)
        for rule_set in config.rqs.values():
            with_formulas(table, rule_set)
    state.config = config
    return state


def load(spool: Spool) -> MasterState | None:
    """The state the spool holds, None when it holds nothing yet (a new cell). Read with
    the collector held off: hundreds of thousands of objects are made, none of them
    garbage, and collections would halve the speed of a restart."""
    with held_off():
        objects = list(spool.read_all())
        return restore(objects) if objects else None

"""A client whose master answers every request with a fixed reply, for the command lines.

A q* command that took its options goes on to use them on the master's answer: qstat
picks jobs by -j and -u, queue instances by -q, states by -s; qhost picks hosts and
resources. Fuzzing only up to the failed connection would leave that half out, so each
command line also runs against this client. Requests still go through the real client's
framing (so what cannot be sent is refused as it would be), and replies through the real
decoder, but nothing touches a socket.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from types import ModuleType
from typing import IO, Any
from unittest import mock

from gridd import protocol as p
from gridd.client import REPLY_TIMEOUT, Client
from gridd.formats.qconf_objects import template
from gridd.master.handle import Listings, printed
from gridd.master.queries import compact
from gridd.model.ar import AdvanceReservation, ArSpec
from gridd.model.cluster import ExecHost, Queue, Resource
from gridd.model.job import Job, JobSpec, Task
from gridd.model.job_rows import JobRows, job_rows
from gridd.model.rqs import QuotaRow
from gridd.model.task_lifecycle import PENDING, RUNNING
from tests.fuzz.targets import Unexpected

NOW = 1_795_327_142.0


def _spec(name: str, **extra: object) -> JobSpec:
    return JobSpec(name=name, owner="ann", uid=1001, group="staff", gid=50, submit_host="node1",
                   o_workdir="/work", binary=True, command=["sleep", "60"], **extra)


def _jobs() -> list[Job]:
    running = Job(job_id=1, spec=_spec("sleep", hard_resources={"h_rt": "0:10:0",
                                                                  "h_vmem": "1G"}),
                  submit_time=NOW - 100)
    running.tasks[0] = Task(task_id=0, state=RUNNING, start_time=NOW - 50, queue="all.q@node1",
                            host="node1", granted=[("all.q@node1", 1)])
    array = Job(job_id=2, spec=_spec("array.sh", array=(1, 5, 2), pe_name="mpi", pe_min=2,
                                     pe_max=4, hold_jid=["1"]),
                submit_time=NOW - 10)
    for task_id in array.task_ids():
        array.tasks[task_id] = Task(task_id=task_id, state=PENDING)
    return [running, array]


_RESOURCES = [Resource("hc", "h_vmem", "MEMORY", "4000000000"),
              Resource("hl", "arch", "STRING", "lx-amd64")]

JOBS = p.JobsReply(
    jobs=_jobs(),
    queues=[Queue(name="all.q", hostlist=["node1", "node2"], slots=4, pe_list=["mpi"])],
    hosts=[ExecHost(name="node1", last_report=NOW - 5,
                    load={"arch": "lx-amd64", "load_avg": "0.5", "num_proc": "2",
                          "mem_total": "3.8G", "mem_used": "1G"}),
           ExecHost(name="node2", last_report=0.0)],
    now=NOW,
    reasons={2: ["cannot run in PE \"mpi\" because it only offers 1 slots"]},
    priorities={1: 0.55, 2: 0.5},
    states={"all.q@node2": "au"},
    instance_resources={"all.q@node1": _RESOURCES},
    host_resources={"node1": _RESOURCES, "global": _RESOURCES[:1]},
    fitting_hosts=["node1"],
)
_RUNNING, _PENDING = job_rows(JOBS.jobs, JOBS.priorities, users=None, states=None,
                              queues=JOBS.queues)
ROWS = JobRows(running=[compact(r) for r in _RUNNING], pending=[compact(r) for r in _PENDING])
ARS = p.ArsReply(
    ars=[AdvanceReservation(ar_id=1, spec=ArSpec(name="ar1", owner="ann", start=NOW, end=NOW + 60),
                            submission_time=NOW - 60, start=NOW, end=NOW + 60,
                            granted=[("all.q@node1", 1)])],
    now=NOW,
)
QUOTAS = p.QuotaReply(rows=[QuotaRow(rule="max/1", resource="slots", type="INT", used=2.0,
                                     limit="4", filters=[("users", ["ann"], [])]),
                            QuotaRow(rule="mem/r", resource="h_vmem", type="MEMORY", used=1.5e9,
                                     limit="4G")])


def reply_to(msg: p.Msg) -> p.Msg:
    """The fixed answer to a request, by its type."""
    if isinstance(msg, p.QueryJobs):
        return JOBS
    if isinstance(msg, p.QueryRows):
        return printed(ROWS, msg, Listings(), None)
    if isinstance(msg, p.QueryArs):
        return ARS
    if isinstance(msg, p.QueryQuota):
        return QUOTAS
    if isinstance(msg, p.Qconf):
        shown = msg.argv[:1] and msg.argv[0].startswith("-s")
        return p.QconfReply(out=template("queue").splitlines() if shown else [],
                            err=[] if shown else ["root@vm modified it"])
    return p.Ok(lines=["done"])


class CannedClient(Client):
    """The real Client with its socket replaced by `reply_to`."""

    def __init__(self, *args: object, **kwargs: object) -> None:
        self.endpoint = "canned"
        self._rid = 0
        self._asked: p.Msg = p.Ping()

    def close(self) -> None:
        pass

    def _send(self, msg: p.Msg) -> int:
        self._frame(msg)  # what cannot be framed is refused here, as with a socket
        self._asked = msg
        return self._rid

    def _recv(self, rid: int, timeout: float | None = REPLY_TIMEOUT) -> p.Msg:
        reply = p.decode(p.encode(reply_to(self._asked)))
        reply.rid = rid
        return reply


def _writes_only_in_temp(path: Any, mode: str = "r", *args: Any, **kwargs: Any) -> IO[Any]:
    """open() for qconf: writing is allowed only in its own temporary directories (its
    editor forms write the object there) and the fuzz run's, so a file name taken from
    the command line can never make a fuzz run write elsewhere; trying to is a finding."""
    if set(mode) & set("wax+"):
        where = os.path.realpath(path)
        top = os.path.relpath(where, os.path.realpath(tempfile.gettempdir())).split(os.sep)[0]
        if not top.startswith(("qconf-", "gridd-fuzz-")):
            raise Unexpected(f"qconf writes {where}, outside its temporary directory")
    return open(path, mode, *args, **kwargs)


@contextmanager
def canned_master(*modules: ModuleType) -> Iterator[None]:
    """`Client` in these modules (and in gridd.cli.common) is the canned one; qconf's
    editor is a stub that leaves the file as it is, qconf looks no host name up, and it
    writes nothing outside the temporary directory."""
    from gridd.cli import common, qconf

    with ExitStack() as stack:
        for module in (common, *modules):
            if hasattr(module, "Client"):  # others reach the master through common
                stack.enter_context(mock.patch.object(module, "Client", CannedClient))
        stack.enter_context(mock.patch.object(qconf, "_run_editor", lambda path: 0))
        stack.enter_context(mock.patch.object(qconf, "_resolves", lambda name: False))
        stack.enter_context(mock.patch.object(qconf, "open", _writes_only_in_temp, create=True))
        yield

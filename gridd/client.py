"""The Python client of a gridd cell: what the q* commands use, and what programs can use.

Blocking and free of trio, so that a command starts fast. Requests may be pipelined:
``submit_many`` sends a whole list before reading the answers, which the master commits
together.
"""

from __future__ import annotations

import itertools
import os
import time
from collections.abc import Callable, Iterable
from typing import TypeVar

from gridd import connection
from gridd import protocol as p
from gridd.connection import (  # noqa: F401  (what callers of a client catch and use)
    CONNECT_TIMEOUT,
    REPLY_TIMEOUT,
    GriddError,
    NoAnswer,
    Refused,
    current_user,
    own_keys,
)
from gridd.model.ar import ArSpec
from gridd.model.job import JobSpec
from gridd.zmtp import Dealer

# The job actions of the web interface and of DRMAA's drmaa_control, each asked of the
# master as the command it stands for asks it: qdel, qmod -sj, qmod -usj, qhold, qrls.
JOB_ACTIONS = ("delete", "suspend", "resume", "hold", "release")
# Seconds before submit_many sends again what the request rate refused: at first, at most.
RETRY_PAUSE, RETRY_PAUSE_MOST = 0.05, 1.0
T = TypeVar("T")


class Client:
    session: str | None = None  # a web session whose user every request is sent as

    def __init__(self, base: str | os.PathLike[str] | None = None,
                 endpoint: str | None = None, *, session: str | None = None) -> None:
        """`session`: a web session (see login) whose user every request is sent as;
        it may be set to another, or None, between requests."""
        self.session = session
        self.conn, self.endpoint = connection.connect(base, endpoint)
        self._rid = 0

    def close(self) -> None:
        self.conn.close()

    def interrupt(self) -> None:
        """Wake a call blocked on this connection in another thread: it fails as a lost
        connection (DRMAA's exit ends the waits of a session's other threads so)."""
        self.conn.shutdown()

    def __enter__(self) -> Client:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ---- plumbing ----------------------------------------------------------------

    def _frame(self, msg: p.Msg) -> bytes:
        """One request's frame; with a session, wrapped in AsUser under the same rid
        (logging in and out are the web server's own, never a user's)."""
        self._rid += 1
        msg.rid = self._rid
        try:
            body = p.encode(msg)
            if self.session is not None and not isinstance(msg, (p.WebLogin, p.WebLogout)):
                body = p.encode(p.AsUser(session=self.session, request=body, rid=self._rid))
        except UnicodeEncodeError as exc:
            raise connection.not_utf8(exc) from None
        except OverflowError:  # msgpack holds integers of 64 bits (-t 1-99999999999999999999)
            raise GriddError("error: a number is too large (more than 64 bits)") from None
        return Dealer.encode([body])

    def _send(self, msg: p.Msg) -> int:
        self._transfer(self.conn.send_raw, self._frame(msg))
        return self._rid

    def _next(self, timeout: float | None) -> p.Msg:
        self.conn.settimeout(timeout)
        (frame,) = self._transfer(self.conn.recv)
        try:
            return p.decode_reply(frame, max_size=p.MAX_REPLY)
        except p.ProtocolError as exc:
            raise connection.unreadable(self.endpoint, exc) from None

    def _recv(self, rid: int, timeout: float | None = REPLY_TIMEOUT) -> p.Msg:
        while True:
            reply = self._next(timeout)
            if reply.rid == rid or reply.rid == 0:
                return reply

    def _transfer(self, op: Callable[..., T], *args: object) -> T:
        return connection.transfer(self.endpoint, op, *args)

    def request(self, msg: p.Msg, timeout: float | None = REPLY_TIMEOUT) -> p.Msg:
        reply = self._recv(self._send(msg), timeout)
        if isinstance(reply, p.Error):
            raise Refused(reply.text, reply.code)
        return reply

    # ---- the API -----------------------------------------------------------------

    def ping(self) -> None:
        self.request(p.Ping(), timeout=CONNECT_TIMEOUT)

    def resubmit(self, request: p.Resubmit) -> p.Ok:
        return self.request(request)

    def submit(self, spec: JobSpec) -> p.Submitted:
        return self.request(p.Submit(spec=spec))

    def submit_many(self, specs: Iterable[JobSpec], window: int = 500) -> list[p.Submitted]:
        """Submit with up to ``window`` requests in flight; answers in submission order.
        A submission the master refuses for this connection's request rate (Error.later)
        changed nothing: it is sent again after a pause, which grows while such refusals
        go on, and so takes a job number after the rest of its window's."""
        out: list[p.Msg] = []
        specs = iter(specs)
        while batch := list(itertools.islice(specs, window)):
            out += self._submitted(batch)
        for reply in out:
            if isinstance(reply, p.Error):
                raise Refused(reply.text, reply.code)
        return out

    def _submitted(self, specs: list[JobSpec]) -> list[p.Msg]:
        """The master's answer to each of a window's submissions, those it refused for
        the rate sent again until it takes them."""
        replies: dict[int, p.Msg] = {}  # by the submission's index in `specs`
        todo: Iterable[int] = range(len(specs))
        pause = RETRY_PAUSE
        while True:
            frames, sent = [], {}
            for index in todo:
                frames.append(self._frame(p.Submit(spec=specs[index])))
                sent[self._rid] = index
            results: dict[int, p.Msg] = {}
            self._exchange(frames, results)
            todo = []
            for rid, index in sent.items():
                reply = replies[index] = results[rid]
                if isinstance(reply, p.Error) and reply.later:
                    todo.append(index)
            if not todo:
                return [replies[index] for index in range(len(specs))]
            time.sleep(pause)
            pause = min(2 * pause, RETRY_PAUSE_MOST)

    def _exchange(self, batch: list[bytes], results: dict[int, p.Msg]) -> None:
        if not batch:
            return
        self._transfer(self.conn.send_raw, b"".join(batch))
        for _ in batch:
            reply = self._next(REPLY_TIMEOUT)
            results[reply.rid] = reply

    def wait(self, job_id: int) -> p.JobExited:
        return self.request(p.WaitJob(job_id=job_id), timeout=None)

    def wait_tasks(self, tasks: list[tuple[int, int]], timeout: float | None,
                   block: bool = True) -> p.TaskEnded | p.NotEnded:
        """DRMAA's wait: how the first of `tasks` (job, task) to end ended; GriddError
        after `timeout` seconds (None: no limit), NotEnded at once when not `block`."""
        return self.request(p.WaitTasks(tasks=tasks, block=block), timeout=timeout)

    def wait_scheduled(self, job_id: int) -> p.Scheduled:
        return self.request(p.WaitScheduled(job_id=job_id), timeout=None)

    def wait_started(self, job_id: int, task_id: int = 0) -> p.Started:
        """qrsh, qlogin: where to open the session once the job's task runs; Refused
        when it cannot be scheduled at once (-now y) or ended first. No time limit:
        with -now n the wait is as long as the queue."""
        return self.request(p.WaitStarted(job_id=job_id, task_id=task_id), timeout=None)

    def start_pe_task(self, request: p.StartPeTask) -> p.Started:
        """qrsh -inherit: start a task of a running parallel job on one of its hosts;
        where to open its session once it runs there."""
        return self.request(request)

    def jobs(self, ids: list[str] | None = None, details: bool = False,
             resources: list[str] | None = None, host_resources: list[str] | None = None,
             host_request: dict[str, str] | None = None, parts: bool = False,
             finished: bool = False, select: p.QueueSelect | None = None,
             explain: str = "") -> p.JobsReply:
        return self.request(p.QueryJobs(ids=ids or [], details=details, resources=resources,
                                        host_resources=host_resources,
                                        host_request=host_request or {}, parts=parts,
                                        finished=finished, select=select, explain=explain))

    def job_rows(self, users: list[str] | None, states: str = "",
                 select: p.QueueSelect | None = None, tasks_apart: bool = False,
                 xml: bool = False) -> p.Printed:
        """A plain qstat's listing (protocol.QueryRows), printed by the master in this
        process's time zone."""
        return self.request(p.QueryRows(users=users, states=states, select=select,
                                        tasks_apart=tasks_apart, xml=xml,
                                        zone=connection.time_zone()))

    def select_queues(self, select: p.QueueSelect) -> p.QueuesSelected:
        return self.request(p.SelectQueues(select=select))

    def delete(self, targets: list[str], user: str, users: list[str] | None = None,
               force: bool = False) -> p.Ok:
        return self.request(p.Delete(targets=targets, user=user, users=users or [],
                                     force=force))

    def job_action(self, action: str, targets: list[str], user: str, host: str) -> p.Ok:
        """One of JOB_ACTIONS on the jobs (or tasks) named, as `user` on `host`."""
        if action == "delete":
            return self.delete(targets, user)
        if action in ("suspend", "resume"):
            return self.request(p.Qmod(action="sj" if action == "suspend" else "usj",
                                       targets=targets, user=user, host=host))
        if action in ("hold", "release"):
            return self.hold(p.Hold(targets=targets, user=user, host=host,
                                    hold=action == "hold", kinds="u"))
        raise ValueError(f"no such job action: {action!r}")

    def alter(self, request: p.Alter) -> p.Ok:
        return self.request(request)

    def hold(self, request: p.Hold) -> p.Ok:
        return self.request(request)

    def ar_submit(self, spec: ArSpec, host: str = "") -> p.Ok:
        """qrsub: the master's answer ("Your advance reservation N has been granted")."""
        return self.request(p.ArSubmit(spec=spec, host=host))

    def ar_delete(self, targets: list[str], user: str, users: list[str] | None = None,
                  force: bool = False) -> p.Ok:
        """qrdel: ARs by id or name (patterns), or every AR of ``users``."""
        return self.request(p.ArDelete(targets=targets, user=user, users=users or [],
                                       force=force))

    def query_ars(self, ids: list[str] | None = None,
                  users: list[str] | None = None) -> p.ArsReply:
        """qrstat: the ARs named by ``ids`` (ids, names, patterns; all if empty) of the
        owners in ``users`` ("*" for any)."""
        return self.request(p.QueryArs(ids=ids or [], users=users or []))

    def shutdown(self) -> None:
        self.request(p.Shutdown(), timeout=CONNECT_TIMEOUT)

    def login(self, token: str) -> p.WebSession:
        """A web session for the user whose token this is (gridd.login_token), usable
        from this client's key only."""
        return self.request(p.WebLogin(token=token))

    def logout(self, session: str) -> None:
        self.request(p.WebLogout(session=session))

    def watch(self, since: int, timeout: float) -> int:
        """The master's version of the cell once it differs from `since`, or the same
        at its next host check (a heartbeat); GriddError after `timeout` seconds."""
        changed = self.request(p.Watch(since=since), timeout=timeout)
        return changed.version

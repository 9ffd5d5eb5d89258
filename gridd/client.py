"""The Python client of a gridd cell: what the q* commands use, and what programs can use.

Blocking and free of trio, so that a command starts fast. Requests may be pipelined:
``submit_many`` sends a whole list before reading the answers, which the master commits
together.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterable
from pathlib import Path

import zmq

from gridd import paths
from gridd import protocol as p
from gridd.model.job import JobSpec

CONNECT_TIMEOUT = float(os.environ.get("GRIDD_CONNECT_TIMEOUT", "3"))
REPLY_TIMEOUT = float(os.environ.get("GRIDD_TIMEOUT", "60"))


class GriddError(Exception):
    """A request the master refused or could not be reached for; carries the exit code."""

    def __init__(self, text: str, code: int = 1) -> None:
        super().__init__(text)
        self.text = text
        self.code = code


class Client:
    def __init__(self, base: Path | None = None, endpoint: str | None = None) -> None:
        self.base = base or paths.root()
        self.endpoint = endpoint or _read_endpoint(self.base)
        self.ctx = zmq.Context.instance()
        self.sock = self.ctx.socket(zmq.DEALER)
        self.sock.setsockopt(zmq.LINGER, 0)
        self.sock.setsockopt(zmq.IMMEDIATE, 1)
        self.sock.connect(self.endpoint)
        self._rid = 0

    def close(self) -> None:
        self.sock.close(linger=0)

    def __enter__(self) -> Client:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ---- plumbing ----------------------------------------------------------------

    def _send(self, msg: p.Msg) -> int:
        if not self.sock.poll(int(CONNECT_TIMEOUT * 1000), zmq.POLLOUT):
            raise GriddError(
                f"error: unable to contact qmaster at {self.endpoint}: no connection "
                f"within {CONNECT_TIMEOUT:g} s (is the cell up? try 'gridd status')")
        self._rid += 1
        msg.rid = self._rid
        self.sock.send(p.encode(msg))
        return self._rid

    def _recv(self, rid: int, timeout: float | None = REPLY_TIMEOUT) -> p.Msg:
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            wait = -1 if deadline is None else max(0, int((deadline - time.monotonic()) * 1000))
            if not self.sock.poll(wait, zmq.POLLIN):
                raise GriddError(f"error: no answer from qmaster at {self.endpoint} "
                                 f"within {timeout:g} s")
            reply = p.decode(self.sock.recv())
            if reply.rid == rid or reply.rid == 0:
                return reply

    def request(self, msg: p.Msg, timeout: float | None = REPLY_TIMEOUT) -> p.Msg:
        reply = self._recv(self._send(msg), timeout)
        if isinstance(reply, p.Error):
            raise GriddError(reply.text, reply.code)
        return reply

    # ---- the API -----------------------------------------------------------------

    def ping(self) -> None:
        self.request(p.Ping(), timeout=CONNECT_TIMEOUT)

    def submit(self, spec: JobSpec) -> p.Submitted:
        return self.request(p.Submit(spec=spec))

    def submit_many(self, specs: Iterable[JobSpec], window: int = 500) -> list[p.Submitted]:
        """Submit with up to ``window`` requests in flight; answers in submission order."""
        results: dict[int, p.Msg] = {}
        order: list[int] = []
        in_flight = 0
        for spec in specs:
            order.append(self._send(p.Submit(spec=spec)))
            in_flight += 1
            while in_flight >= window:
                in_flight -= self._collect(results)
        while in_flight:
            in_flight -= self._collect(results)
        out = []
        for rid in order:
            reply = results[rid]
            if isinstance(reply, p.Error):
                raise GriddError(reply.text, reply.code)
            out.append(reply)
        return out

    def _collect(self, results: dict[int, p.Msg]) -> int:
        if not self.sock.poll(int(REPLY_TIMEOUT * 1000), zmq.POLLIN):
            raise GriddError(f"error: no answer from qmaster at {self.endpoint}")
        reply = p.decode(self.sock.recv())
        results[reply.rid] = reply
        return 1

    def wait(self, job_id: int) -> p.JobExited:
        return self.request(p.WaitJob(job_id=job_id), timeout=None)

    def wait_scheduled(self, job_id: int) -> p.Scheduled:
        return self.request(p.WaitScheduled(job_id=job_id), timeout=None)

    def jobs(self, ids: list[str] | None = None) -> p.JobsReply:
        return self.request(p.QueryJobs(ids=ids or []))

    def delete(self, targets: list[str], user: str, users: list[str] | None = None,
               force: bool = False) -> p.Ok:
        return self.request(p.Delete(targets=targets, user=user, users=users or [],
                                     force=force))

    def shutdown(self) -> None:
        self.request(p.Shutdown(), timeout=CONNECT_TIMEOUT)


def _read_endpoint(base: Path) -> str:
    try:
        return paths.endpoint_file(base).read_text().strip()
    except OSError:
        raise GriddError(
            f"error: no gridd cell at {base} (missing {paths.endpoint_file(base)}); "
            "start one with 'gridd up' or set GRIDD_ROOT") from None

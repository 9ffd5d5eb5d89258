"""What the command-line client takes from the master: replies larger than any request
may be (a qstat of a cell with a 60,000-task array), and a clear error, not a traceback,
for a reply it cannot read."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from types import SimpleNamespace

import pytest
import zmq

from gridd import client as client_module
from gridd import protocol as p
from gridd.client import Client, GriddError, Refused
from gridd.model.job import Job, JobSpec, Task
from gridd.zmtp import Dealer


@contextmanager
def _answering(reply: bytes) -> Iterator[str]:
    """A ROUTER that answers one request with `reply` (a frame as the master sends it)."""
    ctx = zmq.Context()
    router = ctx.socket(zmq.ROUTER)
    router.bind("tcp://127.0.0.1:*")

    def serve() -> None:
        if router.poll(10_000):
            ident, _ = router.recv_multipart()
            router.send_multipart([ident, reply])

    server = threading.Thread(target=serve)
    server.start()
    try:
        yield router.getsockopt_string(zmq.LAST_ENDPOINT)
    finally:
        server.join()
        router.close(linger=0)
        ctx.term()


def _client(endpoint: str) -> Client:
    client = Client.__new__(Client)
    client.endpoint, client.conn, client._rid = endpoint, Dealer(endpoint, 5, None), 0
    return client


def test_a_reply_larger_than_a_request_may_be_is_read() -> None:
    tasks = {n: Task(task_id=n) for n in range(1, 60_001)}
    reply = p.JobsReply(jobs=[Job(job_id=1, spec=JobSpec(name="a"), submit_time=1.0,
                                  tasks=tasks)], queues=[], hosts=[], now=1.0, rid=1)
    frame = p.encode(reply)
    assert len(frame) > p.MAX_MESSAGE
    with _answering(frame) as endpoint:
        client = _client(endpoint)
        try:
            got = client._recv(client._send(p.QueryJobs()))
        finally:
            client.close()
    assert isinstance(got, p.JobsReply) and len(got.jobs[0].tasks) == 60_000


def test_a_reply_that_does_not_decode_is_a_one_line_error() -> None:
    with _answering(b"\xc1not msgpack") as endpoint:
        client = _client(endpoint)
        try:
            with pytest.raises(GriddError, match="cannot read the answer of qmaster"):
                client._recv(client._send(p.QueryJobs()))
        finally:
            client.close()


@contextmanager
def _echoing(count: int) -> Iterator[tuple[str, list[p.Msg]]]:
    """A ROUTER that answers `count` requests with Changed(version=7) under their rid,
    keeping what it got."""
    ctx = zmq.Context()
    router = ctx.socket(zmq.ROUTER)
    router.bind("tcp://127.0.0.1:*")
    got: list[p.Msg] = []

    def serve() -> None:
        for _ in range(count):
            if not router.poll(10_000):
                return
            ident, frame = router.recv_multipart()
            got.append(p.decode(frame))
            router.send_multipart([ident, p.encode(p.Changed(version=7, rid=got[-1].rid))])

    server = threading.Thread(target=serve)
    server.start()
    try:
        yield router.getsockopt_string(zmq.LAST_ENDPOINT), got
    finally:
        server.join()
        router.close(linger=0)
        ctx.term()


def test_in_a_session_requests_go_as_the_user_under_their_rid_but_logins_do_not() -> None:
    with _echoing(3) as (endpoint, got):
        client = _client(endpoint)
        client.session = "s1"
        try:
            assert client.watch(since=3, timeout=5) == 7
            client.logout("s1")
            client.session = None
            client.watch(since=3, timeout=5)
        finally:
            client.close()
    wrapped, logout, bare = got
    assert isinstance(wrapped, p.AsUser) and (wrapped.session, wrapped.rid) == ("s1", 1)
    assert p.decode(wrapped.request) == p.Watch(since=3, rid=1)
    assert logout == p.WebLogout(session="s1", rid=2)
    assert bare == p.Watch(since=3, rid=3)


class _RateLimited:
    """A ROUTER standing in for a master that takes `burst` submissions and refuses the
    rest as the request rate does (Error.later), each pause of the client's letting
    `refill` more in; one spec named "bad" is refused for good. Job numbers in the
    order it takes them; each Submitted names its spec."""

    def __init__(self, burst: int, refill: int) -> None:
        self.budget, self.refill = burst, refill
        self.ctx = zmq.Context()
        self.router = self.ctx.socket(zmq.ROUTER)
        self.router.bind("tcp://127.0.0.1:*")
        self.endpoint = self.router.getsockopt_string(zmq.LAST_ENDPOINT)
        self.numbered = 0
        self.pauses: list[float] = []
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._serve)
        self.thread.start()

    def pause(self, seconds: float) -> None:
        """The client's time.sleep: no waiting, the bucket refilled meanwhile."""
        self.pauses.append(seconds)
        self.budget += self.refill

    def _serve(self) -> None:
        while not self.stop.is_set():
            if not self.router.poll(50):
                continue
            ident, frame = self.router.recv_multipart()
            msg = p.decode(frame)
            assert isinstance(msg, p.Submit)
            if msg.spec.name == "bad":
                reply: p.Msg = p.Error(text="error: bad job", code=2)
            elif self.budget <= 0:
                reply = p.Error(text="error: too many requests", later=True)
            else:
                self.budget -= 1
                self.numbered += 1
                reply = p.Submitted(job_id=self.numbered, name=msg.spec.name)
            reply.rid = msg.rid
            self.router.send_multipart([ident, p.encode(reply)])

    def close(self) -> None:
        self.stop.set()
        self.thread.join()
        self.router.close(linger=0)
        self.ctx.term()


@contextmanager
def _rate_limited(monkeypatch: pytest.MonkeyPatch, burst: int,
                  refill: int) -> Iterator[tuple[_RateLimited, Client]]:
    master = _RateLimited(burst, refill)
    monkeypatch.setattr(client_module, "time", SimpleNamespace(sleep=master.pause))
    client = _client(master.endpoint)
    try:
        yield master, client
    finally:
        client.close()
        master.close()


def test_submissions_the_rate_refuses_are_sent_again_after_growing_pauses(
        monkeypatch: pytest.MonkeyPatch) -> None:
    with _rate_limited(monkeypatch, burst=7, refill=2) as (master, client):
        replies = client.submit_many([JobSpec(name=f"s{n}") for n in range(40)], window=16)
    assert [r.name for r in replies] == [f"s{n}" for n in range(40)]  # in submission order
    assert sorted(r.job_id for r in replies) == list(range(1, 41))  # each taken once
    assert master.pauses[:5] == [0.05, 0.1, 0.2, 0.4, 0.8]
    assert max(master.pauses) == client_module.RETRY_PAUSE_MOST


def test_a_submission_refused_for_good_is_raised_once_the_rest_are_in(
        monkeypatch: pytest.MonkeyPatch) -> None:
    with _rate_limited(monkeypatch, burst=3, refill=3) as (master, client):
        specs = [JobSpec(name=name) for name in ("a", "bad", "b", "c", "d", "e")]
        with pytest.raises(Refused, match="bad job") as refused:
            client.submit_many(specs, window=4)
    assert refused.value.code == 2
    assert master.numbered == 5  # every other one submitted, as before the refusal

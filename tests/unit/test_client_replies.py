"""What the command-line client takes from the master: replies larger than any request
may be (a qstat of a cell with a 60,000-task array), and a clear error, not a traceback,
for a reply it cannot read."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager

import pytest
import zmq

from gridd import protocol as p
from gridd.client import Client, GriddError
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

"""qrsh's wait through the master actor (in virtual time, with the harness of
test_master_timing): the answer comes when execd says the task runs, naming the session
endpoint the host registered with."""

from __future__ import annotations

import trio

from gridd import protocol as p
from tests.actors.test_master_timing import HOST, cell


async def test_qrsh_learns_the_session_endpoint_its_host_registered_once_its_task_runs(
        tmp_path, monkeypatch, autojump_clock):
    async with cell(tmp_path, monkeypatch) as c:
        await c.report(p.Register(host=HOST, load={}, session_endpoint="ipc:///x/session"))
        job = await c.submit(interactive="qrsh", session_key=b"k" * 32)
        await c.client.send([p.encode(p.WaitStarted(job_id=job, rid=7))])
        _, start = await c.order()
        assert isinstance(start, p.StartTask) and start.session_key == b"k" * 32
        with trio.move_on_after(5.0):  # not before the task runs
            await c.client.recv()
            raise AssertionError("answered before the task ran")
        await c.report(p.TaskStarted(host=HOST, job_id=job, task_id=0, start_time=c.wall()))
        (frame,) = await c.client.recv()
        assert p.decode(frame) == p.Started(job_id=job, task_id=0, host=HOST,
                                            endpoint="ipc:///x/session", rid=7)

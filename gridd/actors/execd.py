"""The execd actor: one per execution host, running the jobs the master sends it.

Jobs outlive the master: when the connection comes back (ZeroMQ reconnects by itself;
a socket monitor tells us when) execd registers again with what it runs and every
report the master has not acknowledged yet, so each task is accounted exactly once.
"""

from __future__ import annotations

import logging
import os
import signal
import time
from pathlib import Path

import trio
import zmq
from zmq.utils.monitor import parse_monitor_message

from gridd import paths
from gridd import protocol as p
from gridd.execd import runner
from gridd.execd.load import read_load
from gridd.transport import TrioSocket

log = logging.getLogger("gridd.execd")

Key = tuple[int, int]


class ExecdActor:
    def __init__(self, base: Path, name: str, endpoint: str, load_report_time: float) -> None:
        self.base = base
        self.name = name
        self.endpoint = endpoint
        self.load_report_time = load_report_time
        self.spool = paths.execd_spool(name, base)
        self.spool.mkdir(parents=True, exist_ok=True)
        self.runner = runner.TaskRunner(name, self.spool, str(base))
        self.active: set[Key] = set()  # started here and not yet reported
        self.unacked: dict[Key, p.TaskReport] = {
            (r.job_id, r.task_id): r for r in runner.load_pending_reports(self.spool)
        }
        self.ctx = zmq.Context()

    async def run(self) -> None:
        sock = TrioSocket.create(self.ctx, zmq.DEALER, ROUTING_ID=_identity(self.name),
                                 SNDHWM=0, RCVHWM=0, RECONNECT_IVL=100,
                                 RECONNECT_IVL_MAX=1000)
        monitor = TrioSocket(sock.zsock.get_monitor_socket(zmq.EVENT_HANDSHAKE_SUCCEEDED))
        sock.connect(self.endpoint)
        self.sock = sock
        log.info("execd %s connecting to %s (pid %d)", self.name, self.endpoint, os.getpid())
        try:
            async with trio.open_nursery() as nursery:
                self.nursery = nursery
                nursery.start_soon(self._on_connect, monitor)
                nursery.start_soon(self._receive)
                nursery.start_soon(self._report_load)
        finally:
            for job_id, task_id in self.runner.running():
                self.runner.kill(job_id, task_id)
            monitor.close()
            sock.close()
            self.ctx.term()

    async def _send(self, msg: p.Msg) -> None:
        await self.sock.send([p.encode(msg)])

    async def _on_connect(self, monitor: TrioSocket) -> None:
        while True:
            event = parse_monitor_message(await monitor.recv())
            if event["event"] == zmq.EVENT_HANDSHAKE_SUCCEEDED:
                log.info("connected to master: registering")
                await self._send(p.Register(
                    host=self.name, load=read_load(), running=sorted(self.active),
                    finished=list(self.unacked.values()),
                    load_report_time=self.load_report_time))

    async def _report_load(self) -> None:
        while True:
            await trio.sleep(self.load_report_time)
            await self._send(p.LoadReport(host=self.name, load=read_load(),
                                          running=sorted(self.active)))
            for report in list(self.unacked.values()):
                await self._send(p.TaskFinished(report=report))

    async def _receive(self) -> None:
        while True:
            parts = await self.sock.recv()
            try:
                msg = p.decode(parts[-1])
            except p.ProtocolError as exc:
                log.warning("bad message from master: %s", exc)
                continue
            match msg:
                case p.StartTask():
                    self._start(msg)
                case p.KillTask():
                    self.runner.kill(msg.job_id, msg.task_id)
                case p.SuspendTask():
                    self.runner.suspend(msg.job_id, msg.task_id, msg.suspend)
                case p.Ack():
                    key = (msg.job_id, msg.task_id)
                    if self.unacked.pop(key, None) is not None:
                        runner.forget(self.spool, *key)
                case _:
                    log.warning("unexpected %s from master", type(msg).__name__)

    def _start(self, msg: p.StartTask) -> None:
        key = (msg.job.job_id, msg.task_id)
        if key in self.active or key in self.unacked:
            return  # a resend of something already under way or done
        self.active.add(key)
        self.nursery.start_soon(self._run, key, msg)

    async def _run(self, key: Key, msg: p.StartTask) -> None:
        async def started(start_time: float) -> None:
            await self._send(p.TaskStarted(host=self.name, job_id=key[0], task_id=key[1],
                                           start_time=start_time))

        try:
            report = await self.runner.run_task(msg, on_started=started)
        except Exception as exc:  # a bug here must cost one job, not the execd
            log.exception("task %d.%d could not be run", *key)
            now = time.time()
            report = p.TaskReport(job_id=key[0], task_id=key[1], host=self.name,
                                  start_time=0.0, end_time=now, exit_status=0,
                                  failed=runner.FAILED_BEFORE_JOB, failed_reason=str(exc))
        finally:
            self.active.discard(key)
        self.unacked[key] = report
        await self._send(p.TaskFinished(report=report))


def _identity(name: str) -> bytes:
    return b"execd:" + name.encode()


def serve(base: Path, name: str, endpoint: str, load_report_time: float) -> None:
    pidfile = paths.execd_spool(name, base) / "execd.pid"
    pidfile.parent.mkdir(parents=True, exist_ok=True)
    pidfile.write_text(f"{os.getpid()}\n")
    actor = ExecdActor(base, name, endpoint, load_report_time)

    async def main() -> None:
        async with trio.open_nursery() as nursery:
            nursery.start_soon(actor.run)
            with trio.open_signal_receiver(signal.SIGTERM, signal.SIGINT) as signals:
                async for _ in signals:
                    break
            nursery.cancel_scope.cancel()

    try:
        trio.run(main)
    finally:
        pidfile.unlink(missing_ok=True)

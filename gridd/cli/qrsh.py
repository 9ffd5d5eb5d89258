"""qrsh (and qlogin, qrsh -inherit): run a command, or a shell, on a cluster host now,
its standard streams on this terminal, and exit with its exit status.

The job is submitted as qsub -b y would submit it, with a one-time CURVE key pair whose
public half it carries; once its task runs, the master says where the host's session
socket is, and the session (gridd.cli.qrsh_session) opens there with that key. qrsh
-inherit starts a task of the parallel job it runs in the same way.
"""

from __future__ import annotations

import os
import signal
import sys
import time
from contextlib import closing

from gridd import paths
from gridd import protocol as p
from gridd.cli.common import (
    current_group,
    current_user,
    home_dir,
    interrupt,
    read_text,
    withdraw,
)
from gridd.cli.qrsh_args import QrshError, QrshRequest, parse_qrsh
from gridd.client import CONNECT_TIMEOUT, Client, GriddError
from gridd.formats.submitted import submitted_line
from gridd.manual import usage
from gridd.zmtp import Curve, Dealer, ZmtpError

EXIT_ERROR = 1
_INTERRUPTING = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)


def main(argv: list[str] | None = None) -> int:
    return run("qrsh", list(sys.argv[1:] if argv is None else argv))


def run(program: str, args: list[str]) -> int:
    """qrsh or qlogin (`program`) with their arguments; the exit status."""
    from nacl.bindings import crypto_box_keypair

    public, secret = crypto_box_keypair()
    try:
        req = _parse(program, args, public)
    except QrshError as exc:
        print(exc.message, file=sys.stderr)
        return exc.exit_code
    if req.help:
        sys.stdout.write(usage(program))
        return 0
    if req.verify_only:
        from gridd.cli.render_qstat import unsubmitted_detail
        from gridd.model.job import Job

        sys.stdout.write(unsubmitted_detail(Job(job_id=0, spec=req.spec, submit_time=0.0)))
        return 0
    before = {signum: signal.signal(signum, interrupt) for signum in _INTERRUPTING}
    try:
        with Client() as client:
            started = _start_pe_task(client, req, public) if req.inherit else (
                _submit_and_wait(client, req, program))
    except GriddError as exc:  # a refusal in Grid Engine's words, or an unreachable master
        print(exc.text, file=sys.stderr)
        return exc.code
    except (_Withdrawn, KeyboardInterrupt):
        return EXIT_ERROR
    finally:
        for signum, handler in before.items():
            signal.signal(signum, handler)
    try:
        return _open_session(started, req, public, secret)
    except KeyboardInterrupt:  # before the session took the signals over: execd ends the
        return EXIT_ERROR      # task its qrsh never attached to


def _parse(program: str, args: list[str], public: bytes) -> QrshRequest:
    uid, gid, home = os.getuid(), os.getgid(), home_dir()
    return parse_qrsh(
        args, program=program, environ=dict(os.environ), cwd=os.getcwd(), read_file=read_text,
        home=home, root=paths.root_dir(), user=current_user(), uid=uid,
        group=current_group(), gid=gid, host=os.uname().nodename, now=time.time(),
        session_key=public)


class _Withdrawn(Exception):
    """qrsh was interrupted while its job waited: the job is deleted."""


def _submit_and_wait(client: Client, req: QrshRequest, program: str) -> p.Started:
    reply = client.submit(req.spec)
    for line in reply.warnings:
        print(line, file=sys.stderr)
    if req.verbose:
        print(submitted_line(reply.job_id, reply.name, None), flush=True)
        print("waiting for interactive job to be scheduled ...", file=sys.stderr)
    try:
        started = client.wait_started(reply.job_id)
    except KeyboardInterrupt:
        withdraw(reply.job_id)
        print(f"\nerror: interrupted while job {reply.job_id} waited to start: the job is "
              "deleted", file=sys.stderr)
        raise _Withdrawn from None
    if req.verbose:
        print(f"Your interactive job {reply.job_id} has been successfully scheduled.\n"
              f"Establishing builtin session to host {started.host} ...", file=sys.stderr)
    return started


def _start_pe_task(client: Client, req: QrshRequest, public: bytes) -> p.Started:
    started = client.start_pe_task(p.StartPeTask(
        job_id=req.job_id, task_id=req.task_id, host=req.host, command=req.command,
        env=dict(os.environ) if req.env_all else {}, cwd=os.getcwd(), session_key=public,
        nostdin=req.nostdin))
    if req.verbose:
        print(f"Establishing builtin session to host {started.host} ...", file=sys.stderr)
    return started


def _open_session(started: p.Started, req: QrshRequest, public: bytes, secret: bytes) -> int:
    from gridd.cli.qrsh_session import Session

    curve = Curve(started.server_key, public, secret) if started.server_key else None
    try:
        conn = Dealer(started.endpoint, CONNECT_TIMEOUT, curve, identity=public)
    except (ZmtpError, TimeoutError, OSError) as exc:
        print(f"error: cannot open the session of job {started.job_id} on host "
              f"{started.host} at {started.endpoint}: {exc}", file=sys.stderr)
        return EXIT_ERROR
    with closing(conn):
        return Session(conn, started.host, pty=req.pty and not req.inherit,
                       nostdin=req.nostdin).run()


if __name__ == "__main__":
    sys.exit(main())

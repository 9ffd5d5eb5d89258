"""qsub: submit a batch job, print what Grid Engine prints, exit as it exits."""

from __future__ import annotations

import os
import signal
import sys
import time

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
from gridd.cli.failure import run_submission
from gridd.cli.qsub_args import QsubError, QsubRequest, parse_qsub
from gridd.client import Client
from gridd.formats.submitted import format_task_range, submitted_line
from gridd.manual import usage
from gridd.model.job import Job


def main(argv: list[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    try:
        req = _parse(args)
    except QsubError as exc:
        print(exc.message, file=sys.stderr)
        return exc.exit_code
    if req.help:
        sys.stdout.write(usage("qsub"))
        return 0
    if req.verify_only:  # shown, not submitted: the master is not asked
        from gridd.cli.render_qstat import unsubmitted_detail

        sys.stdout.write(unsubmitted_detail(Job(job_id=0, spec=req.spec, submit_time=0.0)))
        return 0
    def body() -> int:
        with Client() as client:
            return _submit(client, req)

    return run_submission(body)


def _parse(args: list[str]) -> QsubRequest:
    uid, gid, home = os.getuid(), os.getgid(), home_dir()
    return parse_qsub(
        args, environ=dict(os.environ), cwd=os.getcwd(), read_file=read_text, home=home,
        root=paths.root_dir(), user=current_user(), uid=uid, group=current_group(), gid=gid,
        host=os.uname().nodename, stdin_text=sys.stdin.read, now=time.time(),
    )


def _submit(client: Client, req: QsubRequest) -> int:
    reply = client.submit(req.spec)
    if isinstance(reply, p.Ok):  # -w v: verification only
        for line in reply.lines:
            print(line)
        return reply.code
    job_id = reply.job_id
    for line in reply.warnings:
        print(line, file=sys.stderr)
    if req.terse:
        print(f"{job_id}.{format_task_range(reply.array)}" if reply.array else job_id)
    else:
        print(submitted_line(job_id, reply.name, reply.array))
    sys.stdout.flush()
    if not (req.now or req.sync):
        return 0
    code = 0
    before = signal.signal(signal.SIGTERM, interrupt)  # as ^C: the job goes with qsub
    try:
        if req.now:
            code = _wait_immediate(client, job_id)
            if code:
                return code
        if req.sync:
            code = _wait_sync(client, job_id, quiet=req.terse)
    except KeyboardInterrupt:
        print("\nInterrupted!\nPlease wait while qsub shuts down.", file=sys.stderr)
        withdraw(job_id)
        return 1
    finally:
        signal.signal(signal.SIGTERM, before)
    return code


def _wait_immediate(client: Client, job_id: int) -> int:
    print("Waiting for immediate job to be scheduled.", file=sys.stderr)
    if client.wait_scheduled(job_id).started:
        print(f"\nYour immediate job {job_id} has been successfully scheduled.", file=sys.stderr)
        return 0
    print("\nYour qsub request could not be scheduled; try again later.", file=sys.stderr)
    return 1


def _wait_sync(client: Client, job_id: int, quiet: bool) -> int:
    done = client.wait(job_id)
    if done.deleted and done.exit_status == 0 and not done.signal:
        text, stream, code = f"Job {job_id} was deleted.", sys.stderr, 1
    elif done.signal:
        text, stream, code = f"Job {job_id} exited because of signal {done.signal}", sys.stderr, 1
    else:
        code = done.exit_status
        text = f"Job {job_id} exited with exit code {code}."
        stream = sys.stdout if code == 0 else sys.stderr
    if not quiet:
        print(text, file=stream)
    return code


if __name__ == "__main__":
    sys.exit(main())

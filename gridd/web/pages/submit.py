"""`/submit`: the "Submit Jobs" form. Its fields become qsub's options, which qsub's own
parser (gridd.cli.qsub_args) turns into the JobSpec it would send, as the login's user
from that user's home directory; qsub's complaints and the master's refusals are shown
with the form as it was filled in."""

from __future__ import annotations

import os
import shlex
import socket
import time
from urllib.parse import urlencode

from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import Route

from gridd import protocol as p
from gridd.cli.qsub_args import QsubError, QsubRequest, parse_qsub
from gridd.cli.render_qstat import unsubmitted_detail
from gridd.client import GriddError
from gridd.formats.submitted import submitted_line, unable_to_run
from gridd.model.job import Job
from gridd.web.accounts import account_of, reader
from gridd.web.context import call, login_of, render, state_of

FIELDS = ("command", "script", "name", "resources", "pe", "queue", "priority", "array",
          "ar")
# The checkboxes and their qsub options.
BOXES = {"hold": "-h", "cwd": "-cwd"}
# Each text field's qsub option (pe takes its name and its slots as two words).
_OPTIONS = {"name": "-N", "resources": "-l", "pe": "-pe", "queue": "-q", "priority": "-p",
            "array": "-t", "ar": "-ar"}


class FormError(Exception):
    """The form cannot be a qsub command line; the text says why."""


def qsub_argv(form: dict[str, str]) -> tuple[list[str], str]:
    """qsub's arguments for the form's fields, and the script it reads from its standard
    input (a job of the `script` field; a `command` is a binary job, -b y)."""
    argv: list[str] = []
    for field, option in _OPTIONS.items():
        value = form.get(field, "").strip()
        if value:
            argv += [option, *(value.split() if field == "pe" else [value])]
    argv += [option for box, option in BOXES.items() if form.get(box)]
    command, script = form.get("command", "").strip(), form.get("script", "")
    script = script.replace("\r\n", "\n")  # as a browser sends a textarea
    if bool(command) == bool(script.strip()):
        raise FormError("error: give either a command or a script")
    if command:
        try:
            return [*argv, "-b", "y", *shlex.split(command)], ""
        except ValueError as exc:
            raise FormError(f"error: the command line cannot be read: {exc}") from None
    return argv, script


def parse(form: dict[str, str], user: str, root: str, now: float) -> QsubRequest:
    """The request qsub makes of the form's fields, run by `user` in their home."""
    argv, script = qsub_argv(form)
    uid, gid, group, home, shell = account_of(user)
    environ = {"HOME": home, "LOGNAME": user, "USER": user, "SHELL": shell,
               "PATH": os.environ.get("PATH", "/usr/bin:/bin")}
    return parse_qsub(argv, environ=environ, cwd=home, home=home, root=root,
                      read_file=reader(uid, f"{root}/common/sge_request"), user=user,
                      uid=uid, group=group, gid=gid, host=socket.gethostname(),
                      stdin_text=lambda: script, now=now)


def _form(request: Request, values: dict[str, str], status: int = 200,
          error: str = "", shown: str = "") -> Response:
    return render(request, "submit.html", status, values=values, error=error, shown=shown)


async def submit_form(request: Request) -> Response:
    return _form(request, {})


async def submit(request: Request) -> Response:
    form = await request.form()
    values = {k: str(form.get(k, "")) for k in (*FIELDS, *BOXES)}
    try:
        req = parse(values, login_of(request).user, str(state_of(request).base), time.time())
    except FormError as exc:
        return _form(request, values, 400, str(exc))
    except QsubError as exc:
        return _form(request, values, 400, exc.message)
    if req.verify_only:  # qsub -verify in the script: shown, not submitted
        return _form(request, values, shown=unsubmitted_detail(
            Job(job_id=0, spec=req.spec, submit_time=0.0)))
    try:
        reply = await call(request, lambda client: client.submit(req.spec))
    except GriddError as exc:
        return _form(request, values, 400, unable_to_run(exc.text))
    if isinstance(reply, p.Ok):  # -w v: verified, not submitted
        return _form(request, values, 400 if reply.code else 200, shown="\n".join(reply.lines))
    done = "\n".join([*reply.warnings, submitted_line(reply.job_id, reply.name, reply.array)])
    return RedirectResponse(f"/jobs?{urlencode({'done': done})}", status_code=303)


ROUTES = [
    Route("/submit", submit_form, methods=["GET"]),
    Route("/submit", submit, methods=["POST"]),
]

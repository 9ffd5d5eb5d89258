"""qrsh's whole run against a stand-in master and execd: what it says with -verbose, a
refusal in the master's words, and qrsh -inherit's request."""

from __future__ import annotations

import os
import signal
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import zmq

from gridd import protocol as p
from gridd import session as s
from gridd.cli import qlogin, qrsh
from tests.session_standins import Execd, Master


@pytest.fixture
def ctx() -> Iterator[zmq.Context]:
    context = zmq.Context()
    yield context
    context.term()


def _exit_7(msg: s.FromClient, got: list[s.FromClient]) -> list[s.FromExecd]:
    if isinstance(msg, s.InputEnd):
        return [s.Output(fd=1, data=b"out\n"), s.Output(fd=2, data=b"err\n"),
                s.Exit(status=7)]
    return []


@pytest.fixture
def cell(ctx: zmq.Context, tmp_path: Path, monkeypatch) -> Iterator[tuple[Master, Execd]]:
    monkeypatch.setenv("GRIDD_ROOT", str(tmp_path))
    execd = Execd(ctx, _exit_7)
    master = Master(ctx, tmp_path, started=p.Started(
        job_id=1, task_id=0, host="node1", endpoint=execd.endpoint, server_key=execd.public))
    execd.start()
    master.start()
    yield master, execd
    execd.stop()
    master.stop()


def test_verbose_says_what_8_1_9_says_and_the_exit_status_is_the_tasks(cell, capfd) -> None:
    master, execd = cell
    assert qrsh.main(["-verbose", "-nostdin", "-now", "n", "echo out; exit 7"]) == 7
    out, err = capfd.readouterr()
    assert out == 'Your job 1 ("echo") has been submitted\nout\n'
    assert err == ("waiting for interactive job to be scheduled ...\n"
                   "Your interactive job 1 has been successfully scheduled.\n"
                   "Establishing builtin session to host node1 ...\nerr\n")
    spec = next(m for m in master.got if isinstance(m, p.Submit)).spec
    assert (spec.immediate, spec.interactive, spec.pty) == (False, "qrsh", False)
    assert any(isinstance(m, p.WaitStarted) and m.job_id == 1 for m in master.got)


def test_quiet_by_default(cell, capfd) -> None:
    assert qrsh.main(["-nostdin", "true"]) == 7
    assert capfd.readouterr() == ("out\n", "err\n")


def test_a_refusal_is_printed_as_the_master_words_it(cell, capfd) -> None:
    master, _ = cell
    master.refusal = p.Error(text='Your "qrsh" request could not be scheduled, try again '
                                  "later.", code=1)
    assert qrsh.main(["true"]) == 1
    assert capfd.readouterr() == (
        "", 'Your "qrsh" request could not be scheduled, try again later.\n')


def test_qlogin_is_verbose(cell, capfd) -> None:
    master, _ = cell
    master.refusal = p.Error(text='Your "qlogin" request could not be scheduled, try again '
                                  "later.", code=1)
    assert qlogin.main([]) == 1
    out, err = capfd.readouterr()
    assert out == 'Your job 1 ("QLOGIN") has been submitted\n'
    assert err.splitlines() == ["waiting for interactive job to be scheduled ...",
                                'Your "qlogin" request could not be scheduled, try again '
                                "later."]


def test_inherit_asks_for_a_task_of_the_job(cell, capfd, monkeypatch) -> None:
    master, execd = cell
    monkeypatch.setenv("JOB_ID", "12")
    monkeypatch.setenv("SGE_TASK_ID", "undefined")
    assert qrsh.main(["-inherit", "-nostdin", "-V", "node1", "orted", "-x"]) == 7
    (request,) = [m for m in master.got if isinstance(m, p.StartPeTask)]
    assert (request.job_id, request.task_id, request.host, request.command) == (
        12, 0, "node1", ["orted", "-x"])
    assert request.nostdin and request.env["JOB_ID"] == "12" and request.cwd == os.getcwd()
    assert request.session_key in execd.identities
    assert not any(isinstance(m, p.Submit) for m in master.got)


def test_a_session_that_cannot_open_is_an_error(cell, capfd) -> None:
    master, _ = cell
    master.started = p.Started(job_id=1, task_id=0, host="node1",
                               endpoint="tcp://127.0.0.1:1")
    assert qrsh.main(["-nostdin", "true"]) == 1
    assert capfd.readouterr().err.startswith(
        "error: cannot open the session of job 1 on host node1 at tcp://127.0.0.1:1: ")


def test_interrupted_while_waiting_the_job_is_deleted(cell, capfd) -> None:
    master, _ = cell
    master.hold = True

    def interrupt() -> None:
        deadline = time.monotonic() + 10
        while not any(isinstance(m, p.WaitStarted) for m in master.got):
            if time.monotonic() > deadline:
                return
            time.sleep(0.01)
        os.kill(os.getpid(), signal.SIGINT)

    threading.Thread(target=interrupt, daemon=True).start()
    assert qrsh.main(["-now", "n", "true"]) == 1
    assert capfd.readouterr().err == ("\nerror: interrupted while job 1 waited to start: the "
                                      "job is deleted\n")
    (delete,) = [m for m in master.got if isinstance(m, p.Delete)]
    assert delete.targets == ["1"]


def test_a_session_key_execd_does_not_hold_is_refused(ctx, cell, capfd) -> None:
    """execd's ZAP handler lets in only the keys of the sessions it holds."""
    from zmq.auth.thread import ThreadAuthenticator

    from tests.session_standins import KeyGate

    auth = ThreadAuthenticator(ctx)
    auth.start()
    try:
        auth.configure_curve_callback("*", credentials_provider=KeyGate(bytes(32)))
        assert qrsh.main(["-nostdin", "true"]) == 1
    finally:
        auth.stop()
    err = capfd.readouterr().err
    assert err.startswith("error: cannot open the session of job 1 on host node1 at ")
    assert "this client's key is not authorized" in err

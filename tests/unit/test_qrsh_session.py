"""qrsh's session loop (gridd.cli.qrsh_session) against a stand-in execd: streams both
ways, the end of input, signals forwarded, the exit status, a session gone silent."""

from __future__ import annotations

import os
import signal
from collections.abc import Iterator
from contextlib import closing

import pytest
import zmq

from gridd import session as s
from gridd.cli.qrsh_session import EXIT_LOST, Session, _is_open
from gridd.zmtp import Curve, Dealer
from tests.session_standins import Execd, Script


@pytest.fixture
def ctx() -> Iterator[zmq.Context]:
    context = zmq.Context()
    yield context
    context.term()


def _session(ctx: zmq.Context, script: Script, stdin: bytes | None, capfd=None,
             curve: bool = True, **kw) -> tuple[int, Execd]:
    execd = Execd(ctx, script, curve=curve)
    execd.start()
    public, secret = zmq.curve_keypair()
    from zmq.utils import z85

    own = z85.decode(public)
    keys = Curve(execd.public, own, z85.decode(secret)) if curve else None
    read, write = os.pipe()
    if stdin is not None:
        os.write(write, stdin)
        os.close(write)
    try:
        with closing(Dealer(execd.endpoint, 5, keys, identity=own)) as conn:
            status = Session(conn, "node1", pty=False, stdin=read, **kw).run()
    finally:
        os.close(read)
        if stdin is None:
            os.close(write)
        execd.stop()
    assert execd.identities == {own}
    return status, execd


def _echo_then_exit(msg: s.FromClient, got: list[s.FromClient]) -> list[s.FromExecd]:
    """A task that echoes its input on fd 1, says 'err' on fd 2 and exits 3 once its
    input ended."""
    if isinstance(msg, s.Input):
        return [s.Output(fd=1, data=msg.data)]
    if isinstance(msg, s.InputEnd):
        return [s.Output(fd=2, data=b"err\n"), s.Exit(status=3)]
    return []


@pytest.mark.parametrize("curve", [True, False])
def test_input_goes_out_output_comes_back_and_the_status_is_the_tasks(
        ctx: zmq.Context, capfd, curve: bool) -> None:
    status, execd = _session(ctx, _echo_then_exit, b"hello\n", curve=curve)
    out, err = capfd.readouterr()
    assert (status, out, err) == (3, "hello\n", "err\n")
    assert isinstance(execd.got[0], s.Alive)
    assert isinstance(execd.got[-1], s.InputEnd)
    assert b"".join(m.data for m in execd.got if isinstance(m, s.Input)) == b"hello\n"


def test_nostdin_ends_the_input_at_once(ctx: zmq.Context, capfd) -> None:
    status, execd = _session(ctx, _echo_then_exit, None, nostdin=True)
    assert status == 3
    assert [type(m) for m in execd.got] == [s.Alive, s.InputEnd]


def test_signals_are_forwarded_to_the_task(ctx: zmq.Context, capfd) -> None:
    def script(msg: s.FromClient, got: list[s.FromClient]) -> list[s.FromExecd]:
        if isinstance(msg, s.Alive) and len(got) == 1:
            os.kill(os.getpid(), signal.SIGINT)
        if isinstance(msg, s.Signal) and msg.signum == signal.SIGINT:
            os.kill(os.getpid(), signal.SIGTERM)
        if isinstance(msg, s.Signal) and msg.signum == signal.SIGTERM:
            return [s.Exit(status=128 + signal.SIGTERM, signal="SIGTERM")]
        return []

    before = signal.getsignal(signal.SIGINT)
    status, execd = _session(ctx, script, None)
    assert status == 143
    assert [m.signum for m in execd.got if isinstance(m, s.Signal)] == [signal.SIGINT,
                                                                        signal.SIGTERM]
    assert signal.getsignal(signal.SIGINT) is before  # handlers restored


def test_an_exit_with_an_error_says_it(ctx: zmq.Context, capfd) -> None:
    def script(msg: s.FromClient, got: list[s.FromClient]) -> list[s.FromExecd]:
        return [s.Exit(status=1, error="error: cannot start \"nosuch\"")]

    status, _ = _session(ctx, script, None)
    assert (status, capfd.readouterr().err) == (1, 'error: cannot start "nosuch"\n')


def test_a_silent_execd_is_lost_and_qrsh_kept_itself_alive(ctx: zmq.Context, capfd) -> None:
    status, execd = _session(ctx, lambda msg, got: [], None, alive_every=0.05,
                             lost_after=0.5)
    assert status == EXIT_LOST
    assert capfd.readouterr().err == ("error: lost the connection to host node1: nothing "
                                      "heard for 0.5 s\n")
    assert sum(isinstance(m, s.Alive) for m in execd.got) >= 3


def test_an_execd_that_closes_is_lost(ctx: zmq.Context, capfd) -> None:
    def script(msg: s.FromClient, got: list[s.FromClient]) -> list[s.FromExecd]:
        return [s.Output(fd=1, data=b"x")]

    execd = Execd(ctx, script)
    execd.start()
    public, secret = zmq.curve_keypair()
    from zmq.utils import z85

    own = z85.decode(public)
    with closing(Dealer(execd.endpoint, 5, Curve(execd.public, own, z85.decode(secret)),
                        identity=own)) as conn:
        execd.stop()  # gone after answering the first Alive: its socket closes
        status = Session(conn, "node1", pty=False, nostdin=True, alive_every=0.05,
                         lost_after=5).run()
    assert status == EXIT_LOST
    assert "error: lost the connection to host node1" in capfd.readouterr().err


def test_a_closed_stdin_is_no_input(ctx: zmq.Context, capfd) -> None:
    """`qrsh cmd <&-`: there is nothing to select on."""
    closed = next(fd for fd in range(900, 1000) if not _is_open(fd))
    execd = Execd(ctx, _echo_then_exit, curve=False)
    execd.start()
    try:
        with closing(Dealer(execd.endpoint, 5, identity=b"k" * 32)) as conn:
            status = Session(conn, "node1", pty=False, stdin=closed).run()
    finally:
        execd.stop()
    assert status == 3
    assert [type(m) for m in execd.got] == [s.Alive, s.InputEnd]

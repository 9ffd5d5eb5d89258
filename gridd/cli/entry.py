"""Console-script entry points.

Each command's ``main`` returns its exit code; here the process then ends with
``os._exit`` once the output is flushed, skipping the interpreter's teardown of every
imported module, which costs a short-lived command like qsub a noticeable share of its
run time. Daemons (``gridd master``/``execd``) go through the same path only after
their own clean shutdown has run inside ``main``.
"""

from __future__ import annotations

import os
import sys


def _run(command: str) -> None:
    from gridd.cli import quick

    code = quick.run(command, sys.argv[1:])
    if code is None:
        _import_msgspec()
        # __import__, not importlib.import_module: the importlib package (and warnings,
        # which it loads) would be one more import on every command's path
        code = __import__(f"gridd.cli.{command}", fromlist=["main"]).main()
    _exit(code)


def _exit(code: int) -> None:
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except BrokenPipeError:  # the reader went away, e.g. `qstat | head -1`
        pass
    os._exit(code)


def _import_msgspec() -> None:
    """Import msgspec without typing_extensions, which its _utils takes get_type_hints
    from when it can: that import loads inspect, ast, dis and tokenize (a fifth of a q*
    command's start-up), and on Python 3.11 and later, asked with include_extras as
    msgspec asks, it is typing.get_type_hints itself, which msgspec falls back to. A
    process that already has typing_extensions keeps it."""
    if "msgspec" in sys.modules or "typing_extensions" in sys.modules:
        return
    sys.modules["typing_extensions"] = None  # type: ignore[assignment]  # ImportError
    try:
        import msgspec  # noqa: F401
    finally:
        del sys.modules["typing_extensions"]


def gridd() -> None:
    _run("gridd_cmd")


def qsub() -> None:
    _run("qsub")


def qstat() -> None:
    _run("qstat")


def qdel() -> None:
    _run("qdel")


def qalter() -> None:
    _run("qalter")


def qhold() -> None:
    _run("qhold")


def qrls() -> None:
    _run("qrls")


def qhost() -> None:
    _run("qhost")


def qacct() -> None:
    from gridd.cli import qacct_quick  # from the accounting file, before any connection

    code = qacct_quick.answer(sys.argv[1:])
    if code is not None:
        _exit(code)
    _run("qacct")


def qconf() -> None:
    _run("qconf")


def qmod() -> None:
    _run("qmod")


def qquota() -> None:
    _run("qquota")


def qrsub() -> None:
    _run("qrsub")


def qrstat() -> None:
    _run("qrstat")


def qrdel() -> None:
    _run("qrdel")


def qselect() -> None:
    _run("qselect")


def qresub() -> None:
    _run("qresub")


def qrsh() -> None:
    _run("qrsh")


def qlogin() -> None:
    _run("qlogin")

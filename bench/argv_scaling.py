"""How each command's time grows with the number of words on its command line.

Every q* command runs in-process on command lines of 2^12 to 2^17 words, made by
repeating options that add up (-ar, -u, -l, -hold_jid, -ac, job ids, ...), with a
stand-in for the master: the request is built and framed as for the socket, and answered
with an empty reply of its kind (qconf's by the master's own run_qconf on a fresh
two-host cell). A figure is the best of three runs' CPU time (other processes on a
shared machine disturb it less than wall time); the last column is the ratio per
doubling of the words at the largest size reached: 2 is linear, 4 quadratic. A size is
not tried once a run of the one before took more than LIMIT seconds. Commands named on
the command line are the only ones run (`argv_scaling.py qconf qrstat`).
"""

from __future__ import annotations

import contextlib
import io
import itertools
import os
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from types import ModuleType
from unittest import mock

from _cell import SMOKE

from gridd import protocol as p
from gridd.cli import (
    common,
    qacct,
    qalter,
    qconf,
    qdel,
    qhold,
    qhost,
    qmod,
    qquota,
    qrdel,
    qresub,
    qrls,
    qrstat,
    qselect,
    qstat,
)
from gridd.cli.qrsub_args import parse_qrsub
from gridd.cli.qsub_args import parse_qsub
from gridd.client import Client
from gridd.master.admin import Caller, run_qconf
from gridd.master.bootstrap import CellConfig, initial_config
from gridd.master.state import MasterState
from gridd.model.config import Configuration

SIZES = [2**k for k in range(4, 6)] if SMOKE else [2**k for k in range(12, 18)]
LIMIT = 5.0  # seconds: a case whose run took longer is not tried at the next size
NOW = 1_795_327_142.0


class _StandIn(Client):
    """A Client whose socket is a fixed answer: each request is framed as if sent (its
    encoding counts), counted, and answered empty; qconf's go to run_qconf."""

    asked = 0
    config = MasterState().config

    def __init__(self, *args: object, **kwargs: object) -> None:
        self.endpoint = "stand-in"
        self._rid = 0
        self._answer: p.Msg = p.Ok()

    def close(self) -> None:
        pass

    def _send(self, msg: p.Msg) -> int:
        self._frame(msg)
        type(self).asked += 1
        self._answer = _answer(msg, type(self).config)
        return self._rid

    def _recv(self, rid: int, timeout: float | None = None) -> p.Msg:
        return self._answer


def _answer(msg: p.Msg, config: Configuration) -> p.Msg:
    if isinstance(msg, p.QueryJobs):
        return p.JobsReply(jobs=[], queues=[], hosts=[], now=NOW)
    if isinstance(msg, p.QueryArs):
        return p.ArsReply(ars=[], now=NOW)
    if isinstance(msg, p.QueryQuota):
        return p.QuotaReply()
    if isinstance(msg, p.SelectQueues):
        return p.QueuesSelected(names=["all.q@node1"])
    if isinstance(msg, p.Qconf):
        ans = run_qconf(config, msg.argv, Caller("root", "vm", msg.files))
        return p.QconfReply(out=ans.out, err=ans.err, code=ans.code)
    return p.Ok()


@dataclass(frozen=True)
class Case:
    command: str
    what: str  # what is repeated
    build: Callable[[int], list[str]]  # a command line of about n words
    run: Callable[[list[str]], object]


def repeat(unit: Callable[[int], list[str]], tail: tuple[str, ...] = ()
           ) -> Callable[[int], list[str]]:
    """Whole repetitions of unit(0), unit(1), ... up to n words with the tail after."""

    def build(n: int) -> list[str]:
        out: list[str] = []
        for i in itertools.count():
            words = unit(i)
            if len(out) + len(words) + len(tail) > n:
                return out + list(tail)
            out += words
        raise AssertionError("unreachable")

    return build


def _main(module: ModuleType) -> Callable[[list[str]], object]:
    """The command's main, quiet; it must have taken the line and asked the master."""

    def run(argv: list[str]) -> object:
        asked = _StandIn.asked
        err = io.StringIO()
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
            code = module.main(argv)
        if _StandIn.asked == asked:
            raise RuntimeError(f"{module.__name__} refused the line ({code}): "
                               f"{err.getvalue()[-300:]}")
        return code

    return run


def _qsub(argv: list[str]) -> object:
    return parse_qsub(argv, environ={"HOME": "/home/ann"}, cwd="/work",
                      read_file=lambda path: None, home="/home/ann", root="/gridd", user="ann",
                      uid=1001, group="staff", gid=50, host="node1", stdin_text=str, now=NOW)


def _qrsub(argv: list[str]) -> object:
    return parse_qrsub(argv, now=NOW, root="/gridd", home="/home/ann",
                       read_file=lambda path: None, owner="ann", group="staff")


def _qconf(argv: list[str]) -> object:
    """qconf on a fresh cell each time, the master's part included."""
    state = MasterState()
    initial_config(state, CellConfig(hosts=["node1", "node2"], slots=2))
    _StandIn.config = state.config
    return _main(qconf)(argv)


CASES = [
    Case("qsub", "-hold_jid -hold_jid_ad -l -ac -M -q -v",
         repeat(lambda i: ["-hold_jid", str(i), "-hold_jid_ad", str(i), "-l", f"r{i}=1",
                           "-ac", f"c{i}=1", "-M", f"u{i}@h", "-q", f"q{i}", "-v", f"V{i}=1"],
                ("-b", "y", "true")), _qsub),
    Case("qalter", "-ac -l -q",
         repeat(lambda i: ["-ac", f"c{i}=1", "-l", f"r{i}=1", "-q", "all.q"], ("1",)),
         _main(qalter)),
    Case("qalter", "job ids", repeat(lambda i: [str(i + 1)], ("-N", "x")), _main(qalter)),
    Case("qrsub", "-u -l -M -q",
         repeat(lambda i: ["-u", f"u{i}", "-l", f"r{i}=1", "-M", f"u{i}@h", "-q", f"q{i}"],
                ("-d", "1:0:0")), _qrsub),
    Case("qhold", "-h job.tasks", repeat(lambda i: ["-h", "u", f"{i + 1}.1-3"]), _main(qhold)),
    Case("qrls", "job ids", repeat(lambda i: [str(i + 1)]), _main(qrls)),
    Case("qresub", "job ids", repeat(lambda i: [str(i + 1)]), _main(qresub)),
    Case("qdel", "-u job ids", repeat(lambda i: ["-u", f"u{i}", str(i + 1)]), _main(qdel)),
    Case("qrdel", "-u ar ids", repeat(lambda i: ["-u", f"u{i}", str(i + 1)]), _main(qrdel)),
    Case("qstat", "-u -q -l -j -f",
         repeat(lambda i: ["-u", f"u{i}", "-q", "all.q", "-l", "a=1", "-j", str(i), "-f"]),
         _main(qstat)),
    Case("qrstat", "-ar -u", repeat(lambda i: ["-ar", str(i + 1), "-u", f"u{i}"]),
         _main(qrstat)),
    Case("qselect", "-q -l -U", repeat(lambda i: ["-q", "all.q", "-l", "a=1", "-U", f"u{i}"]),
         _main(qselect)),
    Case("qmod", "-d -e", repeat(lambda i: ["-d", f"q{i}", "-e", f"q{i}"]), _main(qmod)),
    Case("qmod", "-d queue ...", repeat(lambda i: ["-d", "q0"] if i == 0 else [f"q{i}"]),
         _main(qmod)),
    Case("qhost", "-h -F -u -q", repeat(lambda i: ["-h", f"n{i}", "-F", "-u", f"u{i}", "-q"]),
         _main(qhost)),
    Case("qquota", "-u -h -l", repeat(lambda i: ["-u", f"u{i}", "-h", f"n{i}", "-l", "slots"]),
         _main(qquota)),
    Case("qacct", "-o -j -q",
         repeat(lambda i: ["-o", f"u{i}", "-j", str(i + 1), "-q", "all.q"]),
         lambda argv: qacct.parse_args(argv, NOW)),
    Case("qconf", "-sm -sq -su", repeat(lambda i: ["-sm", "-sq", "all.q", "-su", "arusers"]),
         _qconf),
    Case("qconf", "-aattr (refused)",
         repeat(lambda i: ["-aattr", "queue", "user_lists", f"l{i}", "all.q"]), _qconf),
    Case("qconf", "-am (a list of n names)",
         lambda n: ["-am", ",".join(f"u{i}" for i in range(n))], _qconf),
    Case("qconf", "-am", repeat(lambda i: ["-am", f"u{i}"]), _qconf),
    Case("qconf", "-am then -dm", lambda n: [
        *(word for i in range(n // 4) for word in ("-am", f"u{i}")),
        *(word for i in range(n // 4) for word in ("-dm", f"u{i}"))], _qconf),
]


def best_of(run: Callable[[], object], times: int) -> float:
    best = float("inf")
    for _ in range(times):
        started = time.process_time()
        run()
        best = min(best, time.process_time() - started)
    return best


@contextlib.contextmanager
def no_cell() -> Iterator[None]:
    """GRIDD_ROOT and HOME in an empty directory (no default files), and the stand-in
    master in place of the real one."""
    with tempfile.TemporaryDirectory(prefix="argv-scaling-") as tmp, \
            mock.patch.dict(os.environ, {"GRIDD_ROOT": tmp, "HOME": tmp}), \
            contextlib.ExitStack() as stack:
        for module in (common, qalter, qconf, qhost, qmod, qquota, qrstat, qselect, qstat):
            stack.enter_context(mock.patch.object(module, "Client", _StandIn))
        yield


def measure(case: Case) -> list[float]:
    seconds: list[float] = []
    for n in SIZES:
        if seconds and seconds[-1] > LIMIT:
            break
        argv = case.build(n)
        seconds.append(best_of(lambda: case.run(list(argv)),  # noqa: B023 (run at once)
                               1 if seconds and seconds[-1] > LIMIT / 5 else 3))
    return seconds


def main(commands: list[str] | None = None) -> dict[str, float | None]:
    """The table for the cases of these commands (all by default), and its ratios."""
    print(f"{'command':<8} {'repeated':<38}" + "".join(f"{n:>9,}" for n in SIZES)
          + "   x per doubling")
    figures: dict[str, float | None] = {}
    with no_cell():
        for case in CASES:
            if commands and case.command not in commands:
                continue
            seconds = measure(case)
            ratio = seconds[-1] / seconds[-2] if len(seconds) > 1 and seconds[-2] > 0 else None
            shown = "".join(f"{s:>9.3f}" for s in seconds).ljust(9 * len(SIZES))
            print(f"{case.command:<8} {case.what:<38}{shown}   "
                  f"{'-' if ratio is None else f'{ratio:.1f}'}", flush=True)
            figures[f"{case.command} {case.what}"] = ratio
    return figures


if __name__ == "__main__":
    main([arg for arg in sys.argv[1:] if arg != "--smoke"])

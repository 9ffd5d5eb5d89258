"""The long fuzz run: every target of tests/fuzz for 100,000 inputs or more each.

The suite runs each target for a hundred-odd hypothesis inputs; this runs the same
targets (the protocol decoder, every Lark grammar and value syntax, every command line)
long enough to matter. Per target, a few thousand inputs come from the target's
hypothesis strategy, which alone builds the structured ones (whole protocol messages of
every type, wrong shapes, deep nesting); they join the seeds as the corpus, and the rest
of the inputs are corpus entries mutated by the same code the suite uses, driven by
random.Random, about fifty times faster than hypothesis's engine. Every input runs under
an alarm: one that takes longer than --timeout counts as a hang.

With atheris installed (`pip install atheris`), the decoder also gets a coverage-guided
run of the same number of inputs (bench/fuzz_atheris.py, in a process of its own since
libFuzzer ends the process). --scaling times each text parser on inputs of 1 KB to
64 KB of awkward patterns and reports how its time grows: a parser that doubles its time
per doubling of input is linear, one that quadruples it is quadratic.

    python bench/fuzz.py [--inputs N] [--only NAME ...] [--seed S] [--timeout SECONDS]
                         [--no-atheris] [--scaling]

Prints per target: inputs run, seconds, inputs/s, the slowest input's time ("max ms")
and that input timed again ("again": a pause of a shared machine, or a slow parse?),
and failures found (0 expected); then each failure's first input and traceback. Exits 1
if there was any.
"""

from __future__ import annotations

import argparse
import math
import re
import signal
import subprocess
import sys
import tempfile
import time
import traceback
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # tests.fuzz

from hypothesis import HealthCheck, Phase, given, settings  # noqa: E402
from hypothesis import seed as hypothesis_seed  # noqa: E402

from tests.fuzz.mutate import RandomChooser  # noqa: E402
from tests.fuzz.targets import Target, all_targets  # noqa: E402

ATHERIS_RUNNER = Path(__file__).resolve().parent / "fuzz_atheris.py"


class Hang(BaseException):
    """An input ran past --timeout (a BaseException, so `except Exception` can't eat it)."""


@contextmanager
def alarm(seconds: float) -> Iterator[None]:
    def ring(signum: int, frame: object) -> None:
        raise Hang(f"no answer within {seconds:g} s")

    previous = signal.signal(signal.SIGALRM, ring)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


@dataclass
class Outcome:
    """What one target's run found."""

    name: str
    inputs: int = 0
    seconds: float = 0.0
    slowest: float = 0.0  # the slowest input's time in the run
    slowest_again: float = 0.0  # the same input timed again (best of 3): noise or not
    slowest_input: Any = None
    failures: dict[tuple[str, str], tuple[Any, str]] = field(default_factory=dict)
    count_failed: int = 0

    @property
    def rate(self) -> float:
        return self.inputs / self.seconds if self.seconds else 0.0


class Runner:
    """Runs inputs of one target, timing each and keeping the first input of each
    distinct failure (by exception type and the line that raised it)."""

    def __init__(self, target: Target, timeout: float) -> None:
        self.target = target
        self.timeout = timeout
        self.outcome = Outcome(target.name)

    def run(self, value: Any) -> None:
        started = time.perf_counter()
        try:
            with alarm(self.timeout):
                self.target.check(value)
        except (Exception, Hang) as exc:
            self.outcome.count_failed += 1
            where = traceback.extract_tb(exc.__traceback__)[-1]
            key = (type(exc).__name__, f"{where.filename}:{where.lineno}")
            if key not in self.outcome.failures:
                self.outcome.failures[key] = (value, "".join(
                    traceback.format_exception(type(exc), exc, exc.__traceback__)[-6:]))
        spent = time.perf_counter() - started
        self.outcome.inputs += 1
        if spent > self.outcome.slowest:
            self.outcome.slowest, self.outcome.slowest_input = spent, value

    def time_slowest_again(self) -> None:
        """A slow input on a shared machine may be a pause of the machine's; timing it
        again tells a slow parse from that."""
        best = math.inf
        for _ in range(3):
            started = time.perf_counter()
            try:
                with alarm(self.timeout):
                    self.target.check(self.outcome.slowest_input)
            except (Exception, Hang):
                pass
            best = min(best, time.perf_counter() - started)
        self.outcome.slowest_again = best


def from_hypothesis(target: Target, count: int, seed: int,
                    each: Callable[[Any], None]) -> None:
    """`count` inputs from the target's strategy, no shrinking, no example database."""

    @hypothesis_seed(seed)
    @settings(max_examples=count, phases=[Phase.generate], database=None, deadline=None,
              suppress_health_check=list(HealthCheck))
    @given(target.strategy())
    def one(value: Any) -> None:
        each(value)

    one()


def fuzz(target: Target, inputs: int, seed: int, timeout: float) -> Outcome:
    """`inputs` inputs: a hypothesis share that also grows the corpus, then mutations."""
    runner = Runner(target, timeout)
    corpus: list[Any] = list(target.seeds)
    started = time.perf_counter()
    with target.sandbox():
        drawn = min(3000, max(inputs // 30, 1))

        def keep(value: Any) -> None:
            runner.run(value)
            corpus.append(value)

        while runner.outcome.inputs < drawn:  # hypothesis may stop early on small spaces
            before = runner.outcome.inputs
            from_hypothesis(target, drawn - before, seed + before, keep)
            if runner.outcome.inputs == before:
                break
        c = RandomChooser(seed)
        value = c.choice(corpus)
        while runner.outcome.inputs < inputs:
            pick = c.integer(0, 15)
            if pick == 0:
                value = target.fresh(c)
            elif pick < 5:  # keep walking away from the last input
                value = target.mutate(value, c)
            else:
                value = target.mutate(c.choice(corpus), c)
            runner.run(value)
        runner.outcome.seconds = time.perf_counter() - started
        runner.time_slowest_again()
    return runner.outcome


def atheris_decoder(inputs: int, seed: int, timeout: float) -> Outcome | str:
    """The decoder under atheris (libFuzzer) in a process of its own; the reason when it
    cannot run."""
    try:
        import atheris  # noqa: F401
    except ImportError:
        return "atheris is not installed (pip install atheris): skipped"
    outcome = Outcome("protocol.decode (atheris, coverage-guided)")
    with tempfile.TemporaryDirectory(prefix="gridd-atheris-") as tmp:
        started = time.perf_counter()
        proc = subprocess.run(
            [sys.executable, str(ATHERIS_RUNNER), f"-runs={inputs}", f"-seed={seed}",
             f"-timeout={max(1, math.ceil(timeout))}", "-max_len=65536", "-rss_limit_mb=4096",
             f"-artifact_prefix={tmp}/", f"{tmp}/corpus"],
            capture_output=True, text=True, errors="replace", check=False)
        outcome.seconds = time.perf_counter() - started
    done = re.search(r"Done (\d+) runs in", proc.stderr)
    outcome.inputs = int(done.group(1)) if done else 0
    if proc.returncode != 0 or not done:
        outcome.count_failed = 1
        outcome.failures[("libFuzzer", f"exit {proc.returncode}")] = (None, proc.stderr[-3000:])
    return outcome


# ---- scaling -------------------------------------------------------------------------------

SIZES = [2**k for k in range(10, 17)]  # 1 KB .. 64 KB


def _patterns(target: Target) -> dict[str, Callable[[int], Any]]:
    """Inputs of a given size in characters (words, for command lines): the target's own
    long values, and what is awkward for any parser: one character or token repeated,
    blanks, continuation lines, the seeds repeated."""
    return {**target.scale, **_generic_patterns(target)}


def _generic_patterns(target: Target) -> dict[str, Callable[[int], Any]]:
    seed = target.seeds[0]
    if isinstance(seed, bytes):
        body = b"".join(target.seeds)
        return {"seeds repeated": lambda n: (body * (n // len(body) + 1))[:n],
                "nested arrays": lambda n: b"\x91" * n + b"\xc0",
                "array32 of nils": lambda n: b"\xdd\xff\xff\xff\xff" + b"\xc0" * n}
    if isinstance(seed, str):
        body = "\n".join(target.seeds)
        out: dict[str, Callable[[int], Any]] = {
            "seeds repeated": lambda n: (body * (n // len(body) + 1))[:n]}
        for piece in ("a", " ", ",", "[", "{", "=", ":", "\\\n", "#", "\n", "a ", "a,", "[a=b],",
                      "1", "$a*", "@"):
            out[f"{piece!r} repeated"] = lambda n, piece=piece: piece * (n // len(piece))
        return out
    argv, files = seed.argv, seed.files
    return {"argv of one word repeated": lambda n: type(seed)(["1"] * n, dict(files)),
            "seed argv repeated": lambda n: type(seed)((argv * (n // max(len(argv), 1) + 1))[:n],
                                                       dict(files))}


def _time(target: Target, value: Any) -> float:
    best = math.inf
    for _ in range(3):
        started = time.perf_counter()
        try:
            target.check(value)
        except Exception:  # scaling is about time; findings are the fuzz run's business
            pass
        best = min(best, time.perf_counter() - started)
    return best


def scaling(target: Target) -> tuple[str, float, float]:
    """(worst pattern, its growth exponent between 32 KB and 64 KB, seconds at 64 KB)."""
    worst = ("", 0.0, 0.0)
    with target.sandbox():
        for name, make in _patterns(target).items():
            times = [_time(target, make(size)) for size in SIZES]
            if times[-1] < 0.002:  # too fast to tell anything from noise
                continue
            exponent = math.log2(times[-1] / max(times[-2], 1e-9))
            if exponent > worst[1] or not worst[0]:
                worst = (name, exponent, times[-1])
    return worst


# ---- the report ----------------------------------------------------------------------------


def print_row(outcome: Outcome) -> None:
    timed = outcome.slowest_input is not None  # libFuzzer times its inputs itself
    slowest = f"{outcome.slowest * 1000:.1f}" if timed else "-"
    again = f"{outcome.slowest_again * 1000:.1f}" if timed else "-"
    print(f"{outcome.name[:50]:<50} {outcome.inputs:>9,} {outcome.seconds:>7.1f} "
          f"{outcome.rate:>8,.0f} {slowest:>7} {again:>7} {outcome.count_failed:>8}",
          flush=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--inputs", type=int, default=100_000, help="per target")
    parser.add_argument("--only", nargs="*", default=[], help="targets whose name has this")
    parser.add_argument("--seed", type=int, default=20240601)
    parser.add_argument("--timeout", type=float, default=5.0, help="seconds per input")
    parser.add_argument("--no-atheris", action="store_true")
    parser.add_argument("--scaling", action="store_true", help="also time 1-64 KB inputs")
    parser.add_argument("--smoke", action="store_true", help="20 inputs a target")
    args = parser.parse_args(argv)
    if args.smoke:
        args.inputs, args.no_atheris = 20, True
    targets = [t for t in all_targets() if not args.only or any(n in t.name for n in args.only)]

    print(f"{'target':<50} {'inputs':>9} {'seconds':>7} {'inputs/s':>8} {'max ms':>7} "
          f"{'again':>7} {'failures':>8}")
    outcomes = []
    for target in targets:
        outcomes.append(fuzz(target, args.inputs, args.seed, args.timeout))
        print_row(outcomes[-1])
    if not args.no_atheris and (not args.only or any(n in "protocol.decode" for n in args.only)):
        result = atheris_decoder(args.inputs, args.seed, args.timeout)
        if isinstance(result, str):
            print(result)
        else:
            outcomes.append(result)
            print_row(result)
    total = sum(o.inputs for o in outcomes)
    seconds = sum(o.seconds for o in outcomes)
    failed = sum(o.count_failed for o in outcomes)
    print(f"{'all ' + str(len(outcomes)) + ' runs':<50} {total:>9,} {seconds:>7.1f} "
          f"{total / seconds if seconds else 0:>8,.0f} {'':>7} {'':>7} {failed:>8}")

    for outcome in outcomes:
        for (kind, where), (value, text) in outcome.failures.items():
            print(f"\n== {outcome.name}: {kind} at {where}\ninput: {value!r:.2000}\n{text}")

    if args.scaling:
        print(f"\n{'scaling (1-64 KB inputs)':<52} {'worst pattern':<24} {'growth':>7} "
              f"{'64 KB s':>8}")
        for target in targets:
            if target.name.startswith("gridd"):  # argparse: not ours, and slow to time
                continue
            name, exponent, seconds_at_64k = scaling(target)
            verdict = "  super-linear" if exponent > 1.5 else ""
            print(f"{target.name[:52]:<52} {name[:24]:<24} {exponent:>7.2f} "
                  f"{seconds_at_64k:>8.3f}{verdict}", flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

"""The protocol decoder under atheris: coverage-guided fuzzing by libFuzzer.

Run by bench/fuzz.py (which passes -runs=N and a corpus directory); by hand:

    python bench/fuzz_atheris.py -runs=100000 CORPUS_DIR

The corpus starts from one valid frame of every message type and a few hundred valid
messages drawn by tests/fuzz/wire.py, written into CORPUS_DIR when it is empty.
gridd.protocol is instrumented; msgspec is C and gives no coverage, so libFuzzer's
mutations are steered by what the Python side does with a frame (version checks, the
exception paths). A frame that makes decode raise anything but ProtocolError, or that
decodes to a message which does not survive encoding again, ends the run as a crash.
libFuzzer prints "Done N runs in S second(s)" when all went well.
"""

from __future__ import annotations

import sys
from pathlib import Path

import atheris

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # tests.fuzz

with atheris.instrument_imports(include=["gridd"]):
    from gridd import protocol

from tests.fuzz.wire import SEEDS, check_decode, messages  # noqa: E402


def write_corpus(directory: Path, count: int = 300) -> None:
    """Seeds into an empty corpus directory: minimal frames and hypothesis messages."""
    directory.mkdir(parents=True, exist_ok=True)
    if any(directory.iterdir()):
        return
    from hypothesis import HealthCheck, Phase, given, settings

    frames = list(SEEDS)

    @settings(max_examples=count, phases=[Phase.generate], database=None, deadline=None,
              suppress_health_check=list(HealthCheck))
    @given(messages)
    def draw(msg: protocol.Msg) -> None:
        frames.append(protocol.encode(msg))

    draw()
    for number, frame in enumerate(frames):
        (directory / f"seed-{number:04d}").write_bytes(frame)


def one_input(data: bytes) -> None:
    check_decode(data)


def main() -> None:
    corpora = [Path(arg) for arg in sys.argv[1:] if not arg.startswith("-")]
    for corpus in corpora[:1]:
        write_corpus(corpus)
    atheris.Setup(sys.argv, one_input)
    atheris.Fuzz()


if __name__ == "__main__":
    main()

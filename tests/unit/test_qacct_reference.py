"""qacct against what Grid Engine 8.1.9's qacct printed, byte for byte.

Every qacct command of the reference transcript (tests/data/sge-8.1.9/qacct.txt, with the
accounting file real GE wrote for it) runs twice: on the file (`-f`) and on a reporting
database loaded from it, the way qacct answers in a cell. Both must print exactly what
real qacct printed, with its exit code; pipes into grep and head are applied here.

Then the probes (tests/data/qacct): real qacct run on files made to show what the one run
of the transcript does not, each command with `-f` as it was run.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from gridd.cli.qacct import main
from gridd.manual.help_text import help_text

pytestmark = pytest.mark.usefixtures("utc")

DATA = Path(__file__).resolve().parent.parent / "data" / "sge-8.1.9"
PROBES = DATA.parent / "qacct"
ACCOUNTING = DATA / "accounting"
# When the transcript ran: after its last job ended (for `qacct -d 1`).
NOW = 1795327443


@dataclass(frozen=True)
class Expected:
    command: str
    stdout: str
    stderr: str
    code: int


def transcript(path: Path) -> list[Expected]:
    """The `$ command` blocks: `--- stdout ---`, `--- stderr ---` (each optional) and
    `--- exit code: N ---`."""
    cases = []
    for block in re.split(r"(?m)^(?=\$ )", path.read_text()):
        if not block.startswith("$ "):
            continue
        command, _, rest = block[2:].partition("\n")
        sections = dict(re.findall(r"(?ms)^--- (stdout|stderr) ---\n(.*?)(?=^--- )", rest))
        code = int(re.search(r"(?m)^--- exit code: (\d+) ---$", rest)[1])
        cases.append(Expected(command, sections.get("stdout", ""), sections.get("stderr", ""),
                              code))
    return cases


# Where gridd prints other than 8.1.9, on purpose. Real qacct's -l does not filter (a bug
# the reference lists): gridd's counts only the jobs that requested license=2 (5 and 47).
CORRECTED = {
    "qacct -l license=2": Expected(
        "qacct -l license=2",
        "Total System Usage\n"
        "    WALLCLOCK         UTIME         STIME           CPU             MEMORY"
        "                 IO                IOW\n" + "=" * 112 + "\n"
        "           27         0.007         0.014         0.021              0.000"
        "              0.000              0.000\n",
        "", 0),
}
# gridd's -help text (gridd.manual.qacct) is its own words in 8.1.9's layout: wherever
# 8.1.9 printed its usage, gridd's is expected, the rest of the output unchanged.
GE_USAGE = next(case.stdout for case in transcript(DATA / "qacct.txt")
                if case.command == "qacct -help")


def own_usage(case: Expected) -> Expected:
    usage = help_text("qacct")
    return Expected(case.command, case.stdout.replace(GE_USAGE, usage),
                    case.stderr.replace(GE_USAGE, usage), case.code)


CASES = [own_usage(CORRECTED.get(case.command, case))
         for case in transcript(DATA / "qacct.txt")]


def _pipeline(command: str) -> tuple[list[str], list[list[str]]]:
    """qacct's arguments and the commands its output is piped through."""
    lexer = shlex.shlex(command, posix=True, punctuation_chars="|")
    lexer.whitespace_split = True
    stages: list[list[str]] = [[]]
    for token in lexer:
        if token == "|":
            stages.append([])
        else:
            stages[-1].append(token)
    assert stages[0][0] == "qacct"
    return stages[0][1:], stages[1:]


def _filter(stage: list[str], text: str) -> tuple[str, int]:
    """`grep -E pattern` and `head -N`, with their exit codes."""
    lines = text.splitlines(keepends=True)
    if stage[:2] == ["grep", "-E"]:
        kept = [line for line in lines if re.search(stage[2], line)]
        return "".join(kept), 0 if kept else 1
    if stage[0] == "head":
        return "".join(lines[: int(stage[1].lstrip("-"))]), 0
    raise AssertionError(f"no stand-in for {stage}")


@pytest.fixture(scope="module")
def cell(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A cell root whose reporting database holds the reference accounting file."""
    from gridd.accounting import db

    root = tmp_path_factory.mktemp("cell")
    (root / "common").mkdir()
    con = db.open_db(root / "common" / "reporting.duckdb")
    try:
        assert db.ingest_file(con, ACCOUNTING).accounting == 28
    finally:
        con.close()
    return root


@pytest.fixture(params=["file", "database"])
def qacct(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch,
          capsys: pytest.CaptureFixture[str]) -> Iterator:
    """Run a transcript command line on one of the two sources: (stdout, stderr, code)."""
    if request.param == "database":
        monkeypatch.setenv("GRIDD_ROOT", str(request.getfixturevalue("cell")))

    def run(command: str) -> tuple[str, str, int]:
        argv, pipes = _pipeline(command)
        if request.param == "file":
            argv = ["-f", str(ACCOUNTING), *argv]
        code = main(argv, now=NOW)
        out, err = capsys.readouterr()
        for stage in pipes:
            out, code = _filter(stage, out)
        return out, err, code

    yield run


@pytest.mark.parametrize("case", CASES, ids=[case.command for case in CASES])
def test_prints_what_grid_engine_printed(qacct, case: Expected) -> None:
    out, err, code = qacct(case.command)
    assert out == case.stdout
    assert err == case.stderr
    assert code == case.code


def test_every_transcript_command_is_covered() -> None:
    assert len(CASES) == 26
    assert {c.command for c in CASES} >= {"qacct", "qacct -o", "qacct -j 47", "qacct -help"}


PROBE_CASES = [own_usage(case) for case in transcript(PROBES / "qacct.txt")]


@pytest.mark.parametrize("case", PROBE_CASES, ids=[case.command for case in PROBE_CASES])
def test_probes_print_what_grid_engine_printed(
    case: Expected, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(PROBES)  # the files are named as they were when real qacct ran
    code = main(shlex.split(case.command)[1:], now=NOW)
    out, err = capsys.readouterr()
    assert (out, err, code) == (case.stdout, case.stderr, case.code)

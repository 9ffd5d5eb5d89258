"""The q* commands' -help texts and man pages come from one source per command
(gridd.manual) and cover exactly the options each command's parser takes."""

from __future__ import annotations

import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from gridd.cli import (
    common,
    qacct,
    qalter,
    qconf,
    qhold,
    qhost,
    qmod,
    qquota,
    qresub,
    qrsh_args,
    qrstat,
    qrsub_args,
    qselect,
    qstat,
    qsub_args,
)
from gridd.manual import build, roff
from gridd.manual.help_text import VERSION_LINE, help_text, render, source
from gridd.manual.page import Command, Layout, Option, Section

REPO = Path(__file__).resolve().parents[2]


def accepted() -> dict[str, frozenset[str]]:
    """What each command's parser takes, from the tables the parsers use."""
    return {
        "qsub": qsub_args.OPTIONS, "qalter": qalter.OPTIONS, "qstat": qstat.OPTIONS,
        "qdel": common.DELETE_OPTIONS, "qrdel": common.DELETE_OPTIONS,
        "qhold": qhold.OPTIONS, "qrls": qhold.OPTIONS, "qresub": qresub.OPTIONS,
        "qselect": qselect.OPTIONS, "qhost": qhost.OPTIONS, "qquota": qquota.OPTIONS,
        "qmod": qmod.OPTIONS, "qrsub": qrsub_args.OPTIONS, "qrstat": qrstat.OPTIONS,
        "qacct": qacct.OPTIONS, "qconf": qconf.options(),
        "qrsh": qrsh_args.QRSH_OPTIONS, "qlogin": qrsh_args.QLOGIN_OPTIONS,
    }


COMMANDS = sorted(accepted())


def test_every_q_command_has_a_page() -> None:
    assert tuple(COMMANDS) == build.COMMANDS
    scripts = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["scripts"]
    assert set(scripts) - {"gridd"} == set(COMMANDS)


def test_the_pages_are_built_without_gridds_dependencies(tmp_path: Path) -> None:
    """setup.py writes them before anything is installed: no site-packages here."""
    code = (f"import sys; sys.path.insert(0, {str(REPO)!r})\n"
            "from pathlib import Path\n"
            "from gridd.manual.build import write_pages\n"
            f"print(*sorted(write_pages(Path({str(tmp_path)!r}), '9.9')))")
    result = subprocess.run([sys.executable, "-S", "-c", code], capture_output=True,
                            text=True)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["man1", "man5"]
    man1 = {p.name for p in (tmp_path / "man1").iterdir()}
    assert {f"{command}.1" for command in COMMANDS} | {"gridd.1", "gridd-up.1"} <= man1
    assert sorted(p.name for p in (tmp_path / "man5").iterdir()) == sorted(
        f"{name}.5" for name in build.FILES)
    assert '"gridd 9.9"' in (tmp_path / "man1" / "qsub.1").read_text()

# Where 8.1.9's -help puts the options and their summaries (indent, column).
GE_LAYOUT = {
    "qacct": (1, 35), "qhost": (2, 29), "qmod": (3, 27), "qquota": (2, 39),
    "qselect": (8, 42), "qstat": (8, 42),
    **dict.fromkeys(("qalter", "qconf", "qdel", "qhold", "qlogin", "qrdel", "qresub", "qrls",
                     "qrsh", "qrstat", "qrsub", "qsub"), (3, 44)),
}


def help_options(text: str) -> list[str]:
    """The options a -help text lists, in its order (`[-f]`, `[[-f] acctfile]`)."""
    block = text.split("\n\n")[0].splitlines()[2:]
    return [m[1] for line in block if (m := re.match(r" +\[\[?(-[^\s\]]+)", line))]


def man_options(page: str) -> list[str]:
    """The options a man page's OPTIONS section describes, in its order."""
    section = page.split(".SH OPTIONS\n")[1].split("\n.SH ")[0].splitlines()
    tags = [section[i + 1] for i, line in enumerate(section) if line == ".TP"]
    return [tag.split("\\fR")[0].removeprefix("\\fB\\%").replace("\\-", "-")
            for tag in tags if tag.startswith("\\fB\\%\\-")]


def run_main(command: str, argv: list[str], capsys) -> tuple[str, str, int]:
    module = __import__(f"gridd.cli.{command}", fromlist=["main"])
    code = module.main(argv)
    out, err = capsys.readouterr()
    return out, err, code


@pytest.mark.parametrize("command", COMMANDS)
def test_the_source_help_and_man_page_cover_exactly_what_the_parser_takes(
        command: str, capsys) -> None:
    cmd = source(command)
    names = [option.name for option in cmd.options]
    assert len(names) == len(set(names)), "an option described twice"
    assert set(names) == accepted()[command]
    out, err, code = run_main(command, ["-help"], capsys)
    assert (out, err, code) == (help_text(command), "", 0)
    assert help_options(out) == names
    assert man_options(roff.command_page(cmd, "0")) == names
    assert all(option.summary and option.text for option in cmd.options), command


@pytest.mark.parametrize("command", COMMANDS)
def test_help_is_laid_out_as_8_1_9_lays_it_out(command: str) -> None:
    lines = help_text(command).splitlines()
    assert lines[0] == VERSION_LINE == "SGE 8.1.9"
    assert lines[1].startswith(f"usage: {command} [options]")
    indent, column = GE_LAYOUT[command]
    entries = lines[2:lines.index("")] if "" in lines else lines[2:]
    assert entries
    for line in entries:
        if line[indent] != " ":  # an option or operand, its summary in the column
            assert line[:indent].isspace() or indent == 0
            form_end = len(line[:column].rstrip())
            if form_end < column - 1:
                assert line[column - 1] == " " and line[column] != " ", line
            else:  # a form too long for its column: one blank, as 8.1.9 does
                assert re.match(r" +\S+.* \S", line), line
        else:  # a summary's next line, under the first
            assert line[:column].isspace() and line[column] != " ", line


def test_qdel_qalter_qhold_and_qrls_list_every_option() -> None:
    """They printed one line of usage (issue 29, item 10)."""
    assert help_options(help_text("qdel")) == ["-f", "-help", "-u"]
    assert help_options(help_text("qhold")) == ["-h", "-help"]
    assert help_options(help_text("qrls")) == ["-h", "-help"]
    assert {"-N", "-l", "-h", "-hold_jid", "-w"} <= set(help_options(help_text("qalter")))


def test_qconf_help_lists_tsm() -> None:
    assert "-tsm" in help_options(help_text("qconf"))


@pytest.mark.parametrize("command, argv, code", [
    ("qdel", [], 1), ("qhold", [], 1), ("qrls", [], 1), ("qalter", [], 1),
    ("qresub", [], 1), ("qrdel", [], 1),
])
def test_a_bare_command_prints_the_help_and_the_complaint(
        command: str, argv: list[str], code: int, capsys) -> None:
    """As 8.1.9: the usage on standard error, then "ERROR! no option argument" (on
    standard output for qdel)."""
    out, err, got = run_main(command, argv, capsys)
    complaint = "ERROR! no option argument\n"
    assert got == code
    if command == "qdel":
        assert (out, err) == (complaint, help_text(command))
    else:
        assert (out, err) == ("", help_text(command) + complaint)


def test_qconf_without_options(capsys) -> None:
    assert run_main("qconf", [], capsys) == (
        "", help_text("qconf") + "ERROR! no option argument\n", 1)


@pytest.mark.parametrize("command, argv, err, code", [
    ("qresub", ["-x", "1"], 'qresub: invalid option argument "-x"\n', 2),
    ("qalter", ["-x", "1"], 'qalter: invalid option argument "-x"\n', 2),
    ("qhold", ["-x", "1"], 'qhold: invalid option argument "-x"\n', 2),
])
def test_unknown_options_exit_as_8_1_9_exits(command, argv, err, code, capsys) -> None:
    assert run_main(command, argv, capsys) == ("", err, code)


@pytest.mark.parametrize("command, argv", [
    ("qdel", ["-x"]), ("qstat", ["-x"]), ("qhost", ["-x"]), ("qmod", ["-x"]),
    ("qquota", ["-x"]), ("qselect", ["-x"]), ("qrdel", ["-x"]),
])
def test_unknown_options_after_the_usage(command, argv, capsys) -> None:
    out, err, code = run_main(command, argv, capsys)
    assert (out, code) == ("", 1)
    assert err.startswith(help_text(command)) and 'invalid option argument "-x"' in err


def test_the_double_dash_help_is_no_option(capsys) -> None:
    """8.1.9's commands take -help alone; --help is refused as any unknown option."""
    assert run_main("qalter", ["--help"], capsys)[2] == 2
    assert run_main("qhold", ["--help"], capsys)[2] == 2
    assert run_main("qrstat", ["--help"], capsys)[1] == 'error: invalid option argument ' \
                                                        '"--help"\n'


def _loaded(code: str) -> set[str]:
    """The gridd.manual modules loaded by the end of `code`, in a fresh interpreter."""
    shown = "import sys; print(*sorted(m for m in sys.modules if m.startswith('gridd.manual')))"
    result = subprocess.run([sys.executable, "-c", f"{code}\n{shown}"], capture_output=True,
                            text=True, check=True)
    return set(result.stdout.splitlines()[-1].split())


def test_the_help_source_is_loaded_only_for_help() -> None:
    """Not even the renderer and its dataclasses (5 ms of a q* command's start-up)."""
    assert _loaded("from collections import deque; from gridd.cli import qstat\n"
                   "qstat._parse(deque(['-f', '-u', '*']))") == {"gridd.manual"}
    asked = _loaded("from gridd.cli import qstat; qstat.main(['-help'])")
    assert "gridd.manual.qstat" in asked and "gridd.manual.roff" not in asked


# ---- the renderers -------------------------------------------------------------------

def test_help_render_aligns_and_continues_summaries() -> None:
    command = Command(
        name="qx", purpose="p", usage="[options] things", description="d",
        entries=(Option("-a", "date", "first\nsecond"), Option("-b", summary="flag")),
        layout=Layout(indent=2, column=16))
    assert render(command) == (
        "SGE 8.1.9\nusage: qx [options] things\n"
        "  [-a date]     first\n"
        "                second\n"
        "  [-b]          flag\n")


def test_roff_escapes_what_roff_would_read_otherwise() -> None:
    assert roff.escape("a-b \\n --c") == "\\%a\\-b \\en \\%\\-\\-c"
    assert roff.escape(".x\n'y") == "\\&.x\n\\&'y"
    assert roff.paragraphs("one\n\n  literal -x\n  two\n\nthree") == [
        "one", ".PP", ".RS", ".nf", "literal \\%\\-x", "two", ".fi", ".RE", ".PP", "three"]


def test_a_command_page_has_its_sections() -> None:
    page = roff.command_page(source("qdel"), "1.2")
    assert '.TH QDEL 1 "" "gridd 1.2" "gridd manual"' in page
    assert ".SH NAME\nqdel \\- delete jobs\n" in page
    assert ".SH SYNOPSIS\n.B qdel\n[options] job_task_list\n" in page
    assert '.SH "EXIT STATUS"' in page and '.SH "SEE ALSO"' in page
    assert "\\fIjob_task_list\\fR" in page


def test_sections_render_their_items() -> None:
    lines = roff._section(Section("FILES", "Some.", (("a-b", "what"),)))
    assert lines == ['.SH "FILES"', "Some.", ".TP", "\\fB\\%a\\-b\\fR", "what"]

"""-json and Open Cluster Scheduler's -fmt plain|xml|json on qstat, qhost, qrstat and
qquota: which output each command line asks for, and a bad -fmt refused as 8.1.9 refuses
a bad option argument, before anything is asked of the master."""

from __future__ import annotations

from collections import deque

import pytest

from gridd.cli import qhost, qquota, qrstat, qstat

CASES = [(["-json"], "json"), (["-xml"], "xml"), (["-fmt", "json"], "json"),
         (["-fmt", "xml"], "xml"), (["-json", "-fmt", "plain"], "plain"),
         (["-fmt", "xml", "-json"], "json"), (["-xml", "-json"], "json"),
         (["-json", "-xml"], "json"), ([], "plain")]


def _qstat(argv: list[str]) -> str:
    opts = qstat._parse(deque(argv))
    return "json" if opts["json"] else "xml" if opts["xml"] else "plain"


def _qhost(argv: list[str]) -> str:
    flags = qhost._parse(deque(argv))["flags"]
    return "json" if "-json" in flags else "xml" if "-xml" in flags else "plain"


def _qrstat(argv: list[str]) -> str:
    opts = qrstat._parse(deque(argv))
    return "json" if opts.json else "xml" if opts.xml else "plain"


def _qquota(argv: list[str]) -> str:
    return {"text": "plain"}.get(form := qquota.parse(argv, "root")[1], form)


@pytest.mark.parametrize("form", [_qstat, _qhost, _qrstat, _qquota])
@pytest.mark.parametrize(("argv", "expected"), CASES)
def test_the_output_asked_for(form, argv, expected):
    assert form(argv) == expected


@pytest.mark.parametrize("command", [qstat, qhost, qrstat, qquota])
def test_a_bad_format_is_refused(command, capsys, monkeypatch):
    monkeypatch.setattr(command, "Client", None)  # asking the master would fail loudly
    assert command.main(["-fmt", "yaml"]) == 1
    assert 'invalid option argument "yaml"' in capsys.readouterr().err
    assert command.main(["-fmt"]) == 1
    assert "-fmt option must have" in capsys.readouterr().err


@pytest.mark.parametrize("command", [qstat, qhost, qrstat, qquota])
def test_a_bad_format_is_said_as_an_unknown_option(command, capsys, monkeypatch):
    """8.1.9 knows no -fmt: each command refuses a bad format in the words, usage or not
    and exit code it has for an option it does not know."""
    monkeypatch.setattr(command, "Client", None)
    assert command.main(["-fmt", "yaml"]) == command.main(["-yaml"]) == 1
    said = capsys.readouterr().err.replace('"-yaml"', '"yaml"')
    half = len(said) // 2
    assert said[:half] == said[half:]

"""`gridd web` from the command line: what it loads, and what it says without a server."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from gridd.cli.gridd_cmd import main


def test_the_commands_load_no_part_of_the_web_stack():
    shown = subprocess.run(
        [sys.executable, "-c", "import sys, gridd.cli.gridd_cmd, gridd.cli.qstat, "
         "gridd.cli.qsub; print(sorted(m for m in ('starlette', 'jinja2', 'hypercorn', "
         "'anyio', 'gridd.web') if m in sys.modules))"],
        capture_output=True, text=True, check=True)
    assert shown.stdout == "[]\n"


def test_login_without_a_running_server_says_how_to_start_one(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]):
    monkeypatch.setenv("GRIDD_ROOT", str(tmp_path))
    assert main(["web", "login"]) == 1
    assert capsys.readouterr().err == (
        f"gridd: no web server runs for the cell under {tmp_path}: start one with "
        "'gridd web'\n")


@pytest.mark.parametrize("listen", ["localhost:80", "127.0.0.1", "127.0.0.1:99999"])
def test_a_listen_address_that_is_not_one_is_refused(
        listen: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]):
    monkeypatch.setenv("GRIDD_ROOT", str(tmp_path))
    assert main(["web", "--listen", listen]) == 1
    assert capsys.readouterr().err == (
        f"gridd: --listen {listen}: want ADDR:PORT, an IP address of this machine and a "
        "port (0: one that is free)\n")

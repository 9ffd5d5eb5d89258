"""`gridd`'s own command line."""

from __future__ import annotations

import pytest

from gridd.cli.gridd_cmd import main


def test_gridd_down_help_says_what_becomes_of_the_jobs(capsys: pytest.CaptureFixture[str]):
    with pytest.raises(SystemExit) as done:
        main(["down", "--help"])
    assert done.value.code == 0
    text = " ".join(capsys.readouterr().out.split())
    assert "Running jobs go on" in text and "the next 'gridd up' takes them over" in text
    assert "--kill-jobs kill the running jobs first, as qconf -kej does" in text

"""contrib/gridd-execd.service runs a node's execd as the README says: `gridd execd` with
the node's cell root, started again when it fails, and stopped alone, without the jobs."""

from __future__ import annotations

import configparser
import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
UNIT = REPO / "contrib" / "gridd-execd.service"


def test_the_unit_runs_execd_alone_and_leaves_its_jobs_on_a_stop():
    unit = configparser.ConfigParser(strict=False, interpolation=None)
    unit.optionxform = str  # systemd's keys are case-sensitive
    unit.read_string(UNIT.read_text())
    service = unit["Service"]
    assert service["Type"] == "simple"
    assert service["ExecStart"].endswith("/gridd execd")
    assert re.fullmatch(r"GRIDD_ROOT=/\S+", service["Environment"])
    assert service["Restart"] == "on-failure"
    assert service["KillMode"] == "process"
    assert unit["Install"]["WantedBy"] == "multi-user.target"
    text = UNIT.read_text()
    assert "cp contrib/gridd-execd.service /etc/systemd/system/" in text
    assert "systemctl enable --now gridd-execd" in text


def test_the_readme_shows_both_ways_to_join_and_the_unit():
    readme = (REPO / "README.md").read_text()
    section = readme.split("## A cell over several machines\n", 1)[1].split("\n## ", 1)[0]
    for command in ("gridd up --listen 10.77.0.1:6444 --hosts 0", "gridd keys host node1",
                    "GRIDD_ROOT=/shared/cell gridd execd",
                    "gridd keys host node7 --bundle node7.join",
                    "gridd execd --join node7.join",
                    "cp contrib/gridd-execd.service /etc/systemd/system/"):
        assert f"\n    {command}\n" in section, command

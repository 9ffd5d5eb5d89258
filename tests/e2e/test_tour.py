"""contrib/tour.sh, the README's walk-through, runs top to bottom in a fresh cell, and the
README shows exactly the commands it runs."""

from __future__ import annotations

import contextlib
import os
import re
import signal
import subprocess
from pathlib import Path

from .conftest import BIN, cell_processes

REPO = Path(__file__).resolve().parents[2]
HEADING = re.compile(r"\x1b\[1m== (.*)\x1b\[0m$")


def _walk_through(text: str) -> list[str]:
    """The code block of the README's "Using a cell" section that follows the tour's own
    command line: headings as `# ` lines, then commands, as the tour prints them."""
    section = text.split("## Using a cell", 1)[1].split("\n## ", 1)[0]
    block = section.split("    contrib/tour.sh", 1)[1].split("\n\n", 1)[1]
    lines = []
    for line in block.splitlines():
        if not line.startswith("    "):
            break
        lines.append(line[4:])
    return lines


def _shown(output: str) -> list[str]:
    """What the tour printed of its steps: `# heading`, then each command line it ran."""
    lines = []
    for line in output.splitlines():
        heading = HEADING.match(line)
        if heading:
            lines.append(f"# {heading.group(1)}")
        elif line.startswith("$ "):
            lines.append(line[2:])
    return lines


def test_the_tour_runs_in_a_fresh_cell_and_is_what_the_readme_shows(tmp_path: Path) -> None:
    root = tmp_path / "cell"
    env = dict(os.environ, GRIDD_ROOT=str(root), BIN=str(BIN), GRIDD_CONNECT_TIMEOUT="2")
    try:
        res = subprocess.run(["bash", str(REPO / "contrib" / "tour.sh")], env=env,
                             capture_output=True, text=True, timeout=600)
    finally:
        left = cell_processes(root)  # the tour stops all it started: anything left is a fault
        for pid in left:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
    assert res.returncode == 0, f"{res.stdout[-4000:]}\n{res.stderr}"
    assert "tour: every step did what it said" in res.stdout
    assert not left
    assert _shown(res.stdout) == _walk_through((REPO / "README.md").read_text())

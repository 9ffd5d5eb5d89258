"""What qsub, qstat, qdel and qacct -j import, start to end, against the checked-in list.

A q* command's run time is mostly its imports (bench/cli_latency.py has the figures), and
an import added anywhere on the path (a dataclass in a renderer, a helper from a heavy
module) costs every run of it. So each command is run against a real cell with Python's
import profile on (PYTHONPROFILEIMPORTTIME, the -X importtime of a console script), and
the modules it loaded are compared with tests/data/command_imports.txt: a module that is
not listed fails, and so does one listed that is no longer loaded, so that the list stays
the truth. The stdlib's own modules differ between Python versions: they are compared
only on the version the list was made with (its first line); gridd's and other packages'
always. After a deliberate change, write the list again with
GRIDD_WRITE_COMMAND_IMPORTS=1 and say why in the commit. What the static check keeps out
of every command (trio, zmq, duckdb, lark, ...) is tests/unit/test_layering.py's HEAVY.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

from gridd.accounting.query import run_query
from tests.e2e.conftest import Cell, wait_for

LIST = Path(__file__).parents[1] / "data" / "command_imports.txt"
VERSION = f"# python {sys.version_info.major}.{sys.version_info.minor}"
_IMPORTED = re.compile(r"^import time:\s+\d+ \|\s+\d+ \|\s*(\S+)$", re.M)


def _imports(cell: Cell, *argv: str) -> set[str]:
    """What the command loads beyond what the interpreter loads for `-c pass` (site and
    the installation's .pth files differ from one machine to the next)."""
    env = dict(cell.env, PYTHONPROFILEIMPORTTIME="1")
    res = cell.run(*argv, env=env)
    assert res.returncode == 0, f"{argv}: rc={res.returncode}\n{res.stderr[-2000:]}"
    bare = subprocess.run([sys.executable, "-c", "pass"], env=env, capture_output=True,
                          text=True, check=True)
    return set(_IMPORTED.findall(res.stderr)) - set(_IMPORTED.findall(bare.stderr))


def _is_stdlib(module: str) -> bool:
    top = module.split(".")[0]
    return top in sys.stdlib_module_names or top == "org"  # copy's probe for Jython's


def _read() -> tuple[str, dict[str, set[str]]]:
    lines = LIST.read_text().splitlines()
    listed: dict[str, set[str]] = {}
    for line in lines[1:]:
        if line and not line.startswith("#"):
            module, *commands = line.split()
            for command in commands:
                listed.setdefault(command, set()).add(module)
    return lines[0], listed


def _write(found: dict[str, set[str]]) -> None:
    modules = sorted(set().union(*found.values()))
    LIST.write_text("\n".join([VERSION, *(
        f"{m:<40} {' '.join(c for c in sorted(found) if m in found[c])}".rstrip()
        for m in modules)]) + "\n")


def test_the_commands_import_what_the_list_says(cell: Cell) -> None:
    job = re.search(r"job (\d+)", cell.ok("qsub", "-b", "y", "-o", "/dev/null", "-j", "y",
                                          "true"))[1]
    wait_for(lambda: cell.run("qacct", "-j", job).returncode == 0, what=f"job {job} accounted")
    # qacct asks the master once the cell's database exists, as it does in a cell at rest
    # (the first query opens it; else the first flush_time, 15 s, after the first record)
    run_query("SELECT 1", base=cell.root)
    held = re.search(r"job (\d+)", cell.ok("qsub", "-h", "-b", "y", "true"))[1]
    found = {
        "qsub": _imports(cell, "qsub", "-h", "-b", "y", "true"),
        "qstat": _imports(cell, "qstat"),
        "qdel": _imports(cell, "qdel", held),
        "qacct": _imports(cell, "qacct", "-j", job),
    }
    if os.environ.get("GRIDD_WRITE_COMMAND_IMPORTS"):
        _write(found)
    version, listed = _read()
    problems = []
    for command, modules in found.items():
        allowed = listed.get(command, set())
        if version != VERSION:  # another Python: its stdlib imports its own modules
            modules = {m for m in modules if not _is_stdlib(m)}
            allowed = {m for m in allowed if not _is_stdlib(m)}
        if extra := sorted(modules - allowed):
            problems.append(f"{command} imports what {LIST.name} does not list: {extra}")
        if gone := sorted(allowed - modules):
            problems.append(f"{command} no longer imports {gone}: take them off the list")
    assert not problems, "\n".join(problems)

"""Real Grid Engine beside a gridd cell: its environment and its C binaries.

Debian's /usr/bin/q* are a shell wrapper that finds the cell and then execs the binary
under /usr/lib/gridengine, adding 55-90 ms; the benches time the binary itself, with the
environment settings.sh gives (the reference script sge-8.1.9/start.sh starts the cell).
"""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

SETTINGS = Path("/var/lib/gridengine/default/common/settings.sh")
BINARIES = Path("/usr/lib/gridengine")


def binary(command: str) -> str:
    """The C binary of a q* command (not Debian's wrapper)."""
    return str(BINARIES / command)


def sge_env() -> dict[str, str] | None:
    """Real GE's environment from settings.sh, if it is installed and its qstat answers."""
    if not SETTINGS.exists() or not Path(binary("qstat")).exists():
        return None
    env = dict(os.environ)
    env.update(re.findall(r"^(SGE_\w+)=(\S+?);", SETTINGS.read_text(), re.M))
    try:
        ok = subprocess.run([binary("qstat")], env=env, capture_output=True,
                            timeout=10).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        ok = False
    return env if ok else None

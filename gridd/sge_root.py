"""The ``$SGE_ROOT`` a job sees: a directory inside the cell's root, shaped as Grid
Engine's, so that what detects Grid Engine by it works in a gridd job.

Open MPI (and scripts) look for ``$SGE_ROOT/bin/$ARC/qrsh`` and Grid Engine's commands
reach their cell at ``$SGE_ROOT/$SGE_CELL``. Everything a cell writes stays under its
root, so a job's ``SGE_ROOT`` is ``ROOT/sge`` (``paths.job_sge_root``): ``bin/<arc>/``
holds links to the commands of the installation that runs the host's execd, and
``<cell> -> ..`` leads back to the root. ``gridd up`` and every execd make it at start.
Machines may share the root: each links its own commands only where none are, or where
the links there lead nowhere on this machine (another machine's installation), and
never changes anything else it finds there.
"""

from __future__ import annotations

import os
import platform
import sysconfig

from gridd.paths import JOB_CELL, job_sge_root

_ARCHES = {"x86_64": "lx-amd64", "aarch64": "lx-arm64", "i686": "lx-x86", "ppc64le": "lx-ppc64le"}


def arch_name(machine: str | None = None) -> str:
    """Grid Engine's architecture string, which jobs see as $ARC and $SGE_ARCH."""
    machine = machine or platform.machine()
    return _ARCHES.get(machine, f"lx-{machine}")


def bin_dir(base: str, arc: str) -> str:
    """Where a job finds the commands: ``$SGE_ROOT/bin/$ARC``."""
    return os.path.join(job_sge_root(base), "bin", arc)


def own_commands() -> dict[str, str]:
    """The commands of this installation (gridd's console scripts) by name, as paths in
    the scripts directory of the Python that runs this (a venv's bin). Every gridd
    distribution in sight is asked (a source tree's egg-info may shadow the installed
    one): only what is in the scripts directory counts."""
    from importlib.metadata import distributions

    scripts = sysconfig.get_path("scripts")
    names = {entry.name for found in distributions() if found.metadata["Name"] == "gridd"
             for entry in found.entry_points if entry.group == "console_scripts"}
    found = {name: os.path.join(scripts, name) for name in sorted(names)}
    return {name: path for name, path in found.items() if os.path.isfile(path)}


def make(base: str, commands: dict[str, str], arc: str) -> list[str]:
    """Make (or complete) the job's SGE_ROOT under the cell's root ``base``: the cell
    link and a link per command in ``bin/<arc>``. Returns what could not be made, in
    words for a log or stderr: a job still runs without it, only without what it gives."""
    problems = []
    sge_root = job_sge_root(base)
    try:
        os.makedirs(bin_dir(base, arc), exist_ok=True)
    except OSError as exc:
        return [f"cannot make {bin_dir(base, arc)} ({exc.strerror}): jobs find no "
                "$SGE_ROOT/bin/$ARC commands"]
    cell_link = os.path.join(sge_root, JOB_CELL)
    try:
        if not _link(cell_link, os.pardir) and not _links_to(cell_link, os.pardir):
            problems.append(f"{cell_link} is not a link to {os.pardir}: $SGE_ROOT/$SGE_CELL "
                            "in a job does not lead to the cell")
    except OSError as exc:
        problems.append(f"cannot link {cell_link} to {os.pardir} ({exc.strerror})")
    for name, target in commands.items():
        link = os.path.join(bin_dir(base, arc), name)
        try:
            if os.path.islink(link) and not os.path.exists(link):  # dangling: not ours
                _replace_link(link, target)
            else:
                _link(link, target)
        except OSError as exc:
            problems.append(f"cannot link {link} to {target} ({exc.strerror})")
    return problems


def _link(link: str, target: str) -> bool:
    """A new symbolic link; False when something is there already (kept as it is)."""
    try:
        os.symlink(target, link)
    except FileExistsError:
        return False
    return True


def _links_to(link: str, target: str) -> bool:
    return os.path.islink(link) and os.readlink(link) == target


def _replace_link(link: str, target: str) -> None:
    """Put a link in place of one at once (rename), so no job sees none meanwhile and two
    machines doing so leave one whole link."""
    temporary = f"{link}.{os.uname().nodename}.{os.getpid()}"
    os.symlink(target, temporary)
    try:
        os.replace(temporary, link)
    except OSError:
        os.unlink(temporary)
        raise

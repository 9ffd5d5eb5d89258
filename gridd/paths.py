"""Where a cell keeps its files: everything lives under the cell's root directory.

The root is ``$GRIDD_ROOT``; else, as Grid Engine's commands find their cell,
``$SGE_ROOT/$SGE_CELL`` (``SGE_CELL`` defaulting to ``default``), since wrappers such as
batchspawner pass on only ``SGE_*`` variables; else ``~/.gridd``, so that a user can
bring up a private cell without configuration. A job's environment names its cell both
ways (``cell_variables``): its ``SGE_ROOT`` is a directory inside the root shaped as Grid
Engine's (``gridd.sge_root``), whose ``$SGE_ROOT/$SGE_CELL`` leads back to the root.
Where ``SGE_ROOT`` leads to a cell of Grid Engine itself (its settings.sh sets it), gridd
must say so and touch nothing there (``grid_engine_cell``). The client commands need
only the endpoint file, which is found with os.path so that they do not pay for
importing pathlib.
"""

from __future__ import annotations

import os

TYPE_CHECKING = False  # typing's own costs a q* command milliseconds to import
if TYPE_CHECKING:
    from pathlib import Path

DEFAULT_CELL = "default"  # SGE_CELL when unset, as for Grid Engine
JOB_SGE_ROOT = "sge"  # a job's $SGE_ROOT, inside the root (gridd.sge_root)
JOB_CELL = DEFAULT_CELL  # a job's $SGE_CELL: $SGE_ROOT/$SGE_CELL links back to the root
# Files of a Grid Engine cell that a gridd cell never has (it has master_endpoint and
# bootstrap.json instead).
GRID_ENGINE_FILES = ("act_qmaster", "bootstrap")


def root_dir() -> str:
    """The cell's root directory, absolute (see the module docstring)."""
    return _found_root()[0]


def root_origin() -> str:
    """Which rule found the root, for messages about it."""
    return _found_root()[1]


def _found_root() -> tuple[str, str]:
    explicit = os.environ.get("GRIDD_ROOT")
    if explicit:
        return os.path.abspath(explicit), "$GRIDD_ROOT"
    sge_root = os.environ.get("SGE_ROOT")
    if sge_root:
        cell = os.environ.get("SGE_CELL") or DEFAULT_CELL
        return os.path.abspath(os.path.join(sge_root, cell)), "$SGE_ROOT/$SGE_CELL"
    return os.path.abspath(os.path.expanduser("~/.gridd")), "the default ~/.gridd"


def cell_variables(base: str) -> dict[str, str]:
    """The variables that lead the commands to the cell at ``base``: in a job's
    environment, its own q* commands (and a wrapper that passes on only SGE_ROOT and
    SGE_CELL) reach the cell it runs in, and ``$SGE_ROOT/bin/$ARC`` holds them."""
    return {"GRIDD_ROOT": base, "SGE_ROOT": job_sge_root(base), "SGE_CELL": JOB_CELL}


def job_sge_root(base: str) -> str:
    """The ``SGE_ROOT`` of the jobs of the cell at ``base``."""
    return os.path.join(base, JOB_SGE_ROOT)


def grid_engine_cell(base: str | os.PathLike[str]) -> str | None:
    """A file showing that ``base`` holds a cell of Grid Engine itself, or None."""
    for name in GRID_ENGINE_FILES:
        found = os.path.join(base, "common", name)
        if os.path.isfile(found):
            return found
    return None


def common_dir(base: str | os.PathLike[str] | None = None) -> str:
    """`common` as a str, for what client commands read (the endpoint, their key)."""
    return os.path.join(base or root_dir(), "common")


def endpoint_location(base: str | os.PathLike[str] | None = None) -> str:
    """Like act_qmaster: the file naming the address clients and execds use."""
    return os.path.join(common_dir(base), "master_endpoint")


def root() -> Path:
    from pathlib import Path

    return Path(root_dir())


def common(base: Path | None = None) -> Path:
    return (base or root()) / "common"


def endpoint_file(base: Path | None = None) -> Path:
    from pathlib import Path

    return Path(endpoint_location(base))


def master_spool(base: Path | None = None) -> Path:
    return (base or root()) / "spool" / "qmaster"


def listen_file(base: Path | None = None) -> Path:
    """The endpoint the master binds, when it is not master_endpoint's (gridd.cli.listen)."""
    return master_spool(base) / "listen"


def web_url_file(base: Path | None = None) -> Path:
    """Where a running `gridd web` says its URL, for `gridd web login`."""
    return (base or root()) / "spool" / "web" / "url"


def execd_spool(host: str, base: Path | None = None) -> Path:
    return (base or root()) / "spool" / host


ACCOUNTING = "accounting"  # in common/


def accounting_file(base: Path | None = None) -> Path:
    return common(base) / ACCOUNTING


def accounting_json_file(base: Path | None = None) -> Path:
    """Like Open Cluster Scheduler's common/accounting.jsonl: the accounting records as
    JSON lines, when reporting_params say accounting_format=json."""
    return common(base) / "accounting.jsonl"


def reporting_file(base: Path | None = None) -> Path:
    """Like $SGE_ROOT/$SGE_CELL/common/reporting: reporting(5) records, AR records among them."""
    return common(base) / "reporting"


REPORTING_DB = "reporting.duckdb"  # in common/
# in common/: the accounting file's inode and size while it holds the database's whole
# accounting history (gridd.accounting.whole_history)
ACCOUNTING_WHOLE = ".accounting.whole"


def reporting_db(base: Path | None = None) -> Path:
    return common(base) / REPORTING_DB


def accounting_whole(base: Path | None = None) -> Path:
    return common(base) / ACCOUNTING_WHOLE


def accounting_lock(base: Path | None = None) -> Path:
    """Held by the accounting process while it writes (gridd.actors.accounting): one that
    outlives its master finishes before its successor reads what the files hold."""
    return master_spool(base) / "accounting.lock"


def export_staging(base: Path | None = None) -> Path:
    """The one directory the accounting process's DuckDB may write files in (snapshots, before they
    move to where a manager asked for them)."""
    return common(base) / "reporting.export"


def no_cell(base: str | os.PathLike[str] | None, where: str) -> str:
    """Why there is no cell to talk to, and where it was looked for: SGE_ROOT from Grid
    Engine's settings.sh may lead to a cell of Grid Engine itself."""
    root = base or root_dir()
    found_by = "" if base else f", found by {root_origin()}"
    foreign = grid_engine_cell(root)
    if foreign:
        return (f"error: no gridd cell at {root}{found_by}: it holds a cell of Grid Engine "
                f"itself ({foreign}); set GRIDD_ROOT to the directory of your gridd cell")
    return (f"error: no gridd cell at {root} (missing {where}{found_by}); start one with "
            "'gridd up' or set GRIDD_ROOT")

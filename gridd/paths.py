"""Where a cell keeps its files: everything lives under $GRIDD_ROOT.

The default root is ``~/.gridd``, so a user can bring up a private cell without
configuration; tests and several cells on one machine set GRIDD_ROOT. The client
commands need only the endpoint file, which is found with os.path so that they do not
pay for importing pathlib.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pathlib import Path


def root_dir() -> str:
    return os.path.abspath(os.environ.get("GRIDD_ROOT") or os.path.expanduser("~/.gridd"))


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


def execd_spool(host: str, base: Path | None = None) -> Path:
    return (base or root()) / "spool" / host


def accounting_file(base: Path | None = None) -> Path:
    return common(base) / "accounting"


def reporting_file(base: Path | None = None) -> Path:
    """Like $SGE_ROOT/$SGE_CELL/common/reporting: reporting(5) records, AR records among them."""
    return common(base) / "reporting"


def reporting_db(base: Path | None = None) -> Path:
    return common(base) / "reporting.duckdb"


def export_staging(base: Path | None = None) -> Path:
    """The one directory the master's DuckDB may write files in (snapshots, before they
    move to where a manager asked for them)."""
    return common(base) / "reporting.export"

"""Where a cell keeps its files: everything lives under $GRIDD_ROOT.

The default root is ``~/.gridd``, so a user can bring up a private cell without
configuration; tests and several cells on one machine set GRIDD_ROOT.
"""

from __future__ import annotations

import os
from pathlib import Path


def root() -> Path:
    return Path(os.environ.get("GRIDD_ROOT") or Path.home() / ".gridd").absolute()


def common(base: Path | None = None) -> Path:
    return (base or root()) / "common"


def endpoint_file(base: Path | None = None) -> Path:
    """Like act_qmaster: the address clients and execds use to reach the master."""
    return common(base) / "master_endpoint"


def master_spool(base: Path | None = None) -> Path:
    return (base or root()) / "spool" / "qmaster"


def execd_spool(host: str, base: Path | None = None) -> Path:
    return (base or root()) / "spool" / host


def accounting_file(base: Path | None = None) -> Path:
    return common(base) / "accounting"


def reporting_db(base: Path | None = None) -> Path:
    return common(base) / "reporting.duckdb"

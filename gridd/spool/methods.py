"""Which spooling method a master spool directory uses, and opening it.

Each method keeps its objects in a directory of its own name under the master's spool
directory; the file `spooling_method` names the one in use (as Grid Engine's bootstrap
file names its spooling_method). A conversion builds the other method's directory in full
and only then rewrites that file, so a crash during one leaves the old spool in use.
"""

from __future__ import annotations

from pathlib import Path

from gridd import durable
from gridd.spool.base import Spool, SpoolError

METHODS = ("sqlite", "classic")
# sqlite by measurement (bench/spool.py): it acknowledges submissions several times faster
# and restarts faster with many jobs; classic is there to be read with cat and grep.
DEFAULT = "sqlite"
MARK = "spooling_method"
_OLD_SPOOL = "spool.db"  # where gridd spooled before there were methods, in another form


def method_of(spool_dir: Path) -> str:
    """The method in use; a new spool directory gets the default."""
    try:
        method = (spool_dir / MARK).read_text().strip()
    except FileNotFoundError:
        return DEFAULT
    except OSError as exc:
        raise SpoolError(f"cannot read {spool_dir / MARK}: {exc}") from exc
    if method not in METHODS:
        raise SpoolError(f"{spool_dir / MARK} names an unknown spooling method {method!r}")
    return method


def choose(spool_dir: Path, wanted: str | None = None) -> str:
    """The method of the cell's spool from now on. A new spool gets `wanted` (or the
    default) written down, so that a later change of the default leaves it alone; a spool
    that has one keeps it (a different `wanted` is refused: that is a conversion)."""
    if (spool_dir / MARK).exists():
        method = method_of(spool_dir)
        if wanted is not None and wanted != method:
            raise SpoolError(f"the cell spools with {method}; change that with "
                             f"gridd spool convert --to {wanted}")
        return method
    if (spool_dir / _OLD_SPOOL).exists():
        raise SpoolError(f"{spool_dir / _OLD_SPOOL} is the spool of an earlier gridd, which "
                         "this one cannot read; move it away to start the cell afresh")
    set_method(spool_dir, wanted or DEFAULT)
    return wanted or DEFAULT


def open_spool(spool_dir: Path, method: str | None = None) -> Spool:
    """The spool of the method in use (or of `method`: a conversion's target)."""
    method = method or method_of(spool_dir)
    if method == "classic":
        from gridd.spool.classic_spool import ClassicSpool
        return ClassicSpool(spool_dir / method)
    if method == "sqlite":
        from gridd.spool.sqlite_spool import SqliteSpool
        return SqliteSpool(spool_dir / method)
    raise SpoolError(f"unknown spooling method {method!r} (known: {', '.join(METHODS)})")


def set_method(spool_dir: Path, method: str) -> None:
    """Name the method in use, durably and at once (write beside, fsync, rename)."""
    spool_dir.mkdir(parents=True, exist_ok=True)
    durable.replace(spool_dir / MARK, f"{method}\n".encode())

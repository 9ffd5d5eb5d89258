"""What `gridd spool` does to a master spool: check, back up, restore, convert.

Check and backup work on an open spool, so that the master can do them between two
transactions while it runs; restore and conversion replace the spool and want the
master stopped (the CLI makes sure).
"""

from __future__ import annotations

import collections
import shutil
from pathlib import Path

from gridd.collector import held_off
from gridd.master.state import MasterState
from gridd.spool.base import Spool, SpoolError
from gridd.spool.methods import METHODS, method_of, open_spool, set_method
from gridd.spool.records import load, records, restore

BATCH = 5000  # objects per transaction of a conversion


def check(spool: Spool) -> list[str]:
    """Every object decodes and together they make a state (no task without its job)."""
    counts: collections.Counter[str] = collections.Counter()
    objects = []
    with held_off():
        for kind, key, obj in spool.read_all():
            counts[kind] += 1
            objects.append((kind, key, obj))
        state = restore(objects)
    summary = ", ".join(f"{kind} {n}" for kind, n in sorted(counts.items()))
    return [f"spool {spool.path} ({spool.method}): {sum(counts.values())} objects parse "
            f"({summary}); {len(state.jobs)} jobs"]


def backup(spool: Spool, target: Path) -> list[str]:
    """A copy that `restore` takes back: DIR/spooling_method and DIR/<method>/."""
    if target.exists() and any(target.iterdir()):
        raise SpoolError(f"backup directory {target} is not empty")
    spool.backup(target / spool.method)
    set_method(target, spool.method)
    return [f"spool ({spool.method}) backed up to {target}"]


def restore_backup(spool_dir: Path, source: Path) -> list[str]:
    """Put a backup in place of the spool (the master stopped)."""
    method = method_of(source)
    if not (source / method).is_dir():
        raise SpoolError(f"{source} is not a spool backup (no {method}/ directory)")
    copy = open_spool(source, method)
    try:
        check(copy)  # a damaged backup must not replace a good spool
    finally:
        copy.close()
    _replace(spool_dir / method, source / method)
    set_method(spool_dir, method)
    for other in METHODS:
        if other != method:
            shutil.rmtree(spool_dir / other, ignore_errors=True)
    return [f"spool restored from {source} ({method})"]


def convert(spool_dir: Path, to: str) -> list[str]:
    """Copy every object into a spool of the other method, then switch to it; a crash
    before the switch leaves the old spool in use (the half-built one is rebuilt)."""
    if to not in METHODS:
        raise SpoolError(f"unknown spooling method {to!r} (known: {', '.join(METHODS)})")
    current = method_of(spool_dir)
    if to == current:
        return [f"spool is already {to}"]
    source = open_spool(spool_dir, current)
    try:
        objects = list(records(load(source) or MasterState()))  # a damaged one is refused
    finally:
        source.close()
    shutil.rmtree(spool_dir / to, ignore_errors=True)
    target = open_spool(spool_dir, to)
    try:
        write_all(target, objects)
    finally:
        target.close()
    set_method(spool_dir, to)
    shutil.rmtree(spool_dir / current, ignore_errors=True)
    return [f"spool converted from {current} to {to}: {len(objects)} objects"]


def write_all(spool: Spool, objects: list[tuple[str, str, object]],
              batch: int = BATCH) -> None:
    """Spool every object, `batch` to a transaction (a whole cell in one would hold all
    of it in one journal or one SQLite transaction)."""
    for start in range(0, len(objects), batch):
        tx = spool.prepare()
        for kind, key, obj in objects[start:start + batch]:
            tx.spool_object(kind, key, obj)
        tx.commit()


def _replace(directory: Path, source: Path) -> None:
    """Copy `source` to `directory`, the old one removed only once the copy is whole."""
    fresh = directory.with_name(directory.name + ".restoring")
    shutil.rmtree(fresh, ignore_errors=True)
    shutil.copytree(source, fresh)
    old = directory.with_name(directory.name + ".old")
    shutil.rmtree(old, ignore_errors=True)
    if directory.exists():
        directory.rename(old)
    fresh.rename(directory)
    shutil.rmtree(old, ignore_errors=True)

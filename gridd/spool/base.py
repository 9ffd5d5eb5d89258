"""The one interface every spooling method implements.

The master hands a spool whole transactions: everything one burst of requests changed,
as objects to write and objects to delete, each named by its kind and key (see
gridd.spool.records for the kinds). A method makes a transaction durable as a whole or
not at all, and the master answers nobody before `commit` returns. Reading back yields
the objects themselves, decoded and typed, so that a method may store them however suits
it (rows of msgpack, text files a person can read).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterator
from pathlib import Path
from typing import NamedTuple


class SpoolError(Exception):
    """A change could not be made durable (or the spool could not be read); the request
    that caused it must fail, and nothing of the change may be visible afterwards."""


class Change(NamedTuple):
    """One object to write (obj set) or to delete (obj None)."""

    kind: str
    key: str
    obj: object | None


class Spool(ABC):
    """A spooling context: where the objects go (`path`) and how (the method)."""

    method: str  # "classic" or "sqlite": the name `gridd spool convert --to` takes

    def __init__(self, path: Path) -> None:
        self.path = path

    def prepare(self) -> Transaction:
        """A transaction to fill with `spool_object` and `delete_object` and then commit."""
        return Transaction(self)

    @abstractmethod
    def write(self, changes: list[Change]) -> None:
        """Make the changes durable, all of them or (raising SpoolError) none."""

    @abstractmethod
    def read_all(self) -> Iterator[tuple[str, str, object]]:
        """Every spooled object as (kind, key, object); SpoolError names one that does
        not decode."""

    @abstractmethod
    def backup(self, target: Path) -> None:
        """A consistent copy of the spool in the empty or new directory `target`, which
        a spool of the same method opens. Called between transactions."""

    @abstractmethod
    def close(self) -> None: ...


class Transaction:
    """The objects one burst of requests changed; a later change of the same object
    replaces an earlier one."""

    def __init__(self, spool: Spool) -> None:
        self.spool = spool
        self._changes: dict[tuple[str, str], Change] = {}

    def spool_object(self, kind: str, key: str, obj: object) -> None:
        self._changes[(kind, key)] = Change(kind, key, obj)

    def delete_object(self, kind: str, key: str) -> None:
        self._changes[(kind, key)] = Change(kind, key, None)

    @property
    def changes(self) -> list[Change]:
        return list(self._changes.values())

    def commit(self) -> None:
        if self._changes:
            self.spool.write(self.changes)
        self._changes.clear()

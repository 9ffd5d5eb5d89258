"""Who a login's user is on this machine, for the forms that build a command's request
as that user would (qsub's, qrsub's): their home, ids and shell, and the request files
the server may read for them."""

from __future__ import annotations

import grp
import os
import pwd
from collections.abc import Callable
from typing import NamedTuple

NOBODY = 65534


class Account(NamedTuple):
    uid: int
    gid: int
    group: str
    home: str
    shell: str


def account_of(user: str) -> Account:
    """The user's entry here; nobody's ids, / and sh for a user unknown here (the master
    stamps who the user is where it knows them)."""
    try:
        entry = pwd.getpwnam(user)
        uid, gid, home, shell = entry.pw_uid, entry.pw_gid, entry.pw_dir, entry.pw_shell
    except KeyError:
        uid, gid, home, shell = NOBODY, NOBODY, "/", "/bin/sh"
    try:
        group = grp.getgrgid(gid).gr_name
    except KeyError:
        group = str(gid)
    return Account(uid, gid, group, home, shell)


def reader(uid: int, shared: str) -> Callable[[str], str | None]:
    """How a command's parser reads the request files here: the cell's file `shared`,
    and the user's own files only (the server may read what the user may not)."""

    def read(path: str) -> str | None:
        try:
            with open(path, encoding="utf-8", errors="surrogateescape") as f:
                if path != shared and os.fstat(f.fileno()).st_uid != uid:
                    return None
                return f.read()
        except OSError:
            return None

    return read

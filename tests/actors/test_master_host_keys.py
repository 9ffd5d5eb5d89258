"""The master actor as the core's Outside for qrsh: the public key of the host whose
execd holds a task's session, as the keys the ZAP handler lets in have it."""

from __future__ import annotations

import os
from pathlib import Path

from gridd import keys
from gridd.actors.master import MasterActor


def actor(base: Path, secured: bool = True) -> MasterActor:
    keys.make_dirs(base)
    key = keys.create(keys.key_file(base, keys.MASTER)) if secured else None
    made = MasterActor(base, f"ipc://{base}/master.sock", key=key)
    made.ctx.term()  # never run: only its Outside is asked
    return made


async def test_a_host_s_key_is_found_by_its_name_or_short_name_and_kept(tmp_path: Path):
    outside = actor(tmp_path)
    path = keys.key_file(tmp_path, keys.HOSTS, "node1")
    pair = keys.create(path)
    await outside.keyring.load()  # as the host's execd connecting has it loaded
    assert outside.host_key("node1") == pair.public
    assert outside.host_key("node1.example.com") == pair.public
    os.unlink(path)
    assert outside.host_key("node1") == pair.public  # kept: no file read at every qrsh
    assert outside.host_key("node2") == b""  # none made


async def test_a_cell_without_security_has_no_host_keys(tmp_path: Path):
    outside = actor(tmp_path, secured=False)
    keys.create(keys.key_file(tmp_path, keys.HOSTS, "node1"))
    await outside.keyring.load()
    assert outside.host_key("node1") == b""

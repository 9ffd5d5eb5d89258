"""The master's ZAP handler, fed requests as libzmq sends them, on a clock the test moves."""

from __future__ import annotations

import logging
import os

from gridd import keys
from gridd.actors.zap import NAMES_FOR, REPORT_EVERY, Handler, Keyring


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def request(public: bytes, mechanism: bytes = b"CURVE") -> list[bytes]:
    return [b"1.0", b"7", b"gridd", b"10.1.2.3", b"", mechanism, public]


def status(reply: list[bytes]) -> tuple[bytes, bytes]:
    assert reply[:2] == [b"1.0", b"7"]
    return reply[2], reply[4]


async def test_known_keys_are_named_and_others_refused_once_logged(tmp_path, caplog):
    alice = keys.create(keys.key_file(tmp_path, keys.USERS, "alice"))
    node = keys.create(keys.key_file(tmp_path, keys.HOSTS, "node1"))
    stranger = keys.create(str(tmp_path / "stranger.key"))
    clock = Clock()
    handler = Handler(Keyring(tmp_path, clock))
    assert status(await handler.answer(request(alice.public))) == (b"200", b"user:alice")
    assert status(await handler.answer(request(node.public))) == (b"200", b"host:node1")
    with caplog.at_level(logging.WARNING, logger="gridd.master"):
        for _ in range(50):
            assert status(await handler.answer(request(stranger.public))) == (b"400", b"")
        clock.now += REPORT_EVERY
        await handler.answer(request(stranger.public))
    lines = [r.getMessage() for r in caplog.records]
    assert len(lines) == 2 and all("from 10.1.2.3: unknown key" in ln for ln in lines), lines
    assert status(await handler.answer(request(alice.public, b"NULL"))) == (b"400", b"")
    assert (await handler.answer([b"0.9", b"1"]))[2] == b"500"


async def test_keys_made_or_removed_later_count_at_once(tmp_path):
    keys.make_dirs(tmp_path)
    clock = Clock()
    handler = Handler(Keyring(tmp_path, clock))
    path = keys.key_file(tmp_path, keys.USERS, "late")
    assert status(await handler.answer(request(b"\1" * 32))) == (b"400", b"")
    late = keys.create(path)  # the directory changes: read again, no restart, no waiting
    assert status(await handler.answer(request(late.public))) == (b"200", b"user:late")
    os.unlink(path)
    assert status(await handler.answer(request(late.public))) == (b"400", b"")


async def test_an_unknown_key_rescans_at_most_once_a_second(tmp_path):
    keys.make_dirs(tmp_path)
    users = os.path.join(keys.keys_dir(tmp_path), keys.USERS)
    clock = Clock()
    keyring = Keyring(tmp_path, clock)
    handler = Handler(keyring)
    await handler.answer(request(b"\1" * 32))
    stamp = os.stat(users).st_mtime_ns
    quick = keys.create(keys.key_file(tmp_path, keys.USERS, "quick"))
    os.utime(users, ns=(stamp, stamp))  # made within the directory's mtime granularity
    clock.now += 0.5
    assert status(await handler.answer(request(quick.public))) == (b"400", b"")
    clock.now += 0.5
    assert status(await handler.answer(request(quick.public))) == (b"200", b"user:quick")


async def test_a_bad_key_file_is_logged_once_however_often_the_keys_are_read(tmp_path, caplog):
    keys.make_dirs(tmp_path)
    (tmp_path / "common" / "keys" / "users" / "broken.key").write_text("junk")
    clock = Clock()
    handler = Handler(Keyring(tmp_path, clock))
    with caplog.at_level(logging.WARNING, logger="gridd.master"):
        for _ in range(5):
            clock.now += 1.0  # each unknown key may rescan
            assert status(await handler.answer(request(b"\1" * 32))) == (b"400", b"")
    assert [r.getMessage() for r in caplog.records if "key file not used" in r.getMessage()] \
        == [f"key file not used: {tmp_path}/common/keys/users/broken.key holds no public key"]


def local(uid: int, address: str = "") -> list[bytes]:
    """A NULL connection to the master's local socket, as libzmq asks about it."""
    return [b"1.0", b"7", b"gridd", (address or f"localhost:{uid}:{uid}:4242").encode(), b"",
            b"NULL"]


async def test_a_local_uid_is_let_in_as_its_user_when_that_user_has_a_key(tmp_path, caplog):
    keys.create(keys.key_file(tmp_path, keys.USERS, "alice"))
    keys.make_dirs(tmp_path)
    asked: list[int] = []

    def name(uid: int) -> str | None:
        asked.append(uid)
        return {1001: "alice", 1002: "bob"}.get(uid)

    clock = Clock()
    handler = Handler(Keyring(tmp_path, clock), name)
    assert status(await handler.answer(local(1001))) == (b"200", b"user:alice")
    with caplog.at_level(logging.WARNING, logger="gridd.master"):
        assert status(await handler.answer(local(1002))) == (b"400", b"")  # bob has no key
        assert status(await handler.answer(local(1003))) == (b"400", b"")  # no such user
        for address in ("10.1.2.3", "fe80::1:2:3"):  # NULL from elsewhere than a Unix peer
            assert status(await handler.answer(local(0, address))) == (b"400", b"")
    lines = [r.getMessage() for r in caplog.records]
    assert "local user bob (uid 1002) has no key" in lines[0], lines
    assert "local uid 1003 has no user name" in lines[1], lines
    bob = keys.create(keys.key_file(tmp_path, keys.USERS, "bob"))
    assert status(await handler.answer(local(1002))) == (b"200", b"user:bob")
    os.unlink(keys.key_file(tmp_path, keys.USERS, "bob"))  # revoked: at once, here too
    assert status(await handler.answer(local(1002))) == (b"400", b"")
    assert bob.public and asked == [1001, 1002, 1003]  # each uid's name read once...
    clock.now += NAMES_FOR
    await handler.answer(local(1001))
    assert asked == [1001, 1002, 1003, 1001]  # ...until it is old

"""Key files: the certificate format zmq.auth reads, private secret files, and the keys the
master authorizes."""

from __future__ import annotations

import os
import pwd
import re
import subprocess
import sys

import pytest
import zmq.auth
from hypothesis import given
from hypothesis import strategies as st

from gridd import keys
from gridd.zmtp import z85_encode


def test_a_key_pair_is_a_zeromq_certificate_pair(tmp_path):
    path = str(tmp_path / "alice.key")
    pair = keys.create(path)
    assert len(pair.public) == len(pair.secret) == 32
    public, secret = zmq.auth.load_certificate(path + keys.SECRET_SUFFIX)
    assert (public, secret) == (z85_encode(pair.public).encode(),
                                z85_encode(pair.secret).encode())
    assert zmq.auth.load_certificate(path) == (public, None)
    assert keys.read_public(path) == pair.public
    assert keys.read_secret(path + keys.SECRET_SUFFIX) == pair
    assert os.stat(path).st_mode & 0o777 == 0o644
    assert os.stat(path + keys.SECRET_SUFFIX).st_mode & 0o777 == 0o600
    assert sorted(os.listdir(tmp_path)) == ["alice.key", "alice.key_secret"]  # no leftovers


def test_the_secret_file_is_private_whatever_the_umask(tmp_path):
    old = os.umask(0)
    try:
        keys.create(str(tmp_path / "k.key"))
    finally:
        os.umask(old)
    assert os.stat(tmp_path / "k.key_secret").st_mode & 0o777 == 0o600


def test_pyzmqs_own_certificates_are_read(tmp_path):
    public_file, secret_file = zmq.auth.create_certificates(str(tmp_path), "z")
    os.chmod(secret_file, 0o600)
    assert keys.read_secret(secret_file).public == keys.read_public(public_file)


@pytest.mark.parametrize("mode", [0o644, 0o640, 0o604, 0o620, 0o602])
def test_a_secret_key_others_may_read_or_write_is_refused(tmp_path, mode):
    path = str(tmp_path / "k.key")
    keys.create(path)
    os.chmod(path + keys.SECRET_SUFFIX, mode)
    with pytest.raises(keys.KeyFileError) as err:
        keys.read_secret(path + keys.SECRET_SUFFIX)
    assert str(err.value) == (
        f"the secret key file {path}_secret may be read or changed by others (mode "
        f"{mode:04o}); it must be private to its owner: run 'chmod 600 {path}_secret'")


def test_bad_key_files_are_clear_errors(tmp_path):
    missing = str(tmp_path / "none.key_secret")
    with pytest.raises(keys.KeyFileError, match=f"^no secret key file {missing}$"):
        keys.read_secret(missing)
    with pytest.raises(keys.KeyFileError, match="^no key file "):
        keys.read_public(str(tmp_path / "none.key"))
    bad = tmp_path / "bad.key"
    bad.write_text('curve\n    public-key = "not z85 at all!"\n')
    with pytest.raises(keys.KeyFileError, match="the public key is not Z85 text"):
        keys.read_public(str(bad))
    bad.write_text('curve\n    public-key = "abcde"\n')
    with pytest.raises(keys.KeyFileError, match="not a CURVE key .4 bytes instead of 32."):
        keys.read_public(str(bad))
    bad.write_text("metadata\n")
    with pytest.raises(keys.KeyFileError, match="holds no public key"):
        keys.read_public(str(bad))
    public_only = tmp_path / "pub.key"
    keys.create(str(public_only))
    os.replace(public_only, tmp_path / "pub.key_secret")  # a public file where a secret goes
    os.chmod(tmp_path / "pub.key_secret", 0o600)
    with pytest.raises(keys.KeyFileError, match="holds no secret key"):
        keys.read_secret(str(tmp_path / "pub.key_secret"))


def test_names_that_are_no_file_names_are_refused(tmp_path):
    for name in ("alice", "node-1.example.com", "a_b", "x@y"):
        assert keys.valid_name(name)
    for name in ("", ".", "..", "../x", "a/b", ".hidden", "-x", "a b", "a\nb", "x" * 256):
        assert not keys.valid_name(name), name
        with pytest.raises(keys.KeyFileError):
            keys.key_file(tmp_path, keys.USERS, name)


def test_authorized_keys_name_users_and_hosts(tmp_path):
    alice = keys.create(keys.key_file(tmp_path, keys.USERS, "alice"))
    node = keys.create(keys.key_file(tmp_path, keys.HOSTS, "node1"))
    keys.create(keys.key_file(tmp_path, keys.MASTER))
    (tmp_path / "common" / "keys" / "users" / "broken.key").write_text("junk")
    os.link(keys.key_file(tmp_path, keys.USERS, "alice"),
            keys.key_file(tmp_path, keys.USERS, "alias"))
    found = keys.authorized(tmp_path)
    assert found.ids == {node.public: "host:node1"}  # alice's key is also alias's: nobody's
    assert len(found.problems) == 2
    assert "alice.key: the same key as user:alias; neither is let in" in found.problems[0]
    assert "broken.key holds no public key" in found.problems[1]
    os.unlink(keys.key_file(tmp_path, keys.USERS, "alias"))
    assert keys.authorized(tmp_path).ids == {alice.public: "user:alice",
                                             node.public: "host:node1"}
    rows = keys.listing(tmp_path)
    assert [(kind, name) for kind, name, _, _ in rows] == [
        ("master", "master"), ("user", "alice"), ("user", "broken"), ("host", "node1")]
    assert rows[1][2] == z85_encode(alice.public)
    assert rows[2][2:] == ("-", f"{tmp_path}/common/keys/users/broken.key holds no public key")


def test_ensure_makes_a_pair_once(tmp_path):
    assert keys.ensure(tmp_path, keys.HOSTS, "node1")
    first = keys.read_public(keys.key_file(tmp_path, keys.HOSTS, "node1"))
    assert not keys.ensure(tmp_path, keys.HOSTS, "node1")
    assert keys.read_public(keys.key_file(tmp_path, keys.HOSTS, "node1")) == first
    for directory in ("", "users", "hosts"):
        assert os.stat(tmp_path / "common" / "keys" / directory).st_mode & 0o777 == 0o755


@pytest.mark.skipif(os.geteuid() != 0, reason="only root gives files away")
def test_root_makes_a_users_secret_key_theirs(tmp_path):
    nobody = pwd.getpwnam("nobody")
    path = keys.key_file(tmp_path, keys.USERS, "nobody")
    keys.make_dirs(tmp_path)
    keys.create(path, (nobody.pw_uid, nobody.pw_gid))
    st = os.stat(path + keys.SECRET_SUFFIX)
    assert (st.st_uid, st.st_gid, st.st_mode & 0o777) == (nobody.pw_uid, nobody.pw_gid, 0o600)
    assert os.stat(path).st_uid == 0  # the public half stays the administrator's


def test_reading_keys_and_the_clients_curve_do_not_import_pyzmq(tmp_path):
    keys.make_dirs(tmp_path)
    keys.create(keys.key_file(tmp_path, keys.MASTER))
    secret = keys.create(str(tmp_path / "mine.key"))
    code = ("import sys; from gridd import client; "
            f"curve, _ = client.own_keys({str(tmp_path)!r}); "
            f"assert curve.secret == {secret.secret!r}, curve; "
            "assert 'zmq' not in sys.modules, 'zmq imported'")
    env = dict(os.environ, GRIDD_KEY=str(tmp_path / "mine.key_secret"))
    res = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert res.returncode == 0, res.stderr


# The rules key files were read by before they were read without re (a q* command reads
# its keys on every run, and importing re was a good part of its start-up): the lines
# zmq.auth's certificates hold, and the names a key may have.
_KEY_LINE = re.compile(r'^[ \t]*(public|secret)-key[ \t]*=[ \t]*["\']?(.*?)["\']?[ \t]*$', re.M)
_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.@-]{0,254}")
_LINE_PARTS = st.sampled_from(["public", "secret", "-key", "key", "=", " ", "\t", '"', "'",
                               "\n", "\r", "a", "Z9.", "x=y", "é", "public-key", "secret-key"])


@given(st.lists(_LINE_PARTS, max_size=24).map("".join))
def test_key_lines_are_read_as_by_the_pattern_they_were_read_with(text: str) -> None:
    assert keys.key_lines(text) == dict(_KEY_LINE.findall(text))


@given(st.text(st.sampled_from("aZ09_.@-/ é\n"), max_size=8)
       | st.text(st.sampled_from("ab_"), min_size=250, max_size=260))
def test_key_names_are_checked_as_by_the_pattern_they_were_checked_with(name: str) -> None:
    assert keys.valid_name(name) == (_NAME.fullmatch(name) is not None)

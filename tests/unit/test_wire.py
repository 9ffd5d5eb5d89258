"""gridd.wire packs plain values to the bytes msgspec writes, and unpacks any frame as
msgspec reads it (gridd.cli.quick's requests and answers depend on both)."""

from __future__ import annotations

import math
from datetime import datetime

import msgspec
import pytest
from hypothesis import given
from hypothesis import strategies as st

from gridd import protocol as p
from gridd import wire

_SCALARS = (st.none() | st.booleans() | st.integers(-(2**63), 2**64 - 1)
            | st.floats(allow_nan=False) | st.text() | st.binary())
_KEYS = st.text() | st.integers(-(2**63), 2**64 - 1)
VALUES = st.recursive(_SCALARS, lambda inner: st.lists(inner) | st.tuples(inner, inner)
                      | st.dictionaries(_KEYS, inner), max_leaves=40)


def _plain(value: object) -> object:
    """What unpacking gives back: tuples come back as lists."""
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    return value


@given(VALUES)
def test_values_pack_to_the_bytes_msgspec_writes(value: object) -> None:
    assert wire.pack(value) == msgspec.msgpack.encode(value)


@given(VALUES)
def test_frames_unpack_as_msgspec_reads_them(value: object) -> None:
    frame = msgspec.msgpack.encode(value)
    assert wire.unpack(frame) == msgspec.msgpack.decode(frame) == _plain(value)


@given(st.binary(max_size=64))
def test_any_bytes_unpack_as_msgspec_reads_them_or_are_refused(frame: bytes) -> None:
    try:
        expected = msgspec.msgpack.decode(frame)
    except (msgspec.DecodeError, UnicodeDecodeError, TypeError):
        with pytest.raises(wire.WireError):
            wire.unpack(frame)
        return
    try:
        got = wire.unpack(frame)
    except wire.WireError:  # extensions and timestamps: nothing gridd sends
        assert _has_extension(expected)
        return
    if isinstance(expected, float) and math.isnan(expected):
        assert isinstance(got, float) and math.isnan(got)
    else:
        assert repr(got) == repr(expected)


def test_a_struct_built_as_a_dict_is_the_same_message() -> None:
    fields = {"t": "delete", "v": wire.VERSION, "rid": 3, "targets": ["7"], "user": "ann",
              "users": [], "force": False}
    assert p.decode(wire.pack(fields)) == p.Delete(targets=["7"], user="ann", rid=3)


def _has_extension(value: object) -> bool:
    if isinstance(value, (msgspec.msgpack.Ext, datetime)):
        return True
    if isinstance(value, list):
        return any(map(_has_extension, value))
    if isinstance(value, dict):
        return any(map(_has_extension, [*value, *value.values()]))
    return False


@pytest.mark.parametrize("frame", [b"", b"\x92\x01", b"\xc1", b"\x01\x02", b"\xd9\x05ab",
                                   b"\xdd\xff\xff\xff\xff", b"\x81\x91\x01\x01",
                                   b"\xa2\xff\xfe"])
def test_malformed_frames_are_refused(frame: bytes) -> None:
    with pytest.raises(wire.WireError):
        wire.unpack(frame)


def test_what_msgpack_cannot_hold_is_refused() -> None:
    with pytest.raises(OverflowError):
        wire.pack(2**64)
    with pytest.raises(wire.WireError):
        wire.pack({1, 2})

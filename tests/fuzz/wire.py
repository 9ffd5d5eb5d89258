"""Inputs for the protocol decoder: valid messages of every type, and frames that are not.

Valid messages are drawn from the message types themselves (walked with
msgspec.inspect), so a field added to the protocol is fuzzed without touching this file.
Invalid frames come in four kinds: random bytes; valid encodings mutated byte-wise;
well-formed msgpack maps carrying a real tag but wrong types, missing or extra fields and
extreme integers; and deep nesting, which the decoder must refuse like any other
malformed frame.
"""

from __future__ import annotations

import functools
from typing import Any

import msgspec
import msgspec.inspect as mi
from hypothesis import strategies as st

from gridd import protocol as p
from tests.fuzz.mutate import drawn, mutate_bytes
from tests.fuzz.targets import Target, Unexpected

# msgpack's integer range: what any encoder can put on the wire.
INT_MIN, UINT_MAX = -(2**63), 2**64 - 1

_scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(INT_MIN, UINT_MAX),
    st.sampled_from((INT_MIN, -1, 0, 2**31, 2**32, 2**63 - 1, 2**63, UINT_MAX)),
    st.floats(),
    st.text(max_size=20),
    st.binary(max_size=20),
    st.builds(msgspec.msgpack.Ext, st.integers(-128, 127), st.binary(max_size=12)),
)

# Any msgpack value at all: what a peer that ignores the schema might send.
any_value: st.SearchStrategy[Any] = st.recursive(
    _scalars,
    lambda inner: st.lists(inner, max_size=4)
    | st.dictionaries(st.text(max_size=8) | st.integers(-5, 5), inner, max_size=4),
    max_leaves=12,
)


def _for_type(t: mi.Type) -> st.SearchStrategy[Any]:
    """Values of one msgspec type, valid for it (within msgpack's ranges)."""
    if isinstance(t, mi.StructType):
        return _for_struct(t.cls)
    if isinstance(t, mi.IntType):
        return st.integers(INT_MIN, UINT_MAX) | st.integers(-3, 100)
    if isinstance(t, mi.FloatType):
        return st.floats()
    if isinstance(t, mi.StrType):
        return st.text(max_size=12)
    if isinstance(t, mi.BoolType):
        return st.booleans()
    if isinstance(t, mi.BytesType):
        return st.binary(max_size=12)
    if isinstance(t, mi.NoneType):
        return st.none()
    if isinstance(t, mi.AnyType):
        return any_value
    if isinstance(t, mi.UnionType):
        return st.one_of([_for_type(member) for member in t.types])
    if isinstance(t, mi.ListType):
        return st.lists(st.deferred(lambda: _for_type(t.item_type)), max_size=3)
    if isinstance(t, mi.TupleType):
        return st.tuples(*(_for_type(item) for item in t.item_types))
    if isinstance(t, mi.DictType):
        return st.dictionaries(_for_type(t.key_type), st.deferred(lambda: _for_type(t.value_type)),
                               max_size=3)
    raise TypeError(f"no strategy for {t!r}: extend tests/fuzz/wire.py")


@functools.cache
def _for_struct(cls: type[msgspec.Struct]) -> st.SearchStrategy[Any]:
    """Instances with every required field and a random choice of the optional ones."""
    info = mi.type_info(cls)
    assert isinstance(info, mi.StructType)
    required = {f.name: _for_type(f.type) for f in info.fields if f.required}
    optional = {f.name: _for_type(f.type) for f in info.fields if not f.required}

    @st.composite
    def build(draw: st.DrawFn) -> Any:
        values = {name: draw(strategy) for name, strategy in required.items()}
        for name, strategy in optional.items():
            if draw(st.booleans()):
                values[name] = draw(strategy)
        return cls(**values)

    return build()


MESSAGE_TYPES: tuple[type[p.Msg], ...] = tuple(
    t.cls for t in mi.type_info(p.Message).types  # type: ignore[attr-defined]
)

messages: st.SearchStrategy[p.Msg] = st.sampled_from(MESSAGE_TYPES).flatmap(_for_struct)


def _defaults_of(cls: type[p.Msg]) -> p.Msg:
    """The smallest valid message of a type, for seeds: required fields at zero values."""
    info = mi.type_info(cls)
    assert isinstance(info, mi.StructType)
    return msgspec.convert({f.name: _zero(f.type) for f in info.fields if f.required}, cls)


def _zero(t: mi.Type) -> Any:
    if isinstance(t, mi.StructType):
        inner = mi.type_info(t.cls)
        assert isinstance(inner, mi.StructType)
        fields = {f.name: _zero(f.type) for f in inner.fields if f.required}
        return fields | ({inner.tag_field: inner.tag} if inner.tag_field else {})
    if isinstance(t, mi.UnionType):
        return _zero(t.types[0])
    if isinstance(t, mi.TupleType):
        return [_zero(item) for item in t.item_types]
    zeros: dict[type[mi.Type], Any] = {
        mi.IntType: 0, mi.FloatType: 0.0, mi.StrType: "x", mi.BoolType: False,
        mi.BytesType: b"", mi.NoneType: None, mi.AnyType: None, mi.ListType: [],
        mi.DictType: {},
    }
    return zeros[type(t)]


# One minimal valid frame per message type: the mutation seeds.
SEEDS: tuple[bytes, ...] = tuple(p.encode(_defaults_of(cls)) for cls in MESSAGE_TYPES)

_TAGS = tuple(mi.type_info(cls).tag for cls in MESSAGE_TYPES)  # type: ignore[attr-defined]


@st.composite
def wrong_shapes(draw: st.DrawFn) -> bytes:
    """A msgpack map with a real tag whose fields have the right names and wrong values,
    are missing, or are joined by fields no message has."""
    cls = draw(st.sampled_from(MESSAGE_TYPES))
    info = mi.type_info(cls)
    assert isinstance(info, mi.StructType)
    frame: dict[Any, Any] = {"t": draw(st.sampled_from((info.tag, *_TAGS)) | st.text(max_size=6))}
    for field in info.fields:
        choice = draw(st.integers(0, 3))
        if choice == 0:
            frame[field.name] = draw(_for_type(field.type))
        elif choice == 1:
            frame[field.name] = draw(any_value)
    frame.update(draw(st.dictionaries(st.text(max_size=6), any_value, max_size=3)))
    if draw(st.booleans()):
        frame["v"] = draw(st.integers(INT_MIN, UINT_MAX) | any_value)
    return msgspec.msgpack.encode(frame)


_ARRAY_OF_ONE, _MAP_OF_ONE = b"\x91", b"\x81\xa1k"


@st.composite
def deep_nesting(draw: st.DrawFn) -> bytes:
    """A valid frame with one value replaced by arrays or maps nested up to 5000 deep."""
    frame = draw(st.sampled_from(SEEDS + (p.encode(p.DbAnswer(rows=[[None]])),)))
    depth = draw(st.integers(1, 5000))
    opener = draw(st.sampled_from((_ARRAY_OF_ONE, _MAP_OF_ONE)))
    nested = opener * depth + b"\xc0"
    nil = frame.rfind(b"\xc0")
    if nil >= 0 and draw(st.booleans()):  # in place of a nil: inside an Any field, often
        return frame[:nil] + nested + frame[nil + 1 :]
    return frame + nested if draw(st.booleans()) else nested


def _mutated_message(frame: bytes) -> st.SearchStrategy[bytes]:
    return drawn(lambda c: mutate_bytes(frame, SEEDS, c))


# What only hypothesis builds: whole messages of every type, valid or mutated, wrong
# shapes and deep nesting. The bench draws a sample of these into its corpus.
extra_frames: st.SearchStrategy[bytes] = st.one_of(
    messages.map(p.encode),
    messages.map(p.encode).flatmap(_mutated_message),
    wrong_shapes(),
    deep_nesting(),
)


def check_decode(frame: bytes) -> None:
    """decode gives a message or raises ProtocolError; a message it gives encodes again
    to a frame that decodes to the same message; a client's decode_reply (the replies'
    decoder first) gives what decode gives, or refuses it too."""
    try:
        msg = p.decode(frame)
    except p.ProtocolError:
        msg = None
    try:
        reply = p.decode_reply(frame)
    except p.ProtocolError:
        reply = None
    if (msg is None) != (reply is None) or (
            msg is not None and p.encode(msg) != p.encode(reply)):
        raise Unexpected(f"decode_reply gave {reply!r:.200}, decode {msg!r:.200}")
    if msg is None:
        return
    if not isinstance(msg, p.Msg):
        raise Unexpected(f"decode gave {type(msg).__name__}, not a message")
    again = p.encode(msg)
    if p.encode(p.decode(again)) != again:
        raise Unexpected(f"{type(msg).__name__} does not survive encode/decode")


DECODER = Target(
    "protocol.decode",
    check_decode,
    SEEDS,
    lambda frame, c: mutate_bytes(frame, SEEDS, c),
    lambda c: c.binary(64),
    extra=extra_frames,
    examples=1000,
)

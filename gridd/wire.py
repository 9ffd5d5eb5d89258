"""MessagePack in plain Python, for the quick forms of the q* commands (gridd.cli.quick).

The cell's messages are msgspec structs framed as MessagePack (gridd.protocol); a struct
travels as a map of its field names, with its tag under "t". A command that sends one
small request and prints one small answer does not need msgspec for that: importing it
costs a q* command more than everything else it does. This module packs plain values
(None, bool, int, float, str, bytes, list, tuple, dict) as msgspec packs them, and
unpacks any frame to plain values, so that a request built as a dict is the same bytes
on the wire as its struct, and the master cannot tell the two apart.
"""

from __future__ import annotations

import sys

VERSION = 1  # of the protocol: every message carries it (gridd.model.message.Msg)


class WireError(ValueError):
    """A frame that is not one well-formed MessagePack value, or a value this module
    does not pack."""


def pack(value: object) -> bytes:
    out: list[bytes] = []
    _pack_into(value, out)
    return b"".join(out)


def _pack_into(value: object, out: list[bytes]) -> None:
    if value is None:
        out.append(b"\xc0")
    elif value is True:
        out.append(b"\xc3")
    elif value is False:
        out.append(b"\xc2")
    elif isinstance(value, int):
        out.append(_int(value))
    elif isinstance(value, float):
        out.append(b"\xcb" + _double(value))
    elif isinstance(value, str):
        data = value.encode()
        n = len(data)
        out.append((bytes([0xA0 | n]) if n < 32 else b"\xd9" + bytes([n]) if n < 0x100
                    else b"\xda" + n.to_bytes(2, "big") if n < 0x10000
                    else b"\xdb" + n.to_bytes(4, "big")) + data)
    elif isinstance(value, (bytes, bytearray)):
        n = len(value)
        out.append((b"\xc4" + bytes([n]) if n < 0x100 else b"\xc5" + n.to_bytes(2, "big")
                    if n < 0x10000 else b"\xc6" + n.to_bytes(4, "big")) + bytes(value))
    elif isinstance(value, (list, tuple)):
        out.append(_head(len(value), 0x90, b"\xdc", b"\xdd"))
        for item in value:
            _pack_into(item, out)
    elif isinstance(value, dict):
        out.append(_head(len(value), 0x80, b"\xde", b"\xdf"))
        for key, item in value.items():
            _pack_into(key, out)
            _pack_into(item, out)
    else:
        raise WireError(f"cannot pack a {type(value).__name__}")


def _int(n: int) -> bytes:
    """The shortest form, as msgspec writes it."""
    if 0 <= n < 0x80:
        return bytes([n])
    if -32 <= n < 0:
        return bytes([n & 0xFF])
    if n >= 0:
        for code, size in ((b"\xcc", 1), (b"\xcd", 2), (b"\xce", 4), (b"\xcf", 8)):
            if n < 1 << 8 * size:
                return code + n.to_bytes(size, "big")
    else:
        for code, size in ((b"\xd0", 1), (b"\xd1", 2), (b"\xd2", 4), (b"\xd3", 8)):
            if n >= -(1 << 8 * size - 1):
                return code + n.to_bytes(size, "big", signed=True)
    raise OverflowError("msgpack holds integers of 64 bits")


def _double(value: float) -> bytes:
    """A float as 8 bytes big-endian, as struct's ">d" packs it (struct's import loads
    a shared library: a q* command's start-up time)."""
    cell = bytearray(8)
    memoryview(cell).cast("d")[0] = value
    return bytes(cell[::-1]) if _LITTLE else bytes(cell)


def _float(data: memoryview, at: int, size: int) -> float:
    """A big-endian float of 4 or 8 bytes (">f", ">d")."""
    raw = bytes(data[at:at + size])
    return memoryview(raw[::-1] if _LITTLE else raw).cast("f" if size == 4 else "d")[0]


_LITTLE = sys.byteorder == "little"


def _head(n: int, fix: int, code16: bytes, code32: bytes) -> bytes:
    if n < 16:
        return bytes([fix | n])
    return code16 + n.to_bytes(2, "big") if n < 0x10000 else code32 + n.to_bytes(4, "big")


def unpack(data: bytes | bytearray) -> object:
    """The one value `data` holds; WireError for anything else (trailing bytes, a
    truncated value, a type MessagePack reserves or an extension). Read through a
    memoryview, so that a string is copied once, as it is decoded."""
    try:
        value, end = _unpack(memoryview(data), 0)
    except (IndexError, UnicodeDecodeError, RecursionError) as exc:
        raise WireError(f"malformed MessagePack: {exc}") from None
    if end != len(data):
        raise WireError("malformed MessagePack: bytes after the value")
    return value


# Big-endian integers by their first byte: size and whether signed.
_INTS = {0xCC: (1, False), 0xCD: (2, False), 0xCE: (4, False), 0xCF: (8, False),
         0xD0: (1, True), 0xD1: (2, True), 0xD2: (4, True), 0xD3: (8, True)}
_FLOATS = {0xCA: 4, 0xCB: 8}
# Sizes of the lengths of str (0xd9-0xdb), bin (0xc4-0xc6), array (0xdc, 0xdd) and map
# (0xde, 0xdf).
_SIZED = {0xD9: 1, 0xDA: 2, 0xDB: 4, 0xC4: 1, 0xC5: 2, 0xC6: 4, 0xDC: 2, 0xDD: 4,
          0xDE: 2, 0xDF: 4}


def _unpack(data: memoryview, at: int) -> tuple[object, int]:
    code = data[at]
    at += 1
    if code < 0x80:
        return code, at
    if code >= 0xE0:
        return code - 0x100, at
    if 0xA0 <= code <= 0xBF:
        return _text(data, at, code & 0x1F)
    if 0x90 <= code <= 0x9F:
        return _array(data, at, code & 0x0F)
    if 0x80 <= code <= 0x8F:
        return _map(data, at, code & 0x0F)
    if code == 0xC0:
        return None, at
    if code in (0xC2, 0xC3):
        return code == 0xC3, at
    if code in _INTS:
        size, signed = _INTS[code]
        _need(data, at, size)
        return int.from_bytes(data[at:at + size], "big", signed=signed), at + size
    if code in _FLOATS:
        size = _FLOATS[code]
        _need(data, at, size)
        return _float(data, at, size), at + size
    if code in _SIZED:
        size = _SIZED[code]
        _need(data, at, size)
        n = int.from_bytes(data[at:at + size], "big")
        at += size
        if code >= 0xDE:
            return _map(data, at, n)
        if code >= 0xDC:
            return _array(data, at, n)
        if code >= 0xD9:
            return _text(data, at, n)
        _need(data, at, n)
        return bytes(data[at:at + n]), at + n
    raise WireError(f"malformed MessagePack: type byte 0x{code:02x} is not one gridd sends")


def _need(data: memoryview, at: int, n: int) -> None:
    if at + n > len(data):
        raise WireError("malformed MessagePack: truncated")


def _text(data: memoryview, at: int, n: int) -> tuple[str, int]:
    _need(data, at, n)
    return str(data[at:at + n], "utf-8"), at + n


def _array(data: memoryview, at: int, n: int) -> tuple[list[object], int]:
    _need(data, at, n)  # each item takes a byte at least: a bogus length fails at once
    items = []
    for _ in range(n):
        item, at = _unpack(data, at)
        items.append(item)
    return items, at


def _map(data: memoryview, at: int, n: int) -> tuple[dict[object, object], int]:
    _need(data, at, 2 * n)
    out: dict[object, object] = {}
    for _ in range(n):
        key, at = _unpack(data, at)
        value, at = _unpack(data, at)
        try:
            out[key] = value
        except TypeError:  # a list or a map as a key
            raise WireError("malformed MessagePack: a key that is not a plain value") from None
    return out, at

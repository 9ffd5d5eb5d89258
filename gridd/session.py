"""The session of an interactive task: what qrsh and the task's execd exchange.

qrsh (or qrsh -inherit, qlogin) makes a one-time CURVE key pair and hands its public half
to the master with its request; the master sends it to the execd with the task. Once the
task runs, the master tells qrsh where the host's session socket is and the host's public
key (``protocol.Started``); qrsh connects there with its one-time key, which execd's ZAP
handler lets in for that task alone, and the task's standard streams travel over that
connection, encrypted and authenticated both ways as every other connection of the cell.

Each message is one msgpack frame holding one of the structs below. qrsh speaks first
(``Alive``, so that execd's ROUTER learns the connection), then sends its input, signals
and window sizes; execd sends the task's output in order and, after the last of it, how
the task ended (``Exit``). Either side sends ``Alive`` when it has sent nothing for
ALIVE_EVERY seconds, and takes the other for lost after LOST_AFTER seconds of silence:
execd then kills the task (a qrsh whose terminal went away), qrsh ends with an error
(a host that died).

Light on purpose (msgspec alone): qrsh imports it at start-up.
"""

from __future__ import annotations

import msgspec

ALIVE_EVERY = 5.0  # seconds of silence after which a side says it is alive
LOST_AFTER = 20.0  # seconds of silence after which a side takes the other for lost
ATTACH_WITHIN = 60.0  # seconds execd waits for qrsh to open a started task's session
CHUNK = 65536  # the most bytes of a stream one Input or Output carries


class Alive(msgspec.Struct, tag="alive"):
    """Nothing but a sign of life (and qrsh's first message)."""


class Input(msgspec.Struct, tag="in"):
    """Bytes for the task's standard input (or its terminal)."""

    data: bytes


class InputEnd(msgspec.Struct, tag="eof"):
    """qrsh's standard input ended: the task's stdin is closed (without a terminal)."""


class Signal(msgspec.Struct, tag="sig"):
    """A signal qrsh got (SIGINT, SIGTERM, SIGHUP...), for the task's process group."""

    signum: int


class Window(msgspec.Struct, tag="win"):
    """The size of qrsh's terminal, for the task's pseudo-terminal."""

    rows: int
    cols: int


class Output(msgspec.Struct, tag="out"):
    """Bytes the task wrote: fd 1 (or its terminal) or 2."""

    fd: int
    data: bytes


class Exit(msgspec.Struct, tag="exit"):
    """How the task ended, after its last output: the exit status qrsh exits with
    (128 + N for a death by signal N), or why it could not start."""

    status: int
    signal: str = ""
    error: str = ""


FromClient = Alive | Input | InputEnd | Signal | Window
FromExecd = Alive | Output | Exit

_encoder = msgspec.msgpack.Encoder()
_from_client = msgspec.msgpack.Decoder(FromClient)
_from_execd = msgspec.msgpack.Decoder(FromExecd)


class SessionError(Exception):
    """A frame that is not a message of the session."""


def encode(msg: FromClient | FromExecd) -> bytes:
    return _encoder.encode(msg)


def from_client(frame: bytes) -> FromClient:
    try:
        return _from_client.decode(frame)
    except (msgspec.DecodeError, msgspec.ValidationError) as exc:
        raise SessionError(f"malformed session message: {exc}") from None


def from_execd(frame: bytes) -> FromExecd:
    try:
        return _from_execd.decode(frame)
    except (msgspec.DecodeError, msgspec.ValidationError) as exc:
        raise SessionError(f"malformed session message: {exc}") from None

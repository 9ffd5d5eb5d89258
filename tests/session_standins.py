"""Stand-ins for the daemons qrsh talks to, in threads of the test: an execd session
socket (a pyzmq ROUTER, CURVE server, that knows a client by its Identity) and a master
that answers Submit, WaitStarted and StartPeTask as the real one does."""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path

import zmq
from zmq.utils import z85

from gridd import keys
from gridd import protocol as p
from gridd import session as s

# What the execd stand-in does on each message from qrsh: sends the messages returned.
Script = Callable[[s.FromClient, list[s.FromClient]], list[s.FromExecd]]


class Execd(threading.Thread):
    """A session socket: each message from the client is recorded and handed to
    `script`, whose answers are sent back; stops after sending an Exit, or on stop()."""

    def __init__(self, ctx: zmq.Context, script: Script, curve: bool = True) -> None:
        super().__init__(daemon=True)
        self.router = ctx.socket(zmq.ROUTER)
        self.public = b""
        if curve:
            public, secret = zmq.curve_keypair()
            self.router.curve_server = True
            self.router.curve_publickey, self.router.curve_secretkey = public, secret
            self.public = z85.decode(public)
        port = self.router.bind_to_random_port("tcp://127.0.0.1")
        self.endpoint = f"tcp://127.0.0.1:{port}"
        self.script = script
        self.got: list[s.FromClient] = []
        self.identities: set[bytes] = set()
        self.stopping = threading.Event()

    def run(self) -> None:
        try:
            while not self.stopping.is_set():
                if not self.router.poll(50):
                    continue
                identity, frame = self.router.recv_multipart()
                self.identities.add(identity)
                msg = s.from_client(frame)
                self.got.append(msg)
                for answer in self.script(msg, self.got):
                    self.router.send_multipart([identity, s.encode(answer)])
                    if isinstance(answer, s.Exit):
                        return
        finally:
            self.router.close(linger=1000)

    def stop(self) -> None:
        self.stopping.set()
        self.join(5)


class KeyGate:
    """A ZAP handler's credentials check, as execd's: only the keys of sessions held."""

    def __init__(self, *allowed: bytes) -> None:
        self.allowed = set(allowed)

    def callback(self, domain: str, key: bytes) -> bool:
        return z85.decode(key) in self.allowed


class Master(threading.Thread):
    """A master of a --security none cell at `root`: Submit is job 1, WaitStarted and
    StartPeTask are answered with `started` (or `refusal`, an Error), or not at all with
    `hold` (a job that waits)."""

    def __init__(self, ctx: zmq.Context, root: Path, started: p.Started | None = None,
                 refusal: p.Error | None = None) -> None:
        super().__init__(daemon=True)
        self.router = ctx.socket(zmq.ROUTER)
        port = self.router.bind_to_random_port("tcp://127.0.0.1")
        (root / "common").mkdir(parents=True, exist_ok=True)
        (root / "common" / "master_endpoint").write_text(f"tcp://127.0.0.1:{port}\n")
        keys.set_security(root, keys.NONE)
        self.started, self.refusal = started, refusal
        self.hold = False
        self.got: list[p.Msg] = []
        self.stopping = threading.Event()

    def run(self) -> None:
        try:
            while not self.stopping.is_set():
                if not self.router.poll(50):
                    continue
                identity, frame = self.router.recv_multipart()
                msg = p.decode(frame)
                self.got.append(msg)
                answer = self._answer(msg)
                if answer is None:
                    continue
                answer.rid = msg.rid
                self.router.send_multipart([identity, p.encode(answer)])
        finally:
            self.router.close(linger=1000)

    def _answer(self, msg: p.Msg) -> p.Msg | None:
        if isinstance(msg, p.Submit):
            return p.Submitted(job_id=1, name=msg.spec.name)
        if isinstance(msg, p.Delete):
            return p.Ok()
        if isinstance(msg, (p.WaitStarted, p.StartPeTask)):
            if self.hold:
                return None
            return self.refusal or self.started or p.Error(text="no answer set")
        return p.Error(text=f"unexpected {type(msg).__name__}")

    def stop(self) -> None:
        self.stopping.set()
        self.join(5)

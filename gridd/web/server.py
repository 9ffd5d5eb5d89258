"""Run the web interface: Hypercorn's trio worker on a socket bound here (so a port
the system picks is known before the first request), the Watch loop beside it, and the
server's URL in $GRIDD_ROOT/spool/web/url for `gridd web login` while it runs."""

from __future__ import annotations

import ipaddress
import logging
import os
import signal
import socket
import sys
from pathlib import Path

import trio
from hypercorn.config import Config
from hypercorn.trio import serve

from gridd import paths
from gridd.web import events
from gridd.web.app import make_app
from gridd.web.state import WebState


def parse_listen(text: str) -> tuple[str, int]:
    """`ADDR:PORT` (IPv6 in brackets); port 0 for one the system picks."""
    addr, colon, port = text.rpartition(":")
    addr = addr.removeprefix("[").removesuffix("]")
    try:
        ipaddress.ip_address(addr)
        number = int(port)
    except ValueError:
        number = -1
    if not colon or not 0 <= number < 65536:
        raise ValueError(f"--listen {text}: want ADDR:PORT, an IP address of this machine "
                         "and a port (0: one that is free)")
    return addr, number


def run(base: Path, listen: tuple[str, int]) -> int:
    addr, port = listen
    family = socket.AF_INET6 if ":" in addr else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((addr, port))
    except OSError as exc:
        print(f"gridd: cannot listen on {addr}:{port}: {exc.strerror}", file=sys.stderr)
        sock.close()
        return 1
    sock.listen(128)
    port = sock.getsockname()[1]
    url = f"http://{f'[{addr}]' if family == socket.AF_INET6 else addr}:{port}/"
    config = Config()
    config.bind = [f"fd://{os.dup(sock.fileno())}"]  # Hypercorn closes the one it is given
    config.accesslog = None
    config.errorlog = "-"
    logging.basicConfig(level=logging.INFO, stream=sys.stderr,
                        format="%(asctime)s %(name)s %(levelname)s %(message)s")
    state = WebState(base)
    where = paths.web_url_file(base)
    where.parent.mkdir(parents=True, exist_ok=True)
    where.write_text(f"{url}\n")
    print(f"gridd: web interface at {url} ('gridd web login' logs you in)", flush=True)
    try:
        trio.run(_serve, state, config)
    except KeyboardInterrupt:
        pass
    finally:
        if _written_url(where) == url:  # not a newer server's
            where.unlink(missing_ok=True)
        state.pool.close()
        sock.close()
    return 0


def _written_url(where: Path) -> str:
    try:
        return where.read_text().strip()
    except OSError:
        return ""


async def _serve(state: WebState, config: Config) -> None:
    async with trio.open_nursery() as nursery:
        nursery.start_soon(events.watch, state)
        await serve(make_app(state), config, shutdown_trigger=_signalled)
        nursery.cancel_scope.cancel()


async def _signalled() -> None:
    with trio.open_signal_receiver(signal.SIGTERM, signal.SIGINT) as signals:
        async for _ in signals:
            return


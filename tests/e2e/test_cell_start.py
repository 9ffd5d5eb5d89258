"""`gridd up` and the master's port: chosen by the master as it binds on a new cell,
kept after; a port taken by another program ends `gridd up` at once, with the reason."""

from __future__ import annotations

import socket
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from gridd.master_endpoint import ephemeral_ports
from tests.e2e.conftest import Cell, cell_processes, make_cell


@pytest.fixture
def one_host(tmp_path: Path) -> Iterator[Cell]:
    yield from make_cell(tmp_path, hosts=1, slots=1)


def endpoint(cell: Cell) -> str:
    return (cell.root / "common" / "master_endpoint").read_text().strip()


def test_a_new_cells_master_publishes_the_port_it_bound_and_binds_it_again(one_host: Cell):
    first = endpoint(one_host)
    host, _, port = first.removeprefix("tcp://").rpartition(":")
    first_ephemeral, last_ephemeral = ephemeral_ports()
    assert host == "127.0.0.1" and not first_ephemeral <= int(port) <= last_ephemeral
    assert not (one_host.root / "spool" / "qmaster" / "listen").exists()
    one_host.ok("gridd", "down")
    one_host.ok("gridd", "up")
    assert endpoint(one_host) == first
    one_host.ok("qstat")


def test_a_port_taken_meanwhile_ends_gridd_up_at_once_and_starts_nothing(one_host: Cell):
    port = int(endpoint(one_host).rpartition(":")[2])
    one_host.ok("gridd", "down")
    with socket.socket() as taken:
        taken.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        taken.bind(("127.0.0.1", port))
        taken.listen()
        t0 = time.monotonic()
        res = one_host.run("gridd", "up")
        took = time.monotonic() - t0
        assert res.returncode == 1, res
        assert (f"gridd: the master stopped as it started (exit 1): gridd: the master "
                f"cannot listen at tcp://127.0.0.1:{port}: Address already in use; see "
                f"{one_host.root}/spool/qmaster/messages; the daemons this started are "
                "stopped\n") == res.stderr
        assert took < 20, took  # not the 30 s of waiting for hosts that cannot report
        assert cell_processes(one_host.root) == []
    one_host.ok("gridd", "up")
    assert endpoint(one_host) == f"tcp://127.0.0.1:{port}"

"""`--listen ADDR:PORT`: what the master binds and what common/master_endpoint says."""

from __future__ import annotations

import socket

import pytest

from gridd.cli.listen import Listen, ListenError, check_bindable, parse


@pytest.mark.parametrize(("text", "bind", "public"), [
    ("10.77.0.1:6444", "tcp://10.77.0.1:6444", "tcp://10.77.0.1:6444"),
    ("0.0.0.0:6444", "tcp://*:6444", "tcp://node0:6444"),
    ("*:6444", "tcp://*:6444", "tcp://node0:6444"),
    ("[::]:6444", "tcp://[::]:6444", "tcp://node0:6444"),
    ("::6444", None, None),
    ("[fd00::1]:6444", "tcp://[fd00::1]:6444", "tcp://[fd00::1]:6444"),
])
def test_an_address_is_bound_and_published_a_wildcard_by_the_host_name(
        text: str, bind: str | None, public: str | None):
    if bind is None:  # "::6444" reads as ADDR "::" and no port: brackets are wanted
        with pytest.raises(ListenError):
            parse(text, "node0")
        return
    assert parse(text, "node0") == Listen(bind, public)


@pytest.mark.parametrize(("text", "says"), [
    ("6444", "want ADDR:PORT"),
    ("10.77.0.1:", "want ADDR:PORT"),
    ("10.77.0.1:0", "from 1 to 65535"),
    ("10.77.0.1:70000", "from 1 to 65535"),
    (":6444", "want ADDR:PORT"),
    ("master.example:6444", "'master.example' is not an IP address"),
])
def test_what_cannot_be_listened_on_is_said(text: str, says: str):
    with pytest.raises(ListenError, match=says) as refused:
        parse(text, "node0")
    assert str(refused.value).startswith(f"--listen {text}: ")


def test_an_address_of_another_machine_or_a_port_taken_is_said_before_the_master_starts():
    with pytest.raises(ListenError, match=r"cannot listen on 192\.0\.2\.77:6444: Cannot "
                                          "assign requested address"):
        check_bindable(parse("192.0.2.77:6444", "node0"))
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        with pytest.raises(ListenError, match="Address already in use"):
            check_bindable(parse(f"127.0.0.1:{port}", "node0"))
    check_bindable(parse(f"0.0.0.0:{port}", "node0"))  # free again: nothing said

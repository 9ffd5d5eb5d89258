"""`gridd`'s own command line: every flag says what it does, `gridd up` on an existing cell
says what it kept. No daemon runs here: the cell's pid files name this process."""

from __future__ import annotations

import argparse
import os
from pathlib import Path

import msgspec
import pytest

from gridd import keys
from gridd.cli.gridd_cmd import build_parser, kept_shape, main
from gridd.master.bootstrap import CellConfig

NO_DEFAULT = (None, False, [], argparse.SUPPRESS)


def parsers(parser: argparse.ArgumentParser, name: str = "gridd"):
    """The parser and every subcommand's, each with its command line."""
    yield name, parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            described = {choice.dest for choice in action._choices_actions if choice.help}
            assert described == set(action.choices), f"{name}: subcommands without a help"
            for sub, child in action.choices.items():
                yield from parsers(child, f"{name} {sub}")


def test_every_flag_of_every_gridd_subcommand_says_what_it_does_and_its_default():
    lacking = []
    for name, parser in parsers(build_parser()):
        for action in parser._actions:
            if isinstance(action, argparse._HelpAction | argparse._SubParsersAction):
                continue
            flag = f"{name} {'/'.join(action.option_strings) or action.dest}"
            if not action.help:
                lacking.append(f"{flag}: no help")
            elif (action.option_strings and not action.required
                  and action.default not in NO_DEFAULT and "default" not in action.help):
                lacking.append(f"{flag}: its default ({action.default!r}) unsaid")
    assert not lacking


def test_gridd_down_help_says_what_becomes_of_the_jobs(capsys: pytest.CaptureFixture[str]):
    with pytest.raises(SystemExit) as done:
        main(["down", "--help"])
    assert done.value.code == 0
    text = " ".join(capsys.readouterr().out.split())
    assert "Running jobs go on" in text and "the next 'gridd up' takes them over" in text
    assert "--kill-jobs kill the running jobs first, as qconf -kej does" in text


@pytest.fixture
def made_cell(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A cell made with 2 hosts x 2 slots whose daemons all "run" (as this process)."""
    monkeypatch.setenv("GRIDD_ROOT", str(tmp_path))
    common = tmp_path / "common"
    common.mkdir()
    cell = CellConfig(hosts=["node1", "node2"], slots=2, manager="me", machine="here")
    (common / "bootstrap.json").write_bytes(msgspec.json.encode(cell))
    keys.set_security(tmp_path, keys.NONE)
    (common / "master_endpoint").write_text("tcp://127.0.0.1:1\n")
    for spool, name in (("qmaster", "qmaster.pid"), ("node1", "execd.pid"),
                        ("node2", "execd.pid")):
        (tmp_path / "spool" / spool).mkdir(parents=True)
        (tmp_path / "spool" / spool / name).write_text(f"{os.getpid()}\n")
    return tmp_path


def test_gridd_up_on_a_cell_of_another_shape_says_what_it_kept(
        made_cell: Path, capsys: pytest.CaptureFixture[str]):
    assert main(["up", "--hosts", "5", "--slots", "4"]) == 0
    err = capsys.readouterr().err.splitlines()
    assert err[0] == ("gridd: the cell keeps the shape it was made with, 2 host(s) (node1, "
                      "node2) x 2 slots; only a new cell takes --hosts 5 --slots 4")
    assert "qconf -mattr queue slots S all.q" in err[1]
    # A host more needs its key and its execd, nothing of qconf: it joins @allhosts.
    assert "a host more: 'gridd keys host NAME', then 'gridd execd' on host NAME" in err[1]
    assert "gridd execd --join FILE" in err[1] and "qconf -aattr" not in err[1]
    assert err[2:] == [f"gridd: the cell under {made_cell} is already running"]
    assert msgspec.json.decode((made_cell / "common" / "bootstrap.json").read_bytes(),
                               type=CellConfig).hosts == ["node1", "node2"]


def test_gridd_up_says_nothing_of_the_shape_when_it_is_the_cells(
        made_cell: Path, capsys: pytest.CaptureFixture[str]):
    assert main(["up", "--hosts", "2", "--slots", "2"]) == 0
    assert main(["up"]) == 0
    assert "shape" not in capsys.readouterr().err


def test_kept_shape_names_only_the_flags_that_differ():
    cell = CellConfig(hosts=["node1"], slots=8)
    assert kept_shape(cell, None, None) == []
    assert kept_shape(cell, 1, 8) == []
    assert kept_shape(cell, 1, 4)[0].endswith("only a new cell takes --slots 4")
    assert kept_shape(cell, 3, None)[0].endswith("only a new cell takes --hosts 3")


def test_kept_shape_of_a_master_alone_names_no_hosts():
    assert kept_shape(CellConfig(hosts=[], slots=4), 2, None)[0] == (
        "the cell keeps the shape it was made with, 0 host(s) x 4 slots; only a new cell "
        "takes --hosts 2")


def test_a_negative_number_of_hosts_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                               capsys: pytest.CaptureFixture[str]):
    monkeypatch.setenv("GRIDD_ROOT", str(tmp_path / "cell"))
    assert main(["up", "--hosts", "-1"]) == 1
    assert capsys.readouterr().err == "gridd: --hosts -1: a number of hosts, 0 or more\n"
    assert not (tmp_path / "cell").exists()


def test_an_unusable_listen_address_makes_no_cell(tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch,
                                                  capsys: pytest.CaptureFixture[str]):
    monkeypatch.setenv("GRIDD_ROOT", str(tmp_path / "cell"))
    assert main(["up", "--listen", "master.example:6444"]) == 1
    assert "'master.example' is not an IP address" in capsys.readouterr().err
    assert main(["up", "--listen", "192.0.2.77:6444"]) == 1
    assert "cannot listen on 192.0.2.77:6444: " in capsys.readouterr().err
    assert not (tmp_path / "cell").exists()


def test_listen_is_refused_while_the_master_runs(made_cell: Path,
                                                 capsys: pytest.CaptureFixture[str]):
    assert main(["master", "--listen", "127.0.0.1:2"]) == 1
    assert capsys.readouterr().err == (
        f"gridd: the master of the cell under {made_cell} runs, listening at "
        "tcp://127.0.0.1:1: --listen 127.0.0.1:2 moves it only while it is stopped ('gridd "
        "down' or 'qconf -km' first)\n")
    assert (made_cell / "common" / "master_endpoint").read_text() == "tcp://127.0.0.1:1\n"
    assert not (made_cell / "spool" / "qmaster" / "listen").exists()


def test_join_takes_the_name_and_the_master_from_its_bundle(
        made_cell: Path, capsys: pytest.CaptureFixture[str]):
    assert main(["execd", "--join", "x.join", "--name", "node1"]) == 1
    assert "no --name or --master with it" in capsys.readouterr().err


def test_an_execd_name_that_cannot_name_a_host_is_refused(
        made_cell: Path, capsys: pytest.CaptureFixture[str]):
    assert main(["execd", "--name", "../x"]) == 1
    assert "'../x' cannot name an execution host" in capsys.readouterr().err


def test_a_master_without_a_cell_says_so(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                         capsys: pytest.CaptureFixture[str]):
    monkeypatch.setenv("GRIDD_ROOT", str(tmp_path))
    assert main(["master"]) == 1
    assert capsys.readouterr().err == (
        f"gridd: no cell under {tmp_path} (missing {tmp_path}/common/master_endpoint): "
        "'gridd up' makes one\n")


def _elsewhere(cell: Path, spool: str, name: str) -> None:
    """The pid file of a daemon on another machine (a root shared over NFS): a pid that
    here is this very process's, which nothing may signal."""
    (cell / "spool" / spool / name).write_text(f"{os.getpid()} node1\n")


def test_gridd_status_names_the_machine_of_a_daemon_elsewhere(
        made_cell: Path, capsys: pytest.CaptureFixture[str]):
    _elsewhere(made_cell, "node1", "execd.pid")
    assert main(["status"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[1].split() == ["execd", "on", "node1", "pid", str(os.getpid()), "node1"]
    assert lines[2].split()[:2] == ["execd", "running"]


def test_gridd_down_leaves_the_daemons_of_other_machines_alone(
        made_cell: Path, capsys: pytest.CaptureFixture[str]):
    for spool, name in (("qmaster", "qmaster.pid"), ("node1", "execd.pid"),
                        ("node2", "execd.pid")):
        _elsewhere(made_cell, spool, name)
    assert main(["down"]) == 0  # had it signalled a pid, this test would have ended
    out = capsys.readouterr().out
    assert "left alone: the master on node1 (stop it there)" in out
    assert "left alone: the execd of node2 on node1 (stop it there)" in out
    assert "stopped (0 process(es))" in out


def test_gridd_up_refuses_on_another_machine_than_the_masters(
        made_cell: Path, capsys: pytest.CaptureFixture[str]):
    _elsewhere(made_cell, "qmaster", "qmaster.pid")
    assert main(["up"]) == 1
    err = capsys.readouterr().err
    assert "the master of the cell under" in err and "runs on node1" in err

"""qconf's editor forms without a master: gridd.cli.qconf.run against the pure verbs.

Checks what the editor is offered (Grid Engine's texts: no load values for an exec host,
no `#global:` line for a configuration, an empty file for a host without one) and what
each form says when the file comes back unchanged.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from gridd import protocol as p
from gridd.cli import qconf
from gridd.master.admin import Caller, run_qconf
from gridd.master.bootstrap import CellConfig, initial_config
from gridd.master.state import MasterState


@pytest.fixture
def master():
    state = MasterState()
    initial_config(state, CellConfig(hosts=["node1", "node2"], slots=2))
    cfg = state.config
    sent: list[list[str]] = []

    def request(argv: list[str], files: dict[str, str]) -> p.QconfReply:
        sent.append(argv)
        ans = run_qconf(cfg, argv, Caller("root", "vm", files))
        return p.QconfReply(out=ans.out, err=ans.err, code=ans.code)

    return cfg, request, sent


@pytest.fixture
def editor(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """An $EDITOR that keeps a copy of what it was offered and applies $SEDX."""
    offered = tmp_path / "offered"
    script = tmp_path / "editor.sh"
    script.write_text(f'#!/bin/sh\ncp "$1" {offered}\n[ -n "$SEDX" ] && sed -i "$SEDX" "$1"\n'
                      "exit 0\n")
    script.chmod(0o755)
    monkeypatch.setenv("EDITOR", str(script))
    monkeypatch.delenv("SEDX", raising=False)

    def edit(sed: str = "") -> Path:
        os.environ["SEDX"] = sed
        return offered

    return edit


def test_exec_host_is_offered_without_reported_values(master, editor, capsys):
    cfg, request, sent = master
    offered = editor()
    assert qconf.run(["-me", "node1"], {}, request) == 1
    assert "load_values" not in offered.read_text()
    assert offered.read_text().startswith("hostname              node1\n")
    assert capsys.readouterr().err == "file unchanged\n"
    assert sent == [["-se", "node1"]]  # nothing sent back


def test_configurations_are_offered_without_their_header(master, editor, capsys):
    cfg, request, sent = master
    offered = editor()
    assert qconf.run(["-mconf"], {}, request) == 1
    text = offered.read_text()
    assert text.startswith("execd_spool_dir") and text.endswith("ac,h,i,e,o,j,M,N,p,w\n\n")
    assert capsys.readouterr().err == "configuration unchanged\n"
    offered = editor("$a mailer /bin/true")
    assert qconf.run(["-mconf", "node1,node2"], {}, request) == 0
    assert offered.read_text() == "\n"  # a host without a configuration of its own
    assert cfg.host_confs == {"node1": {"mailer": "/bin/true"},
                              "node2": {"mailer": "/bin/true"}}
    assert [argv[0] for argv in sent[-4:]] == ["-sconf", "-Aconf", "-sconf", "-Aconf"]
    editor("$a xterm /bin/false")
    assert qconf.run(["-mconf", "node1"], {}, request) == 0
    assert cfg.host_confs["node1"] == {"mailer": "/bin/true", "xterm": "/bin/false"}
    assert sent[-1][0] == "-Mconf" and os.path.basename(sent[-1][1]) == "node1"
    editor("d")  # an empty configuration is refused here, as Grid Engine does
    assert qconf.run(["-mconf", "node1"], {}, request) == 1
    assert capsys.readouterr().err.endswith("\nerror reading temp file\n")


@pytest.mark.parametrize(("argv", "stream", "text", "code"), [
    (["-mhgrp", "@g"], "err", "Object has not been changed\n", 1),
    (["-mprj", "p1"], "err", "file unchanged\n", 1),
    (["-mp", "smp"], "err", "file unchanged\n", 1),
    (["-msconf"], "err", "file unchanged\n", 1),
    (["-ae"], "err", "file unchanged\n", 1),
    (["-ap", "x"], "err", "file unchanged\n", 1),
    (["-aprj"], "err", "file unchanged\n", 1),
    (["-aconf", "node1"], "err", "configuration unchanged\n", 1),
    (["-mu", "arusers"], "out", "file unchanged\n", 0),
    (["-mc"], "err", "Complex attribute configuration has not been changed\n", 0),
    (["-mq", "all.q"], "err", 'root@vm modified "all.q" in cluster queue list\n', 0),
    (["-ahgrp", "@new"], "err", 'root@vm added "@new" to host group list\n', 0),
])
def test_what_an_unchanged_file_gives(master, editor, capsys, argv, stream, text, code):
    cfg, request, _ = master
    request(["-Ahgrp", "g"], {"g": "group_name @g\nhostlist node1\n"})
    request(["-Aprj", "p"], {"p": "name p1\n"})
    editor()
    assert qconf.run(argv, {}, request) == code
    captured = capsys.readouterr()
    assert getattr(captured, stream) == text


def test_missing_operand_and_failing_fetch(master, editor, capsys):
    _, request, sent = master
    editor()
    assert qconf.run(["-mp"], {}, request) == 1
    assert capsys.readouterr().err == 'error: no option argument provided to "-mp"\n' \
                                      "Usage: qconf -help\n"
    assert qconf.run(["-mp", "nosuch"], {}, request) == 1
    assert capsys.readouterr().err == "nosuch is not a parallel environment\n"
    assert sent == [["-sp", "nosuch"]]


def test_ae_of_a_name_that_resolves_says_it_is_no_exec_host(master, editor, capsys,
                                                              monkeypatch):
    """8.1.9 (run here): -ae localhost says it is no exec host, -ae of a name that does not
    resolve that it can't resolve it (the master's -se words); nothing is edited."""
    cfg, request, sent = master
    monkeypatch.setattr(qconf, "_resolves", lambda name: name == "localhost")
    offered = editor()
    assert qconf.run(["-ae", "localhost"], {}, request) == 1
    assert capsys.readouterr().err == "localhost is not an exec host\n"
    assert qconf.run(["-ae", "nosuch.invalid"], {}, request) == 1
    assert capsys.readouterr().err == 'can\'t resolve hostname "nosuch.invalid"\n'
    assert not offered.exists() and sent == [["-se", "localhost"], ["-se", "nosuch.invalid"]]


def test_only_host_names_the_master_does_not_know_are_looked_up(master, monkeypatch):
    """The names of -se, -me, -ae, each of -de's and a -Me file's hostname; gridd's hosts
    need not resolve, so those the master knows (-sel, and global) are not looked up."""
    cfg, request, sent = master
    looked_up: list[str] = []
    monkeypatch.setattr(qconf, "_resolves", lambda name: looked_up.append(name) or name != "b")
    args = ["-se", "node1", "-de", "a,b global", "-Me", "/e", "-ae", "-sql", "-me", "a"]
    assert qconf._resolvable(args, {"/e": "hostname  c\nload_scaling NONE\n"}, request) == [
        "a", "c"]
    assert looked_up == ["a", "b", "c"] and sent == [["-sel"]]
    assert qconf._resolvable(["-sql", "-sq", "all.q"], {}, request) == []
    assert sent == [["-sel"]]  # no host named: nothing asked


def test_the_names_of_as_and_ah_are_resolved_here(master, monkeypatch):
    """8.1.9's -as and -ah resolve each name: one that does not resolve is refused with
    `can't resolve hostname` and exit 1 (run there with nosuchhost7); an exec host's
    name is not looked up."""
    cfg, request, sent = master
    looked_up: list[str] = []
    monkeypatch.setattr(qconf, "_resolves",
                        lambda name: looked_up.append(name) or name == "node7")
    args = ["-as", "node7,node1", "-ah", "nosuchhost7"]
    assert qconf._resolvable(args, {}, request) == ["node7"]
    assert looked_up == ["node7", "nosuchhost7"]

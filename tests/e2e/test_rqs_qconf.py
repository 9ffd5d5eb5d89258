"""qconf on resource quota sets through the real CLI: the file forms, the attribute verbs,
the editor forms -arqs and -mrqs, and sets surviving a master restart, with Grid Engine
8.1.9's words, streams and exit codes.

The editor is a shell script given as $EDITOR; it edits the file with the sed program in
$SEDX (none: it leaves the file alone, which qconf notices).
"""

from __future__ import annotations

import os
import re
import signal
from pathlib import Path

from tests.e2e.conftest import Cell, wait_for
from tests.rqs_reference import RQS_ALL

WHO = r"\S+@\S+"



def editor(cell: Cell, tmp_path: Path, sed: str = "") -> dict[str, str]:
    script = tmp_path / "editor.sh"
    script.write_text('#!/bin/sh\n[ -n "$SEDX" ] && sed -i "$SEDX" "$1"\nexit 0\n')
    script.chmod(0o755)
    return dict(cell.env, EDITOR=str(script), SEDX=sed)


def test_rule_sets_from_files_and_attribute_verbs(cell: Cell, tmp_path: Path):
    rqs_all = tmp_path / "rqs_all"
    rqs_all.write_text(RQS_ALL)
    res = cell.run("qconf", "-Arqs", str(rqs_all))
    assert res.returncode == 0 and res.stderr == ""
    assert re.fullmatch(rf'({WHO}) added "maxujobs" to resource quota set list\n'
                        r'\1 added "max_linux" to resource quota set list\n'
                        r'\1 added "max_per_host" to resource quota set list\n', res.stdout)
    assert cell.ok("qconf", "-srqsl") == "max_linux\nmax_per_host\nmaxujobs\n"
    assert cell.ok("qconf", "-srqs") == RQS_ALL
    res = cell.run("qconf", "-Arqs", str(rqs_all))
    assert (res.returncode, res.stdout, res.stderr) == (
        1, "", 'resource quota set "maxujobs" already exists\n')
    res = cell.run("qconf", "-srqs", "nosuch")
    assert (res.returncode, res.stderr) == (1, "No resource quota set found\n")

    res = cell.run("qconf", "-mattr", "resource_quota", "limit", "slots=10", "maxujobs/1")
    assert res.returncode == 0
    assert re.fullmatch(rf'{WHO} modified "maxujobs" in resource quota set list\n', res.stdout)
    res = cell.run("qconf", "-aattr", "resource_quota", "limit", "slots=3", "maxujobs/1")
    assert res.stdout.startswith('No modification because "slots" already exists in '
                                 '"resource_quota_rules" of "resource_quota"\n')
    res = cell.run("qconf", "-mattr", "resource_quota", "limit", "slots=10", "maxujobs/7")
    assert (res.returncode, res.stderr) == (1, "no resource quota rule specified for "
                                               "modification\n")
    res = cell.run("qconf", "-mattr", "resource_quota", "limit", "nosuchres=1", "maxujobs/1")
    assert (res.returncode, res.stderr) == (
        1, '"resource_quota" references not existing complex attribute "nosuchres"\n')
    attrs = tmp_path / "attrs"
    attrs.write_text("limit to h_vmem=2g\ndescription changed desc\n")
    assert cell.run("qconf", "-Mattr", "resource_quota", str(attrs), "maxujobs/1"
                    ).returncode == 0
    assert cell.ok("qconf", "-srqs", "maxujobs") == (
        "{\n   name         maxujobs\n   description  changed desc\n   enabled      TRUE\n"
        "   limit        users * to slots=10,h_vmem=2g\n}\n")
    # the changed set went to the end of the master's order
    names = re.findall(r"^   name +(\S+)$", cell.ok("qconf", "-srqs"), re.M)
    assert names == ["max_linux", "max_per_host", "maxujobs"]

    bad = tmp_path / "bad"
    bad.write_text("{\n   name         bad2\n   enabled      TRUE\n"
                   "   limit        users * to slots=5\n")
    res = cell.run("qconf", "-Arqs", str(bad))
    assert (res.returncode, res.stderr) == (
        1, 'each value in the attribute value list in line 5 should end with "}"\n')
    res = cell.run("qconf", "-Arqs", str(tmp_path / "missing"))
    assert (res.returncode, res.stderr) == (
        1, f'error opening file "{tmp_path / "missing"}" for reading: No such file or '
           "directory\n")
    res = cell.run("qconf", "-Mrqs", str(rqs_all), "max_linux")
    assert res.returncode == 0 and res.stdout == ""
    assert re.fullmatch(rf'{WHO} modified "max_linux" in resource quota set list\n', res.stderr)
    res = cell.run("qconf", "-drqs", "max_linux,nosuch")
    assert res.returncode == 1 and res.stdout == ""
    assert re.fullmatch(rf'{WHO} removed "max_linux" from resource quota set list\n'
                        'denied: resource quota set "nosuch" does not exist\n', res.stderr)

    # the sets are in the spool: a master killed and started again still has them
    shown = cell.ok("qconf", "-srqs")
    os.kill(cell.master_pid(), signal.SIGKILL)
    wait_for(lambda: cell.run("qstat").returncode != 0, what="master gone")
    cell.start_master()
    wait_for(lambda: cell.run("qconf", "-srqsl").returncode == 0, what="master back")
    assert cell.ok("qconf", "-srqs") == shown


def test_editor_forms(cell: Cell, tmp_path: Path):
    res = cell.run("qconf", "-arqs", "new", env=editor(cell, tmp_path))
    assert (res.returncode, res.stderr) == (1, "file unchanged\n")
    res = cell.run("qconf", "-arqs", env=editor(cell, tmp_path, "s/slots=0/slots=2/"))
    assert (res.returncode, res.stderr) == (
        1, 'Keyword ("TEMPLATE") not allowed as objectname\n')
    res = cell.run("qconf", "-arqs", "new,other",
                   env=editor(cell, tmp_path, "s/slots=0/slots=2/;s/enabled .*/enabled TRUE/"))
    assert res.returncode == 0, res.stderr
    assert re.fullmatch(rf'({WHO}) added "new" to resource quota set list\n'
                        r'\1 added "other" to resource quota set list\n', res.stdout)
    assert cell.ok("qconf", "-srqs", "new") == (
        "{\n   name         new\n   description  NONE\n   enabled      TRUE\n"
        "   limit        to slots=2\n}\n")
    res = cell.run("qconf", "-arqs", "new", env=editor(cell, tmp_path, "s/slots=0/slots=3/"))
    assert (res.returncode, res.stderr) == (1, 'resource quota set "new" already exists\n')

    res = cell.run("qconf", "-mrqs", "new", env=editor(cell, tmp_path))
    assert (res.returncode, res.stderr) == (1, "file unchanged\n")
    res = cell.run("qconf", "-mrqs", "new",
                   env=editor(cell, tmp_path, "s/to slots=2/users {a, b} to slots=4/"))
    assert res.returncode == 0
    assert re.fullmatch(rf'{WHO} modified "new" in resource quota set list\n', res.stderr)
    assert "   limit        users {a,b} to slots=4\n" in cell.ok("qconf", "-srqs", "new")
    res = cell.run("qconf", "-mrqs", "nosuch", env=editor(cell, tmp_path, "s/x/y/"))
    assert (res.returncode, res.stderr) == (1, 'resource quota set "nosuch" does not exist\n')
    # a set renamed in the editor is a change of a set that does not exist (8.1.9 too)
    res = cell.run("qconf", "-mrqs", "new",
                   env=editor(cell, tmp_path, "s/name  *new/name zz5/"))
    assert (res.returncode, res.stderr) == (
        1, 'denied: resource quota set "zz5" does not exist\n')
    res = cell.run("qconf", "-mrqs", "new", env=editor(cell, tmp_path, "s/slots=4/slots=x/"))
    assert (res.returncode, res.stderr) == (1, 'attribute "slots" is not a integer value\n')
    # all sets at once (in the master's order: "new" changed last): the edited file
    # replaces them
    res = cell.run("qconf", "-mrqs", env=editor(cell, tmp_path, "s/slots=2/slots=5/"))
    assert res.returncode == 0
    assert re.fullmatch(rf'({WHO}) removed "other" from resource quota set list\n'
                        r'\1 removed "new" from resource quota set list\n'
                        r'\1 added "other" to resource quota set list\n'
                        r'\1 added "new" to resource quota set list\n', res.stderr)
    assert "slots=5" in cell.ok("qconf", "-srqs", "other")
    # options before and after an editor form run in order
    res = cell.run("qconf", "-srqsl", "-mrqs", "other", "-srqs", "other",
                   env=editor(cell, tmp_path, "s/slots=5/slots=6/"))
    assert res.stdout.startswith("new\nother\n{\n   name         other\n")
    assert "slots=6" in res.stdout

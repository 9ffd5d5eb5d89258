"""qconf through the real CLI: the editor forms that add objects, access lists and host
configurations from files, and the attribute file forms, with Grid Engine 8.1.9's words.

The editor is a shell script given as $EDITOR; it edits the file with the sed program in
$SEDX (none: it leaves the file alone, which qconf notices).
"""

from __future__ import annotations

import getpass
import os
import re
import signal
import time
from pathlib import Path

from tests.e2e.conftest import Cell, wait_for

WHO = r"\S+@\S+"


def editor(cell: Cell, tmp_path: Path, sed: str = "", status: int = 0) -> dict[str, str]:
    script = tmp_path / "editor.sh"
    script.write_text('#!/bin/sh\n[ -n "$SEDX" ] && sed -i "$SEDX" "$1"\nexit $EDSTATUS\n')
    script.chmod(0o755)
    return dict(cell.env, EDITOR=str(script), SEDX=sed, EDSTATUS=str(status))


def test_editor_forms_add_objects(cell: Cell, tmp_path: Path):
    # -aq opens the template (pe_list "make smp mpi"), which names a PE the cell lacks
    res = cell.run("qconf", "-aq", "new.q", env=editor(cell, tmp_path))
    assert (res.returncode, res.stderr) == (1, 'Parallel environment "make" does not exist\n')
    env = editor(cell, tmp_path, r"s/^pe_list .*/pe_list smp/;s/^slots .*/slots 3/")
    res = cell.run("qconf", "-aq", "new.q", env=env)
    assert res.returncode == 0, res.stderr
    assert re.fullmatch(rf'{WHO} added "new.q" to cluster queue list\n', res.stderr)
    assert "slots                 3\n" in cell.ok("qconf", "-sq", "new.q")
    res = cell.run("qconf", "-aq", env=env)  # the template's own name is refused
    assert res.stderr == 'cluster queue name "template" is not valid\n'

    res = cell.run("qconf", "-ap", "newpe", env=editor(cell, tmp_path))
    assert (res.returncode, res.stderr) == (1, "file unchanged\n")
    assert cell.run("qconf", "-sp", "newpe").returncode == 1
    res = cell.run("qconf", "-ap", "newpe", env=editor(cell, tmp_path, "s/^slots .*/slots 4/"))
    assert re.fullmatch(rf'{WHO} added "newpe" to parallel environment list\n', res.stderr)
    assert cell.ok("qconf", "-sp", "newpe").splitlines()[1] == "slots              4"

    res = cell.run("qconf", "-ahgrp", "@all",
                   env=editor(cell, tmp_path, "s/^hostlist .*/hostlist node1 node2/"))
    assert re.fullmatch(rf'{WHO} added "@all" to host group list\n', res.stderr)
    assert cell.ok("qconf", "-shgrp_resolved", "@all") == "node1\nnode2\n"

    res = cell.run("qconf", "-aprj", env=editor(cell, tmp_path, "s/^name .*/name p1/"))
    assert re.fullmatch(rf'{WHO} added "p1" to project list\n', res.stderr)
    assert cell.ok("qconf", "-sprj", "p1") == "name p1\noticket 0\nfshare 0\nacl NONE\nxacl NONE\n"

    res = cell.run("qconf", "-ae", env=editor(cell, tmp_path, "s/^hostname .*/hostname node3/"))
    assert (res.returncode, res.stderr) == (0, "added host node3 to exec host list\n")
    assert cell.ok("qconf", "-sel") == "node1\nnode2\nnode3\n"
    res = cell.run("qconf", "-ae", "node1", env=editor(cell, tmp_path))  # node1's copy
    assert (res.returncode, res.stderr) == (1, "file unchanged\n")
    res = cell.run("qconf", "-me", "node3", env=editor(cell, tmp_path, "s/^hostname .*/&/"))
    assert (res.returncode, res.stderr) == (1, "file unchanged\n")
    # a host name there is no exec host by, in 8.1.9's words (run here): localhost resolves
    for args, err in [
        (("-se", "localhost"), "localhost is not an execution host\n"),
        (("-me", "localhost"), "localhost is not an execution host\n"),
        (("-ae", "localhost"), "localhost is not an exec host\n"),
        (("-de", "localhost"), 'denied: execution host "localhost" does not exist\n'),
        (("-se", "nosuch.invalid"), 'can\'t resolve hostname "nosuch.invalid"\n'),
        (("-ae", "nosuch.invalid"), 'can\'t resolve hostname "nosuch.invalid"\n'),
    ]:
        res = cell.run("qconf", *args, env=editor(cell, tmp_path))
        assert (res.returncode, res.stdout, res.stderr) == (1, "", err), args

    res = cell.run("qconf", "-ap", "other", env=editor(cell, tmp_path, "s/x/y/", status=3))
    assert (res.returncode, res.stderr) == (1, "error: editor exited with error 3\nedit failed\n")
    res = cell.run("qconf", "-ap")
    assert res.returncode == 1 and 'no option argument provided to "-ap"' in res.stderr
    # options before and after an editor form run in order
    res = cell.run("qconf", "-sql", "-mq", "new.q", "-sq", "new.q",
                   env=editor(cell, tmp_path, "s/^seq_no .*/seq_no 5/"))
    assert res.stdout.startswith("all.q\nnew.q\nqname                 new.q\n")
    assert "seq_no                5\n" in res.stdout


def test_access_lists_from_files_and_the_editor(cell: Cell, tmp_path: Path):
    staff = tmp_path / "staff"
    staff.write_text("name    staff\ntype    ACL\nfshare  0\noticket 0\nentries alice,bob\n")
    res = cell.run("qconf", "-Au", str(staff))
    assert re.fullmatch(rf'{WHO} added "staff" to userset list\n', res.stderr)
    res = cell.run("qconf", "-Au", str(staff))
    assert (res.returncode, res.stderr) == (1, 'userset "staff" already exists\n')
    assert cell.ok("qconf", "-su", "staff") == staff.read_text()
    staff.write_text("name staff\ntype ACL DEPT\nfshare 10\noticket 0\nentries alice\n")
    res = cell.run("qconf", "-Mu", str(staff))
    assert re.fullmatch(rf'{WHO} modified "staff" in userset list\n', res.stderr)
    assert cell.ok("qconf", "-su", "staff").splitlines()[1] == "type    ACL DEPT"
    bad = tmp_path / "bad"
    bad.write_text("name staff\ntype FOO\n")
    res = cell.run("qconf", "-Mu", str(bad))
    assert (res.returncode, res.stderr) == (
        1, 'error: reading conf file: unknown specifier "FOO" for userset type\n'
           f'error: error reading file: "{bad}"\nerror reading in file\n')
    res = cell.run("qconf", "-Au", str(tmp_path / "missing"))
    assert res.returncode == 1 and res.stderr.endswith("error reading in file\n")

    res = cell.run("qconf", "-mu", "staff", env=editor(cell, tmp_path))
    assert (res.returncode, res.stdout) == (0, "file unchanged\n")  # on stdout, exit 0
    res = cell.run("qconf", "-mu", "staff,arusers",
                   env=editor(cell, tmp_path, "s/^entries .*/entries carol/"))
    assert res.stderr.count("in userset list\n") == 2
    assert cell.ok("qconf", "-su", "arusers").endswith("entries carol\n")
    cell.ok("qconf", "-mattr", "queue", "user_lists", "staff", "all.q")
    res = cell.run("qconf", "-dul", "staff")
    assert (res.returncode, res.stderr) == (
        1, 'denied: userset "staff" is still referenced in user list of queue "all.q"\n')


def test_attribute_file_forms(cell: Cell, tmp_path: Path):
    attrs = tmp_path / "attrs"
    attrs.write_text("slots 3\nseq_no 4\n")
    res = cell.run("qconf", "-Mattr", "queue", str(attrs), "all.q")
    assert res.returncode == 0
    assert re.fullmatch(rf'{WHO} modified "all.q" in cluster queue list\n', res.stdout)
    wait_for(lambda: re.search(r"^all\.q@node1 +BIP +0/0/3 ", cell.ok("qstat", "-f"), re.M),
             what="all.q with 3 slots per host")
    attrs.write_text("complex_values slots=1\n")
    assert cell.run("qconf", "-Aattr", "exechost", str(attrs), "node1").returncode == 0
    assert "complex_values        slots=1\n" in cell.ok("qconf", "-se", "node1")
    res = cell.run("qconf", "-Aattr", "exechost", str(attrs), "node1")
    assert res.stdout == ('No modification because "slots" already exists in '
                          '"complex_values" of "exechost"\n')
    cell.ok("qconf", "-Dattr", "exechost", str(attrs), "node1")
    assert "complex_values        NONE\n" in cell.ok("qconf", "-se", "node1")
    attrs.write_text("pe_list NONE\n")
    res = cell.run("qconf", "-Mattr", "queue", str(attrs), "all.q")
    assert res.stderr == ('"NONE" is not a valid list attribute value for -mattr.  '
                          "Try using -rattr instead.\n")
    cell.ok("qconf", "-Rattr", "queue", str(attrs), "all.q")
    assert "pe_list               NONE\n" in cell.ok("qconf", "-sq", "all.q")
    res = cell.run("qconf", "-Mattr", "queue", str(tmp_path / "missing"), "all.q")
    assert res.returncode == 1 and res.stderr.endswith(
        f'error: invalid option argument "{tmp_path / "missing"}"\nUsage: qconf -help\n')


def test_host_configurations_survive_a_restart(cell: Cell, tmp_path: Path):
    res = cell.run("qconf", "-sconf", "node1")
    assert (res.returncode, res.stderr) == (1, "configuration node1 not defined\n")
    res = cell.run("qconf", "-mconf", "node1", env=editor(cell, tmp_path))
    assert (res.returncode, res.stderr) == (1, "configuration unchanged\n")
    res = cell.run("qconf", "-mconf", "node1",
                   env=editor(cell, tmp_path, "$a mailer /bin/true"))
    assert re.fullmatch(rf'{WHO} added "node1" to configuration list\n', res.stderr)
    assert cell.ok("qconf", "-sconf", "node1") == (
        "#node1:\nmailer                       /bin/true\n\n")
    node2 = tmp_path / "node2"
    node2.write_text("xterm /usr/bin/false\n")
    res = cell.run("qconf", "-Mconf", str(node2))
    assert (res.returncode, res.stderr) == (1, "configuration node2 does not exist\n")
    res = cell.run("qconf", "-Aconf", str(node2))
    assert re.fullmatch(rf'{WHO} added "node2" to configuration list\n', res.stderr)
    assert cell.ok("qconf", "-sconfl") == "node1\nnode2\n"
    os.kill(cell.master_pid(), signal.SIGKILL)
    wait_for(lambda: cell.run("qstat").returncode != 0, what="master gone")
    cell.start_master()
    wait_for(lambda: cell.run("qconf", "-sconfl").returncode == 0, what="master back")
    assert cell.ok("qconf", "-sconf", "node2") == (
        "#node2:\nxterm                        /usr/bin/false\n\n")
    res = cell.run("qconf", "-dconf", "node1,node2")
    assert res.stderr.count("from configuration list\n") == 2
    res = cell.run("qconf", "-dconf", "global")
    assert (res.returncode, res.stderr) == (1, "can't delete configuration \"global\" from list\n")


def test_user_objects_are_made_at_a_first_job_and_kept_by_qconf(cell: Cell, tmp_path: Path):
    """8.1.9 (run here): enforce_user auto makes a user object at a user's first job, with
    delete_time auto_user_delete_time (86400 s) on; -Auser/-Muser confirm on stdout,
    -duser on stderr; -suser of a user there is none of says so and exits 0."""
    me, host = getpass.getuser(), os.uname().nodename
    none = cell.run("qconf", "-suserl")
    assert (none.returncode, none.stderr) == (1, "no user list defined\n")
    before = time.time()
    cell.ok("qsub", "-h", "-b", "y", "true")
    assert cell.ok("qconf", "-suserl") == f"{me}\n"
    shown = dict(line.split(" ", 1) for line in cell.ok("qconf", "-suser", me).splitlines())
    assert list(shown) == ["name", "oticket", "fshare", "delete_time", "default_project"]
    assert before + 86400 - 1 <= int(shown["delete_time"]) <= time.time() + 86400
    path = tmp_path / "alice"
    path.write_text("name alice\noticket 0\nfshare 5\ndelete_time 0\ndefault_project NONE\n")
    added = cell.run("qconf", "-Auser", str(path))
    assert (added.returncode, added.stdout) == (0, f'{me}@{host} added "alice" to user list\n')
    assert cell.ok("qconf", "-suserl") == f"alice\n{me}\n"
    unknown = cell.run("qconf", "-suser", "nosuch")
    assert (unknown.returncode, unknown.stderr) == (1, "nosuch is not known as a user\n")
    both = cell.run("qconf", "-suser", "nosuch,alice")  # as 8.1.9 (run here), but exit 1
    assert (both.returncode, both.stderr) == (1, "nosuch is not known as a user\n")
    assert both.stdout == "\n" + cell.ok("qconf", "-suser", "alice")
    gone = cell.run("qconf", "-duser", "alice")
    assert (gone.returncode, gone.stderr) == (0, f'{me}@{host} removed "alice" from user list\n')

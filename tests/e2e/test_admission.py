"""A host joins a running cell by registering (issue 31, item 3): the administrator makes
its key, its execd starts, and it is an execution host in @allhosts and all.q at once."""

from __future__ import annotations

import subprocess

from tests.e2e.conftest import BIN, Cell, wait_for
from tests.e2e.test_cell import finished, submit


def start_execd(cell: Cell, name: str) -> subprocess.Popen:
    """`gridd execd` for a host of its own, in the background, as on another node."""
    endpoint = (cell.root / "common" / "master_endpoint").read_text().strip()
    log = open(cell.root / f"{name}.out", "ab")  # noqa: SIM115
    return subprocess.Popen([str(BIN / "gridd"), "execd", "--name", name, "--master", endpoint,
                             "--load-report-time", "1"], env=cell.env, stdout=log,
                            stderr=subprocess.STDOUT, start_new_session=True)


def test_a_host_whose_key_was_made_registers_and_takes_jobs(cell: Cell):
    cell.ok("gridd", "keys", "host", "newhost")
    start_execd(cell, "newhost")
    wait_for(lambda: "newhost" in cell.ok("qconf", "-sel").split(), what="newhost in -sel")
    assert cell.ok("qconf", "-sel") == "newhost\nnode1\nnode2\n"
    assert cell.ok("qconf", "-se", "newhost").startswith("hostname              newhost\n")
    assert cell.ok("qconf", "-shgrp", "@allhosts") == (
        "group_name @allhosts\nhostlist node1 node2 newhost\n")
    wait_for(lambda: "all.q@newhost" in cell.ok("qstat", "-f"), what="all.q@newhost")
    job = submit(cell, "-b", "y", "-l", "h=newhost", "true")
    wait_for(lambda: finished(cell, job), what="the job accounted")
    hosts = [line.split(":")[1] for line in cell.accounting_lines()
             if line.split(":")[5] == str(job)]
    assert hosts == ["newhost"]
    messages = (cell.root / "spool" / "qmaster" / "messages").read_text()
    assert "execution host newhost registered: added to the exec host list and host group " \
           "@allhosts" in messages
    # the new host may be made a submit host by name, a name that resolves nowhere not
    res = cell.run("qconf", "-as", "newhost")
    assert (res.returncode, res.stderr) == (0, "newhost added to submit host list\n")
    res = cell.run("qconf", "-as", "nosuchhost7")
    assert (res.returncode, res.stderr) == (1, 'can\'t resolve hostname "nosuchhost7"\n')


def test_a_deleted_host_whose_execd_registers_again_comes_back(cell: Cell):
    """As 8.1.9 does with an execd on a host its configuration no longer knows."""
    cell.ok("gridd", "keys", "host", "newhost")
    execd = start_execd(cell, "newhost")
    wait_for(lambda: "newhost" in cell.ok("qconf", "-sel").split(), what="newhost in -sel")
    cell.ok("qconf", "-dattr", "hostgroup", "hostlist", "newhost", "@allhosts")
    cell.ok("qconf", "-de", "newhost")
    assert cell.ok("qconf", "-sel") == "node1\nnode2\n"
    execd.terminate()
    execd.wait(timeout=30)
    start_execd(cell, "newhost")
    wait_for(lambda: "newhost" in cell.ok("qconf", "-sel").split(), what="newhost back")
    assert cell.ok("qconf", "-shgrp", "@allhosts").endswith("hostlist node1 node2 newhost\n")
    messages = (cell.root / "spool" / "qmaster" / "messages").read_text()
    assert messages.count("execution host newhost registered") == 2

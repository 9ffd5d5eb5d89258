"""Quota usage is what running jobs hold: it survives a crash and restart of the master,
and the limits keep holding afterwards."""

from __future__ import annotations

import os
import signal

from tests.e2e.conftest import Cell, wait_for

RULES = """\
{
   name         per_user
   enabled      TRUE
   limit        users {*} to slots=2
}
"""


def test_usage_survives_a_master_crash(cell: Cell):
    path = cell.root / "rqs"
    path.write_text(RULES)
    cell.ok("qconf", "-Arqs", str(path))
    for _ in range(3):
        cell.ok("qsub", "-o", "/dev/null", "-j", "y", "-b", "y", "sleep", "120")
    wait_for(lambda: "slots=2/2" in cell.ok("qquota"), what="two jobs in the quota")
    before = cell.ok("qquota")

    os.kill(cell.master_pid(), signal.SIGKILL)
    cell.start_master()
    wait_for(lambda: cell.run("qquota").returncode == 0 and cell.ok("qquota") == before,
             what="the same usage after the restart")
    # The third job still waits for the quota, not for a slot (two hosts x two slots).
    pending = [ln.split()[0] for ln in cell.ok("qstat").splitlines()[2:] if " qw " in ln]
    assert len(pending) == 1
    wait_for(lambda: 'exceeds limit "' in cell.ok("qstat", "-j", pending[0]),
             what="the quota named as the reason")
    cell.ok("qdel", "-u", "*")

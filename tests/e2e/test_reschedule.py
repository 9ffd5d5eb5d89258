"""qmod -rj through the real commands: a rerunnable job is killed, its run accounted as
failed 25 (rescheduling), and it runs again (8.1.9's lines, seen here with
reference/sge-8.1.9/start.sh)."""

from __future__ import annotations

import re

from tests.e2e.conftest import Cell, wait_for
from tests.e2e.test_cell import submit
from tests.e2e.test_hold import states


def test_a_rescheduled_job_runs_again(cell: Cell) -> None:
    job = submit(cell, "-r", "y", "-b", "y", "sleep", "30")
    other = submit(cell, "-b", "y", "sleep", "30")
    wait_for(lambda: states(cell).get(str(job)) == "r" and states(cell).get(str(other)) == "r",
             what="both running")
    pushed, refused = cell.ok("qmod", "-rj", f"{job},{other}").splitlines()
    assert re.fullmatch(rf"Pushed rescheduling of job {job} on host node[12]", pushed)
    assert re.fullmatch(rf"The job {other} is running in queue all\.q@node[12] where jobs "
                        r"are not rerunable\.", refused)
    wait_for(lambda: states(cell).get(str(job)) == "Rr", what="the job running again")
    records = cell.ok("qacct", "-j", str(job))
    assert "failed       25  : rescheduling" in records, records
    cell.ok("qdel", str(job), str(other))

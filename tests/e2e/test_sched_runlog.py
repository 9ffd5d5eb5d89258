"""qconf -tsm: the scheduler records its next cycle in common/schedd_runlog, in 8.1.9's
layout (seen there: a start line, why instances took no job, `Job N <reason>` per
waiting job, a stop line, each led by the time and a bar)."""

from __future__ import annotations

import getpass
import os
import re

from tests.e2e.conftest import Cell, wait_for
from tests.e2e.test_cell import submit


def test_tsm_records_one_cycle_with_the_reasons(cell: Cell):
    job = submit(cell, "-l", "arch=nowhere", "-b", "y", "true")
    cell.ok("qmod", "-d", "all.q@node2")
    told = cell.run("qconf", "-tsm")
    assert (told.returncode, told.stderr) == (
        0, f"{getpass.getuser()}@{os.uname().nodename} triggers scheduler monitoring\n")
    log = cell.root / "common" / "schedd_runlog"
    text = wait_for(lambda: log.exists() and "STOP-SCHEDULER-RUN" in (t := log.read_text())
                    and t, what="the run log")
    lines = text.splitlines()
    stamp = r"\w{3} \w{3} [ \d]\d \d\d:\d\d:\d\d \d{4}\|"
    assert re.fullmatch(stamp + "-------------START-SCHEDULER-RUN-------------", lines[0])
    assert re.fullmatch(stamp + "--------------STOP-SCHEDULER-RUN-------------", lines[-1])
    body = [line.split("|", 1)[1] for line in lines[1:-1]]
    assert 'queue instance "all.q@node2" dropped because it is disabled' in body
    assert any(line.startswith(f"Job {job} (-l arch=nowhere) cannot run") for line in body)

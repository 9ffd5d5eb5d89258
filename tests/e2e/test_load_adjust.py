"""Load adjustments in a real cell: both execds report this machine's load, so their hosts
are equally loaded, and the scheduler takes turns between them (sched_conf
job_load_adjustments np_load_avg=0.50 by default), as 8.1.9 does."""

from __future__ import annotations

import re
from pathlib import Path

from tests.e2e.conftest import Cell, wait_for


def running_on(cell: Cell, job: int) -> list[str]:
    """The queue instances the job's tasks run in, by task."""
    rows = [words for words in map(str.split, cell.ok("qstat").splitlines()[2:])
            if int(words[0]) == job and words[4] == "r"]
    return [words[7] for words in sorted(rows, key=lambda words: int(words[-1]))]


def array(cell: Cell, tasks: int) -> int:
    return int(cell.ok("qsub", "-terse", "-t", f"1-{tasks}", "-o", "/dev/null", "-j", "y",
                       "-b", "y", "sleep", "60").split(".")[0])


def test_equally_loaded_hosts_take_turns(cell: Cell, tmp_path: Path) -> None:
    """The two tasks of an array job, planned in one cycle, start on both hosts: the first
    raises its host's np_load_avg at once. With job_load_adjustments NONE both start on
    the host that reports the least load, as before."""
    job = array(cell, 2)
    wait_for(lambda: len(running_on(cell, job)) == 2, what="both tasks running")
    assert sorted(running_on(cell, job)) == ["all.q@node1", "all.q@node2"]
    # qhost shows the loads reported, without the adjustments (8.1.9 does too).
    shown = cell.ok("qhost", "-F", "np_load_avg")
    assert len(re.findall(r"hl:np_load_avg=\d+\.\d{6}$", shown, re.M)) == 2, shown
    cell.ok("qdel", str(job))
    wait_for(lambda: cell.ok("qstat") == "", what="the job gone")

    sched = re.sub(r"^job_load_adjustments\s+\S+", "job_load_adjustments NONE",
                   cell.ok("qconf", "-ssconf"), flags=re.M)
    (tmp_path / "sched").write_text(sched)
    cell.ok("qconf", "-Msconf", str(tmp_path / "sched"))
    job = array(cell, 2)
    wait_for(lambda: len(running_on(cell, job)) == 2, what="both tasks running")
    first, second = running_on(cell, job)
    assert first == second, (first, second)
    cell.ok("qdel", str(job))

"""What a running job has used, through the real commands: execd samples the job's
process tree and sends it with each load report, qstat -j and -ext show it (as 8.1.9's
do), and the accounting record keeps the memory integral and the bytes read and written."""

from __future__ import annotations

import re

from tests.e2e.conftest import Cell, wait_for
from tests.e2e.test_cell import finished, submit

USAGE = re.compile(r"^usage +1: +cpu=(\d\d):(\d\d):(\d\d), mem=([\d.]+) GB s, io=([\d.]+) GB, "
                   r"vmem=(\S+), maxvmem=(\S+)$", re.M)


def test_qstat_shows_the_usage_of_a_running_job(cell: Cell) -> None:
    # Some seconds of cpu in the shell itself (a loop that forks would load the machine
    # under the other tests' cells), then a wait: the job runs until it is deleted. A
    # million rounds took just under the second waited for on a fast machine: three.
    busy = ("head -c 5000000 /dev/zero > /dev/null; "
            "i=0; while [ $i -lt 3000000 ]; do i=$((i+1)); done; sleep 120")
    job = submit(cell, "-b", "y", "-shell", "n", "sh", "-c", busy)

    def reported() -> re.Match[str] | None:
        found = USAGE.search(cell.ok("qstat", "-j", str(job)))
        return found if found and int(found.group(3)) >= 1 and found.group(6) != "N/A" \
            else None

    usage = wait_for(reported, what="a usage report with a second of cpu")
    assert isinstance(usage, re.Match)
    assert float(usage.group(4)) > 0 and usage.group(7) != "N/A"
    ext = cell.ok("qstat", "-ext").splitlines()[2]
    assert re.search(r" r +0:00:00:0\d [\d.]+ [\d.]+ ", ext), ext
    cell.ok("qdel", str(job))
    wait_for(lambda: finished(cell, job), what="job accounted")
    accounted = cell.ok("qacct", "-j", str(job))
    mem = re.search(r"^mem +([\d.]+)([KMGT]?)Bs$", accounted, re.M)
    io = re.search(r"^io +([\d.]+)([KMGT]?)B$", accounted, re.M)
    assert mem and float(mem.group(1)) > 0, accounted
    assert io and io.group(2) in ("M", "G", "T") and float(io.group(1)) >= 5, accounted

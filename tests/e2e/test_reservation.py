"""Resource reservation through the real commands: the license example of
spec/resource-reservation-backfilling.txt with MONITOR on, on a two-host cell, and the
schedule file it leaves (times and host names aside)."""

from __future__ import annotations

import re
from pathlib import Path

from tests.e2e.conftest import Cell, wait_for
from tests.e2e.test_cell import finished, submit
from tests.e2e.test_complex_examples import add_complexes

# The spec's six intervals, as job:task:state:duration:level:resource:amount.
SPEC_SEQUENCE = [
    ["1:1:STARTING:90:G:license:4.000000", "1:1:STARTING:90:Q:slots:1.000000",
     "2:1:RESERVING:90:G:license:5.000000", "2:1:RESERVING:90:Q:slots:1.000000",
     "3:1:RESERVING:91:G:license:1.000000", "3:1:RESERVING:91:Q:slots:1.000000"],
    ["1:1:RUNNING:90:G:license:4.000000", "1:1:RUNNING:90:Q:slots:1.000000",
     "2:1:RESERVING:90:G:license:5.000000", "2:1:RESERVING:90:Q:slots:1.000000",
     "3:1:RESERVING:91:G:license:1.000000", "3:1:RESERVING:91:Q:slots:1.000000"],
    ["2:1:STARTING:90:G:license:5.000000", "2:1:STARTING:90:Q:slots:1.000000",
     "3:1:RESERVING:91:G:license:1.000000", "3:1:RESERVING:91:Q:slots:1.000000"],
    ["2:1:RUNNING:90:G:license:5.000000", "2:1:RUNNING:90:Q:slots:1.000000",
     "3:1:RESERVING:91:G:license:1.000000", "3:1:RESERVING:91:Q:slots:1.000000"],
    ["3:1:STARTING:91:G:license:1.000000", "3:1:STARTING:91:Q:slots:1.000000"],
    ["3:1:RUNNING:91:G:license:1.000000", "3:1:RUNNING:91:Q:slots:1.000000"],
]


def set_sched(cell: Cell, tmp_path: Path, **values: str) -> None:
    lines = []
    for line in cell.ok("qconf", "-ssconf").splitlines():
        key = line.split()[0]
        lines.append(f"{key:<33} {values[key]}" if key in values else line)
    path = tmp_path / "sched_conf"
    path.write_text("\n".join(lines) + "\n")
    cell.ok("qconf", "-Msconf", str(path))


def intervals(cell: Cell) -> list[list[str]]:
    """The schedule file's intervals, start times and object names dropped; empty and
    repeated intervals (cycles that changed nothing) left out."""
    path = cell.root / "common" / "schedule"
    if not path.exists():
        return []
    out: list[list[str]] = []
    current: list[str] | None = None
    for line in [*path.read_text().splitlines(), "::::::::"]:
        if line == "::::::::":
            if current and (not out or out[-1] != current):
                out.append(current)
            current = []
            continue
        job, task, state, _start, duration, level, _name, resource, amount = line.split(":")
        assert current is not None
        current.append(":".join((job, task, state, duration, level, resource, amount)))
    return out


def test_license_example_schedule_file(cell: Cell, tmp_path: Path) -> None:
    add_complexes(cell, tmp_path, "license lic INT <= YES YES 0 0")
    cell.ok("qconf", "-mattr", "exechost", "complex_values", "license=5", "global")
    set_sched(cell, tmp_path, max_reservation="10", params="MONITOR=1")
    cell.ok("qmod", "-d", "all.q")  # all three pending before one cycle looks at them
    l4 = submit(cell, "-N", "L4_RR", "-R", "y", "-l", "h_rt=30,license=4", "-p", "100",
                "-b", "y", "sleep", "1")
    l5 = submit(cell, "-N", "L5_RR", "-R", "y", "-l", "h_rt=30,license=5", "-b", "y",
                "sleep", "1")
    l1 = submit(cell, "-N", "L1_RR", "-R", "y", "-l", "h_rt=31,license=1", "-b", "y",
                "sleep", "3")
    assert (l4, l5, l1) == (1, 2, 3)
    cell.ok("qmod", "-e", "all.q")
    wait_for(lambda: finished(cell, l1), timeout=60, what="the three jobs to run in turn")
    seen = intervals(cell)
    assert seen[:1] == SPEC_SEQUENCE[:1], seen
    # Later cycles may come between the spec's (a job's end is a change of its own): the
    # spec's intervals appear in its order.
    rest = iter(seen)
    assert all(any(got == want for got in rest) for want in SPEC_SEQUENCE), \
        "\n".join(map(str, seen))


def test_qstat_j_shows_when_and_where_a_waiting_job_is_reserved(cell: Cell,
                                                                tmp_path: Path) -> None:
    add_complexes(cell, tmp_path, "license lic INT <= YES YES 0 0")
    cell.ok("qconf", "-mattr", "exechost", "complex_values", "license=5", "global")
    set_sched(cell, tmp_path, max_reservation="10")
    first = submit(cell, "-l", "h_rt=30,license=5", "-b", "y", "sleep", "30")
    wait_for(lambda: "running" in cell.run("qstat", "-j", str(first)).stdout
             or " r " in cell.ok("qstat"), what="the first job to run")
    waiting = submit(cell, "-R", "y", "-l", "h_rt=30,license=5", "-b", "y", "true")

    def reserved() -> str | None:
        out = cell.ok("qstat", "-j", str(waiting))
        return next((line for line in out.splitlines()
                     if line.startswith("reserved start:")), None)

    line = wait_for(reserved, what="qstat -j to show the reservation")
    assert isinstance(line, str)
    # Planned at the first job's start + h_rt + DURATION_OFFSET, on one slot somewhere.
    assert re.search(r"reserved start:\s+\w{3} \w{3} +\d+ \d\d:\d\d:\d\d \d{4} "
                     r"all\.q@\S+=1$", line), line
    cell.ok("qdel", str(first), str(waiting))


def test_qalter_changes_reservation_priority_name_and_resources(cell: Cell) -> None:
    cell.ok("qmod", "-d", "all.q")
    job = submit(cell, "-b", "y", "true")
    assert cell.ok("qalter", "-R", "y", str(job)).strip() == \
        f"modified reservation behaviour of job {job}"
    assert cell.ok("qalter", "-l", "h_rt=0:5:0", str(job)).strip() == \
        f"modified hard resource list of job {job}"
    assert cell.ok("qalter", "-N", "renamed", str(job)).strip() == \
        f"modified job name of job {job}"
    out = cell.ok("qalter", "-p", "50", str(job)).strip()
    assert re.fullmatch(rf"\S+@\S+ sets scheduling priority of job {job} to 50", out), out
    details = cell.ok("qstat", "-j", str(job))
    assert re.search(r"^reserve:\s+y$", details, re.M), details
    assert re.search(r"^job_name:\s+renamed$", details, re.M), details
    assert re.search(r"^hard resource_list:\s+h_rt=300$", details, re.M), details
    missing = cell.run("qalter", "-N", "x", "9999")
    assert (missing.returncode, missing.stdout.strip()) == \
        (1, 'denied: job "9999" does not exist')
    bad = cell.run("qalter", "-p", "2000", str(job))
    assert bad.returncode != 0 and "invalid priority" in bad.stderr
    cell.ok("qmod", "-e", "all.q")
    wait_for(lambda: finished(cell, job), what="the altered job to run")

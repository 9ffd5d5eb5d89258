"""The examples of the complex attribute specification (../shared/spec/complex-attributes.txt)
through the real commands on a two-host cell: E1 (fixed values are per slot), E2
(consumables are debited per slot, queue by queue) and the overriding examples of
section 3, with the scheduling information qstat -j gives."""

from __future__ import annotations

import re
from pathlib import Path

from tests.e2e.conftest import Cell, wait_for
from tests.e2e.test_cell import submit


def add_complexes(cell: Cell, tmp_path: Path, *rows: str) -> None:
    table = [ln for ln in cell.ok("qconf", "-sc").splitlines() if not ln.startswith("#")]
    path = tmp_path / "complexes"
    path.write_text("\n".join([*table, *rows]) + "\n")
    cell.ok("qconf", "-Mc", str(path))


def add_queue(cell: Cell, tmp_path: Path, name: str, **values: str) -> None:
    """A queue like all.q with some attributes replaced."""
    values = {"qname": name, **values}
    lines = []
    for line in cell.ok("qconf", "-sq", "all.q").splitlines():
        key = line.split()[0]
        lines.append(f"{key:<21} {values[key]}" if key in values else line)
    path = tmp_path / name
    path.write_text("\n".join(lines) + "\n")
    cell.ok("qconf", "-Aq", str(path))


def resources(cell: Cell, instance: str, names: str) -> list[str]:
    out = cell.ok("qstat", "-F", names, "-q", instance)
    return [ln.strip() for ln in out.splitlines() if ln.startswith("\t")]


def scheduling_info(cell: Cell, job: int) -> str:
    out = cell.ok("qstat", "-j", str(job))
    return out[out.find("scheduling info:"):]


def granted(cell: Cell, job: int) -> list[str]:
    """The queue instances a running parallel job holds, as qstat -f lists it."""
    held, current = [], ""
    for line in cell.ok("qstat", "-f").splitlines():
        fields = line.split()
        if fields and "@" in fields[0]:
            current = fields[0]
        elif fields and fields[0] == str(job):
            held.append(f"{current}x{fields[-1]}")
    return held


def test_e1_fixed_values_are_compared_per_slot_and_not_consumed(cell: Cell, tmp_path: Path):
    add_complexes(cell, tmp_path, "t01 t01 INT <= YES NO 0 0")
    add_queue(cell, tmp_path, "q1", hostlist="node1", slots="5", complex_values="t01=20",
              pe_list="smp")
    j1 = submit(cell, "-q", "q1", "-pe", "smp", "4", "-l", "t01=10", "-b", "y", "sleep", "60")
    wait_for(lambda: granted(cell, j1) == ["q1@node1x4"], what="j1 on q1 with 4 slots")
    # q1 keeps t01 <= 20 and has one slot left.
    assert resources(cell, "q1@node1", "t01,slots") == ["qc:slots=1", "qf:t01=20"]
    too_much = submit(cell, "-q", "q1", "-l", "t01=30", "-b", "y", "true")
    info = wait_for(lambda: "t01" in scheduling_info(cell, too_much)
                    and scheduling_info(cell, too_much), what="scheduling info")
    assert ('(-l t01=30) cannot run in queue "q1@node1" because it offers only '
            "qf:t01=20.000000") in info
    fits = submit(cell, "-q", "q1", "-l", "t01=20", "-b", "y", "true")
    wait_for(lambda: cell.run("qacct", "-j", str(fits)).returncode == 0, what="t01=20 ran")


def test_e2_consumables_are_debited_per_slot_on_each_queue(cell: Cell, tmp_path: Path):
    add_complexes(cell, tmp_path, "t02 t02 INT <= YES YES 0 0")
    sched = tmp_path / "sched"  # queues by seq_no, so q2, q3, q4 are tried in this order
    sched.write_text(re.sub(r"^queue_sort_method\s+\S+", "queue_sort_method seqno",
                            cell.ok("qconf", "-ssconf"), flags=re.M))
    cell.ok("qconf", "-Msconf", str(sched))
    for name, slots, seq in (("q2", "5", "1"), ("q3", "1", "2"), ("q4", "3", "3")):
        add_queue(cell, tmp_path, name, hostlist="node1", slots=slots, seq_no=seq,
                  complex_values="t02=40", pe_list="mpi")
    j2 = submit(cell, "-q", "q2,q3,q4", "-pe", "mpi", "4", "-l", "t02=20", "-b", "y",
                "sleep", "60")
    # Two slots on q2 (its t02 allows two), one on q3 (its only slot), one on q4.
    wait_for(lambda: sorted(granted(cell, j2)) == ["q2@node1x2", "q3@node1x1", "q4@node1x1"],
             what="j2 spread over q2, q3 and q4")
    assert resources(cell, "q2@node1", "t02,slots") == ["qc:slots=3", "qc:t02=0"]
    assert resources(cell, "q3@node1", "t02,slots") == ["qc:slots=0", "qc:t02=20"]
    assert resources(cell, "q4@node1", "t02,slots") == ["qc:slots=2", "qc:t02=20"]
    # What is left fits a 1-slot job with t02=20 only on q4.
    one = submit(cell, "-q", "q2,q3,q4", "-l", "t02=20", "-b", "y", "sleep", "60")
    wait_for(lambda: granted(cell, one) == ["q4@node1x1"], what="the last t02 on q4")
    late = submit(cell, "-q", "q2,q3,q4", "-l", "t02=20", "-b", "y", "true")
    info = wait_for(lambda: "t02" in scheduling_info(cell, late)
                    and scheduling_info(cell, late), what="scheduling info")
    assert "cannot run in queue \"q2@node1\" because it offers only qc:t02=0.000000" in info


def test_equality_values_are_overridden_on_their_own_level_only(cell: Cell, tmp_path: Path):
    # Example 1 of section 3: arch is a host load value; the host's own configuration may
    # override it, a queue may not (the host's value rejects the job first).
    cell.ok("qconf", "-mattr", "exechost", "complex_values", "arch=sol-sparc64", "node2")
    assert resources(cell, "all.q@node2", "arch") == ["hf:arch=sol-sparc64"]
    on_sparc = submit(cell, "-l", "arch=sol-sparc64", "-b", "y", "true")
    wait_for(lambda: cell.run("qacct", "-j", str(on_sparc)).returncode == 0, what="ran")
    assert re.search(r"^hostname\s+node2\s*$", cell.ok("qacct", "-j", str(on_sparc)), re.M)

    cell.ok("qconf", "-mattr", "queue", "complex_values", "arch=sol-amd64", "all.q")
    job = submit(cell, "-q", "all.q@node1", "-l", "arch=sol-amd64", "-b", "y", "true")
    info = wait_for(lambda: "arch" in scheduling_info(cell, job)
                    and scheduling_info(cell, job), what="scheduling info")
    assert '(-l arch=sol-amd64) cannot run at host "node1" because it offers only ' \
           "hl:arch=" in info


def test_ordering_values_are_overridden_only_more_restrictively(cell: Cell, tmp_path: Path):
    # Example 2 of section 3: mem_free (<=) reported by the host, configured on the queue;
    # the smaller value counts: 1G configured under the load's ~20G gives 1G, a configured
    # value above the load leaves the load's.
    cell.ok("qconf", "-mattr", "queue", "complex_values", "mem_free=1G", "all.q")
    assert resources(cell, "all.q@node1", "mem_free") == ["qf:mem_free=1.000G"]
    big = submit(cell, "-q", "all.q@node1", "-l", "mem_free=2G", "-b", "y", "true")
    info = wait_for(lambda: "mem_free" in scheduling_info(cell, big)
                    and scheduling_info(cell, big), what="scheduling info")
    assert ('(-l mem_free=2G) cannot run in queue "all.q@node1" because it offers only '
            "qf:mem_free=1.000G") in info
    cell.ok("qdel", str(big))
    cell.ok("qconf", "-mattr", "queue", "complex_values", "mem_free=1000T", "all.q")
    (shown,) = resources(cell, "all.q@node1", "mem_free")
    assert shown.startswith("hl:mem_free=")
    small = submit(cell, "-q", "all.q@node1", "-l", "mem_free=2G", "-b", "y", "true")
    wait_for(lambda: cell.run("qacct", "-j", str(small)).returncode == 0, what="ran")


def test_soft_requests_pick_the_instance_with_fewest_violations(cell: Cell, tmp_path: Path):
    add_complexes(cell, tmp_path, "color col STRING == YES NO NONE 0")
    cell.ok("qconf", "-mattr", "exechost", "complex_values", "color=blue", "node2")
    by_queue = submit(cell, "-soft", "-q", "all.q@node2", "-b", "y", "true")
    by_value = submit(cell, "-soft", "-l", "color=blue", "-b", "y", "true")
    unmet = submit(cell, "-soft", "-l", "color=red", "-hard", "-q", "all.q@node1",
                   "-b", "y", "true")
    for job, host in ((by_queue, "node2"), (by_value, "node2"), (unmet, "node1")):
        wait_for(lambda job=job: cell.run("qacct", "-j", str(job)).returncode == 0,
                 what=f"job {job} ran")
        assert re.search(rf"^hostname\s+{host}\s*$", cell.ok("qacct", "-j", str(job)), re.M)

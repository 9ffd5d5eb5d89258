"""The "large parallel job starvation problem" of spec/resource-reservation-backfilling.txt
(section 2 a and b) on a real two-host cell with two slots per host, driven through the
real commands.

A high-priority parallel job A submitted with -R y needs every slot of the cell while a
stream of smaller, lower-priority jobs B(i) keeps it busy. With max_reservation >= 1, A
gets a reservation: the B(i) submitted after it do not take the slots that free up while
it waits, and A starts as soon as the B(i) it waits for have ended. A short job C whose
planned end is before A's reserved start is backfilled into a freed slot meanwhile,
without delaying A.

The first B(i) are two short jobs pinned to node1 (they free one host early) and longer
work on node2 (what A really waits for): sequential jobs in the first test, one two-slot
parallel job in the second, where A asks for a slot range of a PE of its own. The
scheduler's MONITOR file records what each cycle started and reserved, accounting when
each job really ran.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from tests.e2e.conftest import Cell, wait_for
from tests.e2e.test_cell import finished, submit
from tests.e2e.test_reservation import set_sched
from tests.unit.test_formats_qconf import QCONF_SP_MPI

# Grid Engine's default weights, as the spec quotes them: -p overwhelms the urgency.
SPEC_WEIGHTS = {"weight_priority": "1.000000", "weight_urgency": "0.100000",
                "weight_ticket": "0.010000"}
SLACK = 3  # seconds: a scheduling interval (2 s) plus accounting's whole seconds


@dataclass(frozen=True)
class Ran:
    """A finished job as accounting has it (whole seconds)."""

    name: str
    start: int
    end: int
    pe: str
    slots: int


@dataclass(frozen=True)
class Use:
    """A schedule file line: job:task:state:start:duration:level:object:resource:amount."""

    job: int
    state: str
    start: int
    duration: int
    level: str
    name: str
    amount: float


def accounting(cell: Cell) -> dict[int, Ran]:
    out = {}
    for line in cell.accounting_lines():
        f = line.split(":")  # fields up to slots (34) come before the category's colons
        out[int(f[5])] = Ran(f[4], int(f[9]), int(f[10]), f[33], int(f[34]))
    return out


def schedule(cell: Cell) -> list[list[Use]]:
    """Every interval of the MONITOR file, in order."""
    out: list[list[Use]] = []
    for line in (cell.root / "common" / "schedule").read_text().splitlines():
        if line == "::::::::":
            out.append([])
            continue
        job, _task, state, start, duration, level, name, _resource, amount = line.split(":")
        out[-1].append(Use(int(job), state, int(start), int(duration), level, name,
                           float(amount)))
    return out


def states(cell: Cell) -> dict[int, str]:
    """Job number -> state letters as qstat lists them."""
    lines = cell.ok("qstat").splitlines()[2:]
    return {int(ln.split()[0]): ln.split()[4] for ln in lines}


def reserved_start(cell: Cell, job: int) -> str | None:
    """Where qstat -j says the last scheduling run reserved for a waiting job."""
    for line in cell.ok("qstat", "-j", str(job)).splitlines():
        if line.startswith("reserved start:"):
            return line
    return None


@dataclass
class Stream:
    a: int  # the parallel job, -R y -p 100
    first: list[int]  # short B(i) on node1, running when A comes
    long: list[int]  # longer B(i) on node2: what A has to wait for
    later: list[int]  # B(i) submitted after A, while it waits
    c: int  # the short job to backfill


def run_stream(cell: Cell, tmp_path: Path, a_pe: tuple[str, str],
               long: list[tuple[str, ...]]) -> Stream:
    """The spec's example: the first B(i) run, then A, more B(i) and C arrive together
    (the queues disabled while they are submitted, so that one cycle sees them all), and
    yet more B(i) while A waits. Returns once everything has been accounted."""
    set_sched(cell, tmp_path, max_reservation="1", params="MONITOR=1", **SPEC_WEIGHTS)
    b = ("-l", "h_rt=20", "-b", "y", "sleep")  # planned 20 s + DURATION_OFFSET 60 s
    cell.ok("qmod", "-d", "all.q")
    first = [submit(cell, "-N", f"B{i}", "-q", "all.q@node1", *b, "2") for i in (1, 2)]
    longer = [submit(cell, "-N", f"B{3 + i}", "-q", "all.q@node2", "-l", "h_rt=20", *args)
              for i, args in enumerate(long)]
    cell.ok("qmod", "-e", "all.q")
    wait_for(lambda: all(states(cell).get(j) == "r" for j in first + longer),
             what="the first B(i) running on every slot")

    cell.ok("qmod", "-d", "all.q")
    a = submit(cell, "-N", "A", "-R", "y", "-p", "100", "-pe", *a_pe, "-l", "h_rt=20",
               "-b", "y", "sleep", "2")
    later = [submit(cell, "-N", f"B{i}", *b, "1") for i in range(5, 9)]
    c = submit(cell, "-N", "C", "-l", "h_rt=5", "-b", "y", "sleep", "1")
    cell.ok("qmod", "-e", "all.q")

    # node1's short B(i) end within seconds: C takes a freed slot (its 5 s + 60 s end
    # before A's reservation at the longer B(i)' 20 s + 60 s), the later B(i) may not.
    wait_for(lambda: finished(cell, c), what="C backfilled and done")
    now = states(cell)
    assert now.get(a) == "qw", f"A is no longer waiting: {now}, ran: {accounting(cell)}"
    overtaking = [j for j in later if now.get(j) != "qw"]
    assert not overtaking, f"later B(i) {overtaking} started while A waited: qstat {now}"
    assert all(now.get(j) == "r" for j in longer), f"A's blockers are gone early: {now}"
    assert reserved_start(cell, a), cell.ok("qstat", "-j", str(a))
    # The stream goes on while A waits.
    later += [submit(cell, "-N", f"B{i}", *b, "1") for i in (9, 10)]
    everything = [*first, *longer, a, *later, c]
    wait_for(lambda: all(finished(cell, j) for j in everything), timeout=40,
             what="every job accounted")
    return Stream(a, first, longer, later, c)


def check_not_starved_and_backfilled(cell: Cell, s: Stream, pe: str, slots: int) -> None:
    ran = accounting(cell)
    a, c = ran[s.a], ran[s.c]
    blockers_end = max(ran[j].end for j in s.long)
    # A waited for the longer B(i) only: none of the B(i) that came after it overtook
    # it (A holds every slot, so they start once it has ended).
    assert all(ran[j].start >= a.end for j in s.later), (a, [ran[j] for j in s.later])
    assert a.start <= blockers_end + SLACK, (a, [ran[j] for j in s.long])
    assert (a.pe, a.slots) == (pe, slots), a
    # C was backfilled: started in a slot a first B(i) freed, ended before A started.
    assert min(ran[j].end for j in s.first) <= c.start and c.end <= a.start, (c, a)

    intervals = schedule(cell)
    started = {u.job: i for i, uses in enumerate(intervals) for u in uses
               if u.state == "STARTING"}
    # The interval C started in held A's reservation, and C's planned end precedes it.
    at_c = intervals[started[s.c]]
    reserving = [u for u in at_c if u.job == s.a and u.state == "RESERVING"]
    assert reserving, f"no reservation for A when C was started: {at_c}"
    (c_use,) = [u for u in at_c if u.job == s.c and u.level == "Q"]
    assert c_use.start + c_use.duration <= reserving[0].start, at_c
    # The reservation: all the slots A asks for, from when the longer B(i) were planned
    # to end (their start + h_rt + DURATION_OFFSET).
    (pe_use,) = [u for u in reserving if u.level == "P"]
    assert (pe_use.name, pe_use.amount) == (pe, float(slots)), reserving
    planned_end = max(u.start + u.duration for u in at_c
                      if u.job in s.long and u.state == "RUNNING" and u.level == "Q")
    assert reserving[0].start == planned_end, at_c
    # No later B(i) was started before A.
    assert all(started[j] > started[s.a] for j in s.later), started


def test_wide_job_is_not_starved_by_a_stream_of_small_jobs(cell: Cell, tmp_path: Path) -> None:
    long = [("-b", "y", "sleep", "8")] * 2
    s = run_stream(cell, tmp_path, ("mpi", "4"), long)
    check_not_starved_and_backfilled(cell, s, "mpi", 4)


# The reference's mpi PE ($fill_up), four slots under a name of its own.
PE_FILE = QCONF_SP_MPI.replace("mpi\n", "mpi_range\n", 1).replace(" 8\n", " 4\n", 1)


def test_slot_range_job_gets_its_reservation_and_the_most_slots(cell: Cell,
                                                                tmp_path: Path) -> None:
    path = tmp_path / "mpi_range"
    path.write_text(PE_FILE)
    res = cell.run("qconf", "-Ap", str(path))
    assert res.returncode == 0 and 'added "mpi_range" to parallel environment list' \
        in res.stderr, res
    assert cell.ok("qconf", "-sp", "mpi_range") == PE_FILE
    cell.ok("qconf", "-aattr", "queue", "pe_list", "mpi_range", "all.q")
    pe_list = re.search(r"^pe_list\s+(.*)$", cell.ok("qconf", "-sq", "all.q"), re.M)
    assert pe_list and "mpi_range" in pe_list.group(1).split(), pe_list
    # What A waits for is one two-slot B(i) on node2: both slots free at once, so at its
    # planned end A can have the top of its range, 4, and does when it really ends. It
    # runs 12 s: C must be started, run and accounted before it ends, and on a loaded
    # 2-core machine C's start was seen to lag node1's freed slots by 4 s.
    long = [("-pe", "mpi_range", "2", "-b", "y", "sleep", "12")]
    s = run_stream(cell, tmp_path, ("mpi_range", "3-4"), long)
    check_not_starved_and_backfilled(cell, s, "mpi_range", 4)

"""`consumable HOST` on a real cell of three hosts of two slots, as Open Cluster
Scheduler's per_host_consumables test does: a complex `lic` taken once per host a job
runs on (a global value once per job, as OCS books it), at host level, at global level,
granted to an advance reservation (which holds it on each of its hosts, and a global
value once per host, as OCS books an AR's) and limited by a resource quota (which
counts it once per host); sequential, array and parallel jobs (smp: $pe_slots, mpi:
$fill_up)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.e2e.conftest import Cell, make_cell, wait_for
from tests.e2e.test_advance_reservation import qrsub
from tests.e2e.test_cell import submit

HOSTS = ("node1", "node2", "node3")


@pytest.fixture(scope="module")
def cell3(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cell]:
    base = tmp_path_factory.mktemp("host_consumables")
    for cell in make_cell(base, hosts=3, slots=2):
        table = base / "complexes"
        table.write_text(cell.ok("qconf", "-sc") + "lic lic INT <= YES HOST 0 0\n")
        cell.ok("qconf", "-Mc", str(table))
        shown = "lic                 lic        INT       <=    YES         HOST       0        0\n"
        assert shown in cell.ok("qconf", "-sc")
        for host in HOSTS:
            cell.ok("qconf", "-aattr", "exechost", "complex_values", "lic=1", host)
        cell.ok("qconf", "-aattr", "exechost", "complex_values", "lic=99", "global")
        yield cell


@pytest.fixture(autouse=True)
def no_jobs_left(cell3: Cell) -> Iterator[None]:
    """A failed test's jobs would hold what the next one counts on."""
    yield
    jobs = {line.split()[0] for line in cell3.ok("qstat").splitlines()[2:]}
    if jobs:
        done(cell3, *map(int, jobs))


def running(cell: Cell) -> list[tuple[int, str, int]]:
    """Running tasks: job, (master) host and slots."""
    out = []
    for line in cell.ok("qstat", "-s", "r").splitlines()[2:]:
        fields = line.split()
        out.append((int(fields[0]), fields[7].partition("@")[2], int(fields[8])))
    return out


def left(cell: Cell) -> dict[str, str]:
    """What is left of lic, globally and per host, as qhost -F shows it."""
    shown: dict[str, str] = {}
    host = ""
    for line in cell.ok("qhost", "-F", "lic").splitlines()[2:]:
        if not line.startswith(" "):
            host = line.split()[0]
        elif ":lic=" in line:
            shown[host] = line.partition(":lic=")[2]
    return shown


def submit_array(cell: Cell, *args: str) -> int:
    return int(cell.ok("qsub", *args).split()[2].partition(".")[0])


def done(cell: Cell, *jobs: int) -> None:
    cell.ok("qdel", *map(str, jobs))
    wait_for(lambda: cell.ok("qstat") == "", what="the jobs to go")


def hosts_value(cell: Cell, where: str, value: str) -> None:
    cell.ok("qconf", "-mattr", "exechost", "complex_values", f"lic={value}", where)


def test_host_level(cell3: Cell) -> None:
    cell = cell3
    smp = submit(cell, "-pe", "smp", "2", "-l", "lic=1", "-b", "y", "sleep", "300")
    ((_, host, slots),) = wait_for(lambda: running(cell), what="the smp job to run")
    assert slots == 2
    assert left(cell) == {"global": "98.000000",
                          **{h: "0.000000" if h == host else "1.000000" for h in HOSTS}}
    assert "\thc:lic=0\n" in cell.ok("qstat", "-F", "lic", "-q", f"all.q@{host}")
    done(cell, smp)

    array = submit_array(cell, "-t", "1-4", "-l", "lic=1", "-b", "y", "sleep", "300")
    tasks = wait_for(lambda: len(found := running(cell)) == 3 and found,
                     what="three tasks to run")
    assert sorted(host for _, host, _ in tasks) == list(HOSTS)  # one per host, slots or not
    info = wait_for(lambda: "hc:lic=0.000000" in (out := cell.ok("qstat", "-j", str(array)))
                    and out, what="the fourth task's reason")
    assert "because it offers only hc:lic=0.000000" in info
    done(cell, array)

    mpi = submit(cell, "-pe", "mpi", "6", "-l", "lic=1", "-b", "y", "sleep", "300")
    wait_for(lambda: len(running(cell)) == 1, what="the mpi job to run")
    assert left(cell) == {"global": "98.000000", **dict.fromkeys(HOSTS, "0.000000")}
    done(cell, mpi)


def test_sequential_jobs(cell3: Cell) -> None:
    """As OCS's int_sequential: one per host at host level, and the global value, once
    per job, at global level."""
    cell = cell3
    for host in HOSTS:
        hosts_value(cell, host, "1")
    hosts_value(cell, "global", "99")
    jobs = [submit(cell, "-l", "lic=1", "-b", "y", "sleep", "300") for _ in range(4)]
    tasks = wait_for(lambda: len(found := running(cell)) == 3 and found,
                     what="three jobs to run")
    assert sorted(host for _, host, _ in tasks) == list(HOSTS)
    assert left(cell) == {"global": "96.000000", **dict.fromkeys(HOSTS, "0.000000")}
    info = wait_for(lambda: "hc:lic" in (out := cell.ok("qstat", "-j", str(jobs[3]))) and out,
                    what="the fourth job's reason")
    assert "because it offers only hc:lic=0.000000" in info
    done(cell, *jobs)

    for host in HOSTS:
        hosts_value(cell, host, "99")
    hosts_value(cell, "global", "2")
    jobs = [submit(cell, "-l", "lic=1", "-b", "y", "sleep", "300") for _ in range(3)]
    wait_for(lambda: len(running(cell)) == 2, what="two jobs to run")
    assert left(cell)["global"] == "0.000000"
    info = wait_for(lambda: "gc:lic" in (out := cell.ok("qstat", "-j", str(jobs[2]))) and out,
                    what="the third job's reason")
    assert "(-l lic=1) cannot run globally because it offers only gc:lic=0.000000" in info
    done(cell, *jobs)


def test_global_level(cell3: Cell) -> None:
    cell = cell3
    for host in HOSTS:
        hosts_value(cell, host, "99")
    hosts_value(cell, "global", "2")
    wide = submit(cell, "-pe", "mpi", "6", "-l", "lic=1", "-b", "y", "sleep", "300")
    wait_for(lambda: [job for job, _, _ in running(cell)] == [wide],
             what="the 3-host job to run")
    assert left(cell)["global"] == "1.000000"
    done(cell, wide)
    array = submit_array(cell, "-t", "1-3", "-l", "lic=1", "-b", "y", "sleep", "300")
    wait_for(lambda: len(running(cell)) == 2, what="two tasks to run")
    info = wait_for(lambda: "gc:lic" in (out := cell.ok("qstat", "-j", str(array))) and out,
                    what="the reason the third task waits")
    assert "(-l lic=1) cannot run globally because it offers only gc:lic=0.000000" in info
    done(cell, array)


def test_granted_to_an_advance_reservation(cell3: Cell) -> None:
    cell = cell3
    for host in HOSTS:
        hosts_value(cell, host, "1")
    hosts_value(cell, "global", "1")
    refused = cell.run("qrsub", "-d", "3600", "-pe", "mpi", "4", "-l", "lic=1")
    assert refused.returncode == 1  # it would hold the global value once per host: 2
    hosts_value(cell, "global", "2")
    ar = qrsub(cell, "-d", "3600", "-pe", "mpi", "4", "-l", "lic=1")
    # The AR holds the global value once per host (2, as Open Cluster Scheduler books an
    # AR's) and one on each of its 2 hosts: a job outside it finds none globally; the
    # job in it, on both hosts, takes what the AR holds there.
    outside = submit(cell, "-l", "lic=1", "-b", "y", "sleep", "300")
    inside = submit(cell, "-ar", str(ar), "-pe", "mpi", "4", "-l", "lic=1",
                    "-b", "y", "sleep", "300")
    wait_for(lambda: {job for job, _, _ in running(cell)} == {inside},
             what="the job in the AR to run")
    info = wait_for(lambda: "lic" in (out := cell.ok("qstat", "-j", str(outside))) and out,
                    what="the reason the job outside the AR waits")
    assert "(-l lic=1) cannot run globally because it offers only gc:lic=0.000000" in info
    assert "granted_slots_list             all.q@node1=2,all.q@node2=2\n" in cell.ok(
        "qrstat", "-ar", str(ar))
    done(cell, inside, outside)
    cell.ok("qrdel", str(ar))


def test_an_advance_reservation_holds_it_on_each_of_its_hosts(cell3: Cell) -> None:
    """As Open Cluster Scheduler's per_host_consumables "exechost layer granted to an AR":
    the AR holds lic=1 on each of its 2 hosts, a budget per host, not 2 over them."""
    cell = cell3
    for host in HOSTS:
        hosts_value(cell, host, "1")
    hosts_value(cell, "global", "99")
    ar = qrsub(cell, "-d", "3600", "-pe", "mpi", "4", "-l", "lic=1")
    try:
        held = cell.ok("qrstat", "-ar", str(ar)).partition("granted_slots_list")[2]
        ar_hosts = sorted(slot.partition("@")[2].partition("=")[0]
                          for slot in held.split()[0].split(","))
        in_ar = ("-ar", str(ar), "-l", "lic=1", "-b", "y", "sleep", "300")
        array = submit_array(cell, "-t", "1-3", *in_ar)
        tasks = wait_for(lambda: len(found := running(cell)) == 2 and found,
                         what="a task on each of the AR's hosts")
        assert sorted(host for _, host, _ in tasks) == ar_hosts  # not two on one host
        info = wait_for(lambda: "advance reservation" in (
            out := cell.ok("qstat", "-j", str(array))) and out, what="why the third waits")
        assert f"cannot run because the advance reservation {ar} has no slot left" in info
        done(cell, array)

        one = submit(cell, *in_ar)
        ((_, taken, _),) = wait_for(lambda: running(cell), what="a job in the AR to run")
        # 3 slots are left in the AR, but a lic on one host only: a 3-slot job waits, a
        # 2-slot one runs on the other host.
        wide = submit(cell, "-pe", "mpi", "3", *in_ar)
        narrow = submit(cell, "-pe", "mpi", "2", *in_ar)
        wait_for(lambda: {job for job, _, _ in running(cell)} == {one, narrow},
                 what="the 1-host job in the AR to run")
        assert [host for job, host, _ in running(cell) if job == narrow] == [
            h for h in ar_hosts if h != taken]
        info = wait_for(lambda: "mpi" in (out := cell.ok("qstat", "-j", str(wide))) and out,
                        what="the reason the 2-host job waits")
        assert 'cannot run in PE "mpi" because it only offers' in info
        done(cell, one, wide, narrow)
    finally:
        cell.ok("qrdel", str(ar))


def test_global_level_granted_to_an_advance_reservation(cell3: Cell) -> None:
    """As OCS's "global layer granted to an AR": the AR over 2 hosts holds the global
    value once per host (2 of 3), its sequential jobs and array tasks take it once each,
    so two run; a job outside finds 1 left."""
    cell = cell3
    for host in HOSTS:
        hosts_value(cell, host, "99")
    hosts_value(cell, "global", "3")
    ar = qrsub(cell, "-d", "3600", "-pe", "mpi", "4", "-l", "lic=1")
    try:
        jobs = [submit(cell, "-ar", str(ar), "-l", "lic=1", "-b", "y", "sleep", "300")
                for _ in range(3)]
        wait_for(lambda: len(running(cell)) == 2, what="two jobs in the AR to run")
        info = wait_for(lambda: "advance reservation" in (
            out := cell.ok("qstat", "-j", str(jobs[2]))) and out, what="why the third waits")
        assert f"cannot run because the advance reservation {ar} has no slot left" in info
        outside = submit(cell, "-l", "lic=2", "-b", "y", "sleep", "300")
        info = wait_for(lambda: "gc:lic" in (out := cell.ok("qstat", "-j", str(outside)))
                        and out, what="why the job outside waits")
        assert "(-l lic=2) cannot run globally because it offers only gc:lic=1.000000" in info
        done(cell, *jobs, outside)
        array = submit_array(cell, "-t", "1-3", "-ar", str(ar), "-l", "lic=1", "-b", "y",
                             "sleep", "300")
        wait_for(lambda: len(running(cell)) == 2, what="two tasks in the AR to run")
        info = wait_for(lambda: "advance reservation" in (
            out := cell.ok("qstat", "-j", str(array))) and out, what="why the third waits")
        assert f"cannot run because the advance reservation {ar} has no slot left" in info
        done(cell, array)
    finally:
        cell.ok("qrdel", str(ar))


def test_limited_by_a_resource_quota_per_host(cell3: Cell, tmp_path: Path) -> None:
    """As OCS's "limited by resource quota" levels: `hosts {*} to lic=1` lets one
    sequential job run per host, and a 3-host job takes 1 under each host's limit."""
    cell = cell3
    for host in (*HOSTS, "global"):
        hosts_value(cell, host, "99")
    rqs = tmp_path / "rqs"
    rqs.write_text("{\n   name         perhost\n   enabled      TRUE\n"
                   "   limit        hosts {*} to lic=1\n}\n")
    cell.ok("qconf", "-Arqs", str(rqs))
    try:
        jobs = [submit(cell, "-l", "lic=1", "-b", "y", "sleep", "300") for _ in range(4)]
        tasks = wait_for(lambda: len(found := running(cell)) == 3 and found,
                         what="a job on each host")
        assert sorted(host for _, host, _ in tasks) == list(HOSTS)
        info = wait_for(lambda: "perhost" in (out := cell.ok("qstat", "-j", str(jobs[3])))
                        and out, what="the reason the fourth job waits")
        assert 'in rule "perhost/1"' in info
        done(cell, *jobs)
        mpi = submit(cell, "-pe", "mpi", "6", "-l", "lic=1", "-b", "y", "sleep", "300")
        wait_for(lambda: len(running(cell)) == 1, what="the 3-host job to run")
        usage = cell.ok("qquota").splitlines()[2:]
        assert sorted(line.split()[1:] for line in usage) == [
            ["lic=1/1", "hosts", host] for host in HOSTS]
        done(cell, mpi)
    finally:
        cell.ok("qconf", "-drqs", "perhost")


def test_limited_by_a_resource_quota(cell3: Cell, tmp_path: Path) -> None:
    cell = cell3
    hosts_value(cell, "global", "10")
    rqs = tmp_path / "rqs"
    rqs.write_text("{\n   name         lics\n   enabled      TRUE\n"
                   "   limit        users * to lic=2\n}\n")
    cell.ok("qconf", "-Arqs", str(rqs))
    try:
        mpi = submit(cell, "-pe", "mpi", "4", "-l", "lic=1", "-b", "y", "sleep", "300")
        wait_for(lambda: len(running(cell)) == 1, what="the 2-host job to run")
        assert "lics/1" in cell.ok("qquota") and "lic=2/2" in cell.ok("qquota")
        array = submit_array(cell, "-t", "1-2", "-l", "lic=1", "-b", "y", "sleep", "300")
        info = wait_for(lambda: "lics" in (out := cell.ok("qstat", "-j", str(array))) and out,
                        what="the reason the array waits")
        assert 'cannot run because it exceeds limit "/////" in rule "lics/1"' in info
        assert [job for job, _, _ in running(cell)] == [mpi]
        cell.ok("qdel", str(mpi))
        wait_for(lambda: len(running(cell)) == 2, what="the array's two tasks to run")
        assert "lic=2/2" in cell.ok("qquota")
        done(cell, array)
    finally:
        cell.ok("qconf", "-drqs", "lics")


def test_qconf_refuses_host_where_it_refuses_job(cell3: Cell, tmp_path: Path) -> None:
    cell = cell3
    table = tmp_path / "complexes"
    before = cell.ok("qconf", "-sc")
    answers = []
    for consumable in ("JOB", "HOST"):
        table.write_text(before + f"tag tag STRING == YES {consumable} 0 0\n")
        refused = cell.run("qconf", "-Mc", str(table))
        answers.append((refused.returncode, refused.stderr))
    assert answers[0] == answers[1] == (1, 'Complex "tag" of type "STRING" cannot be a '
                                           'consumable\nConsumable "tag" can have only <= as an '
                                           "relational operator\n")
    assert cell.ok("qconf", "-sc") == before

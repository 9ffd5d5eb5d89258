"""Advance reservations with several Unix users, through the real commands: who may make
one (managers and the arusers access list), who sees and deletes whose, who may submit
into one, and the spec's example of ARs and resource quotas (5.2.2.1.3, 3).

The users (roland, user1, andre) are made as in test_rqs_examples.py: the tests run as
root on a machine with useradd, or are skipped saying why.
"""

from __future__ import annotations

import re
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.e2e.conftest import Cell, as_user, make_cell, wait_for
from tests.e2e.test_advance_reservation import OVERVIEW_HEAD, overview_row, qrsub
from tests.e2e.test_rqs_examples import people, reasons, rule_sets, running, submit

__all__ = ["people"]  # the module fixture that makes the users


def readable_cell(hosts: int, slots: int) -> Iterator[Cell]:
    """A cell in a directory the test users can read. Its jobs' TMPDIRs are made in a
    directory of its own: under /tmp, job 2.1 of all.q has the same one in every cell,
    and an execd run by a user cannot make it anew where another cell's job of another
    owner has it (Grid Engine names them so too)."""
    base = Path(tempfile.mkdtemp(prefix="gridd-ar-", dir="/tmp"))
    base.chmod(0o755)
    try:
        for cell in make_cell(base, hosts=hosts, slots=slots):
            tmp = base / "tmp"
            tmp.mkdir()
            tmp.chmod(0o1777)
            cell.ok("qconf", "-mattr", "queue", "tmpdir", str(tmp), "all.q")
            yield cell
    finally:
        shutil.rmtree(base, ignore_errors=True)


@pytest.fixture
def cell(people: tuple[str, ...]) -> Iterator[Cell]:
    yield from readable_cell(hosts=2, slots=2)


@pytest.fixture
def quota_cell(people: tuple[str, ...]) -> Iterator[Cell]:
    yield from readable_cell(hosts=4, slots=6)


def test_qrsub_needs_a_manager_or_arusers(cell: Cell):
    assert cell.ok("qconf", "-su", "arusers") == (
        "name    arusers\ntype    ACL\nfshare  0\noticket 0\nentries NONE\n")
    res = as_user(cell, "roland", "qrsub", "-d", "0:10:0")
    assert (res.returncode, res.stdout) == (
        1, 'denied: "roland" must be manager or in userset "arusers"\n')
    res = cell.run("qconf", "-au", "roland", "arusers")
    assert (res.returncode, res.stderr) == (0, 'added "roland" to access list "arusers"\n')
    assert cell.ok("qconf", "-su", "arusers").splitlines()[-1] == "entries roland"
    res = as_user(cell, "roland", "qrsub", "-d", "0:10:0")
    assert (res.returncode, res.stdout) == (0, "Your advance reservation 1 has been granted\n")


def test_qrstat_shows_the_callers_reservations_unless_all_users_are_asked(cell: Cell):
    cell.ok("qconf", "-au", "roland", "arusers")
    assert as_user(cell, "roland", "qrsub", "-d", "0:10:0").returncode == 0
    assert qrsub(cell, "-d", "0:10:0") == 2
    mine = cell.ok("qrstat")
    assert mine.startswith(OVERVIEW_HEAD)
    assert [re.fullmatch(overview_row(2, "root", "r", "00:10:00"), row) is not None
            for row in mine[len(OVERVIEW_HEAD):].splitlines()] == [True]
    everybody = cell.ok("qrstat", "-u", "*")
    assert everybody.startswith(OVERVIEW_HEAD)
    rows = everybody[len(OVERVIEW_HEAD):].splitlines()
    assert len(rows) == 2, everybody
    assert re.fullmatch(overview_row(1, "roland", "r", "00:10:00"), rows[0]), rows
    assert re.fullmatch(overview_row(2, "root", "r", "00:10:00"), rows[1]), rows
    theirs = as_user(cell, "roland", "qrstat").stdout
    assert [re.fullmatch(overview_row(1, "roland", "r", "00:10:00"), row) is not None
            for row in theirs[len(OVERVIEW_HEAD):].splitlines()] == [True]
    assert cell.ok("qrstat", "-u", "roland") == theirs


def test_qrdel_of_someone_elses_reservation_is_refused(cell: Cell):
    cell.ok("qconf", "-au", "roland", "arusers")
    assert as_user(cell, "roland", "qrsub", "-d", "0:10:0").returncode == 0
    assert qrsub(cell, "-d", "0:10:0") == 2
    res = as_user(cell, "roland", "qrdel", "2")
    assert (res.returncode, res.stdout) == (
        1, 'roland - you do not have the necessary privileges to delete the '
           'advance_reservation "2"\n')
    assert "root " in cell.ok("qrstat")  # still there
    res = as_user(cell, "roland", "qrdel", "1")
    assert (res.returncode, res.stdout) == (0, "roland has deleted advance_reservation 1\n")
    # a manager may delete anybody's
    cell.ok("qconf", "-au", "andre", "arusers")
    assert as_user(cell, "andre", "qrsub", "-d", "0:10:0").returncode == 0
    res = cell.run("qrdel", "3")
    assert (res.returncode, res.stdout) == (0, "root has deleted advance_reservation 3\n")
    assert [ln.split()[0] for ln in cell.ok("qrstat", "-u", "*").splitlines()[2:]] == ["2"]


def test_only_the_reservations_users_may_submit_into_it(cell: Cell):
    closed = qrsub(cell, "-d", "0:10:0")
    res = as_user(cell, "roland", "qsub", "-ar", str(closed), "-b", "y", "true")
    assert res.returncode == 1 and res.stdout == "", res
    assert res.stderr.startswith("Unable to run job: ") and res.stderr.endswith("Exiting.\n")
    opened = qrsub(cell, "-u", "roland", "-d", "0:10:0")
    assert re.search(r"^acl_list\s+roland$", cell.ok("qrstat", "-ar", str(opened)), re.M)
    res = as_user(cell, "roland", "qsub", "-ar", str(opened), "-o", "/dev/null", "-j", "y",
                  "-b", "y", "true")
    assert res.returncode == 0, res.stderr
    assert re.fullmatch(r'Your job \d+ \("true"\) has been submitted\n', res.stdout)


QUOTA = """\
{
   name         user1_slots
   enabled      TRUE
   limit        users user1 to slots=10
}
"""


def test_jobs_in_a_reservation_are_not_counted_in_quotas(quota_cell: Cell):
    cell = quota_cell
    rule_sets(cell, QUOTA)
    cell.ok("qconf", "-mattr", "pe", "slots", "24", "mpi")
    ar = qrsub(cell, "-pe", "mpi", "10", "-u", "user1", "-d", "0:10:0")
    granted = re.search(r"^granted_parallel_environment\s+(.*)$",
                        cell.ok("qrstat", "-ar", str(ar)), re.M)
    assert granted and granted.group(1) == "mpi slots 10"
    inside = submit(cell, "user1", "-ar", str(ar), count=10)
    outside = submit(cell, "user1", count=10)
    wait_for(lambda: running(cell) == {"user1": 20}, what="20 jobs of user1 running")
    # the reserved instances hold the AR's jobs, the others the rest
    used = {ln.split()[0]: ln.split()[2] for ln in cell.ok("qstat", "-f").splitlines()
            if ln.startswith("all.q@")}
    resv = sum(int(v.split("/")[0]) for v in used.values())
    in_reserved = sum(int(v.split("/")[1]) for v in used.values() if v.split("/")[0] != "0")
    assert resv == 10 and in_reserved == 10, used
    # one more outside the AR waits for the quota
    extra = submit(cell, "user1")[0]
    wait_for(lambda: "exceeds limit" in reasons(cell, extra), what="the quota named")
    assert running(cell) == {"user1": 20}
    # qquota shows the 10 outside of the AR against the limit of 10: the AR's are not booked
    out = cell.ok("qquota", "-u", "user1")
    assert re.search(r"^user1_slots/1\s+slots=10/10\s+users user1$", out, re.M), out
    cell.ok("qdel", *map(str, inside + outside + [extra]))

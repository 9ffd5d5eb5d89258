"""The examples of spec/advance-reservation.txt not covered in test_advance_reservation.py,
through the real commands: the qrsub forms of 5.1.3.1.2, the access-list denial of
5.2.2.1.3 (denied_users), and the foreseeable configuration changes 5.2.2.2.1 refuses.

The spec's start time (01121200, January 12th) has passed this year; tomorrow at noon
stands in for it, in the same MMDDhhmm form.
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.e2e.conftest import Cell, make_cell

GRANTED = re.compile(r"^Your advance reservation (\d+) has been granted$")
NO_SUITABLE = "advance_reservation: no suitable queues\n"


@pytest.fixture
def three_hosts(tmp_path: Path) -> Iterator[Cell]:
    yield from make_cell(tmp_path, hosts=3, slots=4)


def noon_tomorrow() -> str:
    return time.strftime("%m%d1200", time.localtime(time.time() + 86400))


def granted(cell: Cell, *args: str) -> int:
    out = cell.ok("qrsub", *args)
    match = GRANTED.match(out.strip())
    assert match, out
    return int(match.group(1))


def granted_slots(cell: Cell, ar: int) -> dict[str, int]:
    out = cell.ok("qrstat", "-ar", str(ar))
    line = next(ln for ln in out.splitlines() if ln.startswith("granted_slots_list"))
    return {inst: int(n) for inst, n in
            (item.split("=") for item in line.split(None, 1)[1].split(","))}


def test_the_qrsub_forms_of_the_spec(three_hosts: Cell):
    """A slot in all.q on host1, host2 or host3 (as a host pattern and as a queue list),
    and four $pe_slots slots on one host of an architecture."""
    cell, start = three_hosts, noon_tomorrow()
    hosts = {"all.q@node1", "all.q@node2", "all.q@node3"}
    one = granted(cell, "-q", "all.q", "-l", "h=node1|node2|node3", "-u", "root",
                  "-a", start, "-d", "1:0:0")
    assert set(granted_slots(cell, one)) <= hosts and sum(granted_slots(cell, one).values()) == 1
    two = granted(cell, "-q", "*@node1,*@node2,*@node3", "-u", "root", "-a", start,
                  "-d", "1:0:0")
    assert set(granted_slots(cell, two)) <= hosts
    arch = cell.ok("qhost").splitlines()[3].split()[1]  # the first host's arch
    four = granted(cell, "-pe", "smp", "4", "-l", f"arch={arch}", "-u", "root", "-a", start,
                   "-d", "1:0:0")
    slots = granted_slots(cell, four)
    assert list(slots.values()) == [4]  # $pe_slots: all on one host
    block = cell.ok("qrstat", "-ar", str(four))
    assert re.search(r"^granted_parallel_environment\s+smp slots 4$", block, re.M), block
    assert re.search(r"^start_time\s+\d\d/\d\d/\d{4} 12:00:00$", block, re.M), block
    # A host pattern no host matches is refused like any request nothing offers.
    assert cell.run("qrsub", "-l", "h=nohost*", "-d", "1:0:0").stdout == NO_SUITABLE


def test_users_the_queue_keeps_out_get_no_reservation(three_hosts: Cell):
    """5.2.2.1.3 item 1: every user of -u must have access to a reserved instance; with
    user3 in all.q's xuser_lists (denied_users) nothing can be reserved for user3."""
    cell = three_hosts
    cell.ok("qconf", "-au", "user3", "denied_users")
    cell.ok("qconf", "-mattr", "queue", "xuser_lists", "denied_users", "all.q")
    res = cell.run("qrsub", "-u", "user1,user2,user3", "-q", "all.q", "-d", "1:0:0")
    assert (res.returncode, res.stdout) == (1, NO_SUITABLE)
    granted(cell, "-u", "user1,user2", "-q", "all.q", "-d", "1:0:0")


def test_changes_that_would_break_a_reservation_are_refused(three_hosts: Cell):
    """5.2.2.2.1: taking a reserved host out of its queue, or shutting a user of the AR's
    access list out of a reserved queue, is refused and changes nothing; a change that
    leaves the AR whole goes through."""
    cell = three_hosts
    ar = granted(cell, "-u", "user2", "-q", "all.q@node2", "-d", "1:0:0")
    assert granted_slots(cell, ar) == {"all.q@node2": 1}
    before = cell.ok("qconf", "-sq", "all.q")
    res = cell.run("qconf", "-dattr", "hostgroup", "hostlist", "node2", "@allhosts")
    assert res.returncode == 1
    assert f'queue instance "all.q@node2" is reserved by advance reservation {ar}' in res.stderr
    cell.ok("qconf", "-au", "user9", "denied_users")  # not one of the AR's users
    cell.ok("qconf", "-mattr", "queue", "xuser_lists", "denied_users", "all.q")
    res = cell.run("qconf", "-au", "user2", "denied_users")
    assert res.returncode == 1
    assert f"reserved by advance reservation {ar}" in res.stderr
    assert "user2" not in cell.ok("qconf", "-su", "denied_users")
    assert cell.ok("qconf", "-sq", "all.q").replace("denied_users", "NONE") == before
    cell.ok("qconf", "-dattr", "hostgroup", "hostlist", "node3", "@allhosts")  # not reserved

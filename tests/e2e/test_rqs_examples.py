"""Every example of the resource quota specification through the real commands, on a
two-host cell whose hosts are in @linux, with jobs of several local users.

The users (roland, user1, andre) are created for the test (tests/users.py) when it runs
as root and the machine has useradd; otherwise the tests are skipped, saying why.
Commands run as those users; the cell lives in a directory they can read.
"""

from __future__ import annotations

import grp
import pwd
import re
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.e2e.conftest import Cell, as_user, make_cell, wait_for
from tests.users import people

__all__ = ["people"]  # the module fixture that makes the users (test_ar_users takes it)


@pytest.fixture
def cell(people: tuple[str, ...]) -> Iterator[Cell]:
    base = Path(tempfile.mkdtemp(prefix="gridd-rqs-", dir="/tmp"))
    base.chmod(0o755)
    try:
        yield from make_cell(base, hosts=2, slots=10)
    finally:
        shutil.rmtree(base, ignore_errors=True)


def submit(cell: Cell, user: str, *args: str, count: int = 1) -> list[int]:
    ids = []
    for _ in range(count):
        res = as_user(cell, user, "qsub", "-o", "/dev/null", "-j", "y", *args,
                      "-b", "y", "sleep", "120")
        assert res.returncode == 0, res.stderr
        ids.append(int(res.stdout.split()[2]))
    return ids


def rule_sets(cell: Cell, text: str) -> None:
    path = cell.root / "rqs"
    path.write_text(text)
    cell.ok("qconf", "-Arqs", str(path))


def running(cell: Cell) -> dict[str, int]:
    """Running tasks per user."""
    counts: dict[str, int] = {}
    for line in cell.ok("qstat", "-u", "*").splitlines()[2:]:
        fields = line.split()
        if fields[4] == "r":
            counts[fields[3]] = counts.get(fields[3], 0) + 1
    return counts


def settled(cell: Cell, expected: dict[str, int]) -> None:
    wait_for(lambda: running(cell) == expected, what=f"running {expected}")


def reasons(cell: Cell, job: int) -> str:
    out = cell.ok("qstat", "-j", str(job))
    return out[out.find("scheduling info:"):]


def hostgroup(cell: Cell, name: str, hosts: str) -> None:
    path = cell.root / "hg"
    path.write_text(f"group_name {name}\nhostlist {hosts}\n")
    cell.ok("qconf", "-Ahgrp", str(path))


SPEC_SETS = """\
{
   name         maxujobs
   enabled      TRUE
   limit        users * to slots=20
}
{
   name         max_linux
   enabled      TRUE
   limit        users * hosts @linux to slots=5
}
{
   name         max_per_host
   enabled      TRUE
   limit        users roland hosts {@linux} to slots=2
   limit        users {*} hosts {@linux} to slots=1
   limit        users * hosts * to slots=0
}
"""

HEAD = "resource quota rule limit                filter\n" + "-" * 80 + "\n"


def test_the_qquota_example(cell: Cell):
    hostgroup(cell, "@linux", "node1 node2")
    rule_sets(cell, SPEC_SETS)
    roland = submit(cell, "roland", count=5)
    settled(cell, {"roland": 4})
    user1 = submit(cell, "user1", count=2)
    settled(cell, {"roland": 4, "user1": 1})

    where = [ln.split()[-1] for ln in cell.ok("qquota", "-u", "user1").splitlines()
             if "max_per_host/2" in ln][0]  # the host user1's job went to
    assert as_user(cell, "roland", "qquota").stdout == HEAD + (
        "maxujobs/1         slots=5/20           users *\n"
        "max_linux/1        slots=5/5            users * hosts @linux\n"
        "max_per_host/1     slots=2/2            users roland hosts node1\n"
        "max_per_host/1     slots=2/2            users roland hosts node2\n")
    assert as_user(cell, "roland", "qquota", "-h", "node1").stdout == HEAD + (
        "maxujobs/1         slots=5/20           users *\n"
        "max_linux/1        slots=5/5            users * hosts @linux\n"
        "max_per_host/1     slots=2/2            users roland hosts node1\n")
    assert cell.ok("qquota", "-u", "user1") == HEAD + (
        "maxujobs/1         slots=5/20           users *\n"
        "max_linux/1        slots=5/5            users * hosts @linux\n"
        f"max_per_host/2     slots=1/1            users user1 hosts {where}\n")
    assert cell.ok("qquota", "-u", "*") == HEAD + (
        "maxujobs/1         slots=5/20           users *\n"
        "max_linux/1        slots=5/5            users * hosts @linux\n"
        "max_per_host/1     slots=2/2            users roland hosts node1\n"
        "max_per_host/1     slots=2/2            users roland hosts node2\n"
        f"max_per_host/2     slots=1/1            users user1 hosts {where}\n")
    assert cell.ok("qquota") == HEAD + (  # root is one of `users *`, like everybody
        "maxujobs/1         slots=5/20           users *\n"
        "max_linux/1        slots=5/5            users * hosts @linux\n")
    assert cell.ok("qquota", "-u", "*", "-l", "arch") == ""  # no limit of arch: no header

    assert 'cannot run because it exceeds limit "/////" in rule "max_linux/1"' in reasons(
        cell, user1[1])
    assert 'exceeds limit "/////" in rule "max_linux/1"' in reasons(cell, roland[4])
    xml = cell.ok("qquota", "-u", "*", "-xml")
    assert ("<qquota_rule name='max_per_host/1'>\n   <users>roland</users>\n"
            "   <hosts>node1</hosts>\n   <limit resource='slots' limit='2' value='2'/>\n"
            " </qquota_rule>") in xml


def test_rule_order_within_a_set_and_the_most_restrictive_set(cell: Cell):
    table = [ln for ln in cell.ok("qconf", "-sc").splitlines() if not ln.startswith("#")]
    (cell.root / "cx").write_text("\n".join([*table, "compiler_lic cl INT <= YES YES 0 0"]) + "\n")
    cell.ok("qconf", "-Mc", str(cell.root / "cx"))
    cell.ok("qconf", "-mattr", "exechost", "complex_values", "compiler_lic=30", "global")
    (cell.root / "prj").write_text("name proj\noticket 0\nfshare 0\nacl NONE\nxacl NONE\n")
    cell.ok("qconf", "-Aprj", str(cell.root / "prj"))
    rule_sets(cell, """\
{
   name         ruleset1
   enabled      TRUE
   limit        users roland to compiler_lic=3
   limit        projects * to compiler_lic=2
   limit        users * to compiler_lic=1
}
{
   name         ruleset2
   enabled      TRUE
   limit        users * to compiler_lic=20
}
""")
    submit(cell, "roland", "-l", "cl=1", "-P", "proj", count=4)
    submit(cell, "andre", "-l", "cl=1", "-P", "proj", count=3)
    submit(cell, "user1", "-l", "cl=1", count=2)
    settled(cell, {"roland": 3, "andre": 2, "user1": 1})
    assert cell.ok("qquota", "-u", "*") == HEAD + (
        "ruleset1/1         compiler_lic=3/3     users roland\n"
        "ruleset1/2         compiler_lic=2/2     projects *\n"
        "ruleset1/3         compiler_lic=1/1     users *\n"
        "ruleset2/1         compiler_lic=6/20    users *\n")


@pytest.mark.parametrize("users", ["@staff,!roland", "@staff,!roland,roland"])
def test_an_excluded_user_is_not_limited_even_when_listed(cell: Cell, users: str):
    cell.ok("qconf", "-au", "roland,andre", "staff")
    rule_sets(cell, f"{{\n   name         s\n   enabled      TRUE\n"
                    f"   limit        users {users} to slots=1\n}}\n")
    submit(cell, "roland", count=3)
    submit(cell, "andre", count=3)
    settled(cell, {"roland": 3, "andre": 1})


@pytest.mark.parametrize(("users", "each"), [("roland, andre", False),
                                             ("{roland, andre}", True)])
def test_a_scope_list_shares_its_limit_and_an_expanded_one_does_not(
        cell: Cell, users: str, each: bool):
    table = cell.ok("qconf", "-sc")
    table = re.sub(r"^virtual_free\s.*$", "virtual_free vf MEMORY <= YES YES 1g 0", table,
                   flags=re.M)
    (cell.root / "cx").write_text(table)
    cell.ok("qconf", "-Mc", str(cell.root / "cx"))
    rule_sets(cell, f"{{\n   name         vf\n   enabled      TRUE\n"
                    f"   limit        users {users} to virtual_free=5g\n}}\n")
    submit(cell, "roland", "-l", "vf=2g", count=3)
    submit(cell, "andre", "-l", "vf=2g", count=3)
    # 2g a job: shared, the two together get two jobs (4g of 5g); expanded, two each.
    expected = {"roland": 2, "andre": 2} if each else {"roland": 2}
    settled(cell, expected)


def test_a_dynamic_limit_follows_each_hosts_processors(cell: Cell):
    hostgroup(cell, "@linux_hosts", "node1 node2")
    cell.ok("qconf", "-mattr", "exechost", "complex_values", "num_proc=1", "node1")
    cell.ok("qconf", "-mattr", "exechost", "complex_values", "num_proc=2", "node2")
    rule_sets(cell, "{\n   name         per_cpu\n   enabled      TRUE\n"
                    "   limit        hosts {@linux_hosts} to slots=$num_proc*5\n}\n")
    cell.ok("qconf", "-mattr", "queue", "slots", "20", "all.q")
    submit(cell, "roland", count=18)
    settled(cell, {"roland": 15})
    per_host = {}
    for line in cell.ok("qquota", "-u", "*").splitlines()[2:]:
        per_host[line.split()[-1]] = line.split()[1]
    assert per_host == {"node1": "slots=5/5", "node2": "slots=10/10"}
    assert grp.getgrgid(pwd.getpwnam("roland").pw_gid)  # the jobs' owner has a group

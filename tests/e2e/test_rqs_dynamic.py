"""Dynamic limits through the real commands: each host's limit worked out from its own
values (here num_proc, set per host in complex_values), jobs started up to it and no
further, qquota showing the computed limits and qconf -srqs the formulas as written."""

from __future__ import annotations

from tests.e2e.conftest import Cell, wait_for

RULES = """\
{
   name         less_one
   description  NONE
   enabled      TRUE
   limit        hosts {*} to slots=$num_proc-1
}
{
   name         twice_less_three
   description  NONE
   enabled      TRUE
   limit        hosts {*} to slots=$p*2-3
}
{
   name         one_more
   description  NONE
   enabled      TRUE
   limit        hosts {*} to slots=1+$num_proc
}
"""


def running_per_host(cell: Cell) -> dict[str, int]:
    counts: dict[str, int] = {}
    for line in cell.ok("qstat").splitlines()[2:]:
        fields = line.split()
        if fields[4] == "r":
            host = fields[7].partition("@")[2]
            counts[host] = counts.get(host, 0) + 1
    return counts


def test_a_dynamic_limit_is_worked_out_per_host(cell: Cell):
    cell.ok("qconf", "-mattr", "exechost", "complex_values", "num_proc=2", "node1")
    cell.ok("qconf", "-mattr", "exechost", "complex_values", "num_proc=4", "node2")
    cell.ok("qconf", "-mattr", "queue", "slots", "10", "all.q")
    path = cell.root / "rqs"
    path.write_text(RULES)
    cell.ok("qconf", "-Arqs", str(path))
    assert cell.ok("qconf", "-srqs") == RULES

    # node1: min(2-1, 2*2-3, 1+2) = 1; node2: min(4-1, 4*2-3, 1+4) = 3
    for _ in range(6):
        cell.ok("qsub", "-o", "/dev/null", "-j", "y", "-b", "y", "sleep", "120")
    wait_for(lambda: running_per_host(cell) == {"node1": 1, "node2": 3},
             what="one job on node1, three on node2")
    lines = {tuple(line.split()) for line in cell.ok("qquota").splitlines()[2:]}
    assert lines == {
        ("less_one/1", "slots=1/1", "hosts", "node1"),
        ("less_one/1", "slots=3/3", "hosts", "node2"),
        ("twice_less_three/1", "slots=1/1", "hosts", "node1"),
        ("twice_less_three/1", "slots=3/5", "hosts", "node2"),
        ("one_more/1", "slots=1/3", "hosts", "node1"),
        ("one_more/1", "slots=3/5", "hosts", "node2"),
    }
    pending = [line.split()[0] for line in cell.ok("qstat").splitlines()[2:] if " qw " in line]
    assert len(pending) == 2
    wait_for(lambda: 'exceeds limit "////node' in cell.ok("qstat", "-j", pending[0]),
             what="a dynamic limit named as the reason")
    assert running_per_host(cell) == {"node1": 1, "node2": 3}

    # a formula that cannot be worked out is refused, and nothing changes
    path.write_text("{\n   name         bad\n   enabled      TRUE\n"
                    "   limit        hosts {*} to slots=$num_proc*2*3\n}\n")
    res = cell.run("qconf", "-Arqs", str(path))
    assert (res.returncode, res.stdout, res.stderr) == (
        1, "", '"dynamical_limit" may not use multiple weighting factors\n')
    assert cell.ok("qconf", "-srqs") == RULES
    cell.ok("qdel", "-u", "*")

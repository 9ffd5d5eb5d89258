"""qselect, and qstat's queue selection options (-q, -l, -pe, -qs, -U), through the real
commands. What each prints is what 8.1.9 printed in the same situation, run on this
machine (see tests/unit/test_select.py for the cases one by one)."""

from __future__ import annotations

import re
from pathlib import Path

from tests.e2e.conftest import Cell, wait_for
from tests.e2e.test_cell import submit


def add_queue(cell: Cell, tmp_path: Path, name: str, **attrs: str) -> None:
    lines = []
    for line in cell.ok("qconf", "-sq", "all.q").splitlines():
        key = line.split(" ", 1)[0]
        if key == "qname":
            line = f"qname {name}"
        elif key in attrs:
            line = f"{key} {attrs[key]}"
        lines.append(line)
    path = tmp_path / name
    path.write_text("\n".join(lines) + "\n")
    cell.ok("qconf", "-Aq", str(path))


def listed(cell: Cell, *args: str) -> tuple[int, list[str], str]:
    res = cell.run(*args)
    return res.returncode, res.stdout.splitlines(), res.stderr


def job_ids(text: str) -> list[int]:
    """The job numbers a plain or -f qstat lists, in order."""
    out = []
    for line in text.splitlines():
        fields = line.split()
        if fields and fields[0].isdigit():
            out.append(int(fields[0]))
    return out


def test_qselect_and_qstat_choose_instances_alike(cell: Cell, tmp_path: Path):
    cell.ok("qconf", "-au", "nobody_here", "acl1")
    add_queue(cell, tmp_path, "zz.q", pe_list="NONE", slots="1", user_lists="acl1")
    add_queue(cell, tmp_path, "aa.q", pe_list="NONE")
    every = ["aa.q@node1", "aa.q@node2", "all.q@node1", "all.q@node2", "zz.q@node1",
             "zz.q@node2"]
    assert listed(cell, "qselect") == (0, every, "")
    # Resources by what instances hold in all, and the hosts' fixed load values.
    assert listed(cell, "qselect", "-l", "slots=2") == (0, every[:4], "")
    assert listed(cell, "qselect", "-l", "a=lx-amd64,q=aa.q")[1] == every[:2]
    assert listed(cell, "qselect", "-l", "mem_free=1") == (1, [], "")
    assert listed(cell, "qselect", "-l", "nosuch=1") == (1, [], "")
    assert listed(cell, "qselect", "-q", "*@node2,zz.q")[1] == [
        "aa.q@node2", "all.q@node2", "zz.q@node1", "zz.q@node2"]
    assert listed(cell, "qselect", "-pe", "mpi") == (0, every[2:4], "")
    assert listed(cell, "qselect", "-pe", "nope") == (
        1, [], "error: no such parallel environment\n")
    assert listed(cell, "qselect", "-U", "nobody_here,nobody_else")[1] == every[:4]
    cell.ok("qmod", "-d", "aa.q@node1")
    assert listed(cell, "qselect", "-qs", "d") == (0, ["aa.q@node1"], "")
    assert listed(cell, "qselect", "-qs", "x") == (1, [], (
        "error: unknown queue state: x found in string: x\n"
        "unknown queue state: x found in string: x\n"))
    usage = cell.run("qselect", "-x")
    assert usage.returncode == 1 and usage.stderr.endswith('invalid option argument "-x"\n')
    assert listed(cell, "qselect", "-l") == (1, [], "-l option must have argument\n")

    running = submit(cell, "-q", "all.q@node1", "-b", "y", "sleep", "300")
    plain = submit(cell, "-h", "-b", "y", "true")
    never = submit(cell, "-h", "-l", "arch=nowhere", "-b", "y", "true")
    in_zz = submit(cell, "-h", "-q", "zz.q", "-b", "y", "true")
    wait_for(lambda: job_ids(cell.ok("qstat", "-s", "r")) == [running], what="the job to run")
    assert job_ids(cell.ok("qstat")) == [running, plain, never, in_zz]
    # Waiting jobs are those that might run in an instance chosen: by their -q and -l,
    # not by their PE or their owner's access.
    assert job_ids(cell.ok("qstat", "-q", "aa.q")) == [plain]
    assert job_ids(cell.ok("qstat", "-q", "zz.q")) == [plain, in_zz]
    assert job_ids(cell.ok("qstat", "-pe", "mpi")) == [running, plain]
    assert job_ids(cell.ok("qstat", "-l", "q=all.q")) == [running, plain]
    # States alone leave the waiting jobs as they are.
    disabled = cell.ok("qstat", "-f", "-qs", "d")
    assert [line.split()[0] for line in disabled.splitlines() if "@" in line] == ["aa.q@node1"]
    assert job_ids(disabled) == [plain, never, in_zz]
    full = cell.ok("qstat", "-f", "-pe", "mpi")
    assert [line.split()[0] for line in full.splitlines() if "@" in line] == every[2:4]
    assert job_ids(full) == [running, plain]
    nothing = cell.run("qstat", "-q", "nosuch.q")
    assert (nothing.returncode, nothing.stdout, nothing.stderr) == (1, "", "")
    assert cell.run("qstat", "-l", "slots=5").stdout == ""


def test_explain_says_which_threshold_an_instance_reaches(cell: Cell):
    """8.1.9: a tab-indented line under the instance for each threshold reached, before
    any -F values; in XML a load-alarm-reason or suspend-alarm-reason element."""
    cell.ok("qconf", "-rattr", "queue", "load_thresholds", "np_load_avg=0", "all.q")
    cell.ok("qconf", "-rattr", "queue", "suspend_thresholds", "np_load_avg=0", "all.q@node2")
    shown = wait_for(lambda: "A" in (out := cell.ok("qstat", "-explain", "aA", "-F", "slots",
                                                    "-q", "all.q@node2")) and out)
    lines = shown.splitlines()
    assert re.fullmatch(r"all\.q@node2 .* aA", lines[2]), shown
    assert re.fullmatch(r"\talarm hl:np_load_avg=\d+\.\d{6} load-threshold=0", lines[3])
    assert re.fullmatch(r"\talarm hl:np_load_avg=\d+\.\d{6} suspend-threshold=0", lines[4])
    assert lines[5] == "\tqc:slots=2"
    only_a = cell.ok("qstat", "-explain", "a", "-q", "all.q@node1").splitlines()
    assert only_a[3].endswith(" load-threshold=0") and len(only_a) == 4
    xml = cell.ok("qstat", "-explain", "A", "-xml", "-q", "all.q@node2")
    assert re.search(r"<state>aA</state>\n      <suspend-alarm-reason>alarm hl:np_load_avg="
                     r"[\d.]+ suspend-threshold=0</suspend-alarm-reason>\n", xml), xml
    wrong = cell.run("qstat", "-explain", "x")
    assert (wrong.returncode, wrong.stderr) == (1, "error: unknown queue state: x found in "
                                                   "string: x\nunknown queue state: x found "
                                                   "in string: x\n")

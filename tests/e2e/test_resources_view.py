"""qstat -F, qhost -F, qhost -l/-h through the real commands, on a cell with consumables
at every level, compared with what real Grid Engine 8.1.9 prints for the same set-up."""

from __future__ import annotations

import re

from tests.e2e.conftest import Cell, wait_for


def with_consumables(cell: Cell, tmp_path) -> None:
    table = cell.ok("qconf", "-sc")
    rows = [ln for ln in table.splitlines() if not ln.startswith("#")]
    rows += ["license lic INT <= YES YES 0 0", "t02 t02 INT <= YES YES 0 0"]
    path = tmp_path / "complexes"
    path.write_text("\n".join(rows) + "\n")
    cell.ok("qconf", "-Mc", str(path))
    cell.ok("qconf", "-mattr", "exechost", "complex_values", "license=5", "global")
    cell.ok("qconf", "-mattr", "exechost", "complex_values", "slots=1", "node2")
    cell.ok("qconf", "-mattr", "queue", "complex_values", "t02=2,mem_free=1G", "all.q")


def test_resource_values_per_instance_and_host(cell: Cell, tmp_path):
    with_consumables(cell, tmp_path)
    cell.ok("qsub", "-l", "t02=1,lic=2", "-q", "all.q@node1", "-b", "y", "sleep", "60")
    wait_for(lambda: "0/1/2" in cell.ok("qstat", "-f"), what="job running")

    shown = cell.ok("qstat", "-F", "slots,license,t02,mem_free,num_proc,arch")
    node1, node2 = shown.split("-" * 81 + "\n")[1:]
    # Global first, host values in report order, the most restrictive level's value in
    # the place the attribute first appears (qf:mem_free among the host's values).
    assert node1.splitlines()[1:7] == [
        "\tgc:license=3", "\thl:arch=lx-amd64", f"\thl:num_proc={nproc(cell)}",
        "\tqf:mem_free=1.000G", "\tqc:slots=1", "\tqc:t02=1"]
    assert node2.splitlines()[1:7] == [
        "\tgc:license=3", "\thl:arch=lx-amd64", f"\thl:num_proc={nproc(cell)}",
        "\tqf:mem_free=1.000G", "\thc:slots=1", "\tqc:t02=2"]

    full = cell.ok("qstat", "-F", "-q", "all.q@node2")
    assert "all.q@node1" not in full
    # node2's slots are its host's (hc), listed after the host's load values.
    assert re.search(r"^\thl:np_load_long=[0-9.]+\n\thc:slots=1\n\tqf:qname=all\.q\n"
                     r"\tqf:hostname=node2\n\tqf:tmpdir=/tmp\n\tqf:seq_no=0\n"
                     r"\tqf:rerun=0\.000000\n\tqf:calendar=NONE\n\tqf:s_rt=infinity\n",
                     full, re.M), full
    assert full.rstrip().endswith("\tqf:min_cpu_interval=00:05:00\n\tqc:t02=2")

    xml = cell.ok("qstat", "-f", "-q", "all.q@node1", "-xml", "-F", "t02")
    assert '<resource name="t02" type="qc">1</resource>' in xml

    hosts = cell.ok("qhost", "-F", "slots,license")
    assert hosts.splitlines()[2:] == [
        hosts.splitlines()[2], "    Host Resource(s):      gc:license=3.000000",
        hosts.splitlines()[4], "    Host Resource(s):      gc:license=3.000000",
        hosts.splitlines()[6], "    Host Resource(s):      gc:license=3.000000",
        "   hc:slots=1.000000"]
    every = cell.ok("qhost", "-F", "-h", "node1")
    assert "   gc:license=3.000000\n" in every and "   hl:arch=lx-amd64\n" in every
    assert every.splitlines()[2].startswith("global ") and "node2" not in every


def test_qhost_l_and_h_select_hosts(cell: Cell, tmp_path):
    with_consumables(cell, tmp_path)
    fit = cell.ok("qhost", "-l", "arch=lx-amd64")
    assert [ln.split()[0] for ln in fit.splitlines()[2:]] == ["node1", "node2"]
    assert [ln.split()[0] for ln in cell.ok("qhost", "-l", "lic=5").splitlines()[2:]] == [
        "node1", "node2"]
    assert cell.ok("qhost", "-l", "lic=6") == ""  # more than the global level has
    assert cell.ok("qhost", "-l", "arch=nosuch") == ""
    bad = cell.run("qhost", "-l", "nosuch=1")
    assert (bad.returncode, bad.stderr) == (1, 'error: unknown resource "nosuch"\n')
    bad = cell.run("qhost", "-h", "nosuch")
    assert (bad.returncode, bad.stderr) == (1, 'error: can\'t resolve hostname "nosuch"\n')


def nproc(cell: Cell) -> str:
    return cell.ok("qhost").splitlines()[3].split()[2]

"""Tight integration over two machines of the lab (node1 and node2, sharing the cell root):
`qrsh -inherit` from a parallel job starts, accounts and reports a task of the job on the
other host, and Open MPI's mpirun, which finds Grid Engine by SGE_ROOT, ARC, PE_HOSTFILE
and JOB_ID and starts its daemons with `$SGE_ROOT/bin/$ARC/qrsh -inherit -nostdin -V HOST
WORDS...` (qrsh found on PATH first; WORDS are shell text: `PATH=/usr/bin:$PATH ; export
PATH ; ... /usr/bin/orted -mca ess "env" ...`), runs its ranks on both.

Every wait has a deadline: a job that hangs (a qrsh -inherit never answered) fails the
test with the job's output and state, and the lab's teardown kills what is left.
"""

from __future__ import annotations

import os
import shutil
import subprocess

import pytest

from gridd.accounting.record import FIELDS
from gridd.sge_root import arch_name
from tests.cluster.conftest import Cluster
from tests.e2e.conftest import BIN, wait_for

HOSTS = ("node1", "node2")
PE = "ompi"
# A $round_robin PE as the issue has it: qrsh -inherit allowed, the job script not
# counted as a task, each PE task accounted on its own.
PE_FILE = (f"pe_name {PE}\nslots 99\nuser_lists NONE\nxuser_lists NONE\n"
           "start_proc_args NONE\nstop_proc_args NONE\nallocation_rule $round_robin\n"
           "control_slaves TRUE\njob_is_first_task FALSE\nurgency_slots min\n"
           "accounting_summary FALSE\n")
JOB_TIMEOUT = 120.0
HOSTNAME, EXIT_STATUS, JOB_NUMBER = (FIELDS.index(n) for n in ("hostname", "exit_status",
                                                               "job_number"))
PE_TASKID = FIELDS.index("pe_taskid")


def need_qrsh() -> None:
    """The lab runs the venv's commands: without a qrsh the rest cannot work (fail, not
    skip: it is part of what the cell must have)."""
    assert (BIN / "qrsh").exists(), (
        f"{BIN}/qrsh is missing: gridd has no qrsh command installed (pip install -e . "
        "after the qrsh entry point is in pyproject.toml)")


def mpirun() -> str:
    """Debian's mpirun, installed with apt-get when missing (the lab runs as root), or
    the test skipped saying why."""
    found = shutil.which("mpirun")
    if found:
        return found
    if shutil.which("apt-get") is None:
        pytest.skip("no mpirun and no apt-get to install Debian's openmpi-bin")
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    try:
        res = subprocess.run(["apt-get", "install", "-y", "openmpi-bin"], capture_output=True,
                             text=True, timeout=600, env=env)
        if res.returncode != 0:  # a fresh machine's package lists may be missing or stale
            subprocess.run(["apt-get", "update", "-q"], capture_output=True, timeout=600,
                           env=env)
            res = subprocess.run(["apt-get", "install", "-y", "openmpi-bin"],
                                 capture_output=True, text=True, timeout=600, env=env)
    except subprocess.TimeoutExpired:
        pytest.skip("no mpirun: apt-get install openmpi-bin took over 600 s")
    found = shutil.which("mpirun")
    if res.returncode != 0 or not found:
        pytest.skip(f"no mpirun: apt-get install openmpi-bin failed ({res.returncode}): "
                    f"{res.stderr.strip()[-300:]}")
    return found


def two_host_pe(c: Cluster) -> None:
    """PE ompi in all.q, and two slots on each of node1 and node2 (round robin: 2 + 2)."""
    pe = c.tmp / f"{PE}.pe"
    pe.write_text(PE_FILE)
    c.master.ok("qconf", "-Ap", str(pe))
    c.master.ok("qconf", "-aattr", "queue", "pe_list", PE, "all.q")
    for host in HOSTS:
        c.master.ok("qconf", "-mattr", "queue", "slots", "2", f"all.q@{host}")


def run_pe_job(c: Cluster, name: str, script: str) -> tuple[int, str, list[list[str]]]:
    """Submit a job of 4 slots in PE ompi over node1 and node2; its number, its output
    once accounted (stdout and stderr), and its accounting records. A job not accounted
    within JOB_TIMEOUT fails the test with what it printed so far and its state."""
    out = c.tmp / f"{name}.out"
    job = c.qsub("-N", name, "-pe", PE, "4", "-q", ",".join(f"all.q@{h}" for h in HOSTS),
                 "-j", "y", "-o", str(out), input=script)
    try:  # the master task's record comes last, once its PE tasks' are in (8.1.9's order)
        wait_for(lambda: any(rec[PE_TASKID] == "NONE" for rec in c.runs(job))
                 and c.state(job) == ("", ""), timeout=JOB_TIMEOUT,
                 what=f"job {job} ({name}) ended and its own record written")
    except AssertionError as exc:
        printed = out.read_text() if out.exists() else "(no output file)"
        state = c.master.run("qstat", "-j", str(job)).stdout
        raise AssertionError(f"{exc}\n--- its output:\n{printed}\n--- qstat -j:\n{state}\n"
                             f"--- qstat:\n{c.master.run('qstat', '-g', 't').stdout}") from None
    return job, out.read_text(), c.runs(job)


INHERIT = """\
#!/bin/sh
other=$(awk -v me="$(hostname)" '$1 != me { print $1; exit }' "$PE_HOSTFILE")
echo "master task on $(hostname), other host $other"
qrsh -inherit "$other" hostname
echo "hostname exit $?"
qrsh -inherit "$other" 'echo "$JOB_ID $JOB_NAME $ARC $PE" ;' \
  'test -x $SGE_ROOT/bin/$ARC/qrsh && echo has-qrsh ; exit 3'
echo "second exit $?"
qrsh -inherit node7 true
echo "node7 exit $?"
"""


def test_qrsh_inherit_starts_accounted_tasks_on_a_granted_host(cluster: Cluster) -> None:
    """Two PE tasks on the other host, their output and exit codes back through qrsh,
    each its own accounting record there (accounting_summary FALSE) with a PE task id;
    node7, not granted to the job, refused."""
    need_qrsh()
    c = cluster
    two_host_pe(c)
    job, printed, records = run_pe_job(c, "inherit", INHERIT)
    lines = printed.splitlines()
    head = lines[0].split()
    master_host, other = head[3].rstrip(","), head[-1]
    assert {master_host, other} == set(HOSTS), printed
    assert lines[1:5] == [other, "hostname exit 0", f"{job} petask {arch_name()} {PE}",
                          "has-qrsh"], printed
    assert "second exit 3" in lines, printed
    node7 = [ln for ln in lines if ln.startswith("node7 exit ")]
    assert node7 and node7[0] != "node7 exit 0", printed

    by_task = {rec[PE_TASKID]: rec for rec in records}
    assert set(by_task) == {"NONE", f"1.{other}", f"2.{other}"}, records
    assert by_task["NONE"][HOSTNAME] == master_host
    assert [(by_task[f"{n}.{other}"][HOSTNAME], by_task[f"{n}.{other}"][EXIT_STATUS])
            for n in (1, 2)] == [(other, "0"), (other, "3")]
    # qacct -j: a block per record (8.1.9 prints no pe_taskid line; the hosts tell them)
    shown = c.master.ok("qacct", "-j", str(job))
    hosts = [ln.split()[1] for ln in shown.splitlines() if ln.startswith("hostname ")]
    assert sorted(hosts) == sorted([master_host, other, other]), shown


MPI = """\
#!/bin/sh
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
echo "master task on $(hostname); qrsh is $(command -v qrsh)"
{mpirun} -np 4 --mca plm_base_verbose 1 \
  --mca oob_tcp_if_include {subnet} --mca btl_tcp_if_include {subnet} \
  sh -c 'echo "rank $OMPI_COMM_WORLD_RANK on $(hostname)"'
echo "mpirun exit $?"
"""


def test_mpirun_starts_its_ranks_on_both_hosts_through_qrsh_inherit(cluster: Cluster) -> None:
    """mpirun -np 4 in a $round_robin job of 4 slots over node1 and node2: ranks on both
    hosts, the other's daemon started by the cell's qrsh -inherit and accounted there."""
    need_qrsh()
    found = mpirun()
    c = cluster
    two_host_pe(c)
    script = MPI.format(mpirun=found, subnet=f"{c.master.address.rpartition('.')[0]}.0/24")
    job, printed, records = run_pe_job(c, "mpi", script)
    assert "mpirun exit 0" in printed, printed
    qrsh = f"{c.root}/sge/bin/{arch_name()}/qrsh"
    assert f"qrsh is {qrsh}" in printed, printed
    assert f'using "{qrsh} -inherit -nostdin -V' in printed, printed  # plm_base_verbose
    ranks = {}
    for line in printed.splitlines():
        words = line.split()
        if len(words) == 4 and words[0] == "rank" and words[2] == "on":
            ranks[int(words[1])] = words[3]
    assert sorted(ranks) == [0, 1, 2, 3], printed
    assert set(ranks.values()) == set(HOSTS), printed
    assert {rec[HOSTNAME] for rec in records} == set(HOSTS), records
    daemons = [rec for rec in records if rec[PE_TASKID] != "NONE"]
    assert len(daemons) == 1 and daemons[0][EXIT_STATUS] == "0", records
    assert all(rec[JOB_NUMBER] == str(job) for rec in records)


def test_the_job_environment_leads_open_mpi_to_the_cells_qrsh(cluster: Cluster) -> None:
    """What Open MPI's detection asks, in a PE job on a node: SGE_ROOT, ARC, PE_HOSTFILE
    and JOB_ID set, $SGE_ROOT/bin/$ARC/qrsh (and the other commands) the cell's, found
    first on PATH, and $SGE_ROOT/$SGE_CELL the cell (qstat reaches it with only those)."""
    c = cluster
    two_host_pe(c)
    script = ("#!/bin/sh\n"
              'for v in SGE_ROOT ARC PE_HOSTFILE JOB_ID; do eval "echo $v=\\${$v:-unset}"; done\n'
              "echo qstat=$(command -v qstat)\n"
              "env -u GRIDD_ROOT qstat -j $JOB_ID >/dev/null && echo reached\n"
              "test -x $SGE_ROOT/bin/$ARC/qsub && echo has-qsub\n")
    job, printed, _ = run_pe_job(c, "detect", script)
    values = dict(ln.split("=", 1) for ln in printed.splitlines() if "=" in ln)
    assert values["SGE_ROOT"] == f"{c.root}/sge", printed
    assert values["ARC"] == arch_name() and values["JOB_ID"] == str(job), printed
    assert values["PE_HOSTFILE"] != "unset", printed
    assert values["qstat"] == f"{c.root}/sge/bin/{arch_name()}/qstat", printed
    assert "reached" in printed and "has-qsub" in printed, printed

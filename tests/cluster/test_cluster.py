"""A cell over four machines (network and UTS namespaces, see conftest.py): joining as the
README says, jobs on each node, a parallel job over several, submission from a node, and
the faults of a real network: an execd killed and restarted, a node cut off past
max_unheard and back, the master killed and restarted. Every job is accounted once."""

from __future__ import annotations

import collections
import os
import shutil
import signal
import time
from pathlib import Path

from gridd.pidfile import alive, master_pidfile, read_pid
from tests.cluster.conftest import NODES, STRANGER, Cluster
from tests.e2e.conftest import wait_for


def once_each(c: Cluster) -> None:
    """No run is accounted twice: job, task, host and start time differ between records."""
    seen = collections.Counter((r[5], r[35], r[1], r[9]) for r in c.accounting())
    assert [run for run, n in seen.items() if n > 1] == []


def instance_states(c: Cluster) -> dict[str, str]:
    """all.q's instances and their state letters in qstat -f."""
    out = {}
    for line in c.master.ok("qstat", "-f").splitlines():
        fields = line.split()
        if fields and fields[0].startswith("all.q@"):
            out[fields[0].partition("@")[2]] = fields[5] if len(fields) > 5 else ""
    return out


def test_nodes_joined_as_the_readme_says_are_execution_hosts(cluster: Cluster) -> None:
    assert cluster.master.ok("qconf", "-sel").split() == list(NODES)
    assert "hostname              node7" in cluster.master.ok("qconf", "-se", "node7")
    assert set(NODES) <= set(cluster.master.ok("qconf", "-shgrp", "@allhosts").split())


def test_a_machine_with_a_key_the_master_did_not_make_is_refused(cluster: Cluster) -> None:
    """node9 has the master's endpoint and public key but a host key of its own making:
    its execd is refused over the network, says so and ends; it is no execution host."""
    c = cluster
    own = c.tmp / "node9-root"
    (own / "common" / "keys").mkdir(parents=True)
    shutil.copy(c.root / "common" / "master_endpoint", own / "common")
    shutil.copy(c.root / "common" / "keys" / "master.key", own / "common" / "keys")
    node9 = c.node(STRANGER)
    env = dict(node9.env, GRIDD_ROOT=str(own))
    node9.ok("gridd", "keys", "host", STRANGER, env=env)
    res = node9.run("gridd", "execd", env=env, timeout=60)
    assert res.returncode == 1
    assert f"refused the key of host {STRANGER}" in res.stderr
    assert STRANGER not in c.master.ok("qconf", "-sel").split()


def test_jobs_run_on_each_node_and_across_them(cluster: Cluster) -> None:
    c = cluster
    pinned = {}
    for node in NODES:
        out = c.tmp / f"{node}.out"
        pinned[node] = (c.qsub("-b", "y", "-l", f"h={node}", "-j", "y", "-o", str(out),
                               "hostname"), out)
    for node, (job, out) in pinned.items():
        record = c.wait_accounted(job)[0]
        assert record[1] == node  # the accounting's hostname
        assert out.read_text().strip() == node
    pe = c.tmp / "rr.pe"
    pe.write_text("pe_name rr\nslots 99\nuser_lists NONE\nxuser_lists NONE\n"
                  "start_proc_args NONE\nstop_proc_args NONE\nallocation_rule $round_robin\n"
                  "control_slaves TRUE\njob_is_first_task FALSE\nurgency_slots min\n"
                  "accounting_summary FALSE\n")
    c.master.ok("qconf", "-Ap", str(pe))
    c.master.ok("qconf", "-aattr", "queue", "pe_list", "rr", "all.q")
    hostfile = c.tmp / "hostfile.out"
    job = c.qsub("-pe", "rr", "3", "-j", "y", "-o", str(hostfile),
                 input="#!/bin/sh\ncat $PE_HOSTFILE\n")
    c.wait_accounted(job)
    hosts = {line.split()[0] for line in hostfile.read_text().splitlines() if line.strip()}
    assert hosts == set(NODES)
    missing = c.tmp / "not-on-node7"  # a working directory the node does not have
    job = c.qsub("-wd", str(missing), "-l", "h=node7", "-b", "y", "true")
    wait_for(lambda: c.state(job)[0] == "Eqw", what="the job in error on node7")
    assert f"can't chdir to {missing}" in c.master.ok("qstat", "-j", str(job))
    once_each(c)


def test_a_node_submits_once_it_is_a_submit_host(cluster: Cluster) -> None:
    c = cluster
    refused = c.node("node1").run("qsub", "-b", "y", "true", cwd=c.tmp)
    assert refused.returncode != 0
    assert "node1" in refused.stderr and "submit host" in refused.stderr
    c.master.ok("qconf", "-as", "node1")
    job = c.qsub("-b", "y", "-o", "/dev/null", "-j", "y", "true", on="node1")
    c.wait_accounted(job)
    once_each(c)


def test_an_execd_killed_and_restarted_keeps_its_jobs(cluster: Cluster) -> None:
    c = cluster
    job = c.qsub("-b", "y", "-l", "h=node2", "-o", "/dev/null", "-j", "y", "sleep", "8")
    c.wait_running(job)
    old = c.execd_pid("node2")
    os.kill(old, signal.SIGKILL)
    c.execds["node2"].wait(timeout=10)
    c.start_execd("node2", "--load-report-time", "2")  # a plain execd, as systemd restarts it
    wait_for(lambda: c.execd_pid("node2") != old, what="the new execd of node2")
    assert c.state(job)[0] == "r"
    record = c.wait_accounted(job)[0]
    assert record[11] == "0" and record[12] == "0"  # failed, exit status
    once_each(c)


def test_a_node_cut_off_past_max_unheard_and_back(cluster: Cluster) -> None:
    c = cluster
    c.set_conf(max_unheard="00:00:10", reschedule_unknown="00:00:05")
    c.master.ok("qconf", "-mattr", "queue", "slots", "3", "all.q")  # room for three jobs
    for node in NODES[:2]:  # what starts now starts on node7
        c.master.ok("qmod", "-d", f"all.q@{node}")
    rerun = c.qsub("-r", "y", "-b", "y", "-o", "/dev/null", "-j", "y", "sleep", "600")
    kept = c.qsub("-r", "n", "-b", "y", "-o", "/dev/null", "-j", "y", "sleep", "601")
    short = c.qsub("-b", "y", "-o", "/dev/null", "-j", "y", "sleep", "10")  # ends cut off
    for job in (rerun, kept, short):
        assert c.wait_running(job).endswith("@node7")
    c.node("node7").cut()
    for node in NODES[:2]:
        c.master.ok("qmod", "-e", f"all.q@{node}")
    wait_for(lambda: "u" in instance_states(c).get("node7", ""), timeout=60,
             what="node7 unknown in qstat -f")
    assert "node7" not in c.up_hosts()
    # The rerunnable job runs again elsewhere; the other stays where it was.
    wait_for(lambda: c.state(rerun)[0] == "Rr" and not c.state(rerun)[1].endswith("@node7"),
             timeout=60, what="the rerunnable job running on another node")
    assert c.state(kept) == ("r", "all.q@node7")
    wait_for(lambda: "sleep 10" not in commands_on(c, "node7"),
             what="the short job ended on node7")
    assert c.runs(short) == []
    mended = time.monotonic()
    c.node("node7").mend()
    c.wait_accounted(short, timeout=90)
    print(f"node7's link back -> the record of its job that ended meanwhile: "
          f"{time.monotonic() - mended:.1f} s")
    c.wait_up("node7")
    wait_for(lambda: "sleep 600" not in commands_on(c, "node7"),
             what="the rescheduled job's old run killed on node7")
    assert "sleep 601" in commands_on(c, "node7")
    assert c.state(kept) == ("r", "all.q@node7")
    c.master.ok("qdel", str(rerun), str(kept))
    runs = c.wait_accounted(rerun, runs=2)
    assert sorted(r[1] for r in runs)[0] != sorted(r[1] for r in runs)[1]
    c.wait_accounted(kept)
    assert len(c.runs(short)) == 1 and len(c.runs(kept)) == 1 and len(c.runs(rerun)) == 2
    once_each(c)


def test_the_master_killed_and_restarted_gets_its_execds_back(cluster: Cluster) -> None:
    c = cluster
    jobs = [c.qsub("-b", "y", "-l", f"h={node}", "-o", "/dev/null", "-j", "y", "sleep", "6")
            for node in NODES]
    for job in jobs:
        c.wait_running(job)
    pid = read_pid(master_pidfile(c.root))
    os.kill(pid, signal.SIGKILL)
    wait_for(lambda: not alive(pid), what="the master gone")
    c.master.ok("gridd", "up")  # starts what of the cell does not run: the master
    c.wait_up(*NODES)
    after = c.qsub("-b", "y", "-o", "/dev/null", "-j", "y", "true")
    for job in [*jobs, after]:
        c.wait_accounted(job, timeout=90)
    for job in jobs:
        record = c.runs(job)[0]
        assert record[11] == "0" and record[12] == "0"
    assert all(len(c.runs(job)) == 1 for job in [*jobs, after])
    once_each(c)


def commands_on(c: Cluster, node: str) -> set[str]:
    """The command lines of what runs on a node."""
    return {_cmdline(pid).strip() for pid in c.node(node).pids()}


def _cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
    except OSError:
        return ""


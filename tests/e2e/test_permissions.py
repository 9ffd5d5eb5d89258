"""Grid Engine's permission model through the real commands, with a second local user.

roland is made by the `people` fixture (as root, with useradd; otherwise the tests are
skipped, saying why) and runs the venv's commands with his own key; root, a manager,
runs the others. The messages and exit codes are 8.1.9's, read off a running 8.1.9 with
a second user (see tests/unit/test_permissions.py). Every request comes from this
machine, the admin and submit host `gridd up` made it, until a test takes it off a list.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.e2e.conftest import Cell, as_user, wait_for
from tests.e2e.test_advance_reservation import job_state, set_global_conf
from tests.e2e.test_ar_users import readable_cell
from tests.e2e.test_rqs_examples import people, reasons

__all__ = ["people"]  # the module fixture that makes the users

MACHINE = os.uname().nodename
SLEEP = ("-o", "/dev/null", "-j", "y", "-b", "y", "sleep", "120")


@pytest.fixture
def cell(people: tuple[str, ...]) -> Iterator[Cell]:
    yield from readable_cell(hosts=2, slots=2)


def qsub(cell: Cell, user: str, *args: str) -> int:
    res = as_user(cell, user, "qsub", *args, *SLEEP) if user != "root" else cell.run(
        "qsub", *args, *SLEEP)
    assert res.returncode == 0, res.stderr
    return int(res.stdout.split()[2].partition(".")[0])


def test_only_the_owner_an_operator_or_a_manager_touches_a_job(cell: Cell):
    job = qsub(cell, "root")
    wait_for(lambda: job_state(cell, job) == "r", what="root's job running")
    res = as_user(cell, "roland", "qdel", str(job))
    assert (res.returncode, res.stdout) == (
        1, f'roland - you do not have the necessary privileges to delete the job "{job}"\n')
    res = as_user(cell, "roland", "qalter", "-N", "x", str(job))
    assert (res.returncode, res.stdout) == (
        1, f'denied: "roland" must be at least owner of job {job} to change job '
           "attributes\n")
    res = as_user(cell, "roland", "qmod", "-sj", str(job))
    assert (res.returncode, res.stdout) == (
        1, f'roland - you have no permission to modify job "{job}"\n')
    res = as_user(cell, "roland", "qmod", "-d", "all.q@node1")
    assert (res.returncode, res.stdout) == (
        1, 'roland - you have no permission to modify queue "all.q@node1"\n')
    assert job_state(cell, job) == "r"
    assert cell.ok("qmod", "-e", "all.q@node1") == (
        'Queue instance "all.q@node1" is already in the specified state: enabled\n')
    cell.ok("qconf", "-ao", "roland")  # an operator may
    res = as_user(cell, "roland", "qmod", "-sj", str(job))
    assert (res.returncode, res.stdout) == (0, f"roland - suspended job {job}\n")
    res = as_user(cell, "roland", "qdel", str(job))
    assert (res.returncode, res.stdout) == (0, f"roland has registered the job {job} for "
                                               "deletion\n")
    mine = qsub(cell, "user1", "-h")
    res = as_user(cell, "user1", "qalter", "-N", "mine", str(mine))
    assert (res.returncode, res.stdout) == (0, f"modified job name of job {mine}\n")
    assert cell.ok("qdel", str(mine)) == f"root has deleted job {mine}\n"


def test_qconf_changes_are_for_managers_and_access_lists_for_operators(cell: Cell):
    res = as_user(cell, "roland", "qconf", "-am", "roland")
    assert (res.returncode, res.stderr) == (
        1, 'denied: "roland" must be manager for this operation\n')
    res = as_user(cell, "roland", "qconf", "-au", "user1", "okusers")
    assert (res.returncode, res.stderr) == (
        1, 'denied: "roland" must be operator for this operation\n')
    cell.ok("qconf", "-ao", "roland")
    res = as_user(cell, "roland", "qconf", "-au", "user1", "okusers")
    assert (res.returncode, res.stderr) == (0, 'added "user1" to access list "okusers"\n')
    res = as_user(cell, "roland", "qconf", "-am", "roland")
    assert res.returncode == 1 and "must be manager" in res.stderr
    assert cell.ok("qconf", "-sm").split() == ["root"]
    assert as_user(cell, "roland", "qconf", "-sql").stdout == "all.q\n"


def test_priorities_projects_and_job_limits_at_submission(cell: Cell, tmp_path: Path):
    res = as_user(cell, "roland", "qsub", "-p", "10", *SLEEP)
    assert (res.returncode, res.stderr) == (
        1, "Unable to run job: job rejected: positive submission priority requires operator "
           "privileges\nExiting.\n")
    res = as_user(cell, "roland", "qsub", "-P", "nosuch", *SLEEP)
    assert (res.returncode, res.stderr) == (
        1, 'Unable to run job: job rejected: the requested project "nosuch" does not '
           "exist\nExiting.\n")
    cell.ok("qconf", "-au", "user1", "okusers")
    project = tmp_path / "p1"
    project.write_text("name p1\noticket 0\nfshare 0\nacl okusers\nxacl NONE\n")
    cell.ok("qconf", "-Aprj", str(project))
    res = as_user(cell, "roland", "qsub", "-P", "p1", *SLEEP)
    assert (res.returncode, res.stderr) == (
        1, 'Unable to run job: job rejected: no access to project "p1" for user '
           '"roland"\nExiting.\n')
    qsub(cell, "user1", "-P", "p1", "-h")
    set_global_conf(cell, tmp_path, "s/^max_aj_tasks .*/max_aj_tasks 5/")
    res = cell.run("qsub", "-h", "-t", "1-6", *SLEEP)
    assert (res.returncode, res.stderr) == (
        1, "Unable to run job: job rejected: you tried to submit a job with more than 5 "
           "tasks\nExiting.\n")
    qsub(cell, "user1", "-h", "-t", "1-10:2")  # five tasks
    set_global_conf(cell, tmp_path, "s/^max_aj_tasks .*/max_aj_tasks 0/")  # no limit
    set_global_conf(cell, tmp_path, "s/^max_u_jobs .*/max_u_jobs 1/")
    qsub(cell, "roland", "-h", "-t", "1-10")  # an array job is one job
    res = as_user(cell, "roland", "qsub", "-h", *SLEEP)
    assert (res.returncode, res.stderr) == (
        25, "Unable to run job: job rejected: only 1 jobs are allowed per user (current job "
            "count: 1)\nExiting.\n")
    set_global_conf(cell, tmp_path, "s/^max_jobs .*/max_jobs 2/")
    res = cell.run("qsub", "-h", *SLEEP)
    assert (res.returncode, res.stderr) == (
        25, "Unable to run job: job rejected: only 2 jobs are allowed per cluster\n"
            "Exiting.\n")


def test_access_lists_at_submission_and_at_dispatch(cell: Cell):
    cell.ok("qconf", "-au", "root", "okusers")
    cell.ok("qconf", "-rattr", "queue", "user_lists", "okusers", "all.q")
    res = as_user(cell, "roland", "qsub", *SLEEP)
    assert res.returncode == 1 and res.stdout == ""
    match = re.fullmatch(r"Unable to run job: warning: roland's job is not allowed to run in "
                         r'any queue\nYour job (\d+) \("sleep"\) has been submitted\n'
                         r"Exiting\.\n", res.stderr)
    assert match, res.stderr
    job = int(match[1])  # Grid Engine takes it all the same
    res = as_user(cell, "roland", "qsub", "-w", "v", *SLEEP)
    assert res.returncode == 1
    assert res.stderr.endswith('has no permission for cluster queue "all.q"\n'
                               "verification: no suitable queues\nExiting.\n")
    theirs = qsub(cell, "root")
    wait_for(lambda: job_state(cell, theirs) == "r", what="root's job running")
    wait_for(lambda: 'has no permission for cluster queue "all.q"' in reasons(cell, job),
             what="the reason in qstat -j")
    assert job_state(cell, job) == "qw"
    cell.ok("qconf", "-au", "roland", "okusers")  # let in: it runs
    wait_for(lambda: job_state(cell, job) == "r", what="roland's job running")

    cell.ok("qconf", "-rattr", "pe", "user_lists", "okusers", "smp")
    cell.ok("qconf", "-du", "roland", "okusers")
    cell.ok("qconf", "-rattr", "queue", "user_lists", "NONE", "all.q")
    res = as_user(cell, "roland", "qsub", "-w", "v", "-pe", "smp", "1", *SLEEP)
    assert res.returncode == 1
    assert res.stderr.endswith('cannot run because no access to PE "smp"\n'
                               f"Job {job + 2} cannot run in PE \"smp\" because it only "
                               "offers 0 slots\nverification: no suitable queues\nExiting.\n")


def test_submit_and_admin_hosts(cell: Cell):
    job = qsub(cell, "root", "-h")
    res = cell.run("qconf", "-dh", MACHINE)
    assert (res.returncode, res.stderr) == (
        1, f'denied: can\'t delete master host "{MACHINE}" from admin host list\n')
    cell.ok("qconf", "-ds", MACHINE)
    res = as_user(cell, "roland", "qsub", *SLEEP)
    assert (res.returncode, res.stderr) == (
        1, f'Unable to run job: denied: host "{MACHINE}" is not a submit host\nExiting.\n')
    res = cell.run("qdel", str(job))
    assert (res.returncode, res.stdout) == (
        1, f'denied: host "{MACHINE}" is not a submit host\n')
    res = cell.run("qrsub", "-d", "0:10:0")
    assert (res.returncode, res.stdout) == (
        1, f'denied: host "{MACHINE}" is not a submit host\n')
    res = as_user(cell, "roland", "qrdel", "1")
    assert (res.returncode, res.stdout) == (
        1, 'denied: "roland" must be manager or in userset "arusers"\n')
    cell.ok("qconf", "-as", MACHINE)  # still an admin host
    assert cell.ok("qdel", str(job)) == f"root has deleted job {job}\n"


def test_max_aj_instances_bounds_the_running_tasks_of_an_array(cell: Cell, tmp_path: Path):
    set_global_conf(cell, tmp_path, "s/^max_aj_instances .*/max_aj_instances 2/")
    job = str(qsub(cell, "root", "-t", "1-4"))
    wait_for(lambda: "not all array tasks may be started due to 'max_aj_instances'"
             in cell.ok("qstat", "-j", job), what="the reason in qstat -j")
    # Four slots free, two tasks running ("t" until their execd says they run).
    wait_for(lambda: [ln.split()[4] for ln in cell.ok("qstat").splitlines()[2:]]
             == ["r", "r", "qw"], what="two tasks running, two waiting")
    cell.ok("qdel", job)


def test_the_global_access_lists_and_projects_at_submission(cell: Cell, tmp_path: Path):
    """The global configuration's user_lists, xuser_lists, projects, xprojects and
    enforce_project, with 8.1.9's messages (seen on a real 8.1.9 started here)."""
    cell.ok("qconf", "-au", "user1", "okusers")
    set_global_conf(cell, tmp_path, "s/^user_lists .*/user_lists okusers/")
    res = as_user(cell, "roland", "qsub", *SLEEP)
    assert res.returncode == 1 and re.fullmatch(
        r"Unable to run job: job rejected: roland@\S+ is not allowed to submit jobs\n"
        r"Exiting\.\n", res.stderr), res.stderr
    qsub(cell, "user1", "-h")
    set_global_conf(cell, tmp_path, "s/^user_lists .*/user_lists none/;"
                                    "s/^xuser_lists .*/xuser_lists okusers/")
    res = as_user(cell, "user1", "qsub", *SLEEP)
    assert res.returncode == 1 and "user1@" in res.stderr, res.stderr
    qsub(cell, "roland", "-h")

    for name in ("p1", "p2"):
        project = tmp_path / name
        project.write_text(f"name {name}\noticket 0\nfshare 0\nacl NONE\nxacl NONE\n")
        cell.ok("qconf", "-Aprj", str(project))
    set_global_conf(cell, tmp_path, "s/^xuser_lists .*/xuser_lists none/;"
                                    "s/^projects .*/projects p1/;"
                                    "s/^enforce_project .*/enforce_project true/")
    res = cell.run("qsub", "-h", *SLEEP)
    assert (res.returncode, res.stderr) == (
        1, "Unable to run job: job rejected: no project was supplied and only certain "
           "projects are allowed to submit jobs\nExiting.\n")
    res = cell.run("qsub", "-h", "-P", "p2", *SLEEP)
    assert (res.returncode, res.stderr) == (
        1, 'Unable to run job: job rejected: project "p2" is not allowed to submit jobs\n'
           "Exiting.\n")
    qsub(cell, "root", "-h", "-P", "p1")
    set_global_conf(cell, tmp_path, "s/^projects .*/projects none/;"
                                    "s/^xprojects .*/xprojects p1/")
    res = cell.run("qsub", "-h", "-P", "p1", *SLEEP)
    assert res.returncode == 1 and 'project "p1" is not allowed' in res.stderr, res.stderr
    res = cell.run("qsub", "-h", *SLEEP)
    assert (res.returncode, res.stderr) == (
        1, "Unable to run job: job rejected: no project assigned to job\nExiting.\n")
    qsub(cell, "root", "-h", "-P", "p2")


def test_execution_host_access_lists_and_projects(cell: Cell, tmp_path: Path):
    """An execution host's xuser_lists and projects keep jobs off it, with 8.1.9's lines
    in qsub -w v and qstat -j (seen on a real 8.1.9 started here)."""
    cell.ok("qconf", "-au", "user1", "okusers")
    for host in ("node1", "node2"):
        cell.ok("qconf", "-mattr", "exechost", "xuser_lists", "okusers", host)
    res = as_user(cell, "user1", "qsub", "-w", "v", *SLEEP)
    assert res.returncode == 1 and 'has no permission for host "node1"' in res.stderr
    job = qsub(cell, "user1")
    wait_for(lambda: 'has no permission for host "node2"' in reasons(cell, job),
             what="the reason in qstat -j")
    cell.ok("qconf", "-rattr", "exechost", "xuser_lists", "NONE", "node2")
    wait_for(lambda: job_state(cell, job) == "r", what="the job running on node2")

    project = tmp_path / "p1"
    project.write_text("name p1\noticket 0\nfshare 0\nacl NONE\nxacl NONE\n")
    cell.ok("qconf", "-Aprj", str(project))
    cell.ok("qconf", "-mattr", "exechost", "projects", "p1", "global")
    res = cell.run("qsub", "-w", "v", *SLEEP)
    assert res.returncode == 1 and ('(no project) does not have the correct project to run '
                                    'in host "global"') in res.stderr, res.stderr
    assert cell.ok("qsub", "-P", "p1", "-w", "v", *SLEEP) == (
        "verification: found suitable queue(s)\n")

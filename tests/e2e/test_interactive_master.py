"""The master's side of qrsh and qrsh -inherit on a real cell, asked through
gridd.client as the commands ask it: -now y with no place and the refusals of PE tasks,
in the words 8.1.9's qrsh printed here (the sessions are execd's and qrsh's)."""

from __future__ import annotations

import os

import pytest

from gridd import protocol as p
from gridd.client import Client, Refused
from gridd.model.job import JobSpec
from tests.e2e.conftest import Cell, wait_for
from tests.e2e.test_cell import submit


def running(cell: Cell, job_id: int) -> bool:
    return any(line.split()[:1] == [str(job_id)] and line.split()[4] == "r"
               for line in cell.ok("qstat").splitlines()[2:])


def test_qrsh_now_y_with_no_place_is_refused_in_grid_engines_words(cell: Cell) -> None:
    cell.ok("qmod", "-d", "all.q")  # no place anywhere
    spec = JobSpec(name="true", binary=True, command=["true"], cwd=os.getcwd(),
                   interactive="qrsh", immediate=True, session_key=b"k" * 32)
    with Client(cell.root) as client:
        job_id = client.submit(spec).job_id
        with pytest.raises(Refused) as refused:
            client.request(p.WaitStarted(job_id=job_id), timeout=30)
    assert (refused.value.text, refused.value.code) == (
        'Your "qrsh" request could not be scheduled, try again later.', 1)


def test_pe_tasks_of_a_pe_without_control_slaves_or_on_no_host_of_the_job_are_refused(
        cell: Cell) -> None:
    job_id = submit(cell, "-b", "y", "-pe", "smp", "2", "sleep", "600")
    wait_for(lambda: running(cell, job_id), what="the parallel job to run")
    with Client(cell.root) as client:
        def refusal(host: str) -> str:
            with pytest.raises(Refused) as refused:
                client.request(p.StartPeTask(job_id=job_id, task_id=0, host=host,
                                             command=["true"]))
            return refused.value.text
        host = next(line.split()[7].partition("@")[2]
                    for line in cell.ok("qstat").splitlines()[2:]
                    if line.split()[0] == str(job_id))
        assert refusal(host) == (f"error: executing task of job {job_id} failed: execution "
                                 f'daemon on host "{host}" didn\'t accept task')
        assert refusal("nosuch") == (f"error: executing task of job {job_id} failed: "
                                     "failed sending task to execd@nosuch: can't resolve "
                                     "host name")
    cell.ok("qdel", str(job_id))

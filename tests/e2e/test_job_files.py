"""A job's working directory and files are resolved on its execution host: one that is
not there (or may not be used) keeps the job from starting, and it goes to Eqw with the
reason in qstat -j, its queue left alone, the failed run accounted as 8.1.9 accounts it,
until qmod -cj lets it run again."""

from __future__ import annotations

import getpass
import os
import re
import signal
from pathlib import Path

from tests.e2e.conftest import Cell, wait_for
from tests.e2e.test_cell import submit
from tests.e2e.test_qmod import instance_line, state_of

USER, HOST = getpass.getuser(), os.uname().nodename
STAMP = r"\d\d/\d\d/\d{4} \d\d:\d\d:\d\d \[\d+:\d+\]: "


def error_reason(cell: Cell, job: int) -> str:
    """qstat -j's error reason line of a job once it is in error state."""
    return str(wait_for(lambda: state_of(cell, job) == "Eqw" and re.search(
        r"^error reason {10}1: {6}(.*)$", cell.ok("qstat", "-j", str(job)), re.M).group(1),
        what=f"job {job} in error state"))


def accounted(cell: Cell, job: int, runs: int) -> list[dict[str, str]]:
    """qacct's blocks of a job, once it has `runs` of them."""
    def blocks() -> list[dict[str, str]]:
        res = cell.run("qacct", "-j", str(job))
        found = [dict(line.split(None, 1) for line in block.splitlines() if " " in line)
                 for block in res.stdout.split("=" * 62)[1:]] if res.returncode == 0 else []
        return [{k: v.strip() for k, v in b.items()} for b in found]
    return wait_for(lambda: len(found := blocks()) == runs and found,  # type: ignore[return-value]
                    what=f"{runs} records of job {job}")


def test_a_working_directory_gone_puts_the_job_in_error_until_qmod_cj(
        cell: Cell, tmp_path: Path):
    gone = tmp_path / "gone"
    gone.mkdir()
    job = int(cell.ok("qsub", "-terse", "-h", "-cwd", "-b", "y", "true", cwd=gone))
    gone.rmdir()
    cell.ok("qrls", str(job))
    reason = error_reason(cell, job)
    assert re.fullmatch(f"{STAMP}error: can't chdir to {gone}: No such file or directory",
                        reason), reason
    assert "Job is in error state" in cell.ok("qstat", "-j", str(job))
    (line,) = [ln for ln in cell.ok("qstat").splitlines() if ln.split()[0] == str(job)]
    assert line.split()[1:] == ["0.50000", "true", USER, "Eqw", *line.split()[5:7], "1"]
    for host in ("node1", "node2"):  # the queue is not in error
        assert not instance_line(cell, f"all.q@{host}").endswith("E")
    (record,) = accounted(cell, job, 1)
    assert (record["failed"], record["start_time"], record["exit_status"]) == (
        "28  : changing into working directory", "-/-", "0")
    assert state_of(cell, job) == "Eqw"  # accounted, still waiting
    os.kill(cell.master_pid(), signal.SIGKILL)  # the error state and its reason are kept
    wait_for(lambda: cell.run("qstat").returncode != 0, what="master gone")
    cell.start_master()
    wait_for(lambda: cell.run("qstat").returncode == 0, what="master back")
    assert error_reason(cell, job) == reason
    gone.mkdir()
    assert cell.run("qmod", "-cj", str(job)).stdout == (
        f"{USER}@{HOST} cleared error state of job {job}\n")
    first, second = accounted(cell, job, 2)
    assert (second["failed"], second["exit_status"]) == ("0", "0")
    assert second["start_time"] != "-/-"
    assert (gone / f"true.o{job}").exists()


def test_each_file_a_job_cannot_open_is_its_error_reason(cell: Cell, tmp_path: Path):
    """-o, -e, -j y, -i, -wd and -S as 8.1.9 words them; pseudo variables in the paths
    are expanded on the execution host."""
    missing = tmp_path / "missing"
    script = tmp_path / "job.sh"
    script.write_text("exit 0\n")
    jobs = {
        submit(cell, "-o", f"{missing}/$JOB_NAME.$JOB_ID", "-b", "y", "true"):
            f'error: can\'t open output file "{missing}/true.{{job}}": '
            "No such file or directory",
        submit(cell, "-e", f"{missing}/err", "-b", "y", "true"):
            f'error: can\'t open output file "{missing}/err": No such file or directory',
        submit(cell, "-j", "y", "-o", f"{missing}/both", "-b", "y", "true"):
            f'error: can\'t open output file "{missing}/both": No such file or directory',
        submit(cell, "-i", f"{missing}/in", "-b", "y", "true"):
            f"error: can't open {missing}/in as dummy input file",
        submit(cell, "-wd", str(missing), "-b", "y", "true"):
            f"error: can't chdir to {missing}: No such file or directory",
        submit(cell, "-S", f"{missing}/sh", str(script)):
            f'unable to find shell "{missing}/sh"',
    }
    for job, words in jobs.items():
        reason = error_reason(cell, job)
        assert re.fullmatch(STAMP + re.escape(words.format(job=job)), reason), reason
    failed = {job: accounted(cell, job, 1)[0]["failed"] for job in jobs}
    assert list(failed.values()) == ["26  : opening input/output file"] * 4 + [
        "28  : changing into working directory", "27  : searching requested shell"]
    # qalter mends the path, and qmod -cj lets the job run with it
    first, second = list(jobs)[:2]
    assert cell.ok("qalter", "-e", f"{tmp_path}/err.$JOB_ID", str(second)) == (
        f"modified stderr path list of job {second}\n")
    cell.ok("qmod", "-cj", str(second))
    assert accounted(cell, second, 2)[1]["failed"] == "0"
    assert (tmp_path / f"err.{second}").exists()
    # qdel ends a job in error state with nothing more accounted
    cell.ok("qdel", str(first))
    wait_for(lambda: cell.run("qstat", "-j", str(first)).returncode != 0,
             what="job deleted and forgotten")  # once all it had to account is
    assert len(accounted(cell, first, 1)) == 1

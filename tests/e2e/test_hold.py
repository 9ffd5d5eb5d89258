"""qhold, qrls and qalter -h through the real commands: the user hold of pending jobs and
array tasks, with 8.1.9's lines and exit codes (reference transcripts/jobs.txt, and 8.1.9
run here for the array tasks, qalter -h and the errors)."""

from __future__ import annotations

import re

from tests.e2e.conftest import Cell, wait_for
from tests.e2e.test_cell import finished, submit


def states(cell: Cell) -> dict[str, str]:
    """qstat's state column by job id and task ids ("7" or "7:1-3:1")."""
    found = {}
    for line in cell.ok("qstat").splitlines()[2:]:
        fields = line.split()
        at = 9 if "@" in line else 8  # after the queue column, when it is filled
        key = f"{fields[0]}:{fields[at]}" if len(fields) > at else fields[0]
        found[key] = fields[4]
    return found


def test_qhold_and_qrls_change_the_user_hold_of_pending_tasks(cell: Cell) -> None:
    cell.ok("qmod", "-d", "all.q")  # nothing starts until the end
    array = int(cell.ok("qsub", "-terse", "-h", "-t", "1-3", "-b", "y", "true").split(".")[0])
    single = submit(cell, "-b", "y", "true")
    assert states(cell) == {f"{array}:1-3:1": "hqw", str(single): "qw"}

    assert cell.ok("qrls", f"{array}.2") == f"modified hold of job-array task {array}.2\n"
    assert cell.ok("qhold", "-h", "u", str(single)) == f"modified hold of job {single}\n"
    assert cell.ok("qhold", str(single)) == ""  # held already: 8.1.9 says nothing
    assert states(cell) == {f"{array}:2": "qw", f"{array}:1,3": "hqw", str(single): "hqw"}
    assert cell.ok("qrls", f"{array},{single}") == (
        f"modified hold of job-array task {array}.1\n"
        f"modified hold of job-array task {array}.3\n"
        f"modified hold of job {single}\n")

    cell.ok("qmod", "-e", "all.q")
    wait_for(lambda: finished(cell, single) and finished(cell, array), what="jobs accounted")
    assert len(cell.accounting_lines()) == 4


def test_qhold_and_qrls_refusals(cell: Cell) -> None:
    missing = cell.run("qhold", "9999")
    assert (missing.returncode, missing.stdout) == (3, 'denied: job "9999" does not exist\n')
    for args, code, err in [
        (("qrls", "1.x"), 2, 'ERROR! "1.x" is an invalid job-task identifier'),
        (("qhold", "-h", "x", "1"), 7, 'qhold: Unknown hold list "x" specified to -h option'),
        (("qhold", "-u", "root"), 2, 'qhold: invalid option argument "-u"'),
        (("qhold",), 1, "SGE 8.1.9\nusage: qhold [options] job_task_list\n"),
    ]:
        res = cell.run(*args)
        assert (res.returncode, res.stdout) == (code, ""), args
        assert res.stderr.startswith(err), (args, res.stderr)
    bad = cell.run("qdel", "1.x")
    assert (bad.returncode, bad.stderr) == (
        1, 'error: ERROR! "1.x" is an invalid job-task identifier\n')
    cell.ok("qmod", "-d", "all.q")
    dotted = submit(cell, "-N", "my.job", "-b", "y", "true")
    assert cell.ok("qdel", "my.job") == f"root has deleted job {dotted}\n"
    single = submit(cell, "-h", "-b", "y", "true")  # as 8.1.9 (run here) on a job no array
    for args, code in ((("qrls", f"{single}.1-3"), 4), (("qalter", "-h", "u", f"{single}.1-3"), 1)):
        res = cell.run(*args)
        assert (res.returncode, res.stdout, res.stderr) == (
            code, f"{single} is not a job array\n", ""), args
    assert cell.ok("qrls", f"{single}.2") == ""  # a task it has not
    assert cell.ok("qrls", f"{single}.1") == f"modified hold of job {single}\n"
    cell.ok("qdel", str(single))
    job = submit(cell, "-b", "y", "sleep", "60")
    cell.ok("qmod", "-e", "all.q")
    wait_for(lambda: states(cell).get(str(job)) == "r", what="job running")
    # 8.1.9 keeps a running job's hold for when it runs again, and shows it: hr.
    assert cell.ok("qhold", str(job)) == f"modified hold of job {job}\n"
    assert states(cell)[str(job)] == "hr"
    cell.ok("qdel", str(job))


def test_operator_and_system_holds_need_their_own_release(cell: Cell) -> None:
    """As 8.1.9 (run here): a line only where the holds changed; a job held by an
    operator stays held when its user hold goes."""
    cell.ok("qmod", "-d", "all.q")
    job = submit(cell, "-h", "-b", "y", "true")
    assert cell.ok("qhold", "-h", "o", str(job)) == f"modified hold of job {job}\n"
    assert cell.ok("qhold", "-h", "o", str(job)) == ""
    assert cell.ok("qrls", str(job)) == f"modified hold of job {job}\n"
    assert states(cell)[str(job)] == "hqw"
    assert cell.ok("qalter", "-h", "s", str(job)) == f"modified hold of job {job}\n"
    assert cell.ok("qrls", "-h", "o", str(job)) == f"modified hold of job {job}\n"
    assert states(cell)[str(job)] == "hqw"
    assert cell.ok("qalter", "-h", "n", str(job)) == f"modified hold of job {job}\n"
    assert states(cell)[str(job)] == "qw"
    cell.ok("qdel", str(job))


def test_qalter_h_sets_and_releases_the_user_hold(cell: Cell) -> None:
    cell.ok("qmod", "-d", "all.q")  # nothing starts until the end
    job = submit(cell, "-b", "y", "true")
    array = int(cell.ok("qsub", "-terse", "-h", "-t", "1-3", "-b", "y", "true").split(".")[0])
    assert cell.ok("qalter", "-h", "u", "-N", "renamed", str(job)) == (
        f"modified hold of job {job}\nmodified job name of job {job}\n")
    assert cell.ok("qalter", "-h", "U", f"{array}.2") == (
        f"modified hold of job-array task {array}.2\n")
    assert states(cell) == {str(job): "hqw", f"{array}:2": "qw", f"{array}:1,3": "hqw"}
    assert cell.ok("qalter", "-h", "u", f"{array}.2") == (
        f"modified hold of job-array task {array}.2\n")
    assert cell.ok("qalter", "-h", "n", str(job)) == f"modified hold of job {job}\n"
    assert cell.ok("qalter", "-h", "U", str(job)) == ""  # no hold: 8.1.9 says nothing
    for args, code, err in [
        (("-h", "x", str(job)), 7, 'qalter: Unknown hold list "x" specified to -h option'),
        (("-h",), 2, "qalter: -h option must have argument"),
        (("-N", "x", f"{job}.x"), 2, f'ERROR! "{job}.x" is an invalid job-task identifier'),
        (("-h", "u", "-N", "x", f"{job}.1"), 4,
         "denied: the selected option works only on jobs and not on tasks"),
    ]:
        res = cell.run("qalter", *args)
        assert (res.returncode, res.stdout) == (code, ""), args
        assert res.stderr.startswith(err), (args, res.stderr)
    assert states(cell)[str(job)] == "qw"  # refused whole: the hold is left alone
    missing = cell.run("qalter", "-h", "u", "9999")
    assert (missing.returncode, missing.stdout) == (1, 'denied: job "9999" does not exist\n')
    cell.ok("qrls", str(array))
    cell.ok("qmod", "-e", "all.q")
    wait_for(lambda: finished(cell, job) and finished(cell, array), what="jobs accounted")


def test_qstat_pri_urg_and_r_leave_held_jobs_out_of_the_priorities(cell: Cell) -> None:
    """qstat -pri, -urg and -r through the real commands: a held job shows nothing worked
    out but its -p (as 8.1.9 shows it) and sorts last; -r shows the requests."""
    cell.ok("qmod", "-d", "all.q")  # nothing starts until the end
    waits = submit(cell, "-b", "y", "-l", "h_rt=0:1:0", "-q", "all.q", "true")
    held = submit(cell, "-b", "y", "-h", "-p", "-5", "true")
    rows = [line.split() for line in cell.ok("qstat", "-pri").splitlines()[2:]]
    assert [row[0] for row in rows] == [str(waits), str(held)]
    assert rows[1][1:6] == ["0.00000", "0.00000", "0.00000", "0.00000", "-5"]
    assert rows[0][1:6] == ["0.50000", "0.50000", "0.50000", "0.50000", "0"]
    urg = [line.split() for line in cell.ok("qstat", "-urg").splitlines()[2:]]
    assert urg[0][4] == "1000"  # rrcontr: one slot
    assert urg[1][1:7] == ["0.00000", "0.00000", "0", "0", "0", "0"]
    shown = cell.ok("qstat", "-r", "-s", "p")
    assert ("       Hard Resources:   h_rt=60 (0.000000)\n"
            "       Soft Resources:   \n"
            "       Hard requested queues: all.q\n") in shown
    cell.ok("qrls", str(held))
    cell.ok("qmod", "-e", "all.q")
    wait_for(lambda: finished(cell, waits) and finished(cell, held), what="jobs accounted")


def test_qalter_changes_what_qsub_set_with_8_1_9s_lines(cell: Cell) -> None:
    """Each line as a real 8.1.9 prints it for the same qalter (run here)."""
    job = submit(cell, "-b", "y", "-h", "true")
    out = cell.ok("qalter", "-q", "all.q", "-soft", "-l", "arch=x", "-pe", "mpi", "2",
                  "-hold_jid", "99", "-a", "202612312359", "-js", "5", "-r", "y",
                  "-ac", "a=1", "-A", "acct", "-binding", "linear:1", str(job))
    share = re.search(rf"^\S+@\S+ sets job share of job {job} to 5\n", out, re.M)
    assert share is not None
    assert out.replace(share.group(0), "") == (
        f"modified hard queue list of job {job}\n"
        f"modified soft resource list of job {job}\n"
        f"modified account of job {job}\n"
        f"modified start time of job {job}\n"
        f"modified restart behaviour of job {job}\n"
        f"modified binding of job {job}\n"
        f"modified parallel environment of job {job}\n"
        f"modified slot range of job {job}\n"
        f"modified job id hold list of job {job}\n"
        "   blocking jobs: NONE\n"
        "   exited jobs:   99\n"
        f"modified context of job {job}\n")
    shown = cell.ok("qstat", "-j", str(job))
    for line in ("hard_queue_list:            all.q", "soft resource_list:         arch=x",
                 "parallel environment:  mpi range: 2", "jobshare:                   5",
                 "restart:                    y", "context:                    a=1",
                 "binding:                    set linear:1", "account:                    acct"):
        assert line in shown
    refused = cell.run("qalter", "-dl", "202612312359", str(job))
    assert refused.returncode == 1 and "is not a deadline initiation user" in refused.stdout
    unknown = cell.run("qalter", "-xyz", str(job))
    assert (unknown.returncode, unknown.stderr) == (
        2, 'qalter: invalid option argument "-xyz"\n')
    cell.ok("qdel", str(job))


def test_qalter_reads_what_it_refuses_as_8_1_9_does(cell: Cell) -> None:
    """qsub's options qalter does not take, missing arguments, and command lines with no
    change or no job: each as a real 8.1.9 answered it (run here)."""
    job = str(submit(cell, "-b", "y", "-h", "true"))
    said = {args: cell.run("qalter", *args) for args in (
        ("-now", "y", job), ("-p", "3", job, "-sync", "yes"), ("-clear", job),
        ("-now", "x", job), ("-he", "x", job), ("-t", "x", job),
        ("-p",), ("-pe", "mpi"), ("-q",), ("-c",),
        ("-c", "10", job), (job,), ("-p", "3"), ("-soft",), ("999",))}
    assert {args: (done.returncode, done.stdout, done.stderr)
            for args, done in said.items()} == {
        ("-now", "y", job): (5, "", "Unknown option -now y\n\n"),
        ("-p", "3", job, "-sync", "yes"): (5, "", "Unknown option -sync yes\n\n"),
        ("-clear", job): (5, "", "Unknown option -clear\n\n"),
        ("-now", "x", job): (7, "", 'qalter: invalid option argument "-now x"\n'),
        ("-he", "x", job): (7, "", 'qalter: invalid option argument "-he x"\n'),
        ("-t", "x", job): (7, "", "qalter: Numerical value invalid!\nThe initial portion of "
                                  'string "x" contains no decimal number\n'),
        ("-p",): (2, "", "qalter: -p option must have argument\n"),
        ("-pe", "mpi"): (2, "", "qalter: -pe option must have range as 2nd argument\n"),
        ("-q",): (2, "", "qalter: -q option must have queue list argument\n"),
        ("-c",): (2, "", "qalter: -c option must have argument\n"),
        ("-c", "10", job): (0, "", ""),  # a checkpoint interval, taken for nothing
        (job,): (0, "", ""),
        ("-p", "3"): (0, "", ""),  # options and no job: nothing said
        ("-soft",): (0, "", ""),
        ("999",): (1, 'denied: job "999" does not exist\n', ""),
    }
    assert "priority:" not in cell.ok("qstat", "-j", job)  # none was set: -p 3 went unsent
    cell.ok("qdel", job)


def test_hold_jid_ad_starts_each_task_after_the_same_task_of_its_predecessor(
        cell: Cell) -> None:
    first = int(cell.ok("qsub", "-terse", "-h", "-t", "1-2", "-b", "y", "true").split(".")[0])
    second = int(cell.ok("qsub", "-terse", "-hold_jid_ad", str(first), "-t", "1-2", "-b", "y",
                         "true").split(".")[0])
    assert states(cell)[f"{second}:1,2"] == "hqw"  # 8.1.9 folds two tasks so
    assert f"ja_ad_predecessor_list:     {first}\n" in cell.ok("qstat", "-j", str(second))
    cell.ok("qrls", f"{first}.1")
    wait_for(lambda: len(cell.accounting_lines()) == 2, what="task 1 of each")
    assert states(cell) == {f"{first}:2": "hqw", f"{second}:2": "hqw"}
    cell.ok("qrls", f"{first}.2")
    wait_for(lambda: finished(cell, first) and finished(cell, second), what="jobs accounted")
    ends = {(int(f[5]), int(f[35])): (int(f[9]), int(f[10]))
            for f in (line.split(":") for line in cell.accounting_lines())}
    for task in (1, 2):
        assert ends[(second, task)][0] >= ends[(first, task)][1]

"""A real cell driven through the real commands."""

from __future__ import annotations

import os
import pwd
import re
import shutil
import signal
import subprocess
import sys
import time
import xml.etree.ElementTree as ET

import zmq

from gridd import paths
from gridd.accounting import whole_history
from gridd.accounting.query import run_query
from tests.e2e.conftest import BIN, Cell, dealer, wait_for

SUBMITTED = re.compile(r'^Your job (\d+) \("(.*)"\) has been submitted$')


def submit(cell: Cell, *args: str) -> int:
    out = cell.ok("qsub", *args)
    match = SUBMITTED.match(out.strip())
    assert match, out
    return int(match.group(1))


def finished(cell: Cell, job_id: int) -> bool:
    return cell.run("qacct", "-j", str(job_id)).returncode == 0


def test_qsub_a_waits_for_its_time_and_shell_n_runs_the_command_itself(cell: Cell):
    """-a: pending with 8.1.9's reason until the time, then started; -shell n: the
    command runs without a shell, so nothing expands $HOME."""
    at = int(time.time()) + 4
    later = submit(cell, "-b", "y", "-a", time.strftime("%m%d%H%M.%S", time.localtime(at)),
                   "true")
    direct = submit(cell, "-b", "y", "-cwd", "-shell", "n", "-o", "direct.out", "echo", "$HOME")
    shown = cell.ok("qstat", "-j", str(later))
    assert "execution time not reached" in shown and "execution_time:" in shown
    wait_for(lambda: finished(cell, later) and finished(cell, direct), what="jobs accounted")
    start = next(int(line.split(":")[9]) for line in cell.accounting_lines()
                 if line.split(":")[5] == str(later))
    assert start >= at
    assert (cell.root / "direct.out").read_text() == "$HOME\n"


def test_binary_jobs_run_their_words_in_a_shell_unless_shell_n_and_are_accounted(cell: Cell):
    """-b y as 8.1.9 runs it (checked there): the words joined with blanks are the
    shell's text, so variables expand where the job runs, blanks collapse, ';' separates
    commands and sh -c 'exit 7' exits 0; -shell n runs the command with the words as
    given. qresub's copy and an array's tasks alike; the job is named after the command."""
    home = pwd.getpwuid(os.geteuid()).pw_dir
    words = ("echo", "$HOME", "a  b", ";", "echo", "$SGE_TASK_ID")
    in_shell = submit(cell, "-b", "y", "sh", "-c", "exit 7")
    direct = submit(cell, "-b", "y", "-shell", "n", "sh", "-c", "exit 7")
    held = submit(cell, "-h", "-b", "y", "-cwd", "-o", "out.$JOB_ID", *words)
    copy = int(SUBMITTED.match(cell.ok("qresub", str(held))).group(1))
    kept = submit(cell, "-b", "y", "-shell", "n", "-cwd", "-o", "out.$JOB_ID", *words)
    array = int(cell.ok("qsub", "-terse", "-t", "1-2", "-b", "y", "-cwd",
                        "-o", "out.$JOB_ID.$TASK_ID", *words).partition(".")[0])

    def ended() -> dict[int, tuple[str, int]]:
        """Each job's name and exit status, by its accounting lines."""
        lines = [line.split(":") for line in cell.accounting_lines()]
        return {int(f[5]): (f[4], int(f[12])) for f in lines}

    wait_for(lambda: len(cell.accounting_lines()) == 6, what="six tasks accounted")
    assert ended() == {in_shell: ("sh", 0), direct: ("sh", 7), copy: ("echo", 0),
                       kept: ("echo", 0), array: ("echo", 0)}
    out = cell.ok("qacct", "-j", str(direct))
    assert re.search(r"^exit_status\s+7\s*$", out, re.M)
    # With the cell's database open, `qacct -j N` reads the accounting file, vouched for
    # as holding the database's whole history (cli.qacct_quick), or for a job it lacks
    # is answered by the accounting process (cli.quick): as the whole command answers,
    # for an array's tasks and a job unknown
    run_query("SELECT 1", base=cell.root)
    assert whole_history.marked(paths.accounting_whole(cell.root)) == whole_history.state(
        paths.accounting_file(cell.root))
    whole = [sys.executable, "-c", "import sys; from gridd.cli import qacct; "
             "sys.exit(qacct.main(sys.argv[1:]))"]
    for job in (array, 99999):
        quick, slow = cell.run("qacct", "-j", str(job)), subprocess.run(
            [*whole, "-j", str(job)], env=cell.env, capture_output=True, text=True)
        assert (quick.stdout, quick.stderr, quick.returncode) == (
            slow.stdout, slow.stderr, slow.returncode)
        assert quick.stdout.count("jobnumber") == (2 if job == array else 0)
    assert re.search(rf"^jobnumber\s+{direct}\s*$", out, re.M)
    assert (cell.root / f"out.{copy}").read_text() == f"{home} a b\nundefined\n"
    assert (cell.root / f"out.{kept}").read_text() == "$HOME a  b ; echo $SGE_TASK_ID\n"
    for task in (1, 2):
        assert (cell.root / f"out.{array}.{task}").read_text() == f"{home} a b\n{task}\n"
    cell.ok("qdel", str(held))


def test_script_job_with_directives_environment_and_output(cell: Cell, tmp_path):
    work = tmp_path / "work"
    work.mkdir()
    script = work / "job.sh"
    script.write_text(
        "#!/bin/sh\n#$ -N scripted\n#$ -cwd\n#$ -j y\n"
        'echo "id=$JOB_ID name=$JOB_NAME slots=$NSLOTS queue=$QUEUE host=$HOSTNAME"\n'
        'echo "task=$SGE_TASK_ID workdir=$SGE_O_WORKDIR tmp=$TMPDIR"\n'
        "test -d \"$TMPDIR\" && echo tmpdir-exists\n"
        "echo to-stderr >&2\nexit 3\n")
    out = cell.ok("qsub", str(script), cwd=work)
    job = int(SUBMITTED.match(out.strip()).group(1))
    assert SUBMITTED.match(out.strip()).group(2) == "scripted"
    wait_for(lambda: finished(cell, job), what="script job accounted")
    text = (work / f"scripted.o{job}").read_text()
    assert f"id={job} name=scripted slots=1 queue=all.q host=node" in text
    assert f"task=undefined workdir={work}" in text
    assert "tmpdir-exists" in text and "to-stderr" in text  # -j y merges stderr
    assert not (work / f"scripted.e{job}").exists()


def test_sync_returns_job_exit_code_and_terse_prints_id(cell: Cell):
    res = cell.run("qsub", "-sync", "y", "-b", "y", "exit", "3")
    assert res.returncode == 3
    assert re.search(r"Job \d+ exited with exit code 3\.", res.stderr)
    res = cell.run("qsub", "-terse", "-b", "y", "true")
    assert re.fullmatch(r"\d+\n", res.stdout)
    res = cell.run("qsub", "-terse", "-t", "1-4:2", "-b", "y", "true")
    assert re.fullmatch(r"\d+\.1-4:2\n", res.stdout)


def test_immediate_job_runs_now_or_not_at_all(cell: Cell):
    res = cell.run("qsub", "-now", "y", "-b", "y", "true")
    assert res.returncode == 0 and "successfully scheduled" in res.stderr
    blockers = [submit(cell, "-b", "y", "sleep", "60") for _ in range(4)]
    wait_for(lambda: cell.ok("qstat").count(" r ") == 4, what="cell full")
    res = cell.run("qsub", "-now", "y", "-b", "y", "true")
    assert res.returncode == 1 and "could not be scheduled; try again later" in res.stderr
    assert len(cell.ok("qstat").splitlines()) == 2 + 4  # the immediate job is gone
    cell.ok("qdel", *map(str, blockers))


def test_an_interrupted_waiting_qsub_takes_its_job_with_it(cell: Cell):
    """qsub -now y or -sync y stopped while it waits (SIGTERM, ^C): 8.1.9's two lines,
    exit 1, and the job deleted (as 8.1.9 does, checked there)."""
    for wait, sig in (("-now", signal.SIGTERM), ("-sync", signal.SIGINT)):
        waiting = subprocess.Popen([str(BIN / "qsub"), wait, "y", "-h", "-b", "y", "true"],
                                   env=cell.env, cwd=cell.root, stdout=subprocess.PIPE,
                                   stderr=subprocess.PIPE, text=True,
                                   preexec_fn=lambda: signal.signal(signal.SIGINT,
                                                                    signal.SIG_DFL))
        try:
            wait_for(lambda: cell.ok("qstat") != "", what="the job waiting")
            waiting.send_signal(sig)
            out, err = waiting.communicate(timeout=30)
        finally:
            waiting.kill()  # by the pid Popen holds; a no-op once it has ended
        assert waiting.returncode == 1, (wait, out, err)
        assert err.endswith("\nInterrupted!\nPlease wait while qsub shuts down.\n"), err
        assert cell.ok("qstat") == ""


def test_h_rt_kills_the_job(cell: Cell):
    res = cell.run("qsub", "-sync", "y", "-l", "h_rt=1", "-b", "y", "sleep", "30")
    assert res.returncode == 1
    assert "exited because of signal SIGKILL" in res.stderr


def test_qstat_shows_running_and_pending_and_qdel_removes_them(cell: Cell):
    ids = [submit(cell, "-b", "y", "sleep", "60") for _ in range(5)]
    wait_for(lambda: cell.ok("qstat").count(" r ") == 4, what="four running")
    out = cell.ok("qstat")
    lines = out.splitlines()
    assert lines[0].split()[:4] == ["job-ID", "prior", "name", "user"]
    assert set(lines[1]) == {"-"}
    states = {int(ln.split()[0]): ln.split()[4] for ln in lines[2:]}
    assert sorted(states.values()) == ["qw", "r", "r", "r", "r"]
    root = ET.fromstring(cell.ok("qstat", "-xml"))
    assert root.tag == "job_info"
    assert len(root.findall("./queue_info/job_list[@state='running']")) == 4
    assert len(root.findall("./job_info/job_list[@state='pending']")) == 1
    full = cell.ok("qstat", "-f")
    assert "all.q@node1" in full and "0/2/2" in full
    # The master prints a plain listing in the client's time zone, as the client prints
    # -f's job lines itself
    def times(*argv: str, zone: str) -> dict[str, list[str]]:
        lines = cell.ok("qstat", *argv, env=dict(cell.env, TZ=zone)).splitlines()
        return {ln.split()[0]: ln.split()[5:7] for ln in lines
                if ln.split() and ln.split()[0].isdigit()}

    shown, utc = times(zone="Asia/Tokyo"), times(zone="UTC")
    assert shown == times("-f", zone="Asia/Tokyo") and len(shown) == 5
    hours = {(int(shown[j][1][:2]) - int(utc[j][1][:2])) % 24 for j in shown}
    assert hours == {9}
    detail = cell.ok("qstat", "-j", str(ids[0]))
    assert re.search(rf"^job_number:\s+{ids[0]}$", detail, re.M)
    res = cell.run("qdel", *map(str, ids))
    assert res.returncode == 0
    assert res.stdout.count("has registered the job") == 4
    assert res.stdout.count("has deleted job") == 1
    wait_for(lambda: cell.ok("qstat") == "", what="queue empty")
    wait_for(lambda: len(cell.accounting_lines()) == 4, what="four deleted jobs accounted")
    res = cell.run("qdel", "99999")
    assert res.returncode == 1 and res.stdout == 'denied: job "99999" does not exist\n'


def test_qhost_lists_hosts_with_load(cell: Cell):
    out = cell.ok("qhost")
    lines = out.splitlines()
    assert lines[0].split()[0] == "HOSTNAME" and lines[2].split()[0] == "global"
    hosts = {ln.split()[0]: ln.split() for ln in lines[3:]}
    assert set(hosts) == {"node1", "node2"}
    assert hosts["node1"][1].startswith("lx-")
    root = ET.fromstring(cell.ok("qhost", "-xml"))
    assert {h.get("name") for h in root.findall("host")} == {"global", "node1", "node2"}


def test_bad_input_is_one_clear_error_and_changes_nothing(cell: Cell, tmp_path):
    cases = [
        (("qsub", "-bogus", "-b", "y", "true"), 2, "invalid option"),
        (("qsub", str(tmp_path / "missing.sh")), 14, "No such file or directory"),
        (("qsub", "-l", "=5", "-b", "y", "true"), None, "-l"),
        (("qsub", "-l", "nosuch=1", "-b", "y", "true"), 1, 'unknown resource "nosuch"'),
        # in 8.1.9's words (run here)
        (("qsub", "-l", "h_rt=abc", "-b", "y", "true"), 1,
         'Unable to run job: attribute "h_rt" is not a time value\nExiting.\n'),
        (("qsub", "-l", "h_vmem=1x", "-b", "y", "true"), 1,
         'attribute "h_vmem" is not a memory value'),
        (("qsub", "-l", "num_proc=x", "-b", "y", "true"), 1,
         'attribute "num_proc" is not a integer value'),
        (("qsub", "-l", "np_load_avg=1", "-b", "y", "true"), 1,
         'resource "np_load_avg" configured as non requestable'),
        (("qsub", "-q", "nosuch.q", "-l", "s=1", "-b", "y", "true"), 1,
         '"job" denied: use parallel environments instead of requesting slots explicitly'),
        (("qsub", "-pe", "*", "0", "-b", "y", "true"), 1,
         '"job" rejected: pe range must be greater than zero'),
        (("qsub", "-p", "2000", "-b", "y", "true"), 7, "invalid priority"),
        # a -b y job is named after its command word: 8.1.9 refuses this too (exit 1),
        # saying only "Error reading answer list from qmaster"
        (("qsub", "-b", "y", "echo hi"), 1,
         'Unable to run job: denied: job name "echo hi" contains whitespace (a job is named '
         "after its command or script unless -N names it)\nExiting.\n"),
        (("qsub", "-b", "y", "a:b"), 1,
         "Unable to run job: Colon (':') not allowed in objectname\nExiting.\n"),
        (("qsub", "-b", "y"), 2, "command required"),
        (("qstat", "-bogus"), 1, "invalid option"),
        (("qhost", "-bogus"), 1, "invalid option"),
    ]
    for args, code, text in cases:
        res = cell.run(*args)
        assert res.returncode != 0 and (code is None or res.returncode == code), (args, res)
        assert text in res.stderr, (args, res.stderr)
        assert "Traceback" not in res.stderr
    for resources, said in (("h_rt=abc", 'attribute "h_rt" is not a time value'),
                            ("slots=1", '"advance_reservation" denied: use parallel '
                                        "environments instead of requesting slots explicitly")):
        res = cell.run("qrsub", "-d", "60", "-l", resources)  # on stdout, as 8.1.9 says it
        assert (res.returncode, res.stdout) == (1, said + "\n"), res
    # garbage on the master's socket: an error answer, and the master keeps serving
    ctx = zmq.Context()
    sock = dealer(ctx, cell)
    oversized = b"\x81\xa1t\xa4ping" + bytes(17 * 1024 * 1024)
    unknown = b"\x82\xa1t\xa6nosuch\xa1v\x01"
    for junk in (b"garbage", b"\x81\xa1t\xa6submit", os.urandom(4096), oversized, unknown):
        sock.send(junk)
        assert sock.poll(5000), "no answer to garbage"
        assert b"error" in sock.recv()
    sock.send_multipart([b"a", b"b", b"c"])
    sock.close(linger=0)
    ctx.term()
    assert cell.ok("qstat") == ""
    job = submit(cell, "-b", "y", "true")
    wait_for(lambda: finished(cell, job), what="master still serving")
    assert len(cell.accounting_lines()) == 1


def test_unreachable_master(cell: Cell):
    env = dict(cell.env, GRIDD_ROOT=str(cell.root / "nowhere"))
    res = cell.run("qstat", env=env)
    assert res.returncode == 1 and "gridd up" in res.stderr
    (cell.root / "nowhere" / "common").mkdir(parents=True)
    (cell.root / "nowhere" / "common" / "master_endpoint").write_text("tcp://127.0.0.1:9\n")
    shutil.copytree(cell.root / "common" / "keys", cell.root / "nowhere" / "common" / "keys")
    for args in (("qstat",), ("qsub", "-b", "y", "true"), ("qdel", "1")):
        res = cell.run(*args, env=env)
        assert res.returncode == 1, res
        assert "unable to contact qmaster" in res.stderr and "Traceback" not in res.stderr


def test_kill_master_while_jobs_run_loses_and_duplicates_nothing(cell: Cell):
    ids = [submit(cell, "-b", "y", "sleep", "2") for _ in range(6)]
    wait_for(lambda: cell.ok("qstat").count(" r ") == 4, what="four running")
    os.kill(cell.master_pid(), signal.SIGKILL)
    wait_for(lambda: cell.run("qstat").returncode != 0, what="master gone")
    cell.start_master()
    wait_for(lambda: all(finished(cell, j) for j in ids), timeout=60, what="all jobs done")
    numbers = [int(ln.split(":")[5]) for ln in cell.accounting_lines()]
    assert sorted(numbers) == ids
    later = submit(cell, "-b", "y", "true")
    assert later > max(ids)  # no id reused after the restart


def test_qconf_lists_survive_a_master_restart(cell: Cell):
    res = cell.run("qconf", "-am", "alice")
    assert res.returncode == 0 and res.stderr.endswith('added "alice" to manager list\n')
    cell.ok("qconf", "-au", "bob", "arusers")
    os.kill(cell.master_pid(), signal.SIGKILL)
    wait_for(lambda: cell.run("qstat").returncode != 0, what="master gone")
    cell.start_master()
    wait_for(lambda: cell.run("qconf", "-sm").returncode == 0, what="master back")
    assert "alice" in cell.ok("qconf", "-sm").split()
    assert cell.ok("qconf", "-su", "arusers").splitlines()[-1] == "entries bob"
    res = cell.run("qconf", "-bogus")
    assert res.returncode == 1 and 'invalid option argument "-bogus"' in res.stderr

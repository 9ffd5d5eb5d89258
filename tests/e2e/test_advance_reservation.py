"""Advance reservations through the real commands (qrsub, qrstat, qrdel, qsub -ar, qstat -f,
qacct), against spec/advance-reservation.txt and the outputs of Grid Engine 8.1.9 in
reference/sge-8.1.9/transcripts/advance_reservation.txt. The tests that need other Unix
users are in test_ar_users.py.

ARs here are short (seconds) where the test waits for their end, and every wait is on a
condition.
"""

from __future__ import annotations

import os
import re
import signal
import time
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from pathlib import Path

import pytest

from gridd.pidfile import alive
from tests.e2e.conftest import Cell, make_cell, wait_for
from tests.e2e.test_cell import finished, submit

GRANTED = re.compile(r"^Your advance reservation (\d+) has been granted$")
NO_SUITABLE = "advance_reservation: no suitable queues\n"
OVERVIEW_HEAD = ("ar-id   name       owner        state start at             end at"
                 "               duration\n" + "-" * 90 + "\n")
DATE = r"\d\d/\d\d/\d{4} \d\d:\d\d:\d\d"


def qrsub(cell: Cell, *args: str) -> int:
    out = cell.ok("qrsub", *args)
    match = GRANTED.match(out.strip())
    assert match, out
    return int(match.group(1))


def overview_row(ar: int, owner: str, state: str, duration: str, name: str = "") -> str:
    """A qrstat overview row, the dates left as patterns."""
    return (rf"{ar:>7} {re.escape(f'{name:<10}')} {re.escape(f'{owner:<12}')} "
            rf"{re.escape(f'{state:<5}')} ({DATE})  ({DATE})  {re.escape(duration)}")


def ar_state(cell: Cell, ar: int) -> str | None:
    """The AR's state in `qrstat -u '*'`, None once it is gone."""
    for line in cell.ok("qrstat", "-u", "*").splitlines()[2:]:
        fields = line.split()
        if fields and fields[0] == str(ar):
            return fields[-6]  # the name may be blank: counted from the end
    return None


def job_state(cell: Cell, job: int) -> str | None:
    for line in cell.ok("qstat", "-u", "*").splitlines()[2:]:
        fields = line.split()
        if fields[0] == str(job):
            return fields[4]
    return None


def instance_line(cell: Cell, instance: str) -> str:
    return next(ln for ln in cell.ok("qstat", "-f").splitlines() if ln.startswith(instance))


def editor(cell: Cell, tmp_path: Path, sed: str) -> dict[str, str]:
    """An $EDITOR that applies the sed program `sed` to the file it is given."""
    script = tmp_path / "editor.sh"
    script.write_text('#!/bin/sh\nsed -i "$SEDX" "$1"\n')
    script.chmod(0o755)
    return dict(cell.env, EDITOR=str(script), SEDX=sed)


def set_global_conf(cell: Cell, tmp_path: Path, sed: str) -> None:
    res = cell.run("qconf", "-mconf", env=editor(cell, tmp_path, sed))
    assert res.returncode == 0, res.stderr
    assert res.stderr.endswith('modified "global" in configuration list\n'), res.stderr


def local_date_time(when: float) -> str:
    """[[CC]YY]MMDDhhmm[.SS] for qrsub -a, in local time."""
    return time.strftime("%Y%m%d%H%M.%S", time.localtime(when))


@pytest.fixture
def small_cell(tmp_path: Path) -> Iterator[Cell]:
    """Two hosts with one slot each: the spec's example of jobs without a run-time limit."""
    yield from make_cell(tmp_path, hosts=2, slots=1)


@pytest.fixture(scope="module")
def quiet_cell(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cell]:
    """One cell for the tests that are refused and leave nothing behind."""
    yield from make_cell(tmp_path_factory.mktemp("quiet"), hosts=2, slots=2)


@pytest.fixture
def one_host(tmp_path: Path) -> Iterator[Cell]:
    """One host with four slots, like the reference's all.q@vm."""
    yield from make_cell(tmp_path, hosts=1, slots=4)


# ---- 1. qrsub and qrstat ----------------------------------------------------------------

def test_qrsub_as_root_is_granted(cell: Cell):
    res = cell.run("qrsub", "-d", "0:10:0")
    assert (res.returncode, res.stdout, res.stderr) == (
        0, "Your advance reservation 1 has been granted\n", "")


def test_qrstat_overview_lists_the_reservation(cell: Cell):
    qrsub(cell, "-d", "0:10:0")
    out = cell.ok("qrstat")
    assert out.startswith(OVERVIEW_HEAD), out
    rows = out[len(OVERVIEW_HEAD):].splitlines()
    assert len(rows) == 1, out
    match = re.fullmatch(overview_row(1, "root", "r", "00:10:00"), rows[0])
    assert match, rows[0]
    start, end = (time.mktime(time.strptime(d, "%m/%d/%Y %H:%M:%S")) for d in match.groups())
    assert end - start == 600
    assert abs(start - time.time()) < 60
    # -u '*' shows everybody's; here only root has one
    assert cell.ok("qrstat", "-u", "*") == out
    assert cell.ok("qrstat", "-u", "root") == out


def test_qrstat_ar_block_has_the_reference_fields_in_order(cell: Cell):
    qrsub(cell, "-d", "0:10:0")
    lines = cell.ok("qrstat", "-ar", "1").splitlines()
    assert lines[0] == "-" * 80
    fields = [(ln[:30].rstrip(), ln[31:]) for ln in lines[1:]]
    assert [name for name, _ in fields] == [
        "id", "name", "owner", "state", "start_time", "end_time", "duration",
        "submission_time", "group", "account", "granted_slots_list"]
    values = dict(fields)
    # each line is the name in 30 columns, a blank, the value
    assert lines[1:] == [f"{name:<30} {value}" for name, value in fields]
    assert values["id"] == "1"
    assert values["name"] == "" and lines[2] == "name" + " " * 27
    assert values["owner"] == "root"
    assert values["state"] == "r"
    assert re.fullmatch(DATE, values["start_time"]) and re.fullmatch(DATE, values["end_time"])
    assert re.fullmatch(DATE, values["submission_time"])
    assert values["duration"] == "00:10:00"
    assert values["group"] == "root"
    assert values["account"] == "sge"
    assert re.fullmatch(r"all\.q@node[12]=1", values["granted_slots_list"]), values


def test_qrstat_xml_is_well_formed(cell: Cell):
    qrsub(cell, "-d", "0:10:0")
    out = cell.ok("qrstat", "-xml")
    assert out.startswith("<?xml version='1.0'?>\n"), out
    root = ET.fromstring(out)
    assert root.tag == "qrstat"
    summaries = root.findall("ar_summary")
    assert len(summaries) == 1
    ar = summaries[0]
    assert [child.tag for child in ar] == [
        "id", "name", "owner", "state", "start_time", "end_time", "duration"]
    assert ar.findtext("id") == "1"
    assert ar.findtext("name") == ""
    assert ar.findtext("owner") == "root"
    assert ar.findtext("state") == "r"
    assert ar.findtext("duration") == "00:10:00"
    for tag in ("start_time", "end_time"):
        assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d", ar.findtext(tag) or ""), tag

    detail = ET.fromstring(cell.ok("qrstat", "-ar", "1", "-xml")).find("ar_summary")
    assert detail is not None
    assert [child.tag for child in detail] == [
        "id", "name", "owner", "state", "start_time", "end_time", "duration",
        "submission_time", "group", "account", "granted_slots_list"]
    slots = detail.findall("granted_slots_list/granted_slots")
    assert len(slots) == 1
    assert re.fullmatch(r"all\.q@node[12]", slots[0].get("queue_instance", ""))
    assert slots[0].get("slots") == "1"


def test_two_reservations_share_a_queue_instance(one_host: Cell):
    # The reference: two one-slot ARs both on all.q@vm, qstat -f shows resv 2 of 4.
    assert qrsub(one_host, "-d", "0:10:0") == 1
    assert qrsub(one_host, "-d", "0:10:0") == 2
    assert re.match(r"all\.q@node1\s+BIP\s+2/0/4\s", instance_line(one_host, "all.q@node1"))
    res = one_host.run("qrsub", "-pe", "mpi", "3", "-d", "0:10:0")  # two slots are left
    assert (res.returncode, res.stdout) == (1, NO_SUITABLE)


# ---- 3. max_advance_reservations ------------------------------------------------------

def test_max_advance_reservations_limits_the_cluster(cell: Cell, tmp_path: Path):
    assert "max_advance_reservations" not in cell.ok("qconf", "-sconf")
    set_global_conf(cell, tmp_path, "$a max_advance_reservations 1")
    assert re.search(r"^max_advance_reservations\s+1$", cell.ok("qconf", "-sconf"), re.M)
    qrsub(cell, "-d", "0:10:0")
    res = cell.run("qrsub", "-d", "0:01:00")
    assert (res.returncode, res.stdout) == (
        25, "rejected: only 1 advance reservations are allowed per cluster\n")
    # Changing it takes immediate effect.
    set_global_conf(cell, tmp_path, "s/^max_advance_reservations .*/max_advance_reservations 2/")
    assert qrsub(cell, "-d", "0:01:00") == 2


# ---- 4. refusals ----------------------------------------------------------------------

@pytest.mark.parametrize("args, message", [
    (("-pe", "nosuch", "2", "-d", "0:10:0"),
     'job rejected: the requested parallel environment "nosuch" does not exist'),
    (("-a", "01010000", "-d", "0:10:0"), "start time is in the past"),
    (("-d", "0:10:0", "-q", "nosuch.q"),
     'Job was rejected because job requests unknown queue "nosuch.q"'),
    (("-pe", "mpi", "99", "-d", "0:10:0"), "advance_reservation: no suitable queues"),
])
def test_qrsub_refusals(quiet_cell: Cell, args: tuple[str, ...], message: str):
    res = quiet_cell.run("qrsub", *args)
    assert (res.returncode, res.stdout, res.stderr) == (1, message + "\n", "")
    assert quiet_cell.ok("qrstat", "-u", "*") == ""


# ---- 5. qsub -ar ----------------------------------------------------------------------

def test_qsub_into_an_unknown_reservation_is_refused(quiet_cell: Cell):
    res = quiet_cell.run("qsub", "-ar", "99", "-b", "y", "sleep", "30")
    assert (res.returncode, res.stdout, res.stderr) == (
        1, "", "Unable to run job: the advance reservation id 99 is invalid\nExiting.\n")


def test_qsub_longer_than_the_reservation_is_refused(cell: Cell):
    ar = qrsub(cell, "-d", "0:10:0")
    for extra in ((), ("-w", "e")):
        res = cell.run("qsub", "-ar", str(ar), *extra, "-l", "h_rt=1:00:00", "-b", "y",
                       "sleep", "30")
        assert (res.returncode, res.stdout, res.stderr) == (
            1, "", "Unable to run job: the job duration is longer than duration of the "
                   f"advance reservation id {ar}\nExiting.\n")
    assert cell.ok("qstat", "-u", "*") == ""


def test_job_in_the_reservation_runs_and_qstat_shows_resv(cell: Cell):
    ar = qrsub(cell, "-d", "0:10:0")
    values = dict(ln.split(None, 1) for ln in cell.ok("qrstat", "-ar", str(ar)).splitlines()[1:]
                  if len(ln.split(None, 1)) == 2)
    instance = values["granted_slots_list"].split("=")[0]
    assert re.match(rf"{re.escape(instance)}\s+BIP\s+1/0/2\s", instance_line(cell, instance))
    job = submit(cell, "-ar", str(ar), "-o", "/dev/null", "-j", "y", "-b", "y", "sleep", "300")
    wait_for(lambda: job_state(cell, job) == "r", what="the AR job to run")
    assert re.match(rf"{re.escape(instance)}\s+BIP\s+1/1/2\s", instance_line(cell, instance))
    rows = cell.ok("qstat").splitlines()[2:]
    assert any(ln.split()[0] == str(job) and ln.split()[7] == instance for ln in rows), rows
    details = cell.ok("qstat", "-j", str(job))
    assert re.search(rf"^ar_id:\s+{ar}$", details, re.M), details
    cell.ok("qdel", str(job))


# ---- 6. jobs without a run-time limit and ARs keep apart -----------------------------

def test_reservations_avoid_jobs_without_runtime_limit(small_cell: Cell):
    cell = small_cell
    job = submit(cell, "-l", "h=node1", "-o", "/dev/null", "-j", "y", "-b", "y",
                 "sleep", "300")
    wait_for(lambda: job_state(cell, job) == "r", what="the job without h_rt to run")
    res = cell.run("qrsub", "-d", "0:30:0", "-q", "all.q@node1")
    assert (res.returncode, res.stdout) == (1, NO_SUITABLE)
    # Even an AR that starts later: the job may still run then.
    later = local_date_time(time.time() + 3600)
    res = cell.run("qrsub", "-a", later, "-d", "0:30:0", "-q", "all.q@node1")
    assert (res.returncode, res.stdout) == (1, NO_SUITABLE)
    ar = qrsub(cell, "-d", "0:30:0", "-q", "all.q@node2")
    assert ar == 1
    res = cell.run("qsub", "-w", "e", "-l", "h=node2", "-b", "y", "sleep", "1")
    assert (res.returncode, res.stdout, res.stderr) == (
        1, "", "Unable to run job: error: no suitable queues\nExiting.\n")
    # With a run-time limit the job could run there (qsub -w e: on an empty cluster).
    res = cell.run("qsub", "-w", "e", "-l", "h=node2,h_rt=10", "-o", "/dev/null", "-j", "y",
                   "-b", "y", "sleep", "1")
    assert res.returncode == 0, res.stderr
    assert re.fullmatch(r'Your job \d+ \("sleep"\) has been submitted\n', res.stdout)


# ---- 8. lifecycle and reporting -------------------------------------------------------

def reporting_lines(cell: Cell, ar: int) -> list[list[str]]:
    path = cell.root / "common" / "reporting"
    if not path.exists():
        return []
    out = []
    for line in path.read_text().splitlines():
        fields = line.split(":")
        if len(fields) > 4 and fields[1] in ("new_ar", "ar_attr", "ar_log", "ar_acct"):
            number = fields[3] if fields[1] == "new_ar" else fields[4]
            if number == str(ar):
                out.append(fields)
    return out


def test_reservation_ends_deletes_its_jobs_and_is_reported(cell: Cell, tmp_path: Path):
    set_global_conf(cell, tmp_path, "s/reporting=false/reporting=true/;"
                                    "s/flush_time=[0-9:]*/flush_time=00:00:01/")
    before = int(time.time())
    ar = qrsub(cell, "-N", "small", "-d", "0:0:6", "-pe", "smp", "2")
    assert ar_state(cell, ar) == "r"
    long_job = submit(cell, "-ar", str(ar), "-o", "/dev/null", "-j", "y", "-b", "y",
                      "sleep", "300")
    short_job = submit(cell, "-ar", str(ar), "-o", "/dev/null", "-j", "y", "-b", "y",
                       "sleep", "1")
    wait_for(lambda: finished(cell, short_job), what="the short AR job to finish")
    assert job_state(cell, long_job) == "r"
    out = cell.ok("qacct", "-j", str(short_job))
    assert re.search(rf"^arid\s+{ar}\s*$", out, re.M), out
    assert re.search(r"^ar_sub_time\s+\w{3} \w{3} +\d+ \d\d:\d\d:\d\d \d{4}\s*$", out, re.M), out

    # At its end the AR's jobs go, then the AR itself.
    wait_for(lambda: job_state(cell, long_job) is None, timeout=30,
             what="the job without h_rt deleted at the AR's end")
    wait_for(lambda: ar_state(cell, ar) is None, timeout=30, what="the AR gone")
    assert cell.ok("qrstat", "-u", "*") == ""
    after = int(time.time())

    def complete() -> list[list[str]] | None:
        lines = reporting_lines(cell, ar)
        return lines if any(f[1] == "ar_acct" for f in lines) else None

    lines = wait_for(complete, what="the ar_acct record")
    assert isinstance(lines, list)
    assert [f[1] for f in lines] == ["new_ar", "ar_attr", "ar_log", "ar_log", "ar_acct"], lines
    new_ar, attr, started, ended, acct = lines
    sub = new_ar[2]
    assert before <= int(sub) <= after
    assert new_ar[3:] == [str(ar), "root"]
    # ar_attr: event, submission, number, name, account, start, end, granted PE, resources
    assert attr[3:6] == [sub, str(ar), "small"] and attr[6] == "sge"
    assert int(attr[8]) - int(attr[7]) == 6
    assert attr[9:] == ["smp", "NONE"]
    assert started[3:] == [sub, str(ar), "r", "START TIME REACHED", "start time of AR reached"]
    assert ended[3:] == [sub, str(ar), "x", "TERMINATED", "end time of AR reached"]
    assert int(ended[2]) >= int(attr[8])
    assert acct[3:5] == [sub, str(ar)]
    assert acct[5] == "all.q" and re.fullmatch(r"node[12]", acct[6]) and acct[7] == "2", acct


def test_future_reservation_waits_then_starts_with_its_jobs(cell: Cell):
    start = int(time.time()) + 4
    ar = qrsub(cell, "-a", local_date_time(start), "-d", "0:0:20")
    assert ar_state(cell, ar) == "w"
    assert re.fullmatch(overview_row(ar, "root", "w", "00:00:20") + r"\n",
                        cell.ok("qrstat").splitlines(keepends=True)[2])
    job = submit(cell, "-ar", str(ar), "-o", "/dev/null", "-j", "y", "-b", "y", "true")
    assert job_state(cell, job) == "qw"
    # qstat -f counts an AR's slots as reserved only once its window is open
    assert all(re.match(r"all\.q@node\d\s+BIP\s+0/0/2\s", ln)
               for ln in cell.ok("qstat", "-f").splitlines() if ln.startswith("all.q@"))
    wait_for(lambda: ar_state(cell, ar) == "r", timeout=20, what="the AR to start")
    wait_for(lambda: finished(cell, job), timeout=20, what="the AR job to run")
    out = cell.ok("qacct", "-j", str(job))
    started = re.search(r"^start_time\s+(.+?)\s*$", out, re.M)
    assert started, out
    assert time.mktime(time.strptime(started.group(1), "%a %b %d %H:%M:%S %Y")) >= start
    assert re.search(rf"^arid\s+{ar}\s*$", out, re.M), out


# ---- 9. qrdel -------------------------------------------------------------------------

def test_qrdel_of_a_reservation_without_jobs(cell: Cell):
    ar = qrsub(cell, "-d", "0:10:0")
    res = cell.run("qrdel", str(ar))
    assert (res.returncode, res.stdout) == (0, f"root has deleted advance_reservation {ar}\n")
    assert cell.ok("qrstat", "-u", "*") == ""
    res = cell.run("qrdel", "99")
    assert (res.returncode, res.stdout) == (1, 'denied: advance_reservation "99" does not exist\n')


def test_qrdel_with_a_running_job_waits_for_it(cell: Cell):
    ar = qrsub(cell, "-d", "0:10:0")
    job = submit(cell, "-ar", str(ar), "-o", "/dev/null", "-j", "y", "-b", "y",
                 "sleep", "300")
    wait_for(lambda: job_state(cell, job) == "r", what="the AR job to run")
    host = next(ln.split()[7] for ln in cell.ok("qstat").splitlines()[2:]
                if ln.split()[0] == str(job)).split("@")[1]
    # The job's execution daemon is held still, so the job cannot be gone before we look.
    execd = int((cell.root / "spool" / host / "execd.pid").read_text().split()[0])
    os.kill(execd, signal.SIGSTOP)
    try:
        res = cell.run("qrdel", str(ar))
        assert (res.returncode, res.stdout) == (
            0, f"root has registered the advance_reservation {ar} for deletion\n")
        assert ar_state(cell, ar) == "d"
        assert re.fullmatch(overview_row(ar, "root", "d", "00:10:00") + r"\n",
                            cell.ok("qrstat").splitlines(keepends=True)[2])
        assert job_state(cell, job) == "dr"
    finally:
        os.kill(execd, signal.SIGCONT)
    wait_for(lambda: job_state(cell, job) is None, what="the AR's job gone")
    wait_for(lambda: ar_state(cell, ar) is None, what="the AR gone after its job")


# ---- 10. restart ----------------------------------------------------------------------

def test_reservation_survives_a_master_restart(cell: Cell):
    ar = qrsub(cell, "-N", "kept", "-d", "0:10:0")
    block = cell.ok("qrstat", "-ar", str(ar))
    pid = cell.master_pid()
    os.kill(pid, signal.SIGTERM)
    wait_for(lambda: not alive(pid), what="the master to stop")
    cell.start_master()
    wait_for(lambda: cell.run("qrstat", "-u", "*").returncode == 0, what="the master back")
    assert cell.ok("qrstat", "-ar", str(ar)) == block
    assert qrsub(cell, "-d", "0:10:0") == ar + 1

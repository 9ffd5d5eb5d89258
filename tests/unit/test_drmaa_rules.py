"""DRMAA's rules without a cell (gridd.drmaa): job ids, templates and the qsub words they
make, times, and how a task's end reads through drmaa_wait and drmaa_job_ps, as Grid
Engine 8.1.9's library answers (../shared notes: measured on its libdrmaa)."""

from __future__ import annotations

import calendar
import time

import pytest

from gridd import protocol as p
from gridd.drmaa import codes as c
from gridd.drmaa import session as s
from gridd.drmaa.codes import DrmaaError
from gridd.drmaa.template import Template, parse_duration, parse_time, qsub_words
from gridd.model.job import Usage

NOW = calendar.timegm((2026, 11, 28, 12, 0, 0, 0, 0, 0))


def _code(call, *args) -> int:
    with pytest.raises(DrmaaError) as caught:
        call(*args)
    return caught.value.code


def test_job_ids_are_numbers_with_an_optional_task():
    assert s.parse_job_id("12") == (12, 0) and s.parse_job_id("12.3") == (12, 3)
    assert s.job_id_text((12, 0)) == "12" and s.job_id_text((12, 3)) == "12.3"
    for bad in ("abc", "", "0", "1.x", "-1", c.JOB_IDS_SESSION_ANY):
        with pytest.raises(DrmaaError) as caught:
            s.parse_job_id(bad)
        assert caught.value.code == c.INVALID_ARGUMENT
        assert caught.value.text == f'Job id, "{bad}", is not a valid job id'


def _ended(**kw) -> p.TaskEnded:
    base = dict(job_id=5, task_id=0, ran=True, submit_time=10.0, start_time=11.0,
                end_time=13.0, usage=Usage(utime=1.5, stime=0.5, wallclock=2.0, maxrss=900))
    base.update(kw)
    return p.TaskEnded(**base)


def test_stat_reads_as_grid_engines():
    exited = s.stat_of(_ended(exit_status=7))
    assert exited == 113  # as 8.1.9's: exited (1), status 7 above the four flag bits
    assert s.exited(exited) and s.exit_status(exited) == 7 and not s.signaled(exited)
    assert not s.aborted(exited) and s.term_signal(exited) == ""
    killed = s.stat_of(_ended(exit_status=139, signal="SIGSEGV"))
    assert s.signaled(killed) and s.term_signal(killed) == "SIGSEGV"
    assert not s.exited(killed) and s.exit_status(killed) == 0
    for never in (_ended(ran=False, deleted=True), _ended(ran=False, failed=26),
                  _ended(deleted=True, signal="SIGKILL", exit_status=137, failed=100)):
        stat = s.stat_of(never)  # a drmaa_control terminate aborts, as in Grid Engine
        assert stat == 8 and s.aborted(stat) and not s.exited(stat) and not s.signaled(stat)
    assert not s.core_dumped(killed)


def test_rusage_has_grid_engines_names_in_its_order():
    used = s.rusage(_ended(exit_status=3, priority=-10))
    names = [entry.split("=")[0] for entry in used]
    assert names == [
        "io", "iow", "mem", "cpu", "vmem", "maxvmem", "submission_time", "priority",
        "exit_status", "signal", "start_time", "end_time", "ru_wallclock", "ru_utime",
        "ru_stime", "ru_maxrss", "ru_ixrss", "ru_ismrss", "ru_idrss", "ru_isrss", "ru_minflt",
        "ru_majflt", "ru_nswap", "ru_inblock", "ru_oublock", "ru_msgsnd", "ru_msgrcv",
        "ru_nsignals", "ru_nvcsw", "ru_nivcsw", "acct_cpu", "acct_mem", "acct_io",
        "acct_iow", "acct_maxvmem"]
    values = dict(entry.split("=") for entry in used)
    assert values["cpu"] == "2.0000" and values["exit_status"] == "3.0000"
    assert values["priority"] == "-10.0000" and values["ru_maxrss"] == "900.0000"
    assert s.rusage(_ended(ran=False, failed=26))[-1] == "priority=0.0000"
    assert len(s.rusage(_ended(ran=False, failed=26))) == 8  # failed to start
    assert s.rusage(_ended(ran=False, deleted=True)) is None  # never started


@pytest.mark.parametrize(("letters", "holds", "state"), [
    ("qw", "", c.PS_QUEUED_ACTIVE), ("Rq", "", c.PS_QUEUED_ACTIVE),
    ("hqw", "u", c.PS_USER_ON_HOLD), ("hqw", "s", c.PS_SYSTEM_ON_HOLD),
    ("hqw", "o", c.PS_SYSTEM_ON_HOLD), ("hqw", "uo", c.PS_USER_SYSTEM_ON_HOLD),
    ("hqw", "", c.PS_SYSTEM_ON_HOLD),  # held back by a dependency
    ("Eqw", "", c.PS_SYSTEM_ON_HOLD),
    ("r", "", c.PS_RUNNING), ("t", "", c.PS_RUNNING), ("dr", "", c.PS_RUNNING),
    ("Rr", "", c.PS_RUNNING), ("hr", "u", c.PS_USER_ON_HOLD),  # a hold comes first
    ("s", "", c.PS_USER_SUSPENDED), ("S", "", c.PS_SYSTEM_SUSPENDED),
    ("T", "", c.PS_SYSTEM_SUSPENDED), ("Ss", "", c.PS_USER_SYSTEM_SUSPENDED),
])
def test_job_ps_reads_qstats_letters(letters: str, holds: str, state: int):
    assert s._state(letters, holds) == state


def test_template_attributes_are_checked_as_they_are_set():
    jt = Template()
    assert _code(jt.set, "drmaa_no_such", "x") == c.INVALID_ARGUMENT
    assert _code(jt.set, "drmaa_v_argv", "x") == c.INVALID_ARGUMENT
    assert _code(jt.set, "drmaa_wd", None) == c.INVALID_ARGUMENT
    assert _code(jt.set_vector, "drmaa_wd", ["x"]) == c.INVALID_ARGUMENT
    with pytest.raises(DrmaaError) as caught:
        jt.set("drmaa_join_files", "x")
    assert (caught.value.code, caught.value.text) == (
        c.INVALID_ATTRIBUTE_VALUE, 'attribute "drmaa_join_files" must be either "y" or "n"')
    assert _code(jt.set, "drmaa_js_state", "bad") == c.INVALID_ATTRIBUTE_VALUE
    assert _code(jt.set, "drmaa_start_time", "soon") == c.INVALID_ATTRIBUTE_FORMAT
    assert _code(jt.set, "drmaa_wct_hlimit", "1:x") == c.INVALID_ATTRIBUTE_FORMAT
    assert _code(jt.set_vector, "drmaa_v_env", ["NOEQUALS"]) == c.INVALID_ATTRIBUTE_FORMAT
    assert _code(jt.get, "drmaa_wd") == c.INVALID_ATTRIBUTE_VALUE  # not set
    assert _code(jt.get_vector, "drmaa_v_env") == c.INVALID_ATTRIBUTE_VALUE
    jt.set("drmaa_wd", "/tmp")
    jt.set_vector("drmaa_v_argv", ["a", "b"])
    assert jt.get("drmaa_wd") == "/tmp" and jt.get_vector("drmaa_v_argv") == ["a", "b"]
    assert jt.scalars == {"drmaa_wd": "/tmp"}  # what was refused was not kept


def test_a_template_is_qsubs_words():
    jt = Template()
    assert _code(qsub_words, jt, "/home/u", NOW, None, {}) == c.DENIED_BY_DRM
    jt.set("drmaa_remote_command", "/bin/sleep")
    jt.set_vector("drmaa_v_argv", ["-x", "10"])
    assert qsub_words(jt, "/home/u", NOW, None, {}) == [
        "-b", "y", "-shell", "n", "-w", "e", "/bin/sleep", "-x", "10"]
    jt.set("drmaa_native_specification", "-N native -l h_vmem=1G")
    jt.set("drmaa_job_category", "big")
    jt.set("drmaa_job_name", "mine")
    jt.set("drmaa_js_state", "drmaa_hold")
    jt.set("drmaa_wd", "$drmaa_hd_ph$/work")
    jt.set("drmaa_output_path", ":$drmaa_wd_ph$/out.$drmaa_incr_ph$")
    jt.set("drmaa_error_path", "node1:$drmaa_hd_ph$/err")
    jt.set("drmaa_join_files", "n")
    jt.set("drmaa_block_email", "1")
    jt.set("drmaa_wct_hlimit", "1:30")
    jt.set("drmaa_duration_slimit", "2:00:05")
    words = qsub_words(jt, "/home/u", NOW, (1, 9, 2), {"big": "-pe mpi 4 -R y"})
    assert words == [
        "-b", "y", "-shell", "n", "-w", "e", "-pe", "mpi", "4", "-R", "y",
        "-N", "native", "-l", "h_vmem=1G",  # the attributes after: -N mine wins
        "-wd", "/home/u/work", "-N", "mine", "-h",
        "-o", "/home/u/work/out.$TASK_ID", "-e", "node1:$HOME/err", "-j", "n", "-m", "n",
        "-l", "h_rt=0:01:30", "-l", "s_cpu=2:00:05", "-t", "1-9:2",
        "/bin/sleep", "-x", "10"]
    jt.set("drmaa_input_path", "/no/colon")
    with pytest.raises(DrmaaError) as caught:
        qsub_words(jt, "/home/u", NOW, None, {})
    assert (caught.value.code, caught.value.text) == (
        c.INVALID_ARGUMENT, "The \"drmaa_input_path\" attribute must begin with a colon, ':'")


def test_drmaa_times():
    assert parse_duration("45") == 45 and parse_duration("2:05") == 125
    assert parse_duration("1:00:01") == 3601
    assert parse_time("2026/12/01 10:30:15 +01:00", NOW) == calendar.timegm(
        (2026, 12, 1, 9, 30, 15, 0, 0, 0))
    assert parse_time("26/12/01 10:30 -00:30", NOW) == calendar.timegm(
        (2026, 12, 1, 11, 0, 0, 0, 0, 0))
    today = time.localtime(NOW)
    assert time.localtime(parse_time("10:30", NOW))[:5] == (
        today.tm_year, today.tm_mon, today.tm_mday, 10, 30)
    assert time.localtime(parse_time("05 7:08:09", NOW))[2:6] == (5, 7, 8, 9)
    for bad in ("", "10", "25:00", "12/40 10:00", "10:00 +1:00"):
        with pytest.raises(DrmaaError):
            parse_time(bad, NOW)


def test_job_categories_come_from_the_cells_then_the_users_qtask(tmp_path):
    (tmp_path / "cell" / "common").mkdir(parents=True)
    (tmp_path / "home").mkdir()
    (tmp_path / "cell" / "common" / "qtask").write_text(
        "# categories\ntest.cat -N ExitTest -h\n!big -pe mpi 4\n")
    (tmp_path / "home" / ".qtask").write_text("test.cat -N Mine\n")
    assert s.categories(str(tmp_path / "cell"), str(tmp_path / "home")) == {
        "test.cat": "-N Mine", "big": "-pe mpi 4"}
    assert s.categories(str(tmp_path / "none"), str(tmp_path / "none")) == {}
